"""Load a model file: ``md.load("models/pendulum.py", L=2.0)`` calls its ``build(**params)``.

Model-file convention
---------------------
A model file defines

``build(**params) -> Model``
    Keyword arguments are model options/parameter defaults.
``SIMULATION`` (optional dict)
    Defaults used by ``mechdae run``: ``t_final`` (float), ``q0``/``v0`` (dicts by name),
    ``params`` (dict), ``inputs`` (dict), ``method`` (str), ``stabilization``
    (``md.Baumgarte(...)``, ``md.Mukharlyamov(H, K)``, ``None``), ``rtol``/``atol``,
    ``plot`` (list of series names), ``output_times``; any other key is passed to
    ``System.simulate`` as a method option (e.g. ``dt`` for ``"timestepping"``).
"""
import importlib.util
import os

__all__ = ["load", "load_module"]


def load_module(path):
    """Import a model file as a module (not added to ``sys.modules``)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"model file not found: {path}")
    name = "mechdae_model_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not hasattr(mod, "build"):
        raise ValueError(f"{path}: a model file must define build(**params) -> Model")
    return mod


def load(path, **params):
    """Build the Model defined in ``path`` by calling its ``build(**params)``.

    Returns
    -------
    Model
    """
    mod = load_module(path)
    return mod.build(**params)
