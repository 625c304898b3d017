"""Analysis of a compiled System: linearization in minimal coordinates, trim (equilibria
and steady motions), periodic hybrid orbits through impacts and their Floquet multipliers,
forward sensitivities through impacts.

Each job is one module; :class:`~mechdae.symbolic.system.System` exposes them as
``linearize``, ``trim``, ``periodic_orbit`` and ``simulate(..., sensitivities=[...])``.
"""
from .linearize import Linearization, linearize
from .trim import Trim, trim
from .orbits import PeriodicOrbit, periodic_orbit
from .sensitivity import Sensitivities, sensitivities

__all__ = ["Linearization", "linearize", "Trim", "trim", "PeriodicOrbit", "periodic_orbit",
           "Sensitivities", "sensitivities"]
