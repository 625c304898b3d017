r"""Ivanov's unified equations of a body on a unilateral support (``method="unified"``).

One set of equations for flight, sustained contact and impacts (seed 003, eqs. 2.7–2.9 and
3.9–3.11), generalized to any compiled model with exactly one unilateral contact (gap
``g(q)``, normal row ``w_n``, tangent rows ``W_t``) and no bilateral constraints:

.. math::

    g = |s|, \qquad \dot g = \mathcal W v \,\mathrm{sign}\, s, \qquad
    \mathcal W = 1 - k\,\mathrm{sign}(s v), \qquad k = \frac{1 - \kappa}{1 + \kappa},

    \dot s = \mathcal W v, \qquad \dot v = \mathcal W^{-1} F\, \mathrm{sign}\, s
    \quad (s = v = 0:\ \dot s = 0,\ \dot v = \max\{0, F\}),

    u = \tilde u + b\, \dot g, \qquad
    \dot{\tilde u} = M^{-1} h - b F - \dot b\, \dot g ,

with ``F = w_n^T M^{-1} h + \dot w_n^T u`` the free gap acceleration (``\ddot g = U N + F``,
2.5) and ``b`` the velocity change of an impact per unit jump of ``\dot g``:
``b = M^{-1}(w_n - \mu W_t^T \sigma) / (w_n^T M^{-1}(w_n - \mu W_t^T \sigma))`` with the
sliding direction ``\sigma = W_t \tilde u / |W_t \tilde u|`` (frictionless: ``\mu = 0``).
``\tilde u`` is the generalization of Ivanov's quasi-velocities ``\dot\pi`` (3.10): it is
continuous through impacts (``P = -H/(1 + \kappa^*)``), so the state ``(q, \tilde u, s, v)``
is continuous for the whole motion and the Newton law ``\dot g^+ = -\kappa \dot g^-``
holds automatically when ``s`` changes sign. In sustained contact the same equation gives
``\dot{\tilde u} = M^{-1}(h + (w_n - \mu W_t^T\sigma)\lambda_n)``, ``\lambda_n = -F/U``.
When sliding stops in contact the contact rolls (stick: ``\dot{\tilde u} = M^{-1}(h + W^T
\lambda)`` with ``W \dot u + \dot W u = 0``), as Ivanov's §3 "straight line" phase.

Integration (our choice, the right-hand side being discontinuous on ``s = 0`` and
``v = 0``): classical RK4 with a fixed step ``dt``; every sign change of ``s`` or ``v``,
the lift-off (``F`` through 0 in contact) and the end of sliding are located by a secant
(Illinois) search on the step length, so each smooth piece is integrated at fourth order.
While sliding in contact the sliding direction is frozen over each step (for a ball on a
plane it is constant: the parabola (3.8)), so the end of sliding is a clean sign change of
``v_t`` along it: located, recorded as a ``"stick"`` event, rolling from there.
When impacts accumulate (the next flight would last less than ``t_snap``) the state is
put on ``s = v = 0`` (the attractor of (2.8)–(2.9), Ivanov's Lyapunov function (2.17)),
recorded as an ``"accumulation"`` event. One CasADi call per RK4 step (Python loop).
Where ``U`` heads for 0 while sliding (Painlevé's jam, force ``-F/U`` unbounded) a step
spanning the singularity returns a meaningless state (a false lift-off, issue 14): the
step is limited to half the time ``U`` needs to reach 0 at its last rate, the jam declared
at ``|U| <= 1e-10 D_nn`` (``D_nn = w_n^T M^{-1} w_n``).

Ivanov's general impact law (3.9) replaces Coulomb's sliding impact with
``impact_map=`` (:mod:`._unified_law`). Where friction makes ``U <= 0`` (Painlevé, which
the paper leaves aside after (3.6)) the run records a ``"painleve"`` event and follows its
``painleve`` rule (:mod:`._unified_painleve`).

Rooms: the CasADi Functions of the equations in :mod:`._unified_equations`, the stepping
loop (steps, event location, events) in :mod:`._unified_run`; this module is the driver.
"""
import time as _time

from ._unified_c import CFunction as _CFunction
from ._unified_equations import check as _check, state0 as _state0, unified_functions
from ._unified_law import impact_map_law
from ._unified_run import UnifiedRun
from .init import initial_state
from .partial import keeps_partial

__all__ = ["simulate_unified", "unified_functions"]


