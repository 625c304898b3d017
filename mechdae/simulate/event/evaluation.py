r"""The compiled pieces the event engine evaluates (a part of ``EventEngine``).

The model terms ``M, h, C, W, gap, E, ...`` at one state (generated C, or the CasADi
Function through buffers), the runtime parameter vector of the mode Functions, the mode
sets (cvodes windows, shooting, core) shared by every engine of a System, and the C
Runge–Kutta phases (:mod:`.compiled`, ``csrc/mdae_ode.c``) of a mode with their stable
step. Built once per System (or per thread for objects holding C buffers) and looked up
by key.
"""
import threading

import numpy as np

from ..._threads import LOCK as _LOCK
from ...errors import SolverError
from .compiled import (compiled_terms, stable_step, stabilization_eigenvalues,
                       terms_cfunction)
from .phase import OPEN, ModeSet, Buffered, terms_function

__all__ = ["EngineEvaluation"]


class EngineEvaluation:
    """The compiled Functions of the event engine and their calls (a part of
    ``EventEngine``)."""

    def _init_evaluation(self, system, specs, o):
        """The terms Function of ``specs`` (and its generated C unless
        ``phase_integrator="cvodes"``); ValueError for an unknown ``phase_integrator``."""
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
        """The :class:`.phase.ModeSet` of ``mode`` (shared by the engines of every
        thread, built once per System and options)."""
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
