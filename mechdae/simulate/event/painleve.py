r"""Painlevé cases of the event engine's contact problems (a part of ``EventEngine``).

Where the acceleration-level contact problem of the touching contacts has no consistent
solution (inconsistent) or several (indeterminate), and where ``U`` of a sliding contact
falls to 0 (Painlevé's jam: the contact force ``-F/U`` grows without bound), a
``"painleve"`` event lists the alternatives — the contact problem's solutions and the
impact without collision (an impact problem with ``e_n = 0`` at zero normal speed) —
and the run's ``painleve`` rule picks one (:mod:`mechdae.simulate._painleve`: lift-off,
stay, impact without collision, or raise :class:`mechdae.PainleveError`).
"""
import math

import numpy as np

from ...errors import SolverError
from .._painleve import label, painleve_error, painleve_rules, pick, warn_default
from ..result import Event
from .phase import OPEN, SLIDE_POS, SLIDE_2D

__all__ = ["PainleveCases"]


class PainleveCases:
    """Painlevé cases: their alternatives, the rule's choice, the jam (a part of
    ``EventEngine``)."""

    def _painleve_case(self, x, t, idx, sol, D, vc, vt, mu, MW, b):
        """A Painlevé case of the contact problem (``sol.status`` inconsistent or
        indeterminate): record a ``"painleve"`` event with the alternatives and follow the
        run's ``painleve`` rule (:mod:`mechdae.simulate._painleve`).

        Returns ``(solution, None)`` for a contact-force alternative, ``(None, x)`` after an
        impact without collision; raises :class:`PainleveError` for ``"raise"`` (or a rule
        whose alternative does not exist)."""
        rules = self.__dict__.get("_pl_rules")
        if rules is None:
            rules = self._pl_rules = painleve_rules(self.painleve)
        d = self.dim
        nq, nu = self.nq_nu()
        case = sol.status
        U, Fv, who = self._painleve_numbers(D, b, vt, mu, idx)
        names = [self.names[i] for i in idx]
        alts = [dict(kind="modes", modes=dict(zip(names, s.modes)),
                     lam={nm: s.lam[a * d:a * d + 1 + self.nt[i]].copy()
                          for a, (nm, i) in enumerate(zip(names, idx))},
                     closed=sum(m != "separate" for m in s.modes),
                     normal=float(np.sum(s.lam[0::d]))) for s in sol.solutions]
        label(alts)
        imp = self._impulse_alternative(D, vc, mu, idx)
        if imp is not None:
            alts.append(dict(kind="impact", modes=dict(zip(names, imp.modes)),
                             P={nm: imp.P[a * d:a * d + 1 + self.nt[i]].copy()
                                for a, (nm, i) in enumerate(zip(names, idx))},
                             closed=sum(m != "separate" for m in imp.modes),
                             normal=float(np.sum(imp.P[0::d]))))
        rule = rules[case]
        k = pick(alts, rule)
        E0 = self.energy(x, t)
        last = self.events[-1] if self.events else None
        repeat = (last is not None and last.kind == "painleve" and last.contact == who
                  and last.extra.get("case") == case
                  and abs(last.t - t) <= 1e-8 * max(1.0, abs(t)))
        info = dict(case=case, rule=rule, alternatives=alts, chosen=k, U=U, F=Fv)
        if k is None:
            self.events.append(Event(t, who, "painleve", None, E0, E0, **info))
            note = ("" if rule == "raise" else "the impact problem at zero normal velocity "
                    "has no impulsive solution")
            raise painleve_error("event", t, who, case, U, Fv, alts, note)
        if alts[k]["kind"] == "impact":
            x = np.array(x, float)
            x[nq:nq + nu] = x[nq:nq + nu] + MW @ imp.P
            self.events.append(Event(t, who, "painleve", imp.P, E0, self.energy(x, t),
                                     modes=imp.modes, **info))
            return None, x
        if not repeat:
            self.events.append(Event(t, who, "painleve", None, E0, E0, **info))
            if case == "indeterminate" and rules["warn"]:
                warn_default("event", t, who, U, Fv, alts, k, stacklevel=6)
        return sol.solutions[k], None

    def _impulse_alternative(self, D, vc, mu, idx):
        """The impact without collision at the touching contacts (an impact problem with
        ``e_n = 0`` at their normal velocities, clipped to <= 0): the solution with the
        largest normal impulse, None when every solution has ``P_n = 0``."""
        from ...contact.kernels import impact
        d = self.dim
        v_minus = vc.copy()
        for a in range(len(idx)):
            v_minus[a * d] = min(v_minus[a * d], 0.0)
        try:
            imp = impact(D, v_minus, e_n=0.0, e_t=self.e_t[idx], mu=mu, dim=d,
                         energy="report", all_solutions=True)
        except SolverError:
            return None
        sols = imp.solutions or [imp]
        # P = 0 is always consistent at zero normal speed: take the impulsive solution
        imp = max(sols, key=lambda sl: float(np.sum(sl.P[0::d])))
        return imp if np.sum(imp.P[0::d]) > 0 else None

    def _painleve_numbers(self, D, b, vt, mu, idx):
        """``(U, F, contact)`` of the first planar sliding contact of ``idx`` with ``U < 0``
        (else the last sliding one; NaN where none slides): ``U = D_nn - mu s D_nt``,
        ``F = b_n``."""
        d = self.dim
        best = (math.nan, math.nan, self.names[idx[0]])
        for a, i in enumerate(idx):
            if self.nt[i] != 1 or abs(vt[a]) <= self.vel_tol:
                continue
            s = np.sign(vt[a])
            U = D[a * d, a * d] - mu[a] * s * D[a * d, a * d + 1]
            Fv = b[a * d]
            best = (float(U), float(Fv), self.names[i])
            if U < 0:
                break
        return best

    def _sliding_U(self, x, t, i, mo):
        """``(U, F, D, b, vc, MW)`` of the sliding contact ``i`` alone (contact space of
        ``[i]``): ``U = D_nn - mu s D_nt`` (planar, ``s`` the sliding sign of ``mo``) or
        ``D_nn - mu d . D_nt`` (spatial, ``d`` the friction direction)."""
        nq, nu = self.nq_nu()
        tm = self.terms(x, t)
        _, MW, D, b = self.contact_space(tm, [i])
        vc = self.velocities(tm, [i], x[nq:nq + nu])
        if mo == SLIDE_2D:
            v2 = vc[1:3]
            n = float(np.hypot(*v2))
            dr = v2 / n if n > self.vel_tol else self.dref[2 * i:2 * i + 2]
            U = D[0, 0] - self.mu[i] * float(dr @ D[0, 1:3])
        else:
            U = D[0, 0] - self.mu[i] * (1.0 if mo == SLIDE_POS else -1.0) * D[0, 1]
        return float(U), float(b[0]), D, b, vc, MW

    def _jam(self, i):
        """Painlevé's jam: ``U`` of the sliding contact ``i`` reached 0 (its event function,
        ``phase._jam_function``) while the contact force ``-F/U`` grows without bound.

        Named as method "unified" names it: ``"inconsistent"`` where ``U`` falls to 0 with
        ``F < 0`` (past it no contact force ``lam_n >= 0`` keeps the contact),
        ``"jam"`` where the ``"stay"`` branch of an indeterminate case (``U < 0 < F``) sees
        ``U`` rise to 0. Recorded as a ``"painleve"`` event whose alternatives are the impact
        without collision (when the impact problem has an impulsive solution); the rule of
        the inconsistent case applies: ``"impact"`` applies it and the run goes on, anything
        else raises :class:`PainleveError` (``err.partial``: the run up to the jam).

        With other contacts closed, ``U`` of one contact alone through 0 is no singularity of
        the mode: the contact problem of the touching contacts decides (:meth:`decide`).
        """
        x, t, mode = self.x, self.t, self.mode
        nq, nu = self.nq_nu()
        if any(mo != OPEN for j, mo in enumerate(mode) if j != i):
            # other contacts closed: the mode's forces stay bounded unless its whole
            # contact problem is singular; that problem decides (its Painlevé cases follow
            # the rule in decide)
            tm = self.terms(x, t)
            self.mode, self.x = self.decide(x, t, self.touching(tm, x[nq:nq + nu], mode), mode)
            return
        rules = self.__dict__.get("_pl_rules")
        if rules is None:
            rules = self._pl_rules = painleve_rules(self.painleve)
        U, Fv, D, b, vc, MW = self._sliding_U(x, t, i, mode[i])
        case = "jam" if self.dref[2 * i] < 0 and mode[i] != SLIDE_2D else "inconsistent"
        who = self.names[i]
        alts = []
        imp = self._impulse_alternative(D, vc, self.mu[[i]], [i])
        if imp is not None:
            alts.append(dict(kind="impact", modes={who: imp.modes[0]},
                             P={who: imp.P[:1 + self.nt[i]].copy()}, closed=1,
                             normal=float(imp.P[0])))
        rule = rules["inconsistent"]
        k = pick(alts, rule)
        E0 = self.energy(x, t)
        info = dict(case=case, rule=rule, alternatives=alts, chosen=k, U=U, F=Fv)
        if k is None:
            self.events.append(Event(t, who, "painleve", None, E0, E0, **info))
            err = painleve_error(
                "event", t, who, "inconsistent", U, Fv, alts,
                note=("U passed through 0 while sliding: the contact force -F/U grows "
                      "without bound (Painlevé's jam"
                      + (", on the sliding branch chosen by painleve='stay')" if case == "jam"
                         else ")")),
                hint=None if rule == "raise" and imp is not None else "")
            err.case = case
            raise err
        x = np.array(x, float)
        x[nq:nq + nu] = x[nq:nq + nu] + MW @ imp.P
        self.events.append(Event(t, who, "painleve", imp.P[:1 + self.nt[i]].copy(), E0,
                                 self.energy(x, t), modes=imp.modes, **info))
        tm = self.terms(x, t)
        self.mode, self.x = self.decide(x, t, self.touching(tm, x[nq:nq + nu], mode), mode)
