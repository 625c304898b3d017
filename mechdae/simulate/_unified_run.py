r"""The stepping loop of ``method="unified"``: RK4 steps, event location, event handling.

One run of Ivanov's unified equations (:mod:`.unified`) from its initial state: fixed RK4
steps ``dt`` of :func:`._unified_equations.unified_functions`'s ``stepmon``; before each
step the piece's decisions (the sliding direction frozen over the step, the jam
``U -> 0``, Painlevé on the support, rolling when no sliding is left); after it, the sign
changes of the event functions (``s``, ``v``, lift-off ``F``, end of sliding, ``U``,
reversal of ``\sigma``), the earliest located by a secant (Illinois) search on the step
length, then handled (impact, accumulation, apex, lift-off, stick). The states of the run
become a :class:`~mechdae.simulate.result.Result` (:func:`unified_result`).
"""
import time as _time

import numpy as np

from ..errors import SolverError
from ._laws import contact_laws
from ._unified_painleve import UnifiedPainleve
from .partial import on_failure
from .result import Result, Event

__all__ = ["UnifiedRun", "unified_result"]


class UnifiedRun:
    """The state and the loop of one unified run.

    Parameters
    ----------
    system : System
    fs : dict of :func:`._unified_equations.unified_functions`
    stepmon : callable, ``fs["stepmon"]`` (a run's own copy of the C evaluator)
    pv : ndarray, parameter vector
    x, sig : the initial state ``(q, ut, s, v)`` and frozen signs
    t_final, dt, t_snap, event_tol, max_events, output_times, painleve, impact_map,
    params : as in :func:`.unified.simulate_unified`
    wall0 : float, the run's start (``perf_counter``)
    init_report : the initialization report

    A failure inside the run leaves with the Result of the steps so far (``err.partial``).
    """

    def __init__(self, system, fs, stepmon, pv, x, sig, t_final, dt, t_snap, event_tol,
                 max_events, output_times, painleve, impact_map, params, wall0, init_report):
        self.system, self.fs, self.pv = system, fs, pv
        self.nq, self.nu, self.nt = fs["nq"], fs["nu"], fs["nt"]
        self.mon, self.stepmon = fs["mon"], stepmon
        self.x, self.sig, self.mode, self.t = x, sig, 0.0, 0.0
        self.t_final, self.dt, self.t_snap = t_final, dt, t_snap
        self.event_tol, self.max_events, self.output_times = event_tol, max_events, output_times
        self.wall0, self.init_report = wall0, init_report
        self.Ef = Ef = system.functions["energy"]
        self.cname = system.contact_names[0]
        self.ts, self.xs, self.sigs = [0.0], [x.copy()], [list(sig)]
        self.events = []
        self.pain = UnifiedPainleve(system, painleve, params, self.events,
                                    lambda q_, u_, t_: float(sum(Ef(q_, u_, t_, pv))))
        nt = self.nt
        self.friction = friction = bool(nt) and (
            (impact_map or {}).get("tangential") is not None
            or not (isinstance(fs["mu"], (int, float)) and fs["mu"] == 0))
        self.mu_v = float(contact_laws(system, pv)[2][0]) if friction else 0.0
        # Coulomb's sliding impact: b jumps where sigma = W_t ut / |W_t ut| reverses
        self.coulomb = friction and (impact_map or {}).get("tangential") is None
        self.n_steps = self.n_calls = 0
        self.cur = None        # (F, vt, U) at the current state, None: to be computed
        self.last = None       # (h, |U|) of the previous plain step of the same piece
        # a failure leaves with the Result of the steps so far (err.partial)
        on_failure(lambda err: self.result())

    # ------------------------------------------------------------------ evaluations
    def monitor(self, xx, tt):
        """``(F, v_t, u, gdot, b, U, lam_stick, k*, D_nn)`` at ``(xx, tt)`` in this piece."""
        F, vt, u, gd, b, U, lam, Wk, kk, Dnn = self.mon(xx, tt, self.pv, self.mode, self.sig)
        return (float(F), np.array(vt).ravel(), np.array(u).ravel(), float(gd),
                np.array(b).ravel(), float(U), np.array(lam).ravel(), float(kk), float(Dnn))

    def advance(self, xx, tt, hh):
        """One RK4 step of length ``hh``: the new state and its ``F``, ``v_t``, ``U``."""
        xn_, F_, vt_, U_ = self.stepmon(xx, tt, hh, self.pv, self.mode, self.sig)
        return np.asarray(xn_, float).ravel(), float(np.asarray(F_).ravel()[0]), \
            np.asarray(vt_, float).ravel(), float(np.asarray(U_).ravel()[0])

    def ev_values(self, xx, tt, ref, F, vt, U):
        """Event functions whose sign change ends a smooth piece."""
        sig, mode, nq, nu = self.sig, self.mode, self.nq, self.nu
        s, v = xx[nq + nu], xx[nq + nu + 1]
        vals = [s, v]
        stay = sig[-1] > 0.5
        if sig[2] > 0.5:
            vals.append(-F if stay else F)               # liftoff ('stay': F down to 0)
        else:
            vals.append(np.nan)
        sliding = mode == 0 and self.fs["nt"] and ref is not None and ref[3] is not None
        if sliding:
            vals.append(float(np.dot(vt, ref[3])))       # end of sliding
        else:
            vals.append(np.nan)
        if sliding and self.friction and sig[2] > 0.5:
            vals.append(U if stay else -U)               # U through 0 (Painlevé)
        elif self.friction and mode == 0 and sig[2] < 0.5 and ref is not None and ref[4] != 0:
            vals.append(-U * ref[4])                     # U through 0 in flight: b singular
        else:
            vals.append(np.nan)
        if self.coulomb and mode == 0 and sig[2] < 0.5 and ref is not None \
                and ref[5] is not None:
            vals.append(-float(np.dot(vt, ref[5])))      # sigma = W_t ut / |.| reverses
        else:
            vals.append(np.nan)
        return vals

    def crossed(self, i, a, b_):
        """Whether event function ``i`` changed sign (the way that ends the piece)."""
        sig = self.sig
        if np.isnan(a) or np.isnan(b_):
            return False
        if i in (2, 4, 5):
            return a <= 0 < b_                       # F from <= 0 to > 0; U to <= 0
        if i == 3:
            return b_ <= 0 < a
        if i == 0:
            return sig[2] < 0.5 and (b_ * sig[0] < 0 or (b_ == 0 and a != 0))   # s: 0
        sv = sig[0] * sig[1]                                                    # v: 0
        return sig[2] < 0.5 and (b_ * sv < 0 or (b_ == 0 and a != 0))

    def pad(self, sg):
        """Frozen signs ``sg`` (3) completed with a zero sliding direction and 'stay' flag."""
        return list(sg) + [0.0] * (self.fs["nt"] + 1)

    # ------------------------------------------------------------------ the loop
    def run(self):
        """Step to ``t_final`` (or ``max_events`` events) and return the Result."""
        nq, nu = self.nq, self.nu
        events = self.events
        t_final, dt, max_events = self.t_final, self.dt, self.max_events
        # bound once: one RK4 step per pass, this loop is the run's Python cost
        before_step, ev_values, advance, crossed = (self.before_step, self.ev_values,
                                                    self.advance, self.crossed)
        ts, xs, sigs = self.ts, self.xs, self.sigs
        while self.t < t_final * (1 - 1e-15) and len(events) < max_events:
            x, t = self.x, self.t
            h = min(dt, t_final - t)
            s0, v0_ = x[nq + nu], x[nq + nu + 1]
            prep = before_step(h)
            if prep is None:
                continue
            h, sliding_dir, vt0 = prep
            F0, _, U0 = self.cur
            in_contact = self.sig[2] > 0.5
            ref = (s0, v0_, F0, sliding_dir, float(np.sign(U0)),
                   vt0 if not in_contact and np.linalg.norm(vt0) > 1e-12 else None)
            g0 = ev_values(x, t, ref, F0, vt0, U0)
            xn, Fn, vtn, Un = advance(x, t, h)
            self.n_steps += 1
            if not np.all(np.isfinite(xn)):
                raise SolverError(f"{self.system.name}: unified integration reached a "
                                  f"non-finite state in the step from t = {t:.12g} to "
                                  f"{t + h:.12g}")
            g1 = ev_values(xn, t + h, ref, Fn, vtn, Un)
            hits = [i for i in range(6) if crossed(i, g0[i], g1[i])]
            if not hits:
                self.x, self.t = xn, t + h
                self.last = (h, abs(U0))
                self.cur = (Fn, vtn, Un)
                ts.append(self.t)                    # as record(), inline (every step)
                xs.append(xn.copy())
                sigs.append(list(self.sig))
                continue
            best_h, best_i = self.locate(hits, g0, h, ref)
            self.x, self.t = self.handle_event(best_i, best_h, ref, vt0)
            self.cur = None
            self.record()
            self.n_calls += 1
        return self.result()

    def record(self):
        """Store the current state, time and frozen signs."""
        self.ts.append(self.t)
        self.xs.append(self.x.copy())
        self.sigs.append(list(self.sig))

    def before_step(self, h):
        """The decisions of a piece before its next step.

        Freezes the sliding direction over the step; limits the step towards the jam
        (``U -> 0`` while sliding; module docstring of :mod:`.unified`); follows the
        Painlevé rule on the support; switches to rolling where no sliding is left.

        Returns
        -------
        None where the piece changed without a step (the loop starts over), else
        ``(h, sliding_dir, vt0)``: the step length, the frozen sliding velocity (or None)
        and the tangential velocity at the start.
        """
        x, t, nt = self.x, self.t, self.nt
        if self.cur is None:
            mo = self.monitor(x, t)
            self.cur = (mo[0], mo[1], mo[5])
            self.last = None
        F0, vt0, U0 = self.cur
        in_contact = self.sig[2] > 0.5
        fs = self.fs
        sliding_dir = vt0 if (in_contact and self.mode == 0 and fs["nt"]
                              and np.linalg.norm(vt0) > 1e-12) else None
        if sliding_dir is not None:
            # freeze the sliding direction over the step (exact for a ball on a plane,
            # where it is constant during sliding: the parabola (3.8))
            sig = self.sig = self.sig[:3] + list(vt0 / np.linalg.norm(vt0)) + [self.sig[-1]]
            if self.friction:
                stay = sig[-1] > 0.5
                # the jam (U -> 0, force -F/U unbounded; module docstring): half steps
                # towards U = 0, declared at |U| <= 1e-10 D_nn as in method "event"
                U_jam = 0.0
                last = self.last
                if last is not None and last[1] > abs(U0):
                    h_u = 0.5 * abs(U0) * last[0] / (last[1] - abs(U0))
                    if h_u < h:
                        U_jam = 1e-10 * self.monitor(x, t)[8]
                        h = h_u
                if stay and U0 >= -U_jam:
                    raise self.pain.jam(t, x[:self.nq], self.monitor(x, t)[2], F0, U0)
                if (U0 <= U_jam and not stay) or (stay and F0 <= 0):
                    # Painlevé: sliding on the support with U <= 0 (seed 003 after (3.6))
                    got = self.pain.on_support(t, x[:self.nq], self.monitor(x, t)[2], F0, U0,
                                               self.mu_v, sig[3:3 + nt], nt)
                    self.sig = sig[:-1] + [1.0] if got == "stay" else self.pad([1.0, 1.0, 0.0])
                    self.cur = None
                    return None
        elif in_contact and self.mode == 0 and fs["nt"] and fs["mu"] is not None:
            if not (isinstance(fs["mu"], (int, float)) and fs["mu"] == 0):
                self.mode = 1.0                       # no sliding left in contact: roll
                self.events.append(Event(t, self.cname, "stick", vt_before=vt0.copy(),
                                         vt_after=vt0.copy(), direction=None))
                self.cur = None
                return None
        return h, sliding_dir, vt0

    def locate(self, hits, g0, h, ref):
        """The earliest event among ``hits`` in ``(0, h]``: bisection + secant (Illinois)
        on the step length to ``event_tol``.

        Returns
        -------
        best_h : float, the step length to the event
        best_i : int, the event function
        """
        x, t = self.x, self.t

        def ev_at(hh, i):
            xa, Fa, vta, Ua = self.advance(x, t, hh)
            return self.ev_values(xa, t + hh, ref, Fa, vta, Ua)[i]

        best_h, best_i = h, None
        for i in hits:
            lo, hi = 0.0, best_h
            flo, fhi = g0[i], ev_at(hi, i)
            if i in (2, 4, 5):                           # root of F or U (from <= 0)
                flo = min(flo, -1e-300)
            side = 0
            for _ in range(200):
                if hi - lo <= self.event_tol:
                    break
                mid = (lo * fhi - hi * flo) / (fhi - flo) if fhi != flo else 0.5 * (lo + hi)
                if not (lo < mid < hi):
                    mid = 0.5 * (lo + hi)
                fm = ev_at(mid, i)
                self.n_calls += 1
                if np.isnan(fm):
                    break
                if (fm > 0) == (flo > 0) and fm != 0:
                    lo, flo = mid, fm
                    if side == -1:
                        fhi *= 0.5
                    side = -1
                else:
                    hi, fhi = mid, fm
                    if side == 1:
                        flo *= 0.5
                    side = 1
            if hi < best_h or best_i is None:
                best_h, best_i = hi, i
        return best_h, best_i

    def handle_event(self, i, best_h, ref, vt0):
        """Step ``best_h`` to the located event ``i`` and apply it (new frozen signs, mode,
        event record); returns the state and time after it."""
        x, t, sig = self.x, self.t, self.sig
        nq, nu = self.nq, self.nu
        events, cname = self.events, self.cname
        x_ev = self.advance(x, t, best_h)[0]
        t_ev = t + best_h
        sidx = nq + nu
        if i == 0 and best_h <= 10 * self.event_tol and events and events[-1].kind == "impact" \
                and events[-1].t == t:
            # the located surface state itself re-detected (s within round-off of 0)
            x_ev[sidx] = sig[0] * abs(x_ev[sidx])
        elif i == 0:
            self.impact(x_ev, t_ev)
        elif i == 1:
            events.append(Event(t_ev, cname, "apex"))
            self.sig = self.pad([sig[0], -sig[1], 0.0])
        elif i in (4, 5) and sig[2] < 0.5:
            what = ("U = w_n^T M^-1 (w_n - mu W_t^T sigma) passes through 0" if i == 4 else
                    "the sliding direction sigma of W_t ut reverses")
            raise SolverError(
                f"{self.system.name}: method 'unified': {what} in flight at t = {t_ev:.12g}: "
                "the impact direction b = M^-1 (w_n - mu W_t^T sigma) / U of the unified "
                "variables (3.10) is singular or jumps there (Ivanov's H of (3.9) must be "
                "differentiable); use method='event'")
        elif i == 4 or (i == 2 and sig[-1] > 0.5):
            pass          # U through 0, or F down to 0 on the 'stay' branch: checked next
        elif i == 2:
            events.append(Event(t_ev, cname, "liftoff"))
            self.sig = self.pad([1.0, 1.0, 0.0])  # leave the support: v' = F > 0 from here on
        elif i == 3:
            # end of sliding: v_t along the frozen direction through 0; rolling from here
            vt_ev = np.asarray(self.advance(x, t, best_h)[2], float)
            self.mode = 1.0
            self.sig = self.pad(sig[:3])
            events.append(Event(t_ev, cname, "stick", vt_before=vt0.copy(), vt_after=vt_ev,
                                direction=ref[3] / np.linalg.norm(ref[3])))
        return x_ev, t_ev

    def impact(self, x_ev, t_ev):
        r"""The impact at ``s`` through 0 (in place on ``x_ev``): ``\dot g^- = -(1 + k)|v|``,
        ``\dot g^+ = (1 - k)|v|``; an ``"impact"`` event, then an ``"accumulation"`` (state
        put on ``s = v = 0``) where the next flight would be shorter than ``t_snap``."""
        nq, nu, sig, pv = self.nq, self.nu, self.sig, self.pv
        sidx, vidx = nq + nu, nq + nu + 1
        v_ = x_ev[vidx]
        x_ev[sidx] = 0.0 if abs(x_ev[sidx]) < 1e-300 else x_ev[sidx]
        F, vt, u, gd, b, U, lam, k, _ = self.monitor(x_ev, t_ev)   # k*(q) at the impact
        gm, gp = -(1 + k) * abs(v_), (1 - k) * abs(v_)
        ut = x_ev[nq:nq + nu]
        q_ = x_ev[:nq]
        um, up = ut + b * gm, ut + b * gp
        if self.friction and self.mode == 0 and U <= 0:
            # the sliding impact law (3.9) needs P_n = (gp - gm) / U < 0: Painlevé
            raise self.pain.at_impact(t_ev, q_, um, gm, U)
        Tm, Vm = self.Ef(q_, um, t_ev, pv)
        Tp, Vp = self.Ef(q_, up, t_ev, pv)
        self.events.append(Event(t_ev, self.cname, "impact", impulse=np.array([(gp - gm) / U]),
                                 energy_before=float(Tm + Vm), energy_after=float(Tp + Vp),
                                 gdot_before=gm, gdot_after=gp))
        if F < 0 and 2 * gp / (-F) < self.t_snap:
            x_ev[sidx] = 0.0
            x_ev[vidx] = 0.0
            self.sig = self.pad([1.0, -1.0, 1.0])
            self.events.append(Event(t_ev, self.cname, "accumulation"))
        else:
            self.sig = self.pad([-sig[0], 1.0, 0.0])

    def result(self):
        """The Result of the states recorded so far (at the end, or up to a failure)."""
        return unified_result(self.system, self.fs, self.pv, self.ts, self.xs, self.sigs,
                              self.events, self.output_times, self.n_steps, self.n_calls,
                              self.dt, self.wall0, self.init_report)


