r"""Contact space of the event engine: the contact problems' data, and projections.

For the touching contacts ``idx`` the rows ``W_c`` (padded to ``dim`` per contact), the
inverse mass restricted by the bilateral constraints
``M_c = M^{-1} - M^{-1} C^T S^+ C M^{-1}`` (``S = C M^{-1} C^T``), the Delassus matrix
``D = W_c M_c W_c^T`` and the free contact accelerations ``b`` (``\ddot g = D \lambda + b``)
— what the contact-force, impact and Painlevé problems are posed in — and the projection
of closed contacts onto their surfaces (positions and velocities, least kinetic-energy
change).

:class:`ContactSpace` is a part of :class:`mechdae.simulate.event.EventEngine` (through
:class:`.modes.ModeLogic`; it uses the engine's ``terms`` and contact data).
"""
import numpy as np

from .phase import OPEN, STICK

__all__ = ["ContactSpace"]


def _psolve(A, b, rcond=1e-12):
    """``A^+ b`` for a symmetric positive semidefinite ``A`` (redundant contact rows).
    One row: ``(1 / a) b`` (``0`` for ``a = 0``), bit for bit what the pseudo-inverse
    gives, without its eigen-decomposition (100 us)."""
    if A.shape == (1, 1):
        a = float(A[0, 0])
        return (1.0 / a) * np.asarray(b, float) if a != 0.0 else np.zeros(1)
    return np.linalg.pinv(A, rcond=rcond, hermitian=True) @ b


class ContactSpace:
    """Contact-space assembly and projections of the event engine."""

    def nq_nu(self):
        """``(n_q, n_u)`` of the System."""
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
