r"""Mode logic: which contacts are closed, sticking or sliding after an event.

At a lift-off, stop or cone event the new mode comes from the acceleration-level contact
problem on the contacts that touch (:func:`.forces.solve_contact_forces`: every mode
combination of a small set, Lemke / NSGS past it), posed
in contact space: the rows ``W_c`` of the touching contacts, the Delassus matrix
``D = W_c M_c W_c^T`` and the free contact accelerations ``b`` (``M_c`` the inverse mass
restricted by the bilateral constraints, :meth:`ModeLogic.contact_space`). Painlevé
cases (no or several consistent solutions) are recorded as ``"painleve"`` events with their
alternatives and follow the run's ``painleve`` rule (:mod:`mechdae.simulate._painleve`:
lift-off, stay, impact without collision, or raise); closed contacts are
projected onto their surfaces (:meth:`ModeLogic.project_closed`).

:class:`ModeLogic` is a part of :class:`mechdae.simulate.event.EventEngine` (it uses the
engine's ``terms``, ``energy``, ``events`` and contact data).
"""
import math

import numpy as np

from ...errors import SolverError
from .._painleve import label, painleve_error, painleve_rules, pick, warn_default
from ..result import Event
from .forces import solve_contact_forces
from .impacts import not_exhaustive
from .phase import OPEN, CLOSED, STICK, SLIDE_POS, SLIDE_NEG, SLIDE_2D, SLIDING

__all__ = ["ModeLogic"]


def _psolve(A, b, rcond=1e-12):
    """``A^+ b`` for a symmetric positive semidefinite ``A`` (redundant contact rows).
    One row: ``(1 / a) b`` (``0`` for ``a = 0``), bit for bit what the pseudo-inverse
    gives, without its eigen-decomposition (100 us)."""
    if A.shape == (1, 1):
        a = float(A[0, 0])
        return (1.0 / a) * np.asarray(b, float) if a != 0.0 else np.zeros(1)
    return np.linalg.pinv(A, rcond=rcond, hermitian=True) @ b


