r"""The event engine: a resumable integrator that steps from event to event.

:class:`EventEngine` integrates the current mode window by window (:mod:`.phase`), looks
for the first sign change of the mode's event functions (:mod:`.location`), moves to the
located event recording the output times passed (cubic Hermite interpolants of the
window's sub-samples), and hands the event to the mode logic (:mod:`.modes`,
:mod:`.impacts`, :mod:`.accumulation`). It is used by ``method="event"`` and by
``method="auto"`` (which takes over with time stepping across chattering).
"""
import threading
import warnings

import numpy as np

from ..._threads import LOCK as _LOCK
from ...errors import SolverError
from .._laws import contact_laws
from ..inputs import inputs_key, constant_vector
from .accumulation import AccumulationLogic, zeno_options
from .impacts import ImpactLogic
from .laws import contact_laws_option
from .location import first_crossing, locate
from .modes import ModeLogic
from .cycle import CycleLogic
from .compiled import (compiled_terms, stable_step, stabilization_eigenvalues,
                       terms_cfunction)
from .phase import OPEN, SLIDE_2D, ModeSet, Buffered, offsets, terms_function

__all__ = ["EventEngine", "MAX_WINDOW"]

#: Default largest window of one cvodes call (s); its ``samples_per_window`` sub-samples
#: are where event functions are checked for sign changes and the knots of the Hermite
#: outputs. Fixed, so the answer up to a time does not depend on ``t_final``.
MAX_WINDOW = 0.2


