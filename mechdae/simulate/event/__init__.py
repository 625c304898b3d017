r"""Event-driven simulation through impacts, sustained contact, stick-slip and Zeno points.

Between events the motion is smooth: the contacts of the current *mode* (one letter per
contact: ``o`` open, ``n`` closed without friction, ``k`` sticking, ``+``/``-`` sliding with
``v_t > 0`` / ``v_t < 0``, ``s`` sliding on a contact with two tangent directions) enter as
bilateral constraints,

.. math::

    M u' = h + G^T \lambda + \sum_{i\ \mathrm{closed}} f_i^T \Lambda_i, \qquad
    w_{n,i}^T u' + \dot w_{n,i}^T u = -2\alpha\, w_{n,i}^T u - \beta^2 g_i ,

with ``f_i = w_n`` (frictionless), ``(w_n, w_t)`` (sticking, plus
``w_t^T u' + \dot w_t^T u = -\gamma w_t^T u``) or ``w_n - \mu\, s\, w_t`` (sliding with
``s = sign v_t``), or ``w_n - \mu\, e^T W_t`` (spatial sliding, ``e = v_t / |v_t|`` the
2-vector direction of the relative tangential velocity, varying along the phase; its sign
is continued across ``v_t = 0`` along the phase's reference direction ``d``, a runtime
parameter, so that the motion stays smooth past the stop and ``d . v_t`` crosses zero
cleanly). Each mode's right-hand side and *event functions* are generated as C (cached
on the System and on disk) and integrated by a C Runge-Kutta integrator
(``csrc/mdae_ode.c``: Dormand-Prince 8(5,3) without a closed contact at tight tolerances,
5(4) otherwise) that samples the event functions on its continuous extension at ``K``
points per *window* and locates the first root, returning to Python only at events; a
stiff stretch, a run without a C compiler or ``phase_integrator="cvodes"`` integrates the
windows with CasADi's cvodes instead (the states at ``K`` sub-samples and the event
functions in one call). The event functions:

- open contact: the gap ``g_i``;
- closed contact: the normal force ``lambda_n,i``;
- sliding contact: ``s v_t,i`` (plane), ``d . v_t,i - |v_t,i| / 2`` (space: fires at the
  stop, or when the direction has turned by 60 degrees, after which ``d`` is renewed);
- sticking contact (finite ``mu``): ``mu lambda_n,i - |lambda_t,i|``.

Each is positive while the mode holds. mechdae locates the first sign change itself —
CasADi's zero-crossing support is not used: the root of the cubic Hermite interpolant of
the event function (values and rates ``e' = de/dx x' + de/dt`` at the sub-samples) seeds
Newton steps on re-integrated states (one Runge-Kutta step from the accepted step's start,
or one cvodes integration, returns ``e`` and ``e'``; usually one or two per event), with
Illinois regula falsi as the fallback; time tolerance
``event_tol`` relative. At a gap event the impact kernel (C) gives the
post-impact speeds; the new mode comes from the acceleration-level contact problem
(:func:`.forces.solve_contact_forces`: the mode enumeration of
:func:`mechdae.contact.kernels.contact_forces`, which also detects Painlevé
inconsistencies, for up to 4 frictional / 8 frictionless contacts; Lemke or NSGS past
that). An impact of several contacts follows the ``impact_law`` (:mod:`.laws`:
simultaneous, or sequential single impacts). Impacts are resolved one by one while they are resolvable: a geometric sequence of impacts at
one contact (Zeno) is followed until the pre-impact speed falls below the velocity
resolution or the predicted remaining time below the event time resolution, then the
contact is closed and an ``"accumulation"`` event recorded at the extrapolated
``t_inf = t_k + dt_k r / (1 - r)`` (:mod:`.accumulation`). Impacts that repeat at several
contacts with pre-impact normal speeds below the velocity resolution (``rest_velocity``,
by default the speed of a drop through ``2 gap_tol``) snap the set of contacts involved to
rest: a plastic impact on all of them, gaps and normal speeds projected to zero,
sustained contact from there (a rocking block settling on both corners).

The package, by concern: :mod:`.phase` (the compiled functions and integrators of a
mode), :mod:`.location` (event location), :mod:`.modes` (mode decisions),
:mod:`.contact_space` (contact space, projections), :mod:`.painleve` (Painlevé cases),
:mod:`.impacts` (impact resolution), :mod:`.laws` (multiple-impact laws), :mod:`.forces`
(the contact-force problem of many contacts), :mod:`.accumulation` (Zeno points, rest),
:mod:`.engine` (the event-to-event loop) with :mod:`.evaluation` (its compiled pieces),
:mod:`.integration` (one mode to its first event) and :mod:`.recording` (its samples),
:mod:`.cycle` (the C event cycle), :mod:`.output` (the Result).
"""
import time as _time

