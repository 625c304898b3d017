r"""``method="auto"``: the event engine wherever it can go, time stepping only where it cannot.

Models without contacts go to the smooth driver. With contacts the run is event-driven
(:mod:`mechdae.simulate.event`), exactly as ``method="event"``: impacts at their located
times, accumulations of impacts resolved impact by impact and closed at their ``t_inf``
(an ``"accumulation"`` event), repeated tiny impacts of a contact set snapped to rest,
Painlevé cases following ``painleve=`` — the same events, the same states, the same cost
(the C event cycle included). ``auto`` and ``event`` agree to the integration tolerance.

Auto hands the run to Moreau–Jean time stepping (``method="timestepping"``,
:mod:`mechdae.simulate.timestepping`) only where the event engine cannot go on:

- ``"events"``: the engine took ``event_budget`` events (default 20,000, the event method's
  own ``max_events``) in one event-driven stretch: contacts chattering in a way neither
  the accumulation rule nor rest snapping resolves;
- ``"failure"``: the engine stopped with a :class:`mechdae.SolverError` — a phase the
  integrators cannot pass, a contact-force or impact problem without a solution the
  solvers find, no progress. A :class:`mechdae.PainleveError` is not handed over: it is
  the answer the ``painleve`` rule asks for (``painleve="impact"`` resolves an inconsistent
  case exactly by an impact without collision); nor is an
  :class:`mechdae.EnergyGainError` (``energy_gain="raise"``), nor an explicit
  ``max_events`` (a hard limit, as in ``"event"``).

Each hand-over warns (RuntimeWarning) and is a ``"switch"`` event (``extra``: ``to``,
``reason``, ``error`` the engine's message, ``dt``, ``order = 1`` and ``error_bound``:
Moreau–Jean is first order across impacts, ``O(dt)``). The stepping goes on in stretches
and hands back when, over the last ``settle_steps`` steps of a stretch, every contact is
stably open (gap above ``settle_gap``) or stably closed (gap below ``settle_gap`` and
constant to it, normal speed below ``settle_vel``; on a moving surface the speed bound
grows by ``dt`` times the surface's acceleration, the scheme's own error there; the
overlap a closed contact keeps from the step that closed it is projected out, booked as
``"projection"`` in the energy ledger); closed contacts are then handed to the event
engine with their normal velocity projected to zero (a ``"switch"`` event ``to="event"``
carrying the stretch's error statement). ``res.stats``: ``methods_used``,
``switches``, ``timestepping_steps``, ``timestepping_dt`` and ``timestepping_stretches``
(per stretch: its span, steps, ``dt``, reason, ``error_bound`` and ``step_displacement``,
the largest change of a coordinate in one step, the scale of the ``O(dt)`` error).

Opt-ins that trade exactness for speed (off by default): ``zeno_to_timestepping=True``
steps across each detected accumulation of impacts (the former default: the ball then
was up to 1.6 mm from the exact run around ``t_inf``, measured, and reported no
accumulation point) and ``chatter_events=n`` steps wherever ``n`` events come within
``chatter_window``; their switches say so too (``reason`` ``"accumulation"`` /
``"chatter"``).
"""
import time as _time
import warnings

import numpy as np

from ..contact._kernel_impact import EnergyGainError
from ..errors import PainleveError, SolverError
from . import register_method
from .event import (DEFAULTS as EVENT_DEFAULTS, EVENT_ATOL, EVENT_RTOL, EventEngine,
                    build_result, event_options, initial_x, output_grid)
from .inputs import resolve_inputs
from .partial import (interrupted_error, keeps_partial, on_failure, seeded,
                      sigint_count)
from .result import Event
from .smooth import simulate_smooth, stabilization_matrices

__all__ = ["simulate_auto", "AUTO_DEFAULTS", "AUTO_OPTIONS", "ERROR_BOUND"]

#: Step of the time-stepping stretches (s): the time-stepping driver's own default. A fixed
#: value, never a fraction of the horizon, so that a run's answer up to time t does not
#: depend on t_final; the chatter window and the stretch length are multiples of it.
DT_DEFAULT = 1e-3
CHATTER_WINDOW_STEPS = 50      # chatter_window = 50 dt: 20 events in it come every 2.5 steps
STRETCH_STEPS = 200            # stretch = 200 dt

#: The error statement of a Moreau–Jean stretch: first order across impacts.
ERROR_BOUND = "O(dt)"

