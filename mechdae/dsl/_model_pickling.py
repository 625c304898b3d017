"""Pickling a Model (a mixin of :class:`mechdae.Model`).

One job: say what of a Model is pickled. Its symbols and expressions travel as one
serialized CasADi Function (:mod:`mechdae.symbolic.pickling` does that for Models and
Systems alike); this mixin hands the Model to it (:meth:`ModelPickling.__reduce__`) and
gives the Model's state (:meth:`ModelPickling._pickle_state`): a Model whose components
were not flattened yet is refused, and the Component objects of a flattened one are left
out (flattening consumed them: the Model holds every equation, output and name they
produced).
"""
import pickle

__all__ = ["ModelPickling"]


class ModelPickling:
    """Mixin of :class:`mechdae.Model`: pickle support."""

    def __reduce__(self):
        """Pickle support: symbols and expressions travel as one serialized CasADi Function
        (see :mod:`mechdae.symbolic.pickling`); a Model whose components were not flattened
        yet is refused (call :meth:`flatten` first)."""
        from ..symbolic.pickling import dump_payload, load_payload
        return load_payload, (dump_payload(self, self.time),)

    def _pickle_state(self):
        """The attributes pickled (the Model's ``__dict__``, components and connections
        emptied once flattened).

        Raises
        ------
        pickle.PicklingError
            Components that were not flattened yet (call :meth:`flatten` first).
        """
        if self.components and not self._flattened:
            raise pickle.PicklingError(
                f"model '{self.name}' has components that were not flattened yet; call "
                "model.flatten() (or compile()) before pickling it, or pickle the compiled "
                "System")
        state = dict(self.__dict__)
        if self._flattened and self.components:
            # consumed by flattening: every equation, output and name is in the Model
            state["components"] = []
            state["connections"] = []
        return state