import numpy as np

from ...errors import SolverError
from .. import register_method
from ..init import initial_state
from ..inputs import resolve_inputs
from .._painleve import painleve_rules
from ..partial import (interrupted_error, keeps_partial, on_failure, seeded,
                       sigint_count)
from ..smooth import stabilization_matrices
from .engine import EventEngine, MAX_WINDOW
from .output import build_result
from .phase import ModeSet

__all__ = ["simulate_event", "EventEngine", "ModeSet", "build_result", "event_options",
           "initial_x", "output_grid", "DEFAULTS", "EVENT_RTOL", "EVENT_ATOL", "MAX_WINDOW"]


EVENT_RTOL, EVENT_ATOL = 1e-10, 1e-12   # smooth phases of "event" and "auto" (with contacts)

DEFAULTS = dict(contact_stabilization=(20.0, 100.0, 20.0), samples_per_window=32,
                event_tol=1e-10, gap_tol=1e-8, vel_tol=1e-8, painleve=None, zeno=True,
                max_events=20000, max_step=None, integrator_options=None, n_out=501,
                zeno_action="extrapolate", rest_velocity=None, rest_impacts=2,
                energy_gain="fallback", impact_law="simultaneous", phase_integrator="auto")


def event_options(options, method="event", extra=()):
    """``DEFAULTS`` updated with ``options``; a TypeError names the unknown ones and lists
    the known (``extra``: a calling driver's own option names)."""
    opts = dict(DEFAULTS)
    unknown = set(options) - set(opts)
    if unknown:
        raise TypeError(f"simulate(method={method!r}): unknown option(s) {sorted(unknown)}; "
                        f"options: {', '.join(sorted(set(opts) | set(extra)))}")
    opts.update(options)
    painleve_rules(opts["painleve"])             # a bad rule fails before any work
    return opts


def initial_x(system, q0, v0, t0, pv, initialize):
    """Consistent initial state ``x0 = (q, u, v)`` and the initialization report."""
    qa, ua, va, init_report = initial_state(system, q0, v0, t0, pv, initialize)
    return np.concatenate([qa, ua, va]), init_report


def output_grid(t_final, output_times, n_out):
    """Output times: ``output_times`` (checked increasing) or ``n_out`` points on
    ``[0, t_final]``."""
    if output_times is None:
        if not t_final > 0:
            raise ValueError(f"t_final must be > 0, got {t_final}")
        T, n = float(t_final), int(n_out)
        step = T / (n - 1) if n > 1 else 0.0
        if not step > 0.0:
            return np.linspace(0.0, T, n)
        # np.linspace(0, T, n) bit for bit (k * step, the last point T) without its
        # 10 us of argument handling
        ts = np.arange(n, dtype=float)
        ts *= step
        ts[-1] = T
        return ts
    ts = np.asarray(output_times, dtype=float).ravel()
    if ts.size < 2 or np.any(np.diff(ts) <= 0):
        raise ValueError("output_times must be increasing with at least 2 points")
    return ts