#: auto's own options (besides the event method's): the declared set of their names.
AUTO_DEFAULTS = dict(dt=None, event_budget=None, settle_steps=50, settle_gap=1e-4,
                     settle_vel=1e-6, stretch=None, zeno_to_timestepping=False,
                     chatter_events=None, chatter_window=None, timestepping_options=None)


def _timestepping():
    from . import METHODS
    drv = METHODS.get("timestepping")
    if drv is None:
        try:
            from . import timestepping  # noqa: F401  (registers itself)
        except ImportError:
            return None
        drv = METHODS.get("timestepping")
    return drv


def simulate_auto(system, t_final, q0=None, v0=None, params=None, inputs=None, method="auto",
                  rtol=None, atol=None, output_times=None, initialize=True,
                  stabilization="compiled", **options):
    r"""Simulate with the method the motion needs ("auto").

    Parameters
    ----------
    system, t_final, q0, v0, params, inputs, output_times, initialize, stabilization
        As in :meth:`mechdae.System.simulate`.
    rtol, atol : float, optional
        cvodes tolerances; default the smooth driver's (1e-8, 1e-10) for a model without
        contacts, the event driver's (1e-10, 1e-12) otherwise.
    event_budget : int, optional
        Events the event engine may take in one event-driven stretch before auto hands the
        run to time stepping (default the event method's ``max_events``, 20,000).
    max_events : int, optional
        A hard limit, as in ``method="event"``: more events of the event engine than this
        (over the run) stop it with :class:`mechdae.SolverError`. Default: none (the
        ``event_budget`` hands over instead).
    dt : float, optional
        Step of the time-stepping stretches (default ``DT_DEFAULT`` = 1e-3 s, the default of
        ``method="timestepping"``). Fixed, not a fraction of ``t_final``: the state at a
        time ``t`` does not depend on the horizon (beyond the cvodes tolerances). A stretch
        that ends at ``t_final`` takes equal steps of at most ``dt`` ending there exactly.
    settle_steps : int
        Steps over which contacts must be stably open or closed before the switch back (50).
    settle_gap, settle_vel : float
        Gap (m) and normal speed (m/s) below which a contact counts as closed.
    stretch : float, optional
        Length of one time-stepping chunk (default ``200 dt``). Outputs inside a stretch
        are linear interpolants of the neighbouring steps (Moreau-Jean positions are
        piecewise linear in time; a free sliding motion is reproduced exactly).
    zeno_to_timestepping : bool
        Opt-in, inexact: time stepping across each detected accumulation of impacts
        (default False: the event engine resolves it exactly).
    chatter_events : int, optional
        Opt-in, inexact: time stepping wherever this many events come within
        ``chatter_window`` (default ``50 dt``). Default None: off.
    timestepping_options : dict, optional
        Extra options for the time-stepping driver.
    **options
        Options of the event driver (see :func:`mechdae.simulate.event.simulate_event`).

    Returns
    -------
    Result
        ``res.stats["method"] == "auto"``, ``res.stats["methods_used"]`` (``["event"]``
        when the run was event-driven throughout), ``"switch"`` events and
        ``res.stats["timestepping_stretches"]`` where it was not.

    Examples
    --------
    >>> res = md.load("models/bouncing_ball.py").compile().simulate(5.0)  # doctest: +SKIP
    >>> res.stats["methods_used"]                                          # doctest: +SKIP
    ['event']
    >>> [round(e.t, 6) for e in res.events if e.kind == "accumulation"]   # doctest: +SKIP
    [4.063713]
    """
    if not system.contact_names:
        return _without_contacts(system, t_final, q0, v0, params, inputs, rtol, atol,
                                 output_times, initialize, stabilization, options)
    wall0 = _time.perf_counter()
    rtol = EVENT_RTOL if rtol is None else rtol
    atol = EVENT_ATOL if atol is None else atol
    aopts, hard, eopts = _split_options(options)
    ts_driver = _timestepping()
    monitor = _monitor(aopts, ts_driver)
    if monitor is not None and aopts["zeno_to_timestepping"]:
        eopts["zeno_action"] = "report"
    specs = resolve_inputs(system, inputs)
    pv = system.param_vector(params)
    H, K, _ = stabilization_matrices(system, stabilization)
    ts = output_grid(t_final, output_times, eopts["n_out"])
    t0, t_end = ts[0], ts[-1]
    dt = float(aopts["dt"] or DT_DEFAULT)
    if not dt > 0:
        raise ValueError(f"dt must be > 0, got {dt}")
    budget = int(aopts["event_budget"] or EVENT_DEFAULTS["max_events"])
    x0, init_report = initial_x(system, q0, v0, t0, pv, initialize)
    eng = EventEngine(system, specs, pv, H, K, rtol, atol, eopts)
    on_failure(lambda err: _partial(err, seeded(eng, t0, x0), ts, system, specs, pv, H, K,
                                    init_report, wall0, dict(method="auto", rtol=rtol, atol=atol)))
    run = _Stepper(eng, system, params, inputs, ts, dt, aopts, ts_driver)
    limits = dict(budget=budget, hard=None if hard is None else int(hard), used=0)
    state = (t0, x0, ())
    while True:
        why, detail = _event_stretch(eng, state, t_end, ts, monitor, limits)
        if why == "done":
            break
        state = run.across(why, detail)
        if state is None:
            break
    stats = dict(method="auto", methods_used=["event"] + (["timestepping"] if run.stretches
                                                          else []),
                 switches=run.switches, timestepping_steps=run.steps,
                 timestepping_dt=dt if run.steps else None,
                 timestepping_stretches=run.stretches, rtol=rtol, atol=atol,
                 timestepping_work=run.work)
    return build_result(eng, system, specs, pv, H, K, stats, init_report, wall0)