class ModeLogic:
    """Contact-space assembly, mode decisions and projections of the event engine."""

    def nq_nu(self):
        return self.system.nq, self.system.nu

    def vn(self, tm, i, u):
        """Relative normal velocity ``w_n^T u + w`` of contact ``i``."""
        o = self.offs[i]
        return tm["W"][o] @ u + tm["Wt"][o]

    def velocities(self, tm, idx, u):
        """Padded relative contact velocities ``W u + Wt`` of the contacts ``idx``."""
        rows = self._rows(idx)
        v = np.zeros(len(idx) * self.dim)
        v[rows[0]] = tm["W"][rows[1]] @ u + tm["Wt"][rows[1]]
        return v

    def _rows(self, idx):
        """``(padded positions, rows of W)`` of the contacts ``idx``."""
        key = tuple(idx)
        memo = self.__dict__.get("_rows_memo")
        if memo is None:      # per System (its contacts' rows), read-only arrays
            memo = self._rows_memo = self.system._integrators.setdefault("event-rows", {})
        got = memo.get(key)
        if got is None:
            d = self.dim
            dst = [a * d + j for a, i in enumerate(idx) for j in range(1 + self.nt[i])]
            src = [self.offs[i] + j for i in idx for j in range(1 + self.nt[i])]
            got = (np.array(dst, int), np.array(src, int))
            for a in got:
                a.flags.writeable = False
            memo[key] = got
        return got

    def contact_space(self, tm, idx):
        r"""Contact space of the contacts ``idx`` (rows padded to ``dim`` per contact).

        Returns
        -------
        Wc : (n dim, nu) array
            Contact rows.
        MW : (nu, n dim) array
            ``M_c W_c^T``, with ``M_c = M^{-1} - M^{-1} C^T S^+ C M^{-1}`` the inverse mass
            restricted by the bilateral constraints (``S = C M^{-1} C^T``): a velocity
            jump from contact impulses ``P`` is ``MW P``.
        D : (n dim, n dim) array
            Delassus matrix ``W_c M_c W_c^T``.
        b : (n dim,) array
            Free contact accelerations ``W_c u'_0 + \dot W_c u``.
        """
        M, h, C, rc = tm["M"], tm["h"], tm["C"], tm["rc"]
        nu = M.shape[0]
        dst, src = self._rows(idx)
        n = len(idx) * self.dim
        full = dst.size == n                 # no padded rows: plain row selections
        if full:
            Wc, Wdc = tm["W"][src], tm["Wd"][src]
        else:
            Wc = np.zeros((n, nu))
            Wc[dst] = tm["W"][src]
            Wdc = np.zeros(n)
            Wdc[dst] = tm["Wd"][src]
        nC = C.shape[0] if C.size else 0
        # one factorization: M^-1 [h, C^T, W_c^T] (from the engine's terms when it has it)
        MiX = tm.get("MiX")
        if MiX is not None:
            Mih, MiCt = MiX[:, 0], MiX[:, 1:1 + nC]
            if full:
                MiW = MiX[:, 1 + nC + src]
            else:
                MiW = np.zeros((nu, n))
                MiW[:, dst] = MiX[:, 1 + nC + src]
        else:
            X = np.linalg.solve(M, np.column_stack([h] + ([C.T] if nC else []) + [Wc.T]))
            Mih, MiCt, MiW = X[:, 0], X[:, 1:1 + nC], X[:, 1 + nC:]
        if nC:
            Sp = np.linalg.pinv(C @ MiCt, rcond=1e-10, hermitian=True)
            MW = MiW - MiCt @ (Sp @ (MiCt.T @ Wc.T))
            ud0 = Mih + MiCt @ (Sp @ (rc - C @ Mih))
        else:
            MW, ud0 = MiW, Mih
        D = Wc @ MW
        D = 0.5 * (D + D.T)
        return Wc, MW, D, Wc @ ud0 + Wdc

    def touching(self, tm, u, mode):
        g = tm["gap"]
        return [i for i in range(self.nc) if mode[i] != OPEN or g[i] <= self.gap_tol]

    def decide(self, x, t, candidates, mode, record=True, cause=None, tol=1e-9):
        """New mode for contacts in ``candidates`` from the contact-force problem (its
        Painlevé cases follow the ``painleve`` rule: :meth:`_painleve_case`)."""
        nq, nu = self.nq_nu()
        tm = self.terms(x, t)
        u = x[nq:nq + nu]
        new = list(mode)
        for i in range(self.nc):
            if i not in candidates:
                new[i] = OPEN
        idx = []
        for i in candidates:
            if self.vn(tm, i, u) > self.vel_tol:
                new[i] = OPEN
            else:
                idx.append(i)
        if not idx:
            return "".join(new), x
        Wc, MW, D, b = self.contact_space(tm, idx)
        d = self.dim
        vc = self.velocities(tm, idx, u)
        vt = np.concatenate([vc[a * d + 1:a * d + d] for a in range(len(idx))])
        mu = self.mu[idx]
        sol = solve_contact_forces(D, b, vt, mu, [self.nt[i] for i in idx], d,
                                   slide_tol=self.vel_tol, tol=tol)
        extra = {}
        if sol.status in ("inconsistent", "indeterminate"):
            chosen, x_imp = self._painleve_case(x, t, idx, sol, D, vc, vt, mu, MW, b)
            if x_imp is not None:
                # an impact without collision: the contact problem of the new velocities
                self.zero_steps += 1
                if self.zero_steps > 20:
                    raise SolverError(f"t = {t:.12g}: impacts without collision did not "
                                      "resolve the Painlevé case at contacts "
                                      f"{[self.names[i] for i in idx]}")
                return self.decide(x_imp, t, candidates, mode, record, cause)
            if sol.status == "indeterminate":
                extra["indeterminate"] = [s.modes for s in sol.solutions]
        else:
            chosen = sol.solutions[0]
        not_exhaustive(extra, sol, t, [self.names[i] for i in idx], "contact-force")
        rest_rows = []
        for a, i in enumerate(idx):
            m = chosen.modes[a]
            if m == "separate":
                new[i] = OPEN
            elif self.mu[i] == 0 or self.nt[i] == 0:
                new[i] = CLOSED
            elif m == "stick":
                new[i] = STICK
            elif self.nt[i] == 2:
                new[i] = SLIDE_2D
                v2 = vt[(d - 1) * a:(d - 1) * a + 2]
                if np.hypot(*v2) <= self.vel_tol:
                    # from rest: against the friction force of the contact problem's
                    # solution (accurate where a_t ~ 0, just past a friction-cone exit)
                    v2 = -chosen.lam[a * d + 1:a * d + 3]
                    if not np.hypot(*v2) > 0:
                        v2 = chosen.acc[a * d + 1:a * d + 3]
                    rest_rows += [a * d + 1, a * d + 2]
                n = float(np.hypot(*v2))
                self.dref[2 * i:2 * i + 2] = v2 / n if n > 0 else 0.0
            else:
                v = vt[a] if self.nt[i] == 1 else 0.0
                if abs(v) <= self.vel_tol:
                    v = chosen.acc[a * d + 1]
                new[i] = SLIDE_POS if v > 0 else SLIDE_NEG
        if rest_rows:
            # a spatial slide from rest: remove the residual tangential speed (below
            # vel_tol, least kinetic-energy change) so that it starts along a_t exactly
            vv = vc[rest_rows]
            x = np.array(x, float)
            x[nq:nq + nu] = u - MW[:, rest_rows] @ _psolve(D[np.ix_(rest_rows, rest_rows)], vv)
        new = "".join(new)
        if record:
            for i in range(self.nc):
                old, nw = mode[i], new[i]
                if old == nw:
                    continue
                if nw == OPEN and old != OPEN:
                    kind = "liftoff"
                elif nw == STICK:
                    kind = "stick"
                elif nw in SLIDING and old in (STICK, CLOSED, OPEN) + SLIDING:
                    kind = "slide"
                elif nw == CLOSED:
                    kind = "close"
                else:
                    kind = "mode"
                E = self.energy(x, t)
                self.events.append(Event(t, self.names[i], kind, None, E, E, mode=nw, **extra))
        return new, x

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

    def project_closed(self, x, t, mode, gap_max=1e-6):
        """Put the closed contacts of ``mode`` exactly on their surfaces.

        Positions: Gauss-Newton steps ``q += N(q) dxi``, ``dxi = -M_c W_n^T D_n^+ g``
        (``M_c`` the inverse mass restricted by the bilateral constraints) until the gaps
        vanish; speeds: ``u -= M_c W_v^T (W_v M_c W_v^T)^+ W_v u`` with ``W_v`` the normal rows
        (and tangential rows of sticking contacts) — the least kinetic-energy change. The
        residuals removed are those of event location (a gap of ``v dt_event``, speeds below
        ``vel_tol``); the Baumgarte transient they would start costs the integrator many
        steps. Returns ``x`` unchanged when a gap exceeds ``gap_max``.
        """
        idx = [i for i in range(self.nc) if mode[i] != OPEN]
        if not idx:
            return x
        nq, nu = self.nq_nu()
        d = self.dim
        y = np.array(x, float)
        for _ in range(4):
            tm = self.terms(y, t)
            g = tm["gap"][idx]
            if np.max(np.abs(g)) > gap_max:
                return x
            if np.max(np.abs(g)) <= 1e-15:
                break
            _, MW, D, _ = self.contact_space(tm, idx)
            dxi = -MW[:, 0::d] @ _psolve(D[0::d, 0::d], g)
            Nq = self._N(y[:nq])
            y[:nq] = y[:nq] + Nq @ dxi
        tm = self.terms(y, t)
        _, MW, D, _ = self.contact_space(tm, idx)
        rows = []
        for a, i in enumerate(idx):
            rows.append(a * d)
            if mode[i] == STICK:
                rows.extend(range(a * d + 1, a * d + 1 + self.nt[i]))
        u = y[nq:nq + nu]
        vv = self.velocities(tm, idx, u)[rows]
        if np.max(np.abs(vv)) > 0:
            y[nq:nq + nu] = u - MW[:, rows] @ _psolve(D[np.ix_(rows, rows)], vv)
        return y

    def _N(self, q):
        """``N(q)`` of ``q' = N(q) u``: evaluated once per System when it depends on
        neither ``q`` nor the parameters (minimal coordinates without quaternions), once
        per run when it depends on the parameters only."""
        got = self.__dict__.get("_N_const")
        if got is not None:
            return got
        cache = self.system._integrators
        F = self.system.functions["N"]
        dep = cache.get("N-depends")
        if dep is None:
            dep = cache["N-depends"] = (any(F.which_depends("q", ["N"], 1, True)),
                                        any(F.which_depends("p", ["N"], 1, True)))
        if not dep[0] and not dep[1]:
            got = cache.get("N-const")
            if got is None:
                got = np.array(F(q, self.pv))
                got.flags.writeable = False        # shared by every engine
                cache["N-const"] = got
            self._N_const = got
            return got
        N = np.array(F(q, self.pv))
        if not dep[0]:
            self._N_const = N
        return N

    def _handle(self, which):
        kinds = {kd for _, kd in which}
        if "gap" in kinds:
            trig = [i for i, kd in which if kd == "gap"]
            self.mode, self.x = self.do_impact(self.x, self.t, self.mode, trig)
        elif "painleve" in kinds:
            self._jam([i for i, kd in which if kd == "painleve"][0])
        elif self._renew_directions(which):
            pass
        else:
            nq, nu = self.nq_nu()
            tm = self.terms(self.x, self.t)
            touch = self.touching(tm, self.x[nq:nq + nu], self.mode)
            old = self.mode
            self.mode, self.x = self.decide(self.x, self.t, touch, self.mode)
            if self.mode == old:
                # located just past the crossing, the violation can be below the kernel's
                # tolerance: decide again with a tight one, then a hair later
                self.mode, self.x = self.decide(self.x, self.t, touch, self.mode, tol=1e-14)
            for delta in (1e-10, 1e-9, 1e-8):
                if self.mode != old:
                    break
                dt = delta * max(1.0, abs(self.t))
                x1 = self.calls(old)[1](self.x, self.P(self.t, dt))[0].ravel()
                new, x1 = self.decide(x1, self.t + dt, touch, old, tol=1e-14)
                if new != old:
                    self.t, self.x, self.mode = self.t + dt, x1, new
            if self.mode == old:
                # a transition the contact problem does not confirm (round-off at a
                # tangency): count it and continue
                self.zero_steps += 1
                if self.zero_steps > 50:
                    raise SolverError(f"{self.system.name}: no progress at t = {self.t:.12g} "
                                      f"(events {which} keep firing in mode {old!r})")
                return
        self.zero_steps = 0

    def _renew_directions(self, which):
        """Spatial sliding whose direction turned by 60 degrees (``vt`` events of ``s``
        contacts still sliding): renew the reference directions, no mode change."""
        if not which or any(kd != "vt" or i < 0 or self.mode[i] != SLIDE_2D
                            for i, kd in which):
            return False
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        u = self.x[nq:nq + nu]
        for i, _ in which:
            o = self.offs[i]
            if not np.hypot(*(tm["W"][o + 1:o + 3] @ u + tm["Wt"][o + 1:o + 3])) > 10 * self.vel_tol:
                return False
        self._update_dref()
        return True


    def _update_dref(self):
        """Reference directions of the spatial sliding contacts: ``v_t / |v_t|`` where
        ``|v_t| > vel_tol`` (kept otherwise: a slide starting from rest keeps the direction
        the contact problem gave it); for a planar sliding contact, ``dref[2 i]`` is the sign
        of its Painlevé ``U`` at the phase start (the jam event, ``phase._jam_function``)."""
        nq, nu = self.nq_nu()
        for i, mo in enumerate(self.mode):
            if mo in (SLIDE_POS, SLIDE_NEG):
                U = self._sliding_U(self.x, self.t, i, mo)[0]
                self.dref[2 * i:2 * i + 2] = (-1.0 if U < 0 else 1.0), 0.0
        if SLIDE_2D not in self.mode:
            return
        tm = self.terms(self.x, self.t)
        u = self.x[nq:nq + nu]
        for i, mo in enumerate(self.mode):
            if mo != SLIDE_2D:
                continue
            o = self.offs[i]
            vt = tm["W"][o + 1:o + 3] @ u + tm["Wt"][o + 1:o + 3]
            n = float(np.hypot(*vt))
            if n > self.vel_tol:
                self.dref[2 * i:2 * i + 2] = vt / n
