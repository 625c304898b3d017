r"""``method="auto"``: event-driven, with Moreau–Jean time stepping across chattering.

Models without contacts go to the smooth driver. With contacts the run starts
event-driven (:mod:`mechdae.simulate.event`); it switches to time stepping
(``method="timestepping"``, :mod:`mechdae.simulate.timestepping`) when

- impacts accumulate: a contact's impact times form a geometric sequence (the Zeno
  detector of the event driver), or
- contacts chatter: ``chatter_events`` events within ``chatter_window`` seconds,

and switches back when, over the last ``settle_steps`` steps of a time-stepping stretch,
every contact is stably open (gap above ``settle_gap``) or stably closed (gap below
``settle_gap`` and constant to it, normal speed below ``settle_vel``; on a moving surface
the speed bound grows by ``dt`` times the surface's acceleration, the scheme's own error
there; the overlap a closed contact keeps from the step that closed it is projected out,
booked as ``"projection"`` in the energy ledger); closed contacts are then handed to the
event driver with their normal velocity projected to zero. Each switch is a ``"switch"``
event in ``res.events`` (``extra["to"]`` is the new method).
"""
import time as _time

import numpy as np

from . import register_method
from .event import (EVENT_ATOL, EVENT_RTOL, EventEngine, build_result, event_options, initial_x,
                    output_grid)
from .inputs import resolve_inputs
from .partial import keeps_partial, on_failure, seeded
from .result import Event
from .smooth import simulate_smooth, stabilization_matrices

__all__ = ["simulate_auto"]

#: Step of the time-stepping stretches (s): the time-stepping driver's own default. A fixed
#: value, never a fraction of the horizon, so that a run's answer up to time t does not
#: depend on t_final; the chatter window and the stretch length are multiples of it.
DT_DEFAULT = 1e-3
CHATTER_WINDOW_STEPS = 50      # chatter_window = 50 dt: 20 events in it come every 2.5 steps
STRETCH_STEPS = 200            # stretch = 200 dt