def _without_contacts(system, t_final, q0, v0, params, inputs, rtol, atol, output_times,
                      initialize, stabilization, options):
    """A model without contacts: the smooth driver (cvodes, its default tolerances 1e-8,
    1e-10) with the options it takes."""
    rtol = 1e-8 if rtol is None else rtol
    atol = 1e-10 if atol is None else atol
    return simulate_smooth(system, t_final, q0=q0, v0=v0, params=params, inputs=inputs,
                           method="cvodes", rtol=rtol, atol=atol, output_times=output_times,
                           initialize=initialize, stabilization=stabilization,
                           **{k: v for k, v in options.items()
                              if k in ("n_out", "integrator_options", "out", "chunk",
                                       "compiled")})


def _split_options(options):
    """``(aopts, hard, eopts)``: auto's own options (``AUTO_DEFAULTS`` updated), the hard
    ``max_events`` (None: none) and the event method's options (checked: a TypeError
    names unknown ones). ``options`` loses the first two."""
    aopts = dict(AUTO_DEFAULTS)
    for k in list(options):
        if k in aopts:
            aopts[k] = options.pop(k)
    hard = options.pop("max_events", None)
    eopts = event_options(options, "auto", extra=list(aopts) + ["max_events"])
    return aopts, hard, eopts


def _monitor(aopts, ts_driver):
    """The opt-in stop test of the event engine (``zeno_to_timestepping``,
    ``chatter_events``), or None: the event engine runs undisturbed (its C cycle
    included)."""
    if ts_driver is None or not (aopts["zeno_to_timestepping"] or aopts["chatter_events"]):
        return None
    n_chat = int(aopts["chatter_events"] or 0)
    dt = float(aopts["dt"] or DT_DEFAULT)
    window = aopts["chatter_window"] or CHATTER_WINDOW_STEPS * dt

    def monitor(e):
        if e.zeno_detected is not None:
            return True
        if not n_chat:
            return False
        times = [ev.t for ev in e.events if ev.kind not in ("switch", "energy_fallback")]
        return len(times) >= n_chat and times[-1] - times[-n_chat] <= window
    return monitor