def unified_result(system, fs, pv, ts, xs, sigs, events, output_times, n_steps, n_calls, dt,
                   wall0, init_report=None):
    """The Result of the recorded states (at the end of a run, or up to a failure).

    Parameters
    ----------
    system : System
    fs : dict of :func:`._unified_equations.unified_functions`
    pv : ndarray, parameter vector
    ts, xs, sigs : lists of the recorded times, states ``(q, ut, s, v)`` and frozen signs
    events : list of Event
    output_times : array_like or None, the times to keep (nearest recorded at or after)
    n_steps, n_calls, dt, wall0 : statistics of the run
    init_report : the initialization report

    Returns
    -------
    Result
        with the physical speeds ``u`` (``res.v``), ``unified.s``, ``unified.v`` in
        ``res.x`` and the continuous speeds in ``res.ut``.
    """
    nq, nu = fs["nq"], fs["nu"]
    mon, Ef = fs["mon"], system.functions["energy"]
    X = np.array(xs)
    T = np.array(ts)
    # physical speeds u along the run (mode is piecewise; recompute with the final-mode rule)
    Us = np.empty((T.size, nu))
    modes = np.zeros(T.size)
    stick_t = next((e.t for e in events if e.kind == "stick"), np.inf)
    modes[T >= stick_t] = 1.0
    monm = mon.map(T.size)
    outs = monm(X.T, T[None, :], pv[:, None], modes[None, :], np.array(sigs).T)
    Us[:] = np.array(outs[2]).T
    Q = X[:, :nq]
    if output_times is not None:
        ot = np.asarray(output_times, float).ravel()
        idx = np.unique(np.clip(np.searchsorted(T, ot), 0, T.size - 1))
        T, Q, Us, X = T[idx], Q[idx], Us[idx], X[idx]
    names = dict(q=system.q_names, u=system.u_names, v=["unified.s", "unified.v"], z=[])
    Tk, Vp = Ef.map(T.size)(Q.T, Us.T, T[None, :], pv[:, None])
    kin, pot = np.array(Tk).ravel(), np.array(Vp).ravel()
    stats = dict(method="unified", steps=n_steps, dt=float(dt), n_events=len(events),
                 event_calls=n_calls, wall_time=_time.perf_counter() - wall0)
    res = Result(T, Q, Us, names, x=X[:, nq + nu:], stats=stats, events=events,
                 energy=kin + pot, kinetic=kin, potential=pot, system=None, params=pv,
                 name=system.name, init_report=init_report)
    res.system = None
    res._drawing_system = system         # Result.animate draws from it (without unified.s, .v)
    res.ut = X[:, nq:nq + nu]
    return res
