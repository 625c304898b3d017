"""mechdae: equation-based modeling of mechanical systems with constraints, impacts and
dry friction.

Data path (see docs/ and DESIGN): ``Model`` (DSL) --compile()--> ``System``
--simulate()--> ``Result``; ``System.impact()`` / ``System.painleve()`` solve contact
problems in C; ``System.to_casadi()`` exports the stabilized DAE.
"""
from ._version import __version__
from .errors import ModelError, ModelWarning, SolverError, PainleveError, EnergyBalanceWarning

# The compiled extensions (Cython, csrc/): an unbuilt source tree (the repository root on
# sys.path, as with `python -c "import mechdae"` run there) lacks them. Say so, with the fix,
# instead of a bare ModuleNotFoundError. Costs nothing when the import succeeds.
_EXTENSIONS = ("mechdae.lcp._lcp", "mechdae.contact._contact", "mechdae.simulate._step")


def _unbuilt_error(exc):
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    where = (f"the source tree {here} (the repository root {repo} is on sys.path, e.g. "
             "as the current directory)"
             if os.path.isfile(os.path.join(repo, "setup.py")) else f"{here}")
    err = ImportError(
        f"mechdae's compiled extension {exc.name!r} is missing: Python imported mechdae "
        f"from {where}, whose C extensions are not built. Either run from another "
        "directory after `pip install .`, or build them in place with `pip install -e .` "
        "(or `python setup.py build_ext --inplace`).", name=exc.name)
    return err


try:
    from . import lcp
    from . import contact
except ModuleNotFoundError as _exc:
    if _exc.name not in _EXTENSIONS:
        raise
    raise _unbuilt_error(_exc) from _exc

# modeling core: DSL, compile, stabilization, simulation (issue 3)
from .dsl import (Model, der, sin, cos, tan, sqrt, exp, log, atan2, asin, acos, atan,  # noqa: E402
                  sinh, cosh, tanh, fabs, abs, sign, fmin, fmax, if_else, vertcat, horzcat,
                  dot, cross, mtimes, transpose, norm_2, sumsqr, pi)
from .stabilization import Baumgarte, Mukharlyamov, Projection  # noqa: E402
from .symbolic import System  # noqa: E402
from .simulate import Result, Event  # noqa: E402
from .loader import load  # noqa: E402
from .components.core import Component, Connector  # noqa: E402  (the acausal layer, on top)

__all__ = ["__version__", "ModelError", "ModelWarning", "SolverError", "PainleveError",
           "EnergyBalanceWarning", "lcp",
           "Model", "der", "sin", "cos", "tan", "sqrt", "exp", "log", "atan2", "asin", "acos",
           "atan", "sinh", "cosh", "tanh", "fabs", "abs", "sign", "fmin", "fmax", "if_else",
           "vertcat", "horzcat", "dot", "cross", "mtimes", "transpose", "norm_2", "sumsqr", "pi",
           "Baumgarte", "Mukharlyamov", "Projection", "System", "Result", "Event", "load",
           "Component", "Connector"]
