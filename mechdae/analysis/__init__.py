"""Analysis of a compiled System: linearization in minimal coordinates, trim (equilibria
and steady motions), periodic hybrid orbits through impacts and their Floquet multipliers.

Each job is one module; :class:`~mechdae.symbolic.system.System` exposes them as
``linearize``, ``trim`` and ``periodic_orbit``.
"""
from .linearize import Linearization, linearize
from .trim import Trim, trim
from .orbits import PeriodicOrbit, periodic_orbit

__all__ = ["Linearization", "linearize", "Trim", "trim", "PeriodicOrbit", "periodic_orbit"]