AUTO_DEFAULTS = dict(dt=None, chatter_events=20, chatter_window=None, settle_steps=50,
                     settle_gap=1e-4, settle_vel=1e-6, stretch=None, zeno_to_timestepping=True,
                     timestepping_options=None)


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
    dt : float, optional
        Step of the time-stepping stretches (default ``DT_DEFAULT`` = 1e-3 s, the default of
        ``method="timestepping"``). Fixed, not a fraction of ``t_final``: the state at a
        time ``t`` does not depend on the horizon (beyond the cvodes tolerances). A stretch
        that ends at ``t_final`` takes equal steps of at most ``dt`` ending there exactly.
    chatter_events : int
        Events within ``chatter_window`` that count as chattering (20).
    chatter_window : float, optional
        Seconds (default ``50 dt``: events coming every 2.5 time steps or faster).
    settle_steps : int
        Steps over which contacts must be stably open or closed before the switch back (50).
    settle_gap, settle_vel : float
        Gap (m) and normal speed (m/s) below which a contact counts as closed.
    stretch : float, optional
        Length of one time-stepping chunk (default ``200 dt``). Outputs inside a stretch
        are linear interpolants of the neighbouring steps (Moreau-Jean positions are
        piecewise linear in time; a free sliding motion is reproduced exactly).
    zeno_to_timestepping : bool
        Use time stepping across detected accumulations of impacts (default); ``False``
        lets the event driver extrapolate to the accumulation point instead.
    timestepping_options : dict, optional
        Extra options for the time-stepping driver.
    **options
        Options of the event driver (see :func:`mechdae.simulate.event.simulate_event`).

    Returns
    -------
    Result
        ``res.stats["method"] == "auto"``; ``res.stats["switches"]``; ``"switch"`` events.

    Examples
    --------
    >>> res = md.load("models/bouncing_ball.py").compile().simulate(5.0)  # doctest: +SKIP
    >>> [e.extra["to"] for e in res.events if e.kind == "switch"]         # doctest: +SKIP
    ['timestepping', 'event']
    """
    if not system.contact_names:
        rtol = 1e-8 if rtol is None else rtol
        atol = 1e-10 if atol is None else atol
        return simulate_smooth(system, t_final, q0=q0, v0=v0, params=params, inputs=inputs,
                               method="cvodes", rtol=rtol, atol=atol, output_times=output_times,
                               initialize=initialize, stabilization=stabilization,
                               **{k: v for k, v in options.items()
                                  if k in ("n_out", "integrator_options", "out", "chunk",
                                           "compiled")})
    wall0 = _time.perf_counter()
    rtol = EVENT_RTOL if rtol is None else rtol
    atol = EVENT_ATOL if atol is None else atol
    aopts = dict(AUTO_DEFAULTS)
    for k in list(options):
        if k in aopts:
            aopts[k] = options.pop(k)
    eopts = event_options(options, "auto", extra=aopts)
    ts_driver = _timestepping()
    if ts_driver is not None and aopts["zeno_to_timestepping"]:
        eopts["zeno_action"] = "report"
    specs = resolve_inputs(system, inputs)
    pv = system.param_vector(params)
    H, K, _ = stabilization_matrices(system, stabilization)
    ts = output_grid(t_final, output_times, eopts["n_out"])
    t0, t_end = ts[0], ts[-1]
    dt = float(aopts["dt"] or DT_DEFAULT)
    if not dt > 0:
        raise ValueError(f"dt must be > 0, got {dt}")
    window = aopts["chatter_window"] or CHATTER_WINDOW_STEPS * dt
    n_chat = int(aopts["chatter_events"])
    stretch = aopts["stretch"] or STRETCH_STEPS * dt
    x0, init_report = initial_x(system, q0, v0, t0, pv, initialize)
    eng = EventEngine(system, specs, pv, H, K, rtol, atol, eopts)
    on_failure(lambda err: _partial(err, seeded(eng, t0, x0), ts, system, specs, pv, H, K,
                                    init_report, wall0, dict(method="auto", rtol=rtol, atol=atol)))
    nq, nu = system.nq, system.nu
    switches = 0
    ts_steps = 0
    # energy ledger of the stretches: impulse work, and the gaps closed when leaving one
    ts_work = dict(work_impact=0.0, work_contact=0.0, work_friction=0.0, projection=0.0)

    def monitor(e):
        if e.zeno_detected is not None:
            return True
        if ts_driver is None:
            return False
        times = [ev.t for ev in e.events if ev.kind not in ("switch", "energy_fallback")]
        return len(times) >= n_chat and times[-1] - times[-n_chat] <= window

    eng.start(t0, x0)
    touching = ()
    while True:
        reason = eng.advance(t_end, ts, monitor=monitor if ts_driver is not None else None)
        if reason == "done":
            break
        # ---- time stepping across the stretch
        why = "accumulation" if eng.zeno_detected is not None else "chatter"
        t_a = eng.t
        t_goal = t_a              # chatter: stretches of `stretch`, settled checked after each
        if eng.zeno_detected is not None:
            _, _, t_inf, _ = eng.zeno_detected
            t_goal = min(t_end, max(t_inf + stretch / 4, t_a + stretch))
        eng.zeno_detected = None
        eng.events.append(Event(t_a, None, "switch", None, eng.energy(eng.x, t_a),
                                eng.energy(eng.x, t_a), to="timestepping", reason=why))
        switches += 1
        x = eng.x.copy()
        settled = False
        while eng.t < t_end - 1e-12 * max(1.0, abs(t_end)) and not settled:
            t_b = min(t_end, max(eng.t + stretch, t_goal))
            t_goal = t_b
            if t_b >= t_end:
                # the last stretch ends at t_end exactly: equal steps of at most dt
                n = max(1, int(np.ceil((t_end - eng.t) / dt * (1 - 1e-12))))
                h_s, t_stop = (t_end - eng.t) / n, t_end
            else:
                n = max(1, int(round((t_b - eng.t) / dt)))
                h_s, t_stop = dt, eng.t + n * dt
            tsopt = dict(aopts["timestepping_options"] or {})
            r = ts_driver(system, t_stop, q0=x[:nq], v0=x[nq:nq + nu], params=params,
                          inputs=inputs, dt=h_s, t0=eng.t, initialize=False, **tsopt)
            ts_steps += n
            for k in ("work_impact", "work_contact", "work_friction"):
                ts_work[k] += float(r.stats.get(k, 0.0))
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
            x_end = x
            settled, touching, x = _settled(eng, T, Q, U, x, aopts)
            ts_work["projection"] += eng.energy(x, eng.t) - eng.energy(x_end, eng.t)
        if eng.t >= t_end - 1e-12 * max(1.0, abs(t_end)):
            eng.record()
            break
        eng.events.append(Event(eng.t, None, "switch", None, eng.energy(x, eng.t),
                                eng.energy(x, eng.t), to="event"))
        switches += 1
        eng.impact_log = {i: [] for i in range(eng.nc)}
        eng.start(eng.t, x, touching=touching)
    stats = dict(method="auto", switches=switches, timestepping_steps=ts_steps,
                 timestepping_dt=dt if ts_steps else None, rtol=rtol, atol=atol,
                 timestepping_work=ts_work)
    res = build_result(eng, system, specs, pv, H, K, stats, init_report, wall0)
    return res


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


register_method("auto", keeps_partial(simulate_auto))
