"""Exceptions raised by mechdae."""


class ModelError(ValueError):
    """A model is ill-posed; the message names every offending object and the fix.

    Raised by ``Model.compile()`` after validation has collected *all* problems, so a user
    fixes a model in one pass instead of one error at a time; a name declared twice is
    refused where it is declared (the Model would otherwise hold two objects of one name).
    """

    def __init__(self, problems):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        if len(self.problems) == 1:
            msg = self.problems[0]
        else:
            msg = f"{len(self.problems)} problems:\n" + "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(msg)


class SolverError(RuntimeError):
    """A numerical kernel or integrator failed; the message names the cause.

    Raised during a simulation, it carries ``partial``: the Result of the output points
    computed before the failure (``None`` outside a simulation or when nothing could be
    rebuilt); with ``simulate(out=...)`` the file holds the same points.
    """

    partial = None


class PainleveError(SolverError):
    """The contact problem met during a simulation has no consistent solution."""


class ModelWarning(UserWarning):
    """A model compiles and its motion is determined, but a part of it is very likely not
    what was meant (an electrical pin connected to nothing); the message names it and the
    fix."""


class EnergyBalanceWarning(UserWarning):
    """A conservative run's energy ``T + V`` moved far more than its integration
    tolerance allows (:func:`mechdae.simulate.ledger.watch`): the motion left the physics
    somewhere; the message gives the time."""