def simulate_event(system, t_final, q0=None, v0=None, params=None, inputs=None, method="event",
                   rtol=EVENT_RTOL, atol=EVENT_ATOL, output_times=None, initialize=True,
                   stabilization="compiled", **options):
    r"""Event-driven simulation of a System with unilateral contacts.

    Parameters
    ----------
    system : System
    t_final : float
        End time (s).
    q0, v0, params, inputs, output_times, initialize, stabilization
        As in :meth:`mechdae.System.simulate`.
    rtol, atol : float
        Tolerances of the smooth phases (defaults tighter than the smooth method's: event
        times inherit the integration error).
    painleve : None, {"liftoff", "stay", "impact", "raise"} or dict
        The rule of the Painlevé cases of the contact problem (:mod:`mechdae.simulate.
        _painleve`), each recorded as a ``"painleve"`` event listing the alternatives.
        Indeterminate (several consistent solutions): ``"liftoff"`` (default, with a
        RuntimeWarning unless chosen), ``"stay"`` (slide on with ``lam_n = -F/U``),
        ``"impact"`` (impact without collision) or ``"raise"``. Inconsistent (none):
        :class:`mechdae.PainleveError` (time, contact, ``U``, ``F``, the alternatives in
        the message and as attributes) unless ``"impact"`` resolves it by an impact
        without collision (an impact problem at zero normal velocity). A dict
        ``{"indeterminate": rule, "inconsistent": rule}`` sets the two separately.
    zeno : bool, "early" or dict
        Accumulations of impacts (:mod:`mechdae.simulate.event.accumulation`). ``True``
        (default): every impact is resolved until the series falls below the method's
        resolution (pre-impact normal speed below ``rest_velocity``, or the remaining time
        ``dt_k r / (1 - r)`` predicted from the measured flight-time ratio ``r`` below the
        event time resolution); then the contact closes (a plastic impact) and an
        ``"accumulation"`` event is recorded at the extrapolated
        ``t_inf = t_k + dt_k r / (1 - r)``. ``"early"`` (or a dict with ``early=True``,
        ``min_impacts`` (5), ``ratio_tol`` (0.05), ``min_flight`` (1e-9 s)) jumps as soon as
        ``min_impacts`` impacts have flight-time ratios agreeing within ``ratio_tol``: fewer
        impacts to resolve, but the body rests from there while the true one still
        bounces until ``t_inf``, and every per-impact quantity (heights, impulses) of the
        remaining bounces is lost. ``False``: no accumulation rule (only the rest
        snapping of ``rest_impacts`` ends a series).
    event_tol : float
        Relative time tolerance of event location (1e-10).
    gap_tol, vel_tol : float
        A contact with ``g <= gap_tol`` touches; normal / sliding speeds below ``vel_tol``
        count as zero.
    rest_velocity : float, optional
        Velocity resolution of impacts: after ``rest_impacts`` (2) successive impacts with
        pre-impact normal speeds below it, the set of contacts involved is snapped to rest
        (plastic impact on all of them, gaps and normal speeds projected to zero, sustained
        contact from there; an ``"accumulation"`` event with ``reason="rest"`` per
        contact). Default ``2 sqrt(2 a_n gap_tol)`` per contact, ``a_n`` its free normal
        acceleration (about 9e-4 m/s under gravity): the limit cycle of a body dropping
        through the gap threshold and bounced back by the contact stabilization.
        ``rest_impacts=0`` turns it off.
    contact_stabilization : (alpha, beta, gamma)
        Baumgarte gains of the closed contacts: ``g'' = -2 alpha g' - beta^2 g`` (normal),
        ``v_t' = -gamma v_t`` (sticking).
    samples_per_window : int
        Sub-samples per integration window where event functions are checked (4).
    max_events : int
        Stop with :class:`mechdae.SolverError` after this many events.
    energy_gain : {"fallback", "raise"}
        When Newton's law with friction would increase the kinetic energy (Kane's
        paradox): solve the impact with the energy-limited law (restitution scaled down
        to the largest value that does not gain energy) and record an
        ``"energy_fallback"`` event (``extra``: ``scale``, ``dT_newton``, ``dT``,
        ``energy_newton``, ``contacts``), default; or raise
        :class:`mechdae.EnergyGainError`. See :mod:`mechdae.contact.energetic`.
    impact_law : {"simultaneous", "sequential"} or dict
        How an impact involving several contacts is resolved (:mod:`.laws`):
        ``"simultaneous"`` (default) one Newton impact problem on every touching contact
        (three-ball cradle, ``e = 1``: ``(-1/3, 2/3, 2/3) v0``); ``"sequential"`` single
        impacts one after the other, the most approaching first (cradle: ``(0, 0, v0)``),
        one ``"impact"`` record per single impact (``extra["law"] = "sequential"``,
        ``extra["step"]``); a dict ``{contact: law}`` sets it per contact (left out:
        simultaneous; the simultaneous contacts of an impact act as one unit of the
        sequence).
    phase_integrator : {"auto", "rk", "cvodes"}
        How the smooth phases are integrated. ``"auto"`` (default): generated C of each
        mode's right-hand side and event functions driven by a C Dormand-Prince 5(4)
        integrator (``csrc/mdae_ode.c``: event functions sampled on its continuous
        extension, roots located by re-integrated steps; Python is called only at events),
        and cvodes for a stretch its stiffness test flags (steps held below
        ``max_step / (8 samples_per_window)`` by stability) or when no C compiler works;
        ``"rk"``: always the C integrator (an error without a compiler); ``"cvodes"``: the
        cvodes windows of CasADi. ``rtol``/``atol`` mean the same in each: an error per
        step below ``atol + rtol |excursion|``. A mode's C is compiled on its first use
        (about 0.4 s each; cached on disk, see :mod:`mechdae.codegen`).
    max_step : float, optional
        Largest window of one integrator call (s; default ``MAX_WINDOW`` = 0.2 s, a fixed
        value independent of ``t_final``); events are looked for at
        ``samples_per_window`` sub-samples of each window.
    n_out : int
        Output points when ``output_times`` is not given (event states are added, before
        and after each event, at equal times).

    Returns
    -------
    Result
        ``res.events`` (impact, liftoff, stick, slide, close, accumulation, painleve),
        ``res.contact_forces[name]`` (N, 1 + n_tangent) forces ``[lambda_n, lambda_t]``,
        ``res.modes`` (mode string per output point).

    Raises
    ------
    PainleveError
        A Painlevé case the ``painleve`` rule does not resolve (inconsistent, by default).
    SolverError
        Too many events or no progress. Every SolverError (PainleveError and
        EnergyGainError included) carries ``err.partial``, the Result up to the failure.

    Examples
    --------
    >>> sys = md.load("models/bouncing_ball.py").compile()          # doctest: +SKIP
    >>> res = sys.simulate(5.0, method="event")                       # doctest: +SKIP
    >>> [e.kind for e in res.events][-1]                              # doctest: +SKIP
    'accumulation'
    """
    wall0 = _time.perf_counter()
    opts = event_options(options)
    specs = resolve_inputs(system, inputs)
    pv = system.param_vector(params)
    H, K, _ = stabilization_matrices(system, stabilization)
    ts = output_grid(t_final, output_times, opts["n_out"])
    x0, init_report = initial_x(system, q0, v0, ts[0], pv, initialize)
    eng = EventEngine(system, specs, pv, H, K, rtol, atol, opts)
    # a failure leaves with the Result of the points recorded so far (err.partial)
    on_failure(lambda err: build_result(seeded(eng, ts[0], x0), system, specs, pv, H, K,
                                        dict(method="event", rtol=rtol, atol=atol),
                                        init_report, wall0))
    _run(eng, system, ts, x0)
    stats = dict(method="event", rtol=rtol, atol=atol)
    return build_result(eng, system, specs, pv, H, K, stats, init_report, wall0)


def _run(eng, system, ts, x0):
    """Run the engine from ``(ts[0], x0)`` to ``ts[-1]``; a failure of a CasADi integrator
    becomes a KeyboardInterrupt (a Ctrl-C counted since the start) or a SolverError."""
    n_int = sigint_count()
    try:
        eng.start(ts[0], x0)
        eng.advance(ts[-1], ts)
    except RuntimeError as exc:
        stop = interrupted_error(n_int, exc, f"{system.name}: event run at t = "
                                             f"{eng.__dict__.get('t', ts[0]):.6g}")
        if stop is not None:                    # Ctrl-C inside a CasADi integrator
            raise stop from exc
        if isinstance(exc, SolverError):
            raise
        raise SolverError(f"{system.name}: event-driven integration failed at t = "
                          f"{eng.__dict__.get('t', ts[0]):.12g}: {exc}") from exc


register_method("event", keeps_partial(simulate_event), options=DEFAULTS)
