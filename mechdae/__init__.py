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

__all__ = ["__version__", "ModelError", "SolverError", "PainleveError", "lcp"]
