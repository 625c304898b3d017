"""The constrained dynamics of one contact mode, without stabilization, as CasADi graphs.

A *mode* is the model's own constraints plus the contacts that are closed: a closed
contact adds its gap ``g_i(q) = 0`` as a holonomic row (normal row ``w_n``) and, when it
sticks, its tangential velocities ``w_t^T u + wt = 0`` as nonholonomic rows; a sliding
contact adds the normal row only, with the friction force ``-mu lam_n v_t/|v_t|`` along
its tangents.  With the constraint rows ``C u + c0 = z`` (holonomic rows first, as the
derivatives of ``y``), the force directions ``D`` (``D = C`` unless a contact slides) and
``z' = C u' + c``, the accelerations solve

    M u' = h + D^T lam,     C u' + c = s,

with ``s = 0`` (no stabilization: the constraint manifold ``y = 0, z = 0`` is invariant
and the linearization restricted to its tangent space holds only the physical modes) or
``s = -2 alpha z - beta^2 (y, 0)`` when a Baumgarte rate is asked for (integration of one
mode along an orbit).
"""
import casadi as ca
import numpy as np

from ..symbolic.linalg import REFINE, REG, regularized_solve

__all__ = ["Mode", "closed_contacts"]


def contact_row_offsets(system):
    """First row in ``W`` of every contact (normal row, then its tangent rows)."""
    off, out = 0, []
    for c in system.contacts:
        out.append(off)
        off += 1 + int(c["n_tangent"])
    return out


def closed_contacts(system, q, u, t, pv, contacts=None, tol=1e-9):
    """The contact mode at a state: ``{name: "stick" | "slide" | "open"}``.

    Contacts named in ``contacts`` take the mode given there; the others are closed when
    their gap is within ``tol`` (scaled) of zero and their normal velocity too (an
    approaching contact is at an impact, a separating one opens); closed ones stick when
    their tangential velocity is zero (``tol``) or their friction infinite, and slide
    otherwise (always when frictionless).
    """
    given = dict(contacts or {})
    bad = [n for n in given if n not in system.contact_names]
    if bad:
        raise ValueError(f"contacts: unknown contact(s) {', '.join(map(repr, bad))} of model "
                         f"'{system.name}'; contacts: {', '.join(system.contact_names) or 'none'}")
    for n, k in given.items():
        if k not in ("stick", "slide", "open"):
            raise ValueError(f"contacts: mode {k!r} of contact '{n}' is not one of 'stick', "
                             "'slide', 'open'")
    F = system.functions
    if not system.contact_names:
        return {}
    gap = np.array(F["gap"](q, t, pv)).ravel()
    vc = np.array(F["W"](q, t, pv)) @ u + np.array(F["Wt"](q, t, pv)).ravel()
    from ..simulate._laws import laws_function
    mu = np.array(laws_function(system)(pv)[2]).ravel()
    mode = {}
    for i, (name, r) in enumerate(zip(system.contact_names, contact_row_offsets(system))):
        if name in given:
            mode[name] = given[name]
            continue
        nt = int(system.contacts[i]["n_tangent"])
        if abs(gap[i]) > tol * (1.0 + np.abs(q).max()) or abs(vc[r]) > tol:
            mode[name] = "open"        # apart, separating, or approaching (an impact)
        else:
            slides = mu[i] == 0.0 or mu[i] < np.inf and np.linalg.norm(vc[r + 1:r + 1 + nt]) > tol
            mode[name] = "slide" if slides else "stick"
    return mode


