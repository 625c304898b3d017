r"""Impacts: the velocity jump at a gap event, and the mode after it.

At a gap event the contacts that touch form the impact problem in contact space
(:meth:`ModeLogic.contact_space`): pre-impact contact velocities ``v^-``, Delassus matrix
``D``, Newton's restitution ``e_n`` (``e_t`` tangential) and Coulomb friction ``mu``; the
C kernel (:func:`mechdae.contact.kernels.impact`) gives the impulses ``P`` and
``u^+ = u^- + M_c W_c^T P``. When Newton's law with friction would gain energy (Kane's
paradox) the energy-limited law is used (:mod:`mechdae.contact.energetic`). The contacts
left with ``v_n^+ <= vel_tol`` go to the contact-force problem (:meth:`ModeLogic.decide`);
accumulations of impacts are decided in :mod:`.accumulation`.
"""
import warnings

import numpy as np

from ...errors import SolverError
from ..result import Event
from .laws import sequential_impact, units
from .phase import OPEN

__all__ = ["ImpactLogic", "not_exhaustive"]


def not_exhaustive(extra, sol, t, names, what):
    """Mark an event whose search of all solutions was not complete (the kernel's
    ``exhaustive`` flag: several contacts sliding in space past the proved search), and
    warn once per call: the solution taken may not be the only one."""
    if getattr(sol, "exhaustive", True):
        return
    extra["exhaustive"] = False
    warnings.warn(f"t = {t:.12g}: the search of all {what} solutions at contacts {names} was "
                  "not exhaustive (more sliding contacts than the complete search covers, or "
                  "its budget ran out); the solution taken may not be the only one",
                  RuntimeWarning, stacklevel=2)


def _kernels():
    """:mod:`mechdae.contact.kernels` (imported on first use: the contact package imports
    the simulators) and the options of its :func:`impact` the engine calls it with."""
    global _KERNELS, _FAST
    if _KERNELS is None:
        import inspect
        from ...contact import kernels, _kernel_impact
        real = _kernel_impact.impact       # the wrapper itself, even if kernels.impact is
        dflt = {k: v.default for k, v in inspect.signature(real).parameters.items()}
        _FAST = (real, dflt["facets"] or 8, dflt["max_solutions"], dflt["max_iter"],
                 dflt["tol"], dflt["max_boxes"])      # patched before the first impact
        _KERNELS = kernels
    return _KERNELS


_KERNELS = _FAST = None


def solve_impact(D, vm, e_n, e_t, mu, dim):
    """``kernels.impact(D, vm, e_n=e_n, e_t=e_t, mu=mu, dim=dim, all_solutions=True,
    energy="report")``, the same solution, through the kernel's thin entry
    (``_contact.impact``) when the wrapper is the original one and the problem goes to the
    enumeration (up to 6 contacts; ``D``, ``vm``, ``e_n``, ``e_t``, ``mu`` float64 and
    C-contiguous, as the engine builds them): the wrapper's argument checks cost more than
    the solve of one contact. Anything else (a patched kernel, more contacts, a status
    the wrapper turns into an error) goes through the wrapper."""
    kern = _kernels()
    wrapper, facets, cap, max_iter, tol, max_boxes = _FAST
    k = e_n.shape[0]
    if kern.impact is not wrapper or k > 6:
        return kern.impact(D, vm, e_n=e_n, e_t=e_t, mu=mu, dim=dim, all_solutions=True,
                           energy="report")
    (st, nsol, iters, resid, _, _, P, vp, modes, dT, incomplete) = kern._contact.impact(
        D, vm, e_n, e_t, mu, dim, 0, facets, cap, max_iter, tol, tol, False, max_boxes)
    if st not in (kern._OK, kern._AMBIG, kern._INCONS, kern._GAIN):
        return kern.impact(D, vm, e_n=e_n, e_t=e_t, mu=mu, dim=dim, all_solutions=True,
                           energy="report")        # raises the wrapper's error
    exhaustive = incomplete == 0 or kern.frictionless_unique(D, dim, mu)
    return kern._enum_result(st, nsol, resid, P, vp, modes, dT, vm.shape[0], k, cap, True,
                             exhaustive)


