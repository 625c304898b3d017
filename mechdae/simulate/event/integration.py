r"""Integration of one mode up to its first event (a part of ``EventEngine``).

A mode with generated C runs in ``csrc/mdae_ode.c`` (:meth:`PhaseIntegration._rk`, outputs
from the Runge–Kutta continuous extension); otherwise cvodes windows
(:meth:`PhaseIntegration._window`) whose sub-samples are checked for the first sign change
of the mode's event functions (:func:`.location.first_crossing`), the event then located
by re-integrations from the last sub-sample (:func:`.location.locate`). Also the event
values, rates and ``x'`` at the current state (:meth:`PhaseIntegration._refresh`).
"""
import numpy as np

from ...errors import SolverError
from .location import first_crossing, locate

__all__ = ["PhaseIntegration"]


class PhaseIntegration:
    """Stepping the current mode to its first event (a part of ``EventEngine``)."""

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
        """``x'`` of the current mode at ``(x, t)``."""
        ph = self.phase(self.mode)
        if ph is not None:
            return ph[1](x, t, self.P(t, 0.0))[0].ravel()
        return self.calls(self.mode)[2](x, t, self.P(t, 0.0))[0].ravel()

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
