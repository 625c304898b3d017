r"""Flight phases and their simple impacts in C (``csrc/mdae_cycle.c``).

In a mode where every contact is open, a phase ends at the first gap event. Most such
events in a run are *simple impacts*: one contact hits, no other touches, the impact
problem has one solution after which the contact separates, and the accumulation rule
would not end the contact's series of impacts there. For those the engine's Python
(:meth:`.impacts.ImpactLogic.do_impact`) only books what the impact kernel gives; the C
cycle resolves them itself (the same contact space, kernel call, accumulation checks and
next window) and starts the next phase, returning to Python only at an event that is not
a simple impact, at a stiff stretch, at the end, or after ``MAX_IMPACTS`` impacts. The
Python side then books every impact of the cycle (one ``"impact"`` event each, the
states before and after it as samples, the impact times the accumulation rule reads).

The cycle is used when its result cannot differ from the Python path's: the mode's phase
and the contact terms run as generated C, the model has no bilateral constraints (the
contact space is then ``M^-1 W^T`` from the terms), the run has no monitor, no pending
accumulation, the impact kernel is the library's own (not wrapped), and the accumulation
rule is not ``zeno_action="report"`` (which keeps Python).
"""
import numpy as np

from ..result import Event
from . import impacts as _imp
from .phase import OPEN

__all__ = ["CycleLogic", "MAX_IMPACTS"]

#: Impacts resolved per call of the C cycle (then Python books them and calls again).
MAX_IMPACTS = 256


