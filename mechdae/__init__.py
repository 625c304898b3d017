"""mechdae: equation-based modeling of mechanical systems with constraints, impacts and
dry friction.

Data path (see docs/ and DESIGN): ``Model`` (DSL) --compile()--> ``System``
--simulate()--> ``Result``; ``System.impact()`` / ``System.painleve()`` solve contact
problems in C; ``System.to_casadi()`` exports the stabilized DAE.
"""
from ._version import __version__
from .errors import ModelError, SolverError, PainleveError
from . import lcp
from . import contact

# modeling core: DSL, compile, stabilization, simulation (issue 3)
from .dsl import (Model, der, sin, cos, tan, sqrt, exp, log, atan2, asin, acos, atan,  # noqa: E402
                  sinh, cosh, tanh, fabs, abs, sign, fmin, fmax, if_else, vertcat, horzcat,
                  dot, cross, mtimes, transpose, norm_2, sumsqr, pi)
from .stabilization import Baumgarte, Mukharlyamov, Projection  # noqa: E402
from .symbolic import System  # noqa: E402
from .simulate import Result, Event  # noqa: E402
from .loader import load  # noqa: E402
from .components.core import Component, Connector  # noqa: E402  (the acausal layer, on top)

__all__ = ["__version__", "ModelError", "SolverError", "PainleveError", "lcp",
           "Model", "der", "sin", "cos", "tan", "sqrt", "exp", "log", "atan2", "asin", "acos",
           "atan", "sinh", "cosh", "tanh", "fabs", "abs", "sign", "fmin", "fmax", "if_else",
           "vertcat", "horzcat", "dot", "cross", "mtimes", "transpose", "norm_2", "sumsqr", "pi",
           "Baumgarte", "Mukharlyamov", "Projection", "System", "Result", "Event", "load",
           "Component", "Connector"]