def simulate_unified(system, t_final, q0=None, v0=None, params=None, inputs=None,
                     method="unified", dt=1e-3, t_snap=None, event_tol=1e-13,
                     max_events=100000, output_times=None, painleve=None, impact_map=None,
                     initialize=True, **ignored):
    r"""Integrate Ivanov's unified equations (module docstring) from ``t = 0``.

    Parameters
    ----------
    system : System
        Exactly one contact, no bilateral constraints, no inputs.
    t_final : float
    q0, v0, params : as in :meth:`System.simulate`
    initialize : bool
        A start inside the contact (gap < 0) is projected onto the admissible set
        (``True``, reported in ``res.init_report``) or refused (``False``); see
        :mod:`mechdae.simulate.init_contacts`.
    dt : float
        RK4 step (s).
    t_snap : float, optional
        Accumulation threshold: after an impact whose next flight would be shorter than
        ``t_snap`` the motion continues on the support. Default ``1e-4 * dt``.
    event_tol : float
        Time tolerance of event location (s).
    impact_map : dict, optional
        Ivanov's general impact law (3.9) ``gdot+ = -kappa* gdot-``, ``u+ = u- + gdot- H``:
        ``{"restitution": kappa*, "tangential": r}`` with ``kappa*`` an expression of the
        model's coordinates and parameters (values in (0, 1]) and ``r`` (``n_tangent``
        expressions of coordinates, speeds and parameters, evaluated at the continuous
        speeds ``ut``) the tangential impulse per unit normal impulse, so that
        ``H = -(1 + kappa*) b``, ``b = M^-1 (w_n + W_t^T r) / (w_n^T M^-1 (w_n + W_t^T r))``
        and (3.10) ``P = -H/(1 + kappa*) = b``. Default: the contact's restitution and
        Coulomb sliding ``r = -mu sigma``. A differentiable ``r`` (e.g. ``-mu tanh(v_t /
        v0)``) is what (3.10) asks for; in sustained contact ``r`` is the friction ratio.
    painleve : None, {"liftoff", "stay", "raise"} or dict
        The rule of the Painlevé cases (sliding with ``U <= 0``;
        :mod:`mechdae.simulate._unified_painleve`): each is a ``"painleve"`` event listing
        the alternatives; indeterminate (``F > 0``): lift-off (default, with a
        RuntimeWarning), ``"stay"`` (slide on with ``N = -F/U``) or ``"raise"``;
        inconsistent (``F < 0``, or an impact while sliding with ``U <= 0``):
        :class:`mechdae.PainleveError`. ``"impact"`` is a rule of "event" and "auto" only.

    Returns
    -------
    Result
        ``res.q``, ``res.v`` (the physical speeds ``u``), ``res["unified.s"]``,
        ``res["unified.v"]`` in ``res.x``; events ``"impact"``, ``"apex"``, ``"liftoff"``,
        ``"accumulation"``, ``"stick"``, ``"painleve"``.

    Raises
    ------
    ValueError
        For a model with a number of contacts other than one, a rheonomic contact,
        bilateral constraints or inputs; ``painleve="impact"``.
    PainleveError
        A Painlevé case the ``painleve`` rule does not resolve (``err.partial``: the run
        up to it).
    """
    wall0 = _time.perf_counter()
    _check(system)
    fs = unified_functions(system, impact_map_law(system, impact_map))
    pv = system.param_vector(params)
    qa, ua, _, init_report = initial_state(system, q0, v0, 0.0, pv, initialize)
    x, k, sig = _state0(system, fs, qa, ua, pv)
    if not k < 1.0:
        raise ValueError(f"{system.name}: method 'unified' needs a restitution kappa > 0 at "
                         f"contact '{system.contact_names[0]}' (seed 003: kappa in (0, 1]; "
                         "W = 1 - k sign(s v), k = (1 - kappa)/(1 + kappa), vanishes at "
                         "kappa = 0); use method='event' for a plastic contact")
    stepmon = fs["stepmon"]
    if isinstance(stepmon, _CFunction):
        stepmon = stepmon.fresh()              # arrays of this run only (threads)
    t_final = float(t_final)
    t_snap = 1e-4 * float(dt) if t_snap is None else float(t_snap)
    return UnifiedRun(system, fs, stepmon, pv, x, sig, t_final, dt, t_snap, event_tol,
                      max_events, output_times, painleve, impact_map, params, wall0,
                      init_report).run()


def _register():
    from . import register_method
    register_method("unified", keeps_partial(simulate_unified))


_register()