def _event_stretch(eng, state, t_end, ts, monitor, limits):
    """Start the event engine at ``state = (t, x, touching)`` and run it towards ``t_end``.

    Returns ``(why, detail)``: ``("done", None)``; ``("accumulation" | "chatter", None)``
    when an opt-in monitor stopped it; ``("events" | "failure", message)`` when the engine
    cannot go on (its state is the last one it reached). A PainleveError, an
    EnergyGainError and an explicit ``max_events`` propagate.
    """
    t, x, touching = state
    base = len(eng.events)
    cap = limits["budget"]
    hard_left = None
    if limits["hard"] is not None:
        hard_left = limits["hard"] - limits["used"]
        cap = min(cap, hard_left)
    eng.max_events = base + cap
    n_int = sigint_count()
    try:
        if base == 0 and not eng.samples_t:
            eng.start(t, x)
        else:
            eng.impact_log = {i: [] for i in range(eng.nc)}
            eng.start(t, x, touching=touching)
        reason = eng.advance(t_end, ts, monitor=monitor)
    except (PainleveError, EnergyGainError):
        raise
    except RuntimeError as exc:
        stop = interrupted_error(n_int, exc, f"{eng.system.name}: auto run at t = "
                                             f"{eng.t:.6g}")
        if stop is not None:            # Ctrl-C inside a CasADi integrator: no hand-over
            raise stop from exc
        limits["used"] += len(eng.events) - base
        over = len(eng.events) > eng.max_events
        if over and hard_left is not None and hard_left <= limits["budget"]:
            raise                                   # the user's own limit
        if not isinstance(exc, SolverError) and not over:
            exc = SolverError(f"event-driven integration failed at t = {eng.t:.12g}: {exc}")
        if over:
            return "events", (f"{len(eng.events) - base} events in one event-driven stretch "
                              f"(event_budget={limits['budget']}) by t = {eng.t:.12g}: "
                              "chattering that neither the accumulation rule nor rest "
                              "snapping resolves")
        return "failure", str(exc)
    limits["used"] += len(eng.events) - base
    if reason == "done":
        return "done", None
    return ("accumulation" if eng.zeno_detected is not None else "chatter"), None


class _Stepper:
    """Moreau–Jean stretches of an "auto" run, from the event engine's state on: their
    outputs go into the engine's samples, their events into its events."""

    def __init__(self, eng, system, params, inputs, ts, dt, aopts, ts_driver):
        self.eng, self.system, self.params, self.inputs = eng, system, params, inputs
        self.ts, self.dt, self.aopts, self.driver = ts, dt, aopts, ts_driver
        self.stretch = aopts["stretch"] or STRETCH_STEPS * dt
        self.switches = self.steps = 0
        self.stretches = []
        # energy ledger of the stretches: impulse work, the gaps closed when leaving one
        self.work = dict(work_impact=0.0, work_contact=0.0, work_friction=0.0, projection=0.0)

    def across(self, why, detail):
        """Time-step from the engine's state until the contacts settle (returns the state
        ``(t, x, touching)`` to hand back to the event engine) or to the end (None)."""
        eng, dt = self.eng, self.dt
        t_end = self.ts[-1]
        if self.driver is None:
            raise SolverError(f"{self.system.name}: the event engine cannot go on at t = "
                              f"{eng.t:.12g} ({detail}) and no time-stepping driver is "
                              "available to take over")
        t_a = eng.t
        t_goal = t_a              # stretches of `stretch`, settled checked after each
        if eng.zeno_detected is not None:
            _, _, t_inf, _ = eng.zeno_detected
            t_goal = min(t_end, max(t_inf + self.stretch / 4, t_a + self.stretch))
        eng.zeno_detected = None
        if eng.pending is not None:
            # a series the engine resolved before it stopped: its t_inf stands
            eng._record_pending()
        eng.rest_streak.clear()
        bound = f"{ERROR_BOUND}, dt = {dt:g} s"
        extra = dict(to="timestepping", reason=why, dt=dt, order=1, error_bound=bound)
        if detail is not None:
            extra["error"] = detail
            warnings.warn(f"{self.system.name}: method='auto': the event engine cannot go on "
                          f"at t = {t_a:.12g} ({why}: {detail}); Moreau-Jean time stepping "
                          f"takes over (first order: error {bound}; the 'switch' events and "
                          "res.stats['timestepping_stretches'] say where)", RuntimeWarning,
                          stacklevel=5)
        E = eng.energy(eng.x, t_a)
        eng.events.append(Event(t_a, None, "switch", None, E, E, **extra))
        self.switches += 1
        x = eng.x.copy()
        settled, touching, n0, disp = False, (), self.steps, 0.0
        while eng.t < t_end - 1e-12 * max(1.0, abs(t_end)) and not settled:
            t_goal, x, d = self._one(x, t_goal)
            disp = max(disp, d)
            x_end = x
            settled, touching, x = _settled(eng, self._T, self._Q, self._U, x, self.aopts)
            self.work["projection"] += eng.energy(x, eng.t) - eng.energy(x_end, eng.t)
        info = dict(t_start=t_a, t_end=eng.t, steps=self.steps - n0, dt=dt, order=1,
                    reason=why, error_bound=ERROR_BOUND, step_displacement=disp)
        self.stretches.append(info)
        if eng.t >= t_end - 1e-12 * max(1.0, abs(t_end)):
            eng.record()
            return None
        E = eng.energy(x, eng.t)
        eng.events.append(Event(eng.t, None, "switch", None, E, E, to="event",
                                stretch=(t_a, eng.t), steps=info["steps"], dt=dt, order=1,
                                error_bound=bound, step_displacement=disp))
        self.switches += 1
        return eng.t, x, touching

    def _one(self, x, t_goal):
        """One stretch of time steps from the engine's time; returns ``(t_goal, x, d)``,
        ``d`` the largest change of a coordinate in one step."""
        eng, system, dt = self.eng, self.system, self.dt
        nq, nu = system.nq, system.nu
        ts, t_end = self.ts, self.ts[-1]
        t_b = min(t_end, max(eng.t + self.stretch, t_goal))
        if t_b >= t_end:
            # the last stretch ends at t_end exactly: equal steps of at most dt
            n = max(1, int(np.ceil((t_end - eng.t) / dt * (1 - 1e-12))))
            h_s, t_stop = (t_end - eng.t) / n, t_end
        else:
            n = max(1, int(round((t_b - eng.t) / dt)))
            h_s, t_stop = dt, eng.t + n * dt
        tsopt = dict(self.aopts["timestepping_options"] or {})
        r = self.driver(system, t_stop, q0=x[:nq], v0=x[nq:nq + nu], params=self.params,
                        inputs=self.inputs, dt=h_s, t0=eng.t, initialize="continue", **tsopt)
        self.steps += n
        for k in ("work_impact", "work_contact", "work_friction"):
            self.work[k] += float(r.stats.get(k, 0.0))
        for ev in r.events:
            ev.extra["method"] = "timestepping"
            eng.events.append(ev)
        T, Q, U = r.t, r.q, r.v
        # outputs inside the stretch: linear interpolation between the neighbouring steps
        k = eng.k_out if hasattr(eng, "k_out") else 0
        while k < ts.size and ts[k] <= T[-1] + 1e-12:
            eng.samples_t.append(float(ts[k]))
            qk = _interp(T, Q, ts[k])
            for qi in system.quaternions:        # unit quaternions stay unit
                qi = list(qi)
                qk[qi] /= np.linalg.norm(qk[qi])
            eng.samples_x.append(np.concatenate([qk, _interp(T, U, ts[k]), x[nq + nu:]]))
            eng.samples_mode.append(None)
            k += 1
        eng.k_out = k
        x = np.concatenate([Q[-1], U[-1], x[nq + nu:]])
        eng.t = float(T[-1])
        eng.x = x
        self._T, self._Q, self._U = T, Q, U
        d = float(np.max(np.abs(np.diff(Q, axis=0)))) if len(Q) > 1 else 0.0
        return t_b, x, d