class ImpactLogic:
    """Impact resolution of the event engine (a part of ``EventEngine``)."""

    def do_impact(self, x, t, mode, trigger):
        """Resolve the impact at ``t``; returns the new (mode, x)."""
        nq, nu = self.nq_nu()
        tm = self.terms(x, t)
        u = x[nq:nq + nu]
        idx = self.touching(tm, u, mode)
        for i in trigger:
            if i not in idx:
                idx.append(i)
        idx.sort()
        Wc, MW, D, b = self.contact_space(tm, idx)
        d = self.dim
        vm = self.velocities(tm, idx, u)
        vml = vm.tolist()                      # plain floats: the same doubles, faster
        approaching = [a for a in range(len(idx)) if vml[a * d] < -self.vel_tol]
        if not approaching:
            return self.decide(x, t, idx, mode, cause="grazing")
        E0 = tm["E"]
        ulist, e_n0, e_t, mu, names = self._set_data(idx)
        e_n = e_n0.copy()
        # an accumulation resolved out: plastic at the contacts it closes (see accumulation)
        closing, snap = self.accumulations(t, idx, approaching, vml, b, e_n)
        if len(ulist) > 1:
            imp, x, E1, vp = self._sequential(x, t, idx, D, MW, vm, e_n, ulist, E0)
        else:
            imp = solve_impact(D, vm, e_n, e_t, mu, d)
            if imp.status == "inconsistent":
                raise SolverError(f"t = {t:.12g}: the impact problem at contacts "
                                  f"{names} has no consistent solution")
            fallback = None
            if imp.status == "energy_gain":          # Kane's paradox: see contact/energetic.py
                fallback = self._energy_fallback(t, idx, D, vm, e_n, imp)
                imp = fallback.pop("solution")
            x = x.copy()
            x[nq:nq + nu] = u + MW @ imp.P
            E1 = self.energy(x, t)
            vp = imp.v_plus
            extra = dict(status=imp.status, modes=dict(zip(names, imp.modes)))
            not_exhaustive(extra, imp, t, names, "impact")
            if fallback is not None:
                extra["law"] = "energy-limited"
                extra["restitution_scale"] = fallback["scale"]
                self.events.append(Event(t, self.names[idx[approaching[0]]], "energy_fallback",
                                         None, E0, E1, energy_newton=E0 + fallback["dT_newton"],
                                         **fallback))
            if imp.status == "ambiguous" and imp.solutions:
                extra["solutions"] = [dict(P=s.P.tolist(), modes=s.modes) for s in imp.solutions]
            Pl = imp.P.tolist()
            recs = [(i, imp.P[a * d:a * d + 1 + self.nt[i]], vm[a * d:a * d + 1 + self.nt[i]],
                     vp[a * d:a * d + 1 + self.nt[i]]) for a, i in enumerate(idx)
                    if Pl[a * d] > 0 or a in approaching]
            self._book(t, tm["W"], recs, u, x[nq:nq + nu], E0, E1, extra)
        vpl = vp.tolist()
        for a, i in enumerate(idx):
            if vpl[a * d] <= self.vel_tol and a not in closing:
                self.impact_log[i].clear()
        cand = [i for a, i in enumerate(idx) if vpl[a * d] <= self.vel_tol]
        # every contact separating: all open (what decide gives without candidates)
        new, x = self.decide(x, t, cand, mode, cause="impact") if cand else (OPEN * self.nc, x)
        if snap:
            return self._snap_to_rest(x, t, new, idx, E1)
        for a, (t_inf, r, reason) in closing.items():
            i = idx[a]
            self.impact_log[i].clear()
            if new[i] != OPEN:
                v_reb = self.e_n[i] * abs(vm[a * d])
                tail = v_reb ** 2 / (2 * max(abs(b[a * d]), 1e-300))
                self.pending = (max(t_inf, t), i, dict(
                    ratio=r, t_detect=t, reason=reason, tail_height=tail, mode=new[i],
                    impulse_close=imp.P[a * d:a * d + 1 + self.nt[i]].copy()))
        return new, x

    def _set_data(self, idx):
        """``(units, e_n, e_t, mu, names)`` of the touching contacts ``idx`` (cached per
        set: the engine's laws and names do not change during a run; ``e_n`` is copied by
        the caller, the accumulation rule sets entries to 0)."""
        memo = self.__dict__.setdefault("_set_memo", {})
        key = tuple(idx)
        got = memo.get(key)
        if got is None:
            got = memo[key] = (units(idx, self.impact_laws), self.e_n[idx], self.e_t[idx],
                               self.mu[idx], [self.names[i] for i in idx])
        return got

    def _sequential(self, x, t, idx, D, MW, vm, e_n, ulist, E0):
        """The impact as a sequence of single impacts of units (:mod:`.laws`): one
        ``"impact"`` record per contact and single impact, with the energies before and
        after that single impact; returns ``(solution, x, E1, v_plus)``."""
        from ...contact.kernels import ImpactSolution, impact
        nq, nu = self.nq_nu()
        d = self.dim
        u0 = x[nq:nq + nu]

        def solve_unit(Du, vu, en, et, mu, unit):
            sub = [idx[a] for a in unit]
            sol = impact(Du, vu, e_n=en, e_t=et, mu=mu, dim=d, all_solutions=True,
                         energy="report")
            if sol.status == "inconsistent":
                raise SolverError(f"t = {t:.12g}: the impact problem at contacts "
                                  f"{[self.names[i] for i in sub]} has no consistent solution")
            if sol.status == "energy_gain":
                fb = self._energy_fallback(t, sub, Du, vu, en, sol)
                return fb.pop("solution"), fb
            return sol, None

        P, vp, steps = sequential_impact(D, vm, e_n, self.e_t[idx], self.mu[idx], d, ulist,
                                         self.vel_tol, solve_unit)
        Pc = np.zeros_like(P)
        Eb, ub = E0, u0
        W = self.terms(x, t)["W"]
        for k, st in enumerate(steps):
            Pc[st["rows"]] += st["P"]
            y = x.copy()
            y[nq:nq + nu] = u0 + MW @ Pc
            Ea = self.energy(y, t)
            sol, note = st["solution"], st["note"]
            extra = dict(law="sequential", step=k, status=sol.status,
                         modes=dict(zip([self.names[idx[a]] for a in st["unit"]], sol.modes)))
            if note is not None:
                extra["restitution_scale"] = note["scale"]
                self.events.append(Event(t, self.names[idx[st["unit"][0]]], "energy_fallback",
                                         None, Eb, Ea, energy_newton=Eb + note["dT_newton"],
                                         **note))
            recs = []
            for b, a in enumerate(st["unit"]):
                i = idx[a]
                r = slice(a * d, a * d + 1 + self.nt[i])
                Pa = st["P"][b * d:b * d + 1 + self.nt[i]]
                if Pa[0] > 0 or st["v_minus"][a * d] < -self.vel_tol:
                    recs.append((i, Pa, st["v_minus"][r], st["v_plus"][r]))
            self._book(t, W, recs, ub, y[nq:nq + nu], Eb, Ea, extra)
            Eb, ub = Ea, y[nq:nq + nu]
        modes = tuple("separate" if vp[a * d] > self.vel_tol else "stick"
                      for a in range(len(idx)))
        x = x.copy()
        x[nq:nq + nu] = u0 + MW @ P
        imp = ImpactSolution(P, vp, modes, float(Eb - E0), "sequential")
        return imp, x, Eb, vp

    def _book(self, t, W, recs, u_minus, u_plus, E0, E1, extra):
        """One ``"impact"`` record per contact of ``recs`` (``(i, P_i, v_i^-, v_i^+)``),
        the energy jump ``E1 - E0`` split between them: record ``k`` goes from
        ``E0 + s_1 + ... + s_{k-1}`` to ``... + s_k``, ``s_i = P_i^T W_i (u^- + u^+) / 2``
        the work of contact ``i``'s impulse (their sum is the kinetic-energy change; the
        round-off and constraint-drift rest is spread in proportion to ``|s_i|``).
        Summing the records' jumps books the impact once; ``extra["energy_impact"]``
        keeps ``(E0, E1)`` of the whole impact."""
        if not recs:
            return
        if len(recs) == 1:
            sh = [E1 - E0]           # one record: it books the whole jump
        else:
            um = np.asarray(u_minus, float) + np.asarray(u_plus, float)
            sh = np.array([float(P @ (W[self.offs[i]:self.offs[i] + len(P)] @ um)) / 2
                           for i, P, _, _ in recs])
            rest = (E1 - E0) - sh.sum()
            wt = np.abs(sh)
            sh = sh + rest * (wt / wt.sum() if wt.sum() > 0 else np.eye(len(sh))[0])
        e = E0
        for k, ((i, P, vm, vp), s) in enumerate(zip(recs, sh)):
            after = E1 if k == len(recs) - 1 else e + s
            self.events.append(Event(t, self.names[i], "impact", P.astype(float), e, after,
                                     v_minus=vm.astype(float), v_plus=vp.astype(float),
                                     energy_impact=(E0, E1), **extra))
            e = after

    def _energy_fallback(self, t, idx, D, vm, e_n, imp):
        """Newton's law would gain energy: raise (``energy_gain="raise"``) or solve with the
        energy-limited law (:mod:`mechdae.contact.energetic`)."""
        from ...contact.energetic import impact_no_gain
        from ...contact.kernels import EnergyGainError
        names = [self.names[i] for i in idx]
        gain = max(s.energy_change for s in (imp.solutions or [imp]))
        if self.energy_gain == "raise":
            raise EnergyGainError(f"t = {t:.12g}: Newton's impact law at contacts {names} would "
                                  f"increase the kinetic energy by {gain:.6g} J although "
                                  f"e_n, e_t <= 1 (Kane's paradox; energy_gain='fallback' "
                                  "uses the energy-limited law instead)", imp)
        sol, scale = impact_no_gain(D, vm, e_n, self.e_t[idx], self.mu[idx], self.dim)
        return dict(solution=sol, scale=float(scale), dT_newton=float(gain),
                    dT=float(sol.energy_change), contacts=names)
