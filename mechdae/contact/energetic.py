r"""What Newton's impact law does when it would create energy (Kane's paradox).

With friction, Newton's kinematic restitution ``v_n+ = -e_n v_n-`` can raise the kinetic
energy although ``e_n, e_t <= 1`` (Kane and Levinson's double pendulum; the rocking block
with ``e >= 0.87`` in about 10 % of random impacts at a corner): the normal rebound is
imposed on a contact whose sticking friction has already taken energy from the tangential
motion and given it back through the coupling of the Delassus matrix.

The rule (option ``energy_gain`` of :meth:`System.simulate` and :meth:`System.impact`):

``"raise"``
    :class:`mechdae.EnergyGainError` (the default of ``System.impact``).
``"fallback"``
    The impact is solved again with the *energy-limited* law: Newton's law with every
    restitution coefficient of the problem scaled by the largest ``s`` in ``[0, 1]``
    (``e_n -> s e_n``, ``e_t -> s e_t``) for which the kinetic energy does not increase.
    ``s = 0`` (a plastic, perfectly rough impact, ``e_n = e_t = 0``) never gains:
    ``dT = P.v+ - P.D P / 2`` with ``P_n v_n+ = 0``, ``P_t.v_t+ <= 0`` and ``D`` positive
    semidefinite, so ``s`` exists; it is found by bisection (to 1e-9) and is 1 whenever
    Newton's law is itself consistent. The result is energetically consistent (no gain),
    keeps the complementarity and Coulomb's cone of Newton's law and the largest rebound
    compatible with them. (It is not Stronge's energetic coefficient, which integrates
    the impact in impulse space; for one contact without friction the two coincide.) In a
    simulation each such impact records an ``"energy_fallback"`` event with the energies
    of both laws (the default of ``simulate``).
"""
import numpy as np

from . import kernels

__all__ = ["ENERGY_GAIN_RULES", "check_rule", "impact_no_gain"]

ENERGY_GAIN_RULES = ("raise", "fallback")


def check_rule(energy_gain):
    if energy_gain not in ENERGY_GAIN_RULES:
        raise ValueError(f"energy_gain must be one of {ENERGY_GAIN_RULES}, got {energy_gain!r}")
    return energy_gain


def _consistent(sol):
    """First solution of ``sol`` that does not gain energy, or None."""
    if sol.status == "inconsistent":
        return None
    cands = sol.solutions if sol.solutions else [sol]
    # strictly no gain (the kernel's own check allows its tolerance): the bisection then
    # stops on the dissipative side of the boundary
    ok = [s for s in cands if np.isfinite(s.P).all() and s.status != "energy_gain"
          and s.energy_change <= 0.0]
    return ok[0] if ok else None


def impact_no_gain(D, v_minus, e_n, e_t, mu, dim, tol=1e-9, bisections=30, **kw):
    """Energy-limited Newton impact (module docstring).

    Returns
    -------
    (ImpactSolution, float)
        A solution that does not gain energy (``energy_change <= 0``) and the scale ``s``
        applied to ``e_n`` and ``e_t``.
    """
    e_n = np.asarray(e_n, float)
    e_t = np.asarray(e_t, float)
    kw = dict(kw, all_solutions=True, energy="report", tol=tol)

    def solve(s):
        return _consistent(kernels.impact(D, v_minus, e_n=s * e_n, e_t=s * e_t, mu=mu,
                                          dim=dim, **kw))
    best = solve(1.0)
    if best is not None:
        return best, 1.0
    lo, hi = 0.0, 1.0
    best = solve(0.0)
    if best is None:       # plastic and rough: never a gain beyond round-off
        sol = kernels.impact(D, v_minus, e_n=0 * e_n, e_t=0 * e_t, mu=mu, dim=dim, **kw)
        return sol, 0.0
    for _ in range(int(bisections)):
        mid = 0.5 * (lo + hi)
        s = solve(mid)
        if s is not None:
            lo, best = mid, s
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return best, lo