def _interp(T, Y, t):
    """Row of ``Y`` linearly interpolated at ``t`` on the increasing grid ``T``."""
    j = int(np.searchsorted(T, t))
    if j <= 0:
        return Y[0].copy()
    if j >= T.size:
        return Y[-1].copy()
    t0_, t1_ = T[j - 1], T[j]
    if t1_ <= t0_:
        return Y[j].copy()
    w = (t - t0_) / (t1_ - t0_)
    if w >= 1.0:
        return Y[j].copy()
    return (1.0 - w) * Y[j - 1] + w * Y[j]


def _settled(eng, T, Q, U, x, aopts):
    """Whether every contact stayed open or closed over the last steps; closed contacts
    get their normal speed projected to zero (minimum kinetic-energy change)."""
    m = min(int(aopts["settle_steps"]), Q.shape[0])
    nq, nu = eng.system.nq, eng.system.nu
    F = eng.system.functions
    pv = eng.pv
    tail_q, tail_u = Q[-m:], U[-m:]
    tail_t = np.asarray(T, float)[-m:][None, :]
    gaps = np.array(F["gap"].map(m)(tail_q.T, tail_t, pv[:, None])).T    # (m, nc)
    Wm = np.array(F["W"].map(m)(tail_q.T, tail_t, pv[:, None]))          # rows x (nu*m)
    nrows = Wm.shape[0]
    Wm = Wm.reshape(nrows, m, nu, order="F") if False else \
        np.stack([Wm[:, k * nu:(k + 1) * nu] for k in range(m)])         # (m, rows, nu)
    vel = np.einsum("mrn,mn->mr", Wm, tail_u)
    g_tol, v_tol = aopts["settle_gap"], aopts["settle_vel"]
    v_tols = np.full(vel.shape[1], float(v_tol))
    if eng.system.rheonomic:            # relative velocities W u + Wt
        Wt = np.array(F["Wt"].map(m)(tail_q.T, tail_t, pv[:, None])).T
        vel = vel + Wt
        if m > 1:
            # a moving surface: the scheme holds a closed contact to O(h |s''|) in the
            # relative normal velocity (h the step, s'' the surface's acceleration)
            h = np.diff(tail_t[0])
            acc = np.max(np.abs(np.diff(Wt, axis=0)) / np.maximum(h, 1e-300)[:, None], axis=0)
            v_tols = v_tols + float(np.max(h)) * acc
    closed, ok = [], True
    for i in range(eng.nc):
        o = eng.offs[i]
        g, vn = gaps[:, i], vel[:, o]
        if np.all(g > g_tol):
            continue
        # closed: gap and normal speed small, or a constant overlap (Moreau-Jean closes a
        # contact at the velocity level and keeps the O(v dt) overlap of that step; it is
        # projected out below, booked as "projection")
        if (np.all(g <= g_tol) and np.ptp(g) <= g_tol and np.all(np.abs(vn) <= v_tols[o])):
            closed.append(i)
            continue
        ok = False
    if not ok:
        return False, (), x
    if closed:
        # positions: Gauss-Newton on the gaps of the closed contacts (the time-stepping
        # scheme leaves an O(dt) penetration)
        x = x.copy()
        for _ in range(5):
            tm = eng.terms(x, eng.t)
            g = tm["gap"][closed]
            if np.max(np.abs(g)) < 1e-13:
                break
            rows = np.array([tm["W"][eng.offs[i]] for i in closed])
            Ninv_rows = rows @ np.linalg.pinv(np.array(F["N"](x[:nq], pv)))
            Gq = Ninv_rows
            x[:nq] = x[:nq] - Gq.T @ np.linalg.solve(Gq @ Gq.T, g)
        tm = eng.terms(x, eng.t)
        rows = np.array([tm["W"][eng.offs[i]] for i in closed])
        M = tm["M"]
        u = x[nq:nq + nu]
        Mi_Wt = np.linalg.solve(M, rows.T)
        vn = rows @ u + np.array([tm["Wt"][eng.offs[i]] for i in closed])
        lam = np.linalg.solve(rows @ Mi_Wt, vn)
        x = x.copy()
        x[nq:nq + nu] = u - Mi_Wt @ lam
    return True, tuple(closed), x