class Mode:
    """Graphs of one mode of a System: accelerations, multipliers, constraint residuals.

    Parameters
    ----------
    system : System
    mode : dict
        ``{contact: "stick" | "slide" | "open"}`` (contacts left out are open).
    pv : array, optional
        Parameter values: a sliding contact whose friction is zero there has no friction
        force (its direction is not needed); without, every sliding contact has one.

    Attributes
    ----------
    ny, nz : int
        Holonomic rows (model constraints, then closed gaps) and velocity rows.
    row_names : list of str
        Names of the ``z`` rows (``"rod"``, ``"A.n"``, ``"skate"``, ``"A.t0"``).
    """

    def __init__(self, system, mode, pv=None):
        self.system = system
        mu = None
        if pv is not None and system.contact_names:
            from ..simulate._laws import laws_function
            mu = np.array(laws_function(system)(pv)[2]).ravel()
        self.mode = {n: mode.get(n, "open") for n in system.contact_names}
        offs = contact_row_offsets(system)
        self._normal, self._tangent, self._slide = [], [], []
        names_n, names_t = [], []
        for i, name in enumerate(system.contact_names):
            k = self.mode[name]
            if k == "open":
                continue
            nt = int(system.contacts[i]["n_tangent"])
            self._normal.append((i, offs[i]))
            names_n.append(f"{name}.n")
            tr = list(range(offs[i] + 1, offs[i] + 1 + nt))
            if k == "stick":
                self._tangent.extend(tr)
                names_t += [f"{name}.t{j}" for j in range(nt)]
            elif mu is None or mu[i] != 0.0:
                self._slide.append((i, tr))
        hol = [f"{n}[{r}]" if rows > 1 else n for n, rows in system.holonomic
               for r in range(rows)]
        non = [f"{n}[{r}]" if rows > 1 else n for n, rows in system.nonholonomic
               for r in range(rows)]
        self.y_names = hol + names_n
        self.row_names = hol + names_n + non + names_t
        self.ny, self.nz = len(self.y_names), len(self.row_names)

    def graphs(self, x, t, p, w, alpha=None, beta=None):
        """``(xdot, lam, y, z, extras)`` as MX of the state ``x = (q, u, v)``.

        ``lam`` is ordered as :attr:`row_names`; ``extras = (hd, zalg)`` are the highest
        derivatives and algebraic variables of the general equations.  With ``alpha`` and
        ``beta`` the constraint rows are stabilized (Baumgarte); without, ``C u' + c = 0``.
        """
        sy = self.system
        F = sy.functions
        nq, nu, m = sy.nq, sy.nu, sy.m
        q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
        S_ = type(x)             # MX (linearize, trim) or SX (phases of orbits: fast C-free
        if S_ is ca.SX:          # integration; small systems without general equations)
            if sy.nv + sy.nz:
                raise ValueError(f"model '{sy.name}' has general equations: not supported here")
            hd = zalg = vd = ca.SX(0, 1)
        else:
            hd, zalg = _extras(sy, q, u, v, t, p, w)
            vd, _ = sy.extras_mx(q, u, v, t, p, w)
        M = F["M"](q, p)
        h = F["h"](q, u, v, zalg, t, p, w)
        y, zc, C, c = F["constraints"](q, u, t, p)
        Cr, cr, Dr, yr, zr = [C[:m, :]], [c[:m, :]], [C[:m, :]], [y], [zc[:m, :]]
        if self._normal or self._tangent:
            W, Wt = F["W"](q, t, p), F["Wt"](q, t, p)
            Wd, gap = F["Wdot_u"](q, u, t, p), F["gap"](q, t, p)
            mu = None
            if self._slide:
                from ..simulate._laws import laws_function
                mu = laws_function(sy)(p)[2]
            slide = dict(self._slide)
            for i, r in self._normal:
                Cr.append(W[r, :])
                cr.append(Wd[r, :])
                yr.append(gap[i, :])
                zr.append(ca.mtimes(W[r, :], u) + Wt[r, :])
                d = W[r, :]
                if i in slide:
                    tr = slide[i]
                    vt = ca.mtimes(W[tr, :], u) + Wt[tr, :]
                    d = d - mu[i] * ca.mtimes((vt / ca.norm_2(vt)).T, W[tr, :])
                Dr.append(d)
        Cr.append(C[m:, :])
        cr.append(c[m:, :])
        Dr.append(C[m:, :])
        zr.append(zc[m:, :])
        if self._tangent:
            tr = self._tangent
            Cr.append(W[tr, :])
            cr.append(Wd[tr, :])
            Dr.append(W[tr, :])
            zr.append(ca.mtimes(W[tr, :], u) + Wt[tr, :])
        Cm, cm, Dm = ca.vertcat(*Cr), ca.vertcat(*cr), ca.vertcat(*Dr)
        ym, zm = ca.vertcat(*yr), ca.vertcat(*zr)
        qd = F["kinematics"](q, u, p)
        def solve(A, B, kind):
            return ca.solve(A, B) if S_ is ca.SX else ca.solve(A, B, kind)

        if not self.nz:
            return ca.vertcat(qd, solve(M, h, "ldl"), vd), S_(0, 1), ym, zm, (hd, zalg)
        s = S_.zeros(self.nz, 1)
        if alpha is not None:
            s = -2.0 * alpha * zm - beta ** 2 * ca.vertcat(ym, S_.zeros(self.nz - self.ny, 1))
        X = solve(M, ca.horzcat(h, Dm.T), "ldl")
        Mih, MiDt = X[:, 0], X[:, 1:]
        S = ca.mtimes(Cm, MiDt)
        r = s - cm - ca.mtimes(Cm, Mih)
        if self._slide:
            lam = solve(S, r, "qr")
        elif S_ is ca.SX:
            lam = _regularized_sx(S, r)
        else:
            lam = regularized_solve(S, r)
        ud = Mih + ca.mtimes(MiDt, lam)
        return ca.vertcat(qd, ud, vd), lam, ym, zm, (hd, zalg)

    def model_multipliers(self, lam):
        """The rows of ``lam`` that belong to the model's constraints (System order)."""
        m, nn = self.system.m, len(self._normal)
        return ca.vertcat(lam[:m, :], lam[m + nn:m + nn + self.system.k, :])

    def contact_multipliers(self, lam):
        """``{contact: (lam_n, [lam_t...])}`` slices of ``lam`` (numbers) for closed ones."""
        m, k = self.system.m, self.system.k
        nn = len(self._normal)
        out, it = {}, m + nn + k
        for j, (i, _) in enumerate(self._normal):
            name = self.system.contact_names[i]
            nt = int(self.system.contacts[i]["n_tangent"])
            lt = []
            if self.mode[name] == "stick":
                lt = [float(a) for a in lam[it:it + nt]]
                it += nt
            out[name] = (float(lam[m + j]), lt)
        return out


def _regularized_sx(S, rhs, reg=REG, refine=REFINE):
    """:func:`~mechdae.symbolic.linalg.regularized_solve` in SX (symbolic QR solves)."""
    r = S.shape[0]
    A = S + (reg * ca.trace(S) / r + 1e-300) * ca.SX.eye(r)
    X = ca.solve(A, rhs)
    for _ in range(refine):
        X = X + ca.solve(A, rhs - ca.mtimes(S, X))
    return X


def _extras(sy, q, u, v, t, p, w):
    """Highest derivatives and algebraic variables of the general equations (MX)."""
    if not sy.nv + sy.nz:
        return ca.MX(0, 1), ca.MX(0, 1)
    J, F0 = sy.functions["extras"](q, u, v, t, p, w)
    sol = ca.solve(J, -F0, "qr")
    return sol[:sy.nhd, :], sol[sy.nhd:sy.nhd + sy.nz, :]
