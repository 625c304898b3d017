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
from __future__ import annotations

import importlib.util
import os
from ._typing import Any, PathLike

__all__ = ["load", "load_module", "build_model"]


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


def build_model(mod, path, **params):
    """Call the model file's ``build(**params)`` and check that it returned a Model.

    Parameters
    ----------
    mod : module
        The model file, from :func:`load_module`.
    path : str
        Its path (named in the error).

    Returns
    -------
    Model

    Raises
    ------
    ValueError
        ``build()`` returned something that is not a Model (``None``: a missing
        ``return``), naming the file, what it returned and the fix.
    """
    model = mod.build(**params)
    if not callable(getattr(model, "compile", None)):
        text = repr(model)
        text = text if len(text) <= 60 else text[:57] + "..."
        hint = " (a missing 'return model'?)" if model is None else ""
        raise ValueError(f"{os.fspath(path)}: build() returned {type(model).__name__} "
                         f"{text}{hint}, not a Model; build(**params) must return the "
                         "md.Model it builds")
    return model


def load(path: PathLike, **params: Any) -> "Model":
    """Build the Model defined in ``path`` by calling its ``build(**params)``.

    Returns
    -------
    Model

    Raises
    ------
    ValueError
        ``build()`` returned something that is not a Model (:func:`build_model`).
    """
    mod = load_module(path)
    return build_model(mod, path, **params)