def _partial(err, eng, ts, system, specs, pv, H, K, init_report, wall0, stats):
    """The Result of a failed "auto" run: the engine's samples, and those of a failed
    time-stepping stretch (``err.partial`` of the stretch) at the output times it passed."""
    r = err.partial
    if r is not None and r.stats.get("method") == "timestepping" and r.t.size:
        nq, nu = system.nq, system.nu
        T, Q, U = np.asarray(r.t), np.asarray(r.q), np.asarray(r.v)
        xe = np.asarray(eng.x, float)[nq + nu:]
        k = int(np.searchsorted(ts, eng.samples_t[-1], side="right")) if eng.samples_t else 0
        while k < ts.size and T[0] <= ts[k] <= T[-1]:
            qk = np.array([np.interp(ts[k], T, Q[:, i]) for i in range(nq)])
            uk = np.array([np.interp(ts[k], T, U[:, i]) for i in range(nu)])
            eng.samples_t.append(float(ts[k]))
            eng.samples_x.append(np.concatenate([qk, uk, xe]))
            eng.samples_mode.append(None)
            k += 1
        eng.events.extend(e for e in r.events if e not in eng.events)
    return build_result(eng, system, specs, pv, H, K, stats, init_report, wall0)


#: every option name "auto" takes besides the common ones: its own (``AUTO_DEFAULTS``),
#: the event method's (with ``max_events``), and ``compiled`` of the smooth driver it uses
#: for a model without contacts
AUTO_OPTIONS = frozenset(AUTO_DEFAULTS) | frozenset(EVENT_DEFAULTS) | {"max_events", "compiled"}

register_method("auto", keeps_partial(simulate_auto), options=AUTO_OPTIONS)