class EventEngine(ModeLogic, ImpactLogic, AccumulationLogic, CycleLogic):
    """Resumable event-driven integrator (used by ``"event"`` and ``"auto"``).

    Parameters
    ----------
    system : System
    specs : list
        Resolved input specs.
    pv : array
        Parameter vector.
    H, K : arrays
        Stabilization matrices of the bilateral constraints.
    options : dict
        See :func:`mechdae.simulate.event.simulate_event`.
    """

    def __init__(self, system, specs, pv, H, K, rtol, atol, options):
        self.system, self.specs, self.pv = system, specs, pv
        self.H, self.K = np.asarray(H, float), np.asarray(K, float)
        self.rtol, self.atol = rtol, atol
        o = options
        self.gains = tuple(float(g) for g in o["contact_stabilization"])
        self.nsub = int(o["samples_per_window"])
        self.event_tol = float(o["event_tol"])
        self.gap_tol = float(o["gap_tol"])
        self.vel_tol = float(o["vel_tol"])
        self.painleve = o["painleve"]
        self.zeno_opts = zeno_options(o["zeno"])
        self.max_events = int(o["max_events"])
        self.h_max = o["max_step"]
        from ...contact.energetic import check_rule
        self.energy_gain = check_rule(o.get("energy_gain", "fallback"))
        self.integrator_options = dict(o.get("integrator_options") or {})
        self.wc = constant_vector(specs)
        self.names = system.contact_names
        self.nc = len(self.names)
        self.offs = offsets(system)
        self.nt = [c["n_tangent"] for c in system.contacts]
        self.dim = max([2] + [1 + n for n in self.nt])
        self.e_n, self.e_t, self.mu = contact_laws(system, pv)
        self.impact_laws = contact_laws_option(o.get("impact_law", "simultaneous"), self.names)
        self.skey = inputs_key(specs)
        tkey = ("event-terms", self.skey)
        tf = system._integrators.get(tkey)
        if tf is None:
            with _LOCK:
                tf = system._integrators.get(tkey)
                if tf is None:
                    tf = system._integrators[tkey] = terms_function(system, specs)
        self.terms_f = tf
        self.phase_integrator = o.get("phase_integrator", "auto")
        if self.phase_integrator not in ("auto", "rk", "cvodes"):
            raise ValueError(f"phase_integrator: must be 'auto', 'rk' or 'cvodes', got "
                             f"{self.phase_integrator!r}")
        self._terms_call = self._energy_call = None
        if self.phase_integrator != "cvodes":
            ckey = ("event-terms-c", self.skey)
            ct = system._integrators.get(ckey, False)
            if ct is False:
                with _LOCK:
                    ct = system._integrators.get(ckey, False)
                    if ct is False:
                        ct = system._integrators[ckey] = compiled_terms(tf)
            if ct is not None:
                loc = self.local()
                got = loc.get(("terms", self.skey))
                if got is None:
                    got = loc[("terms", self.skey)] = terms_cfunction(ct)
                self._terms_call, self._energy_call = got
        if self._terms_call is None:
            self._terms_call = Buffered(tf)
        # the Runge-Kutta pair of the modes without a closed contact: 8th order at tight
        # tolerances (the default 1e-10: a spinning body in flight or a pendulum chain takes
        # 3-5x fewer steps than with the 5th-order pair); closed contacts keep the 5th-order
        # pair: at a Baumgarte-stabilized rest the 8th-order continuous extension's large
        # coefficients turn the round-off of the accelerations into 1e-13 m/s of noise
        self.rk_method = 1 if self.rtol < 1e-7 else 0        # _ode.DOP853 / _ode.DOPRI5
        self._phases = {}
        self._h0 = 0.0                # first Runge-Kutta step of a continuation (0: auto)
        self._stiff_mode = None       # a mode found stiff: cvodes for a window (see advance)
        self._stiff_tries = 0
        self.n_steps = self.n_rk = 0
        self.n_c_impacts = 0          # impacts resolved by the C cycle (.cycle)
        self._refreshed = None        # (t, mode, x) of the last _refresh
        self._terms_memo = {}
        self.events = []
        self.samples_t, self.samples_x, self.samples_mode = [], [], []
        self.n_windows = self.n_shoots = 0
        self.impact_log = {i: [] for i in range(self.nc)}
        self.pending = None           # (t_inf, contact, extra) of a closed series
        self.zeno_action = o.get("zeno_action", "extrapolate")
        self.zeno_detected = None     # (contact, t_k, t_inf, r) with zeno_action="report"
        self.zero_steps = 0
        self._calls = {}
        self.rest_velocity = o.get("rest_velocity")
        self.rest_impacts = int(o.get("rest_impacts", 2))
        self.rest_streak = []
        self.dref = np.zeros(2 * self.nc)     # see phase._split_P / _update_dref
        self.dref_log = []
        self._Pbase = np.concatenate([[0.0, 0.0], pv, self.H.ravel(order="F"),
                                      self.K.ravel(order="F"), self.wc, np.zeros(2 * self.nc)])

    # ---------------------------------------------------------------- compiled pieces
    def P(self, t0, T):
        """Runtime parameters ``(t0, T, p, vec H, vec K, w, d)`` of the mode Functions."""
        out = self._Pbase.copy()
        out[0], out[1] = t0, T
        if self.nc:
            out[-2 * self.nc:] = self.dref
        return out

    def local(self):
        """This thread's store on the System of the engine's C objects (terms, phases,
        cycles): their buffers are only used within one C call, so the engines of one
        thread may share them (built once, not per run); threads never do."""
        key = ("event-local", threading.get_ident())
        loc = self.system._integrators.get(key)
        if loc is None or len(loc) > 512:
            loc = self.system._integrators[key] = {}
        return loc

    def modeset(self, mode):
        key = ("event-mode", mode, self.skey, self.rtol, self.atol, self.gains, self.nsub,
               tuple(sorted(self.integrator_options.items())))
        ms = self.system._integrators.get(key)
        if ms is None:
            with _LOCK:          # shared by the engines of every thread (built once)
                ms = self.system._integrators.get(key)
                if ms is None:
                    ms = ModeSet(self.system, self.specs, mode, self.gains, self.nsub,
                                 self.rtol, self.atol, self.integrator_options)
                    self.system._integrators[key] = ms
        return ms

    def calls(self, mode):
        """Buffered ``(window, shoot, core)`` of ``mode`` (one set per engine: the buffers
        are not shared between engines, so engines on one System may run in threads)."""
        b = self._calls.get(mode)
        if b is None:
            ms = self.modeset(mode)
            b = self._calls[mode] = (Buffered(ms.window), Buffered(ms.shoot), Buffered(ms.core))
        return b

    def terms(self, x, t):
        """``M, h, C, rc, W, Wt, Wd, gap, E, MiX`` at ``(x, t)`` (memoized on the last
        states; ``MiX = M^-1 [h, C^T, W^T]``)."""
        key = (float(t), np.asarray(x, float).tobytes())
        memo = self._terms_memo
        tm = memo.get(key)
        if tm is not None:
            return tm
        M, h, C, rc, W, Wt, Wd, g, E, MiX = self._terms_call(x, t, self.P(t, 0.0))
        tm = dict(M=M, h=h.ravel(), C=C, rc=rc.ravel(), W=W, Wt=Wt.ravel(), Wd=Wd.ravel(),
                  gap=g.ravel(), E=float(E.ravel()[0]) if E.size else None, MiX=MiX)
        if len(memo) > 8:
            memo.clear()
        memo[key] = tm
        return tm

    def energy(self, x, t):
        """Total energy at ``(x, t)`` (its own generated function when the terms there
        are not at hand)."""
        if self._energy_call is not None:
            tm = self._terms_memo.get((float(t), np.asarray(x, float).tobytes()))
            if tm is None:
                E = self._energy_call(x, t, self.P(t, 0.0))[0]
                return float(E.ravel()[0]) if E.size else None
            return tm["E"]
        return self.terms(x, t)["E"]


    # ---------------------------------------------------------------- integration
    def start(self, t0, x0, mode=None, touching=()):
        """Set the state at ``t0`` and decide the initial mode.

        ``touching``: contacts to treat as touching whatever their (small) gap.
        """
        self.t, self.x = float(t0), np.asarray(x0, float).copy()
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        if self.nc and np.any(tm["gap"] < -1e-6):
            bad = [self.names[i] for i in range(self.nc) if tm["gap"][i] < -1e-6]
            warnings.warn(f"{self.system.name}: initial state penetrates contact(s) {bad} "
                          f"(gap {tm['gap'].min():.3g})", stacklevel=4)
        cur = mode or OPEN * self.nc
        u = self.x[nq:nq + nu]
        touch = sorted(set(self.touching(tm, u, cur)) | set(touching))
        closing = [i for i in touch if self.vn(tm, i, u) < -self.vel_tol]
        if closing:
            self.mode, self.x = self.do_impact(self.x, self.t, cur, closing)
        elif touch:
            self.mode, self.x = self.decide(self.x, self.t, touch, cur, record=mode is not None)
        else:
            self.mode = cur if mode else OPEN * self.nc
        self.x = self.project_closed(self.x, self.t, self.mode)
        self._refresh()
        self.record()

    def record(self):
        self._note_dref(len(self.samples_t))
        self.samples_t.append(self.t)
        self.samples_x.append(self.x.copy())
        self.samples_mode.append(self.mode)

    def _note_dref(self, k):
        """Remember the reference directions in force from sample ``k`` on (spatial sliding:
        the recorded contact forces are evaluated with them)."""
        if SLIDE_2D in self.mode:
            log = self.dref_log
            if not log or not np.array_equal(log[-1][1], self.dref):
                log.append((k, self.dref.copy()))

    def advance(self, t_stop, out_times, monitor=None):
        """Integrate to ``t_stop`` recording the states at ``out_times`` and at events.

        A mode with generated C (:meth:`phase`) is integrated by ``csrc/mdae_ode.c`` up to
        its next event (outputs from the Runge-Kutta continuous extension); otherwise
        window by window with cvodes (outputs: cubic Hermite interpolants of the window's
        sub-samples). Event states are integrated exactly in both.

        Returns
        -------
        str
            ``"done"`` or ``"monitor"`` (the monitor asked to stop after an event).
        """
        self.out_times = np.asarray(out_times, float)
        self.k_out = int(np.searchsorted(self.out_times, self.t, side="right"))
        span = max(t_stop - self.t, 1e-300)
        # windows: at most max_step (default MAX_WINDOW seconds, sub-samples every
        # MAX_WINDOW / K), never a fraction of the horizon: event detection and the Hermite
        # outputs would coarsen with t_final. Each cvodes call has a fixed cost (start-up of
        # its step size and order), so a window spans a whole flight when it can: the first
        # is as long as allowed, one after an event as long as the previous inter-event
        # time, and they grow 4x while nothing happens (the C integrator samples the event
        # functions on the same windows)
        h_max = self.h_max or MAX_WINDOW
        h = min(h_max, span)
        h_min = 1e-13 * max(1.0, abs(t_stop))
        last_event_t = self.t
        if self._refreshed != (self.t, self.mode, self.x.tobytes()):
            self._refresh()            # (start() has just done it for a new run)
        while self.t < t_stop - 1e-14 * max(1.0, abs(t_stop)):
            tb = t_stop
            if self.pending is not None and self.pending[0] <= tb:
                tb = self.pending[0]
            ph = None if self._stiff_mode == self.mode else self.phase(self.mode)
            cy = None if ph is None or monitor is not None else self._cycle(ph)
            if cy is not None:                 # flight phases and simple impacts in C
                which, h, last = self._run_cycle(cy, ph, tb, h, h_max, h_min)
                if last is not None:
                    last_event_t = last
            elif ph is not None:
                which = self._rk(ph, tb, h, h_max)
            else:
                which, h = self._window(tb, h, h_max)
                if which is None and self._stiff_mode == self.mode and self._stiff_tries < 3:
                    # a stiff stretch may be transient (a spatial slide starting from rest):
                    # the C integrator is tried again after each cvodes window, thrice
                    self._stiff_mode = None
            if which is None:
                continue
            self.record()
            self._handle(which)
            self.x = self.project_closed(self.x, self.t, self.mode)
            self.record()
            self._stiff_mode = None
            self._stiff_tries = 0
            self._h0 = 0.0
            self._refresh()
            dt_ev = self.t - last_event_t
            last_event_t = self.t
            h = min(max(dt_ev, 64 * h_min), h_max)
            if len(self.events) > self.max_events:
                raise SolverError(f"{self.system.name}: more than {self.max_events} events by "
                                  f"t = {self.t:.12g} (chattering contacts?); raise max_events "
                                  "or use method='auto' / 'timestepping'")
            if monitor is not None and monitor(self):
                return "monitor"
        return "done"

    # ---------------------------------------------------------------- compiled phases
    def phase(self, mode):
        """``(Phase, rhs, ev, lam, h_stab, desc, state, method)`` of ``mode`` in C for this engine,
        or None (cvodes:
        ``phase_integrator="cvodes"``, no working compiler, or no scalar form)."""
        got = self._phases.get(mode, False)
        if got is False and self.phase_integrator != "cvodes":
            key = ("phase", mode, self.skey, self.rtol, self.atol, self.gains, self.nsub,
                   tuple(sorted(self.integrator_options.items())), self.gap_tol,
                   self.rk_method, self.H.tobytes(), self.K.tobytes())
            loc = self.local()
            got = self._phases[mode] = loc.get(key, False)
            if got is False:
                got = self._phases[mode] = loc[key] = self._new_phase(mode)
        return got or None

    def _new_phase(self, mode):
        """The :meth:`phase` tuple of ``mode`` built anew (None: no generated C)."""
        ms = self.modeset(mode)
        cm = ms.compiled()
        if cm is None:
            if self.phase_integrator == "rk":
                raise SolverError(f"{self.system.name}: phase_integrator='rk' needs "
                                  "generated C (a working C compiler, CC, and "
                                  "MECHDAE_CODEGEN not 0); use phase_integrator='auto' "
                                  "to fall back to cvodes")
            return None
        from .. import _ode
        rhs, ev, lam, state = cm.functions()
        ph = _ode.Phase(rhs, ev if cm.ne else None, cm.nx, cm.ne,
                        self._event_shift(ms) if cm.ne else None)
        method = self.rk_method if all(mo == OPEN for mo in mode) else 0
        return (ph, rhs, ev, lam, self._stable_step(mode, method), ms.desc, state, method)

    def _stable_step(self, mode, method):
        """Largest step keeping the stabilized constraint errors of ``mode`` decaying
        (:func:`.compiled.stable_step`; 0: no bound)."""
        a, b, g = self.gains
        m, r = self.system.m, self.system.m + self.system.k
        bil = (self.H, self.K, m) if r and (np.any(self.H) or np.any(self.K)) else (None, None, 0)
        closed = not all(mo == OPEN for mo in mode)
        memo = self.__dict__.setdefault("_stable_memo", {})
        if (closed, method) not in memo:
            lams = stabilization_eigenvalues(a, b, g, *bil)
            h = stable_step(lams if closed else lams[3:], method)
            memo[closed, method] = 0.0 if not np.isfinite(h) else h
        return memo[closed, method]

    def _rk(self, ph, tb, window, h_max):
        """Integrate the current mode in C to ``tb`` or its first event; returns the
        ``(contact, kind)`` of the functions that fired, or None."""
        phase = ph[0]
        mode = self.mode
        auto = self.phase_integrator == "auto"
        try:
            r = phase.run(self.t, self.x, tb, self.P(self.t, 0.0), h0=self._h0,
                          rtol=self.rtol, atol=self.atol, window=window, window_max=h_max,
                          nsub=self.nsub, event_tol=self.event_tol,
                          stiff_h=h_max / (8 * self.nsub) if auto else 0.0,
                          t_out=self.out_times[self.k_out:], h_stab=ph[4],
                          max_steps=200000 if auto else 10000000, method=ph[7])
        except RuntimeError as exc:
            if not auto:
                raise SolverError(f"{self.system.name}: {exc} (mode {mode!r}); "
                                  "phase_integrator='auto' hands such phases to cvodes") from exc
            self._stiff_mode = mode            # step size underflow or too many steps
            self._stiff_tries += 1
            return None
        self.n_rk += 1
        self.n_steps += r["steps"]
        self.n_shoots += r["shoots"]
        T = r["T_out"]
        if T.size:
            self._note_dref(len(self.samples_t))
            self.samples_t.extend(T.tolist())
            self.samples_x.append(r["X_out"])          # one block of rows
            self.samples_mode.extend([mode] * T.size)
            self.k_out += T.size
        self.t, self.x, self.xd = float(r["t"]), r["x"], r["xdot"]
        self._h0 = r["h"]
        if phase.ne:
            self.ev, self.evd = r["e"], r["edot"]
        outcome = r["outcome"]
        if outcome == 1:                       # _ode.EVENT
            desc = ph[5]
            return [desc[k] for k in r["fired"]]
        if outcome == 2:                       # _ode.STIFF: cvodes for a while
            self._stiff_mode = mode
            self._stiff_tries += 1
            self._refresh()
        elif self.pending is not None and self.pending[0] <= self.t * (1 + 1e-15):
            self._record_pending()
        return None

    def _window(self, tb, h, h_max):
        """One cvodes window of the current mode towards ``tb``; returns ``(which, h)``:
        the fired ``(contact, kind)`` (None: no event) and the next window's length."""
        ms = self.modeset(self.mode)
        window = self.calls(self.mode)[0]
        tb = min(self.t + h, tb)
        T = tb - self.t
        if T <= 1e-15 * max(1.0, abs(tb)):
            self._advance_to(tb, [], [], [])
            return None, h
        try:
            X, E, Xd, Ed = window(self.x, self.P(self.t, T))
        except RuntimeError as exc:
            return self._window_failed(ms, T, exc)
        self.n_windows += 1
        K = ms.K
        tgrid = self.t + T * np.arange(1, K + 1) / K
        ev0 = self.ev
        j, fired, self.off = first_crossing(ev0, E, self._event_shift(ms))
        if j is None:
            self.ev, self.evd = E[:, -1].copy(), Ed[:, -1].copy()
            self._advance_to(tb, tgrid, X.T, Xd.T)
            return None, min(4.0 * T, h_max)
        ta = self.t + T * j / K
        xa = self.x if j == 0 else X[:, j - 1].copy()
        ea = ev0 if j == 0 else E[:, j - 1]
        eda = self.evd if j == 0 else Ed[:, j - 1]
        t_e, x_e, e_e, which = self._locate(ta, xa, ea, eda, tgrid[j], X[:, j], E[:, j],
                                            Ed[:, j], fired)
        xd_e = self._xdot(x_e, t_e)
        self._advance_to(t_e, list(tgrid[:j]) + [t_e], list(X.T[:j]) + [x_e],
                         list(Xd.T[:j]) + [xd_e], final_sample=False)
        self.ev = e_e
        return which, h

    def _window_failed(self, ms, T, exc):
        """A cvodes window that failed in a mode with sliding contacts: Painlevé's jam
        (``U -> 0``, accelerations ~ ``1/U``) stops cvodes before the window's sub-samples
        see the jam function fire. Windows 16x shorter approach it; where one of
        ``1e-12`` s still fails with ``U / D_nn < 1e-6``, the jam is handled there
        (``(next window, None)`` or ``(which, T)``); other failures propagate."""
        jams = [k for k, (_, kd) in enumerate(ms.desc) if kd == "painleve"]
        if not jams:
            raise exc
        if T > 1e-12 * max(1.0, abs(self.t)):
            return None, T / 16
        k = min(jams, key=lambda j: self.ev[j])
        if self.ev[k] < 1e-6:
            return [ms.desc[k]], T
        raise exc

    def _refresh(self):
        """Event values, their rates and ``x'`` of the current mode at the current state."""
        self._update_dref()
        P = self.P(self.t, 0.0)
        ph = self.phase(self.mode)
        if ph is not None:
            xd, e, ed = ph[6](self.x, self.t, P)
            self.xd, self.ev, self.evd = xd.ravel(), e.ravel(), ed.ravel()
        else:
            out = self.calls(self.mode)[2](self.x, self.t, P)
            self.xd, self.ev, self.evd = out[0].ravel(), out[2].ravel(), out[3].ravel()
        self._refreshed = (self.t, self.mode, self.x.tobytes())

    def _xdot(self, x, t):
        ph = self.phase(self.mode)
        if ph is not None:
            return ph[1](x, t, self.P(t, 0.0))[0].ravel()
        return self.calls(self.mode)[2](x, t, self.P(t, 0.0))[0].ravel()

    def _advance_to(self, tb, ts, Xs, Xds, final_sample=True):
        """Move to ``tb`` along samples ``(ts, Xs, Xds)``; record the output times passed."""
        t0, x0, xd0 = self.t, self.x, self.xd
        ot = self.out_times
        k = self.k_out
        pts_t = [t0] + list(ts)
        pts_x = [x0] + list(Xs)
        pts_d = [xd0] + list(Xds)
        k_end = int(np.searchsorted(ot, tb * (1 + 1e-15) + 1e-300, side="right"))
        if final_sample and k_end > k and ot[k_end - 1] >= tb:
            k_end -= 1           # recorded below as the window end
        if k_end > k:
            to = ot[k:k_end]
            if len(pts_t) == 1:
                xo = np.repeat(np.asarray(x0, float)[None, :], to.size, axis=0)
            else:
                pt = np.asarray(pts_t)
                seg = np.clip(np.searchsorted(pt, to, side="left") - 1, 0, pt.size - 2)
                PX, PD = np.asarray(pts_x, float), np.asarray(pts_d, float)
                ta, dt = pt[seg], pt[seg + 1] - pt[seg]
                sv = np.where(dt > 0, np.clip((to - ta) / np.where(dt > 0, dt, 1.0), 0.0, 1.0),
                              0.0)[:, None]
                dtc = dt[:, None]
                xo = ((2 * sv ** 3 - 3 * sv ** 2 + 1) * PX[seg]
                      + (sv ** 3 - 2 * sv ** 2 + sv) * dtc * PD[seg]
                      + (-2 * sv ** 3 + 3 * sv ** 2) * PX[seg + 1]
                      + (sv ** 3 - sv ** 2) * dtc * PD[seg + 1])
            self._note_dref(len(self.samples_t))
            self.samples_t.extend(float(v) for v in to)
            self.samples_x.extend(xo)
            self.samples_mode.extend([self.mode] * to.size)
            k = k_end
        self.t = float(tb)
        if len(pts_t) > 1:
            self.x, self.xd = np.array(pts_x[-1], float), np.array(pts_d[-1], float)
        hit = k < ot.size and abs(ot[k] - tb) <= 1e-15 * max(1.0, abs(tb)) + 1e-300
        if final_sample and hit:
            self.record()
            k += 1
        self.k_out = k
        if self.pending is not None and self.pending[0] <= tb * (1 + 1e-15):
            self._record_pending()


    # ---------------------------------------------------------------- event location
    def _event_shift(self, ms):
        """Shift of the functions that start non-positive (see location.first_crossing):
        ``gap_tol`` for gaps, 1e-8 otherwise."""
        sh = ms.__dict__.get("_shift")
        if sh is None or sh[0] != self.gap_tol:
            sh = ms._shift = (self.gap_tol, np.array([self.gap_tol if kd == "gap" else 1e-8
                                                      for _, kd in ms.desc]))
        return sh[1]

    def _locate(self, ta, xa, ea, eda, tb, xb, eb, edb, fired):
        """Earliest event in ``(ta, tb]`` (:func:`.location.locate`) by re-integrations of
        the current mode from ``(ta, xa)``; returns ``(t, x, e, which)``, ``which`` the
        ``(contact, kind)`` of every function that fired."""
        shoot_f = self.calls(self.mode)[1]

        def shoot(tc):
            xc, ec, edc = shoot_f(xa, self.P(ta, tc - ta))
            self.n_shoots += 1
            return xc.ravel(), ec.ravel(), edc.ravel()

        tol = self.event_tol * max(1.0, abs(tb))
        t_e, x_e, e_e, ks = locate(shoot, ta, xa, ea, tb, xb, eb, fired, eda, edb, self.off,
                                   tol)
        desc = self.modeset(self.mode).desc
        return t_e, x_e, e_e, [desc[k] for k in ks]
