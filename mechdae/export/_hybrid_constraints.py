"""The constraints of :class:`mechdae.export.HybridOCP` at the phases and their boundaries:
contact forces and gaps along a smooth phase, closing conditions at its start, guards,
impact maps and impulse conditions at an impact (see :mod:`mechdae.export.hybrid`)."""
import casadi as ca
import numpy as np

from ..simulate._laws import laws_function
from .contact import impact_map

__all__ = ["PhaseConstraints"]


class PhaseConstraints:
    """Mixin of :class:`~mechdae.export.HybridOCP` (uses its ``x``, ``_P``, ``_guards``,
    ``_rows``, ``_mu``, ``_subject``)."""

    def _forces(self, ph, X, Cn, tn):
        n = X.shape[1]
        W = self._w_fun.map(n)(Cn, tn)
        return ph["f"].map(n)(X, tn, ca.repmat(self._P, 1, n), W)[1]

    def _path_constraints(self, ph, X, Cn, tn):
        s = self.system
        lab = f"phase {ph['index']} ({ph['label']})"
        n = X.shape[1]
        if ph["modes"]:
            Fr = self._forces(ph, X, Cn, tn)
            mu = self._mu_mx()
            G = self._guards.map(n)(X[:self.nq, :], X[self.nq:self.nq + self.nu, :], tn,
                                    ca.repmat(self._P, 1, n))
        for name, mode in ph["modes"].items():
            i, rn, trows = self._rows[name]
            ln = Fr[rn, :]
            self._subject(ca.vec(ln) >= 0, f"{lab}: normal force of '{name}' >= 0")
            if mode == "stick" and np.isfinite(self._mu[i]):
                lt = Fr[trows, :]
                if len(trows) == 1:
                    self._subject(ca.vec(mu[i] * ln - lt) >= 0, f"{lab}: friction cone of '{name}'")
                    self._subject(ca.vec(mu[i] * ln + lt) >= 0, f"{lab}: friction cone of '{name}'")
                else:
                    self._subject(ca.vec((mu[i] * ln) ** 2 - ca.sum1(lt ** 2)) >= 0,
                                  f"{lab}: friction cone of '{name}'")
            elif mode.startswith("slide"):
                sgn = 1.0 if mode == "slide+" else -1.0
                self._subject(ca.vec(sgn * G[1][trows[0], :]) >= 0,
                              f"{lab}: sliding direction of '{name}' ({mode})")
        opened = [c for c in s.contact_names if c not in ph["modes"]]
        if opened:
            gaps = self._guards.map(n)(X[:self.nq, :], X[self.nq:self.nq + self.nu, :], tn,
                                       ca.repmat(self._P, 1, n))[0]
            for name in opened:
                i = self._rows[name][0]
                self._subject(ca.vec(gaps[i, :]) >= 0, f"{lab}: gap of '{name}' >= 0")

    def _mu_mx(self):
        return laws_function(self.system)(self._P)[2]

    def _invariants(self, ph, names, t0):
        """``g = 0, v_n = 0`` (and ``v_t = 0`` when sticking) at the phase's first node."""
        q, u = self._qu(ph["col"])
        g, vc = self._guards(q, u, t0, self._P)
        for name in names:
            i, rn, trows = self._rows[name]
            lab = f"phase {ph['index']} ({ph['label']}): '{name}' closed at the start"
            self._subject(g[i] == 0, lab + " (gap = 0)")
            self._subject(vc[rn] == 0, lab + " (normal velocity = 0)")
            if ph["modes"][name] == "stick":
                for j in trows:
                    self._subject(vc[j] == 0, lab + " (sticking: tangential velocity = 0)")

    def _impact(self, ph, prev, nxt, starts):
        s = self.system
        lab = f"phase {ph['index']} ({ph['label']})"
        modes = dict(ph["modes"])
        closed_after = nxt["modes"] if nxt is not None else {}
        for name, mode in prev["modes"].items():      # closed on both sides: plastic
            if name not in modes and name in closed_after:
                modes[name] = closed_after[name]
        plastic = [n for n in modes if n in closed_after]
        F = impact_map(s, modes, plastic=plastic, name=f"impact_{ph['index']}")
        self.functions[f"impact {ph['index']}"] = F
        ph["F"], ph["all_modes"] = F, modes
        col = prev["col"] + prev["N"]
        tb = starts[self.smooth.index(prev)] + prev["T_mx"]
        ph["t_mx"] = tb
        q, u = self._qu(col)
        g, vc = self._guards(q, u, tb, self._P)
        for name in ph["modes"]:
            if name in prev["modes"]:
                continue
            i, rn, _ = self._rows[name]
            self._subject(g[i] == 0, f"{lab}: guard: gap of '{name}' = 0 at the impact")
            self._subject(vc[rn] <= 0, f"{lab}: guard: '{name}' approaching (v_n <= 0)")
        up, Pimp = F(q, u, tb, self._P)
        xpost = ca.vertcat(q, up, self.x[self.nq + self.nu:, col])
        self._subject(self.x[:, col + 1] == xpost, f"{lab}: post-impact state = impact map")
        mu = self._mu_mx()
        for name, mode in modes.items():
            i, rn, trows = self._rows[name]
            self._subject(Pimp[rn] >= 0, f"{lab}: normal impulse of '{name}' >= 0")
            if mode == "stick" and np.isfinite(self._mu[i]):
                Pt = Pimp[trows]
                self._subject(mu[i] ** 2 * Pimp[rn] ** 2 - ca.sumsqr(Pt) >= 0,
                              f"{lab}: impulse of '{name}' in the friction cone")
        qn, un = self._qu(col + 1)
        _, vcp = self._guards(qn, un, tb, self._P)
        for name, mode in modes.items():
            if mode.startswith("slide"):
                sgn = 1.0 if mode == "slide+" else -1.0
                j = self._rows[name][2][0]
                self._subject(sgn * vcp[j] >= 0, f"{lab}: '{name}' slides {mode} after the impact")
        for name in prev["modes"]:
            if name not in closed_after:
                rn = self._rows[name][1]
                self._subject(vcp[rn] >= 0, f"{lab}: '{name}' separates (v_n+ >= 0)")