class CycleLogic:
    """The C event cycle of the event engine (a part of ``EventEngine``)."""

    def _cycle(self, ph):
        """The :class:`_ode.Cycle` of the current mode, or None when the cycle does not
        apply (see the module docstring); built once per mode."""
        memo = self.__dict__.setdefault("_cycles", {})
        mode = self.mode
        cy = memo.get(mode, False)
        if cy is False:
            z = self.zeno_opts
            key = ("cycle", id(ph[0]), self.e_n.tobytes(), self.e_t.tobytes(),
                   self.mu.tobytes(), self.gap_tol, self.vel_tol, self.rest_velocity,
                   None if z is None else tuple(sorted(z.items())), self.zeno_action)
            loc = self.local()          # per thread, with the phase it drives
            cy = loc.get(key, False)
            if cy is False:
                cy = loc[key] = self._build_cycle(ph)
            memo[mode] = cy
        if cy is None or self.pending is not None:
            return None
        if _imp._kernels().impact is not _imp._FAST[0]:
            return None                        # a wrapped kernel sees every impact
        return cy

    def _build_cycle(self, ph):
        from .. import _ode
        if (not self.nc or any(mo != OPEN for mo in self.mode) or not ph[0].ne
                or self.system.m + self.system.k
                or not isinstance(self._terms_call, _ode.CFunction)
                or self._energy_call is None):
            return None
        z = self.zeno_opts
        early = z is not None and bool(z["early"])
        if z is not None and (self.zeno_action == "report" or early and not
                              1 <= int(z["min_impacts"]) - 1 <= _ode.Cycle.HIST - 1):
            return None
        gap_of = [i if kd == "gap" else -1 for i, kd in ph[5]]
        if all(g < 0 for g in gap_of):
            return None
        _imp._kernels()
        _, facets, _, max_iter, tol, max_boxes = _imp._FAST
        rv = self.rest_velocity
        return _ode.Cycle(ph[0], self._terms_call, self._energy_call, self.system.nq,
                          self.system.nu, self.offs[:self.nc], self.nt, self.e_n,
                          self.e_t, self.mu, sum(1 + k for k in self.nt), gap_of,
                          self.gap_tol, self.vel_tol, -1.0 if rv is None else float(rv),
                          z is not None, z["ratio_tol"] if z else 0.05,
                          z["r_max"] if z else 0.98, facets, max_iter, tol, max_boxes,
                          early=early, n_ratio=int(z["min_impacts"]) - 1 if early else 2,
                          min_flight=float(z["min_flight"]) if early else 0.0)

    def _run_cycle(self, cy, ph, tb, window, h_max, h_min):
        """Integrate the current mode in C to ``tb`` through its simple impacts; returns
        ``(which, window, last_event)``: the ``(contact, kind)`` of the functions that
        fired at an event left to Python (None: no event), the window to continue with,
        and the time of the last impact resolved (None: none)."""
        cap = min(MAX_IMPACTS, self.max_events - len(self.events))
        if cap <= 0:
            return self._rk(ph, tb, window, h_max), window, None
        mode = self.mode
        hist = np.zeros((self.nc, cy.HIST))
        nhist = np.zeros(self.nc, dtype=np.intc)
        for i, lg in self.impact_log.items():
            if lg:
                k = min(cy.HIST, len(lg))
                hist[i, :k] = lg[-k:]
                nhist[i] = k
        auto = self.phase_integrator == "auto"
        try:
            r = cy.run(self.t, self.x, tb, self.P(self.t, 0.0), hist, nhist, h0=self._h0,
                       rtol=self.rtol, atol=self.atol, window=window, window_max=h_max,
                       nsub=self.nsub, event_tol=self.event_tol,
                       stiff_h=h_max / (8 * self.nsub) if auto else 0.0,
                       t_out=self.out_times[self.k_out:], h_stab=ph[4],
                       max_steps=200000 if auto else 10000000, method=ph[7], h_min=h_min,
                       max_impacts=cap)
        except RuntimeError:
            # a phase failed: the Python path repeats the run and handles it (its
            # impacts, if any, are resolved again exactly as here)
            return self._rk(ph, tb, window, h_max), window, None
        self.n_rk += r["phases"]
        self.n_steps += r["steps"]
        self.n_shoots += r["shoots"]
        T = r["T_out"]
        if T.size:
            self.samples_t.extend(T.tolist())
            self.samples_x.append(r["X_out"])          # one block of rows
            self.samples_mode.extend([mode] * T.size)
            self.k_out += r["n_out"]
        log = r["log"]
        last = None
        if log.shape[0]:
            self._book_cycle(log, cy.dim)
            last = r["last_event"]
            window = r["window"]
        self.t, self.x, self.xd = float(r["t"]), r["x"], r["xdot"]
        self._h0 = r["h"]
        self.ev, self.evd = r["e"], r["edot"]
        outcome = r["outcome"]
        if outcome == 1:                       # _ode.EVENT: Python's mode logic decides
            desc = ph[5]
            return [desc[k] for k in r["fired"]], window, last
        if outcome == 2:                       # _ode.STIFF: cvodes for a while
            self._stiff_mode = mode
            self._stiff_tries += 1
            self._refresh()
        return None, window, last

    def _book_cycle(self, log, d):
        """One ``"impact"`` event per impact of the cycle, as :meth:`do_impact` books a
        single contact's impact; the impact times for the accumulation rule."""
        from ...contact._kernel_inputs import MODE_NAMES
        self.rest_streak.clear()
        self._stiff_mode = None
        self._stiff_tries = 0
        self.zero_steps = 0
        self.n_c_impacts += log.shape[0]
        events, names, nt, logs = self.events, self.names, self.nt, self.impact_log
        head = log[:, :5].tolist()
        contacts = [int(h[1]) for h in head]
        n = {1 + nt[i] for i in contacts}
        n = n.pop() if len(n) == 1 else None     # every row the same length: row views
        blocks = []
        for j in range(3):                      # P, v^-, v^+: own arrays, row views
            B = log[:, 5 + j * d:5 + j * d + (n or d)].copy()
            blocks.append(list(B) if n else [B[k, :1 + nt[i]] for k, i in
                                              enumerate(contacts)])
        for (t, _, E0, E1, mo), i, P, vm, vp in zip(head, contacts, *blocks):
            name = names[i]
            events.append(Event(t, name, "impact", P, E0, E1, v_minus=vm, v_plus=vp,
                                energy_impact=(E0, E1), status="unique",
                                modes={name: MODE_NAMES[int(mo)]}))
            logs[i].append(t)
