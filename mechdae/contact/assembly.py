r"""Assembly of contact-space problems from a compiled :class:`~mechdae.System`.

This is the one place where a System's mass matrix, constraint Jacobians and contact
Jacobians at a state become the contact-space data the C kernels work on
(:mod:`mechdae.contact.kernels`). The hybrid drivers, ``System.impact``,
``System.painleve``, ``System.contact_forces`` and ``System.impact_batch`` all go through it.

Governing equations (DESIGN.md conventions). Impact and contact forces act through the
contact Jacobian ``W`` (rows: per contact the normal row then the tangent rows, see
``System.contact_rows``); the bilateral constraints ``C = [G; A]`` (holonomic and
nonholonomic, ``C u = 0`` up to the rheonomic terms) react with impulses ``C^T Lam``:

.. math::

    M \Delta u = W^T P + C^T \Lambda, \qquad C \Delta u = 0 .

Eliminating ``Lambda`` with a factorization of ``M`` (LDL in the CasADi graph, never an
explicit inverse) gives the constrained mobility
``M_c^{-1} = M^{-1} - M^{-1} C^T S^{-1} C M^{-1}``, ``S = C M^{-1} C^T`` (regularized by
``1e-12 trace(S)/r``, so redundant constraints give the minimum-norm reaction; the
right-hand sides of an impact lie in the range of ``S``, so the iterated refinement of the
compiled right-hand side, mechdae/symbolic/linalg.py, is not needed here), and

.. math::

    \Delta u = B P,\quad B = M_c^{-1} W^T, \qquad D = W B, \qquad v^- = W u + w .

Contact velocities are relative: ``v = W(q, t) u + w(q, t)`` with ``w`` (``System.Wt``) the
rheonomic part of moving surfaces (zero, and skipped, for scleronomic contacts), so the
impact laws act on ``v^+ = v^- + D P``.

At the acceleration level, with ``C u' + c = 0`` (ideal constraints, no stabilization
terms), contact accelerations are ``a = D lam + b`` with
``b = W (M_c^{-1} h - M^{-1} C^T S^{-1} c) + Wdot_u``.

The kernels want every contact of one dimension ``dim`` (2: normal + one tangent,
3: normal + two tangents). Contacts with fewer tangent rows (frictionless contacts declared
without a tangent, planar contacts among spatial ones) are padded with decoupled dummy
tangent rows (``D`` entry = mean normal diagonal, zero velocity, zero column in ``B``)
whose impulses are always zero.

Default active sets: for impacts, the contacts with ``gap <= gap_tol`` (closed contacts,
whether approaching or not: a closed contact that is separating simply gets ``P = 0``);
for contact forces, the closed contacts that are not separating, ``gap <= gap_tol`` and
``v_n <= vel_tol``.

The mass matrix is factorized inside the graph by an LDL^T written out in scalar
operations, which also yields the smallest pivot ratio ``d_i / M_ii``: a singular (or
indefinite) ``M`` at the state is a ``ValueError`` naming the model, the state and the
null direction (instead of one CasADi warning per evaluation).

Evaluation of the CasADi graph goes through its buffer interface (about 1 microsecond
instead of the 5-80 microseconds of an ordinary Python call). ``System.impact`` with one
solution takes a fast path: the gaps from a small Function, then one Function per
(System, active set) that returns the padded ``D, v-, B, M, T``, the pivot ratio and the
contact laws into arrays bound to a C solver (``_contact.BoundImpact``), and a result that
builds its dictionaries on access; anything unusual (no consistent solution, energy gain,
superelastic or 'poisson' laws, bad input) is handed to the general path. The vectorized
path maps a lean graph (laws included) over N states in one call (``Function.map``,
threaded) and solves all impact problems in one C call per thread.

Threads: the compiled graphs (CasADi Functions, layouts, laws) are shared by every thread;
the numpy arrays and ``Function.buffer()`` objects they are evaluated on, and the bound C
solvers of the fast path, are per thread (:class:`_Workspace`, one per thread and System,
created on first use), so every entry point may be called on one System from several
threads at once with the results of a sequential run. Lazy construction of shared pieces
(the assembler itself, the per-active-set Functions, the batch graph) happens under
:data:`_LOCK`.
"""
import math
import threading
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .. import _threads
from . import _contact, closure as _closure, kernels
from .kernels import EnergyGainError, MODE_NAMES

__all__ = ["contact_problem", "ContactProblem", "impact", "impact_batch", "contact_forces",
           "painleve", "ImpactResult", "ImpactOutcome", "ImpactBatchResult",
           "ContactForcesResult", "ContactForceOutcome", "GAP_TOL"]

GAP_TOL = 1e-8
"""Default tolerance (length units of the gap) for a contact to count as closed."""

_ASM_KEY = "_mdae_contact_assembler"

BATCH_THREADS = 2
"""Threads of ``impact_batch`` (N >= 256): the mapped CasADi evaluation and the C solves."""

COMPILE_AFTER = 256
"""Solves of one (System, active set) on the fast path after which its Function is
compiled to C in a background thread (mechdae.codegen; until then, and without a
compiler, CasADi's virtual machine evaluates it)."""

PIVOT_TOL = 1e-12
"""A mass matrix whose smallest LDL pivot ratio ``d_i / M_ii`` is below this is singular."""

_LOCK = _threads.LOCK
"""Serializes the lazy construction of shared pieces (assemblers, per-active-set and batch
Functions); evaluations never take it."""


def _ldl_function(n, k):
    r"""SX Function ``(A, R) -> (X, ratio)``: ``X = A^{-1} R`` by ``A = L diag(d) L^T``
    written out in scalar operations (no pivoting: A symmetric positive definite), and
    ``ratio = min_i d_i / A_ii`` (<= 0 or tiny: A singular or not positive definite).

    A runtime factorization like CasADi's ``ldl`` linear solver (same accuracy), but pure
    scalar operations: a singular A gives inf/NaN silently (the caller checks ``ratio``)
    instead of one printed CasADi warning per evaluation.
    """
    A = ca.SX.sym("A", n, n)
    R = ca.SX.sym("R", n, k)
    L = [[None] * n for _ in range(n)]
    d = [None] * n
    for j in range(n):
        dj = A[j, j]
        for m in range(j):
            dj = dj - L[j][m] * L[j][m] * d[m]
        d[j] = dj
        for i in range(j + 1, n):
            lij = A[i, j]
            for m in range(j):
                lij = lij - L[i][m] * L[j][m] * d[m]
            L[i][j] = lij / dj
    cols = []
    for c in range(k):
        y = [None] * n
        for i in range(n):
            yi = R[i, c]
            for m in range(i):
                yi = yi - L[i][m] * y[m]
            y[i] = yi
        x = [None] * n
        for i in reversed(range(n)):
            xi = y[i] / d[i]
            for m in range(i + 1, n):
                xi = xi - L[m][i] * x[m]
            x[i] = xi
        cols.append(ca.vertcat(*x) if n else ca.SX(0, 1))
    X = ca.horzcat(*cols) if k else ca.SX(n, 0)
    ratio = ca.SX(ca.inf)
    for j in range(n):
        ratio = ca.fmin(ratio, d[j] / (ca.fabs(A[j, j]) + 1e-300))
    return ca.Function("ldl_solve", [A, R], [X, ratio])


def _ldl_solve(A, R):
    """``(A^{-1} R, min pivot ratio)`` for MX ``A`` (n, n) and ``R`` (n, k)."""
    X, ratio = _ldl_function(A.shape[0], R.shape[1])(ca.densify(A), ca.densify(R))
    return X, ratio


# ------------------------------------------------------------------------------------ #
# the assembler: one CasADi graph per System, evaluated through its buffer
# ------------------------------------------------------------------------------------ #

def _expanded(F):
    """Scalar (SX) form of an MX Function (3-4x faster to evaluate), F itself otherwise."""
    try:
        return F.expand()
    except Exception:   # pragma: no cover - e.g. operations without an SX form
        return F


class _Assembler:
    """Cached per System: the assembly Function, its buffer, contact layout and laws."""

    def __init__(self, system):
        s = system
        self.system = s
        F = s.functions
        nq, nu, nv = s.nq, s.nu, s.nv
        np_, nw = len(s.p_names), len(s.w_names)
        q, u, v = ca.MX.sym("q", nq), ca.MX.sym("u", nu), ca.MX.sym("v", nv)
        t, p, w = ca.MX.sym("t"), ca.MX.sym("p", np_), ca.MX.sym("w", nw)
        _, z = s.extras_mx(q, u, v, t, p, w)
        M = F["M"](q, p)
        h = F["h"](q, u, v, z, t, p, w)
        W = F["W"](q, t, p)
        nr = W.shape[0]
        Wdu = F["Wdot_u"](q, u, t, p)
        gap = F["gap"](q, t, p)
        r = s.m + s.k
        cols = [h, W.T]
        if r:
            _, _, C, c = F["constraints"](q, u, t, p)
            cols.append(C.T)
        X, piv = _ldl_solve(M, ca.horzcat(*cols))
        Mih, B = X[:, 0], X[:, 1:1 + nr]
        if r:
            MiCt = X[:, 1 + nr:]
            S = ca.mtimes(C, MiCt)
            eps = 1e-12 * ca.trace(S) / r + 1e-300
            Y, _ = _ldl_solve(S + eps * ca.MX.eye(r), ca.horzcat(ca.mtimes(C, Mih) + c,
                                                               ca.mtimes(C, B)))
            acc = Mih - ca.mtimes(MiCt, Y[:, 0])
            B = B - ca.mtimes(MiCt, Y[:, 1:])
        else:
            C = ca.MX(0, nu)
            acc = Mih
        D = ca.mtimes(W, B)
        D = 0.5 * (D + D.T)
        # contact velocities v = W u + Wt (Wt: rheonomic part, skipped when structurally 0)
        Wu = ca.mtimes(W, u) + F["Wt"](q, t, p) if s.rheonomic else ca.mtimes(W, u)
        b = ca.mtimes(W, acc) + Wdu
        T = 0.5 * ca.dot(u, ca.mtimes(M, u))
        outs = [gap, Wu, D, b, B, M, h, W, acc, C, T, piv]
        self.out_names = ["gap", "Wu", "D", "b", "B", "M", "h", "W", "acc", "C", "T", "piv"]
        # kept for the per-active-set Functions of the fast impact path
        self._sym = dict(q=q, u=u, v=v, t=t, p=p, w=w, gap=gap, Wu=Wu, D=D, B=B, M=M, T=T,
                         piv=piv)
        self.F = ca.Function("contact_assembly", [q, u, v, t, p, w],
                             [ca.densify(o) for o in outs],
                             ["q", "u", "v", "t", "p", "w"], self.out_names)
        self.F = _expanded(self.F)
        self._layouts = {}
        self.shapes = [(o.shape[0], o.shape[1]) for o in outs]
        self.nr, self.nu, self.nq = nr, nu, nq
        self.in_sizes = (nq, nu, nv, 1, np_, nw)
        self._maps = {}
        # contact layout
        self.names = list(s.contact_names)
        self.ntan = [int(c["n_tangent"]) for c in s.contacts]
        starts = np.cumsum([0] + [1 + k for k in self.ntan])
        self.start = [int(x) for x in starts[:-1]]
        # laws: floats, or expressions of the parameters
        self.laws = [c.get("law", "newton") for c in s.contacts]
        self.closure = _closure.closure_mask(s.contacts, self.names)
        self.has_closure = bool(self.closure.any())
        vals, sx = [], False
        for c in s.contacts:
            for key in ("restitution", "tangential_restitution", "friction"):
                x = c[key]
                if isinstance(x, (ca.SX, ca.MX)):
                    sx = True
                vals.append(x)
        self.law_const = None
        self.law_F = None
        self._law_cache = {}
        if sx:
            d = s._d
            expr = ca.vertcat(*[ca.SX(x) if not isinstance(x, ca.SX) else x for x in vals])
            self.law_F = ca.Function("contact_laws", [d.p], [expr])
        else:
            self.law_const = np.array([float(x) for x in vals]).reshape(-1, 3)
        self.p_default = np.ascontiguousarray(s.p_defaults, dtype=float)
        # states and parameters by name on the fast path (_contact.load_state/load_params):
        # speeds by speed name or by the name of their coordinate
        index = s._name_index()
        self.q_index, self.p_index = dict(index["q"]), dict(index["p"])
        self.u_index = {c: index["u"][sp] for c, sp in index["coord_speed"].items()}
        self.u_index.update(index["u"])
        self.q_default = np.ascontiguousarray(s.q_defaults, dtype=float)
        self.u_default = np.ascontiguousarray(s.u_defaults, dtype=float)
        # fast impact path: gaps (and a finiteness probe of the inputs) from the shared
        # input buffer, then one Function per active set (see _FastImpact)
        self.nv = nv
        self.has_w = bool(nw)
        self.law_sym = (self.law_F(p) if self.law_F is not None
                        else ca.DM(self.law_const.reshape(-1)))
        chk = ca.sum1(q) + ca.sum1(u) + ca.sum1(p) + t
        Fg = ca.Function("contact_gaps", [q, u, v, t, p, w], [ca.densify(gap), chk])
        self.Fg = _expanded(Fg)
        self.ngap = gap.shape[0]
        self._fast_f = {}              # active set -> _FastFunction (shared) or None
        self._Fb = None
        self._tls = threading.local()  # .ws: this thread's _Workspace

    def workspace(self):
        """This thread's :class:`_Workspace` (created on first use)."""
        try:
            return self._tls.ws
        except AttributeError:
            ws = self._tls.ws = _Workspace(self)
            return ws

    def fast_function(self, idx):
        """The shared :class:`_FastFunction` of the active set ``idx`` (tuple), or None
        when the fast path does not apply (no contact, more than 6, a 'poisson' law)."""
        ff = self._fast_f.get(idx, False)
        if ff is False:
            with _LOCK:
                ff = self._fast_f.get(idx, False)
                if ff is False:
                    ff = None
                    if 0 < len(idx) <= 6 and all(self.laws[i] == "newton" for i in idx):
                        ff = _FastFunction(self, idx)
                    self._fast_f[idx] = ff
        return ff

    def fast_solver(self, idx):
        """This thread's :class:`_FastImpact` of the active set ``idx`` (tuple), or None
        when the fast path does not apply."""
        return self.workspace().fast_solver(idx)

    def check_pivot(self, piv, q, p):
        """Raise the singular-mass-matrix error when ``piv`` (LDL pivot ratio) is tiny."""
        if piv > PIVOT_TOL:
            return
        s = self.system
        M = np.array(s.functions["M"](q, p))
        ev, V = np.linalg.eigh(M)
        v0 = V[:, 0]
        along = [n for n, x in zip(s.u_names, v0) if abs(x) >= 0.3 * np.max(np.abs(v0))]
        state = ", ".join(f"{n}={float(x):.6g}" for n, x in zip(s.q_names, q))
        raise ValueError(
            f"model '{s.name}': the mass matrix M is singular at q = ({state}) (smallest "
            f"eigenvalue {ev[0]:.3g}, largest {ev[-1]:.3g}; null direction along "
            f"{', '.join(repr(n) for n in along)}): the impact and contact problems need an "
            "invertible M; check the kinetic energy (a coordinate without inertia in this "
            "configuration?)")

    def law_values(self, pv):
        """Per contact ``(e_n, e_t, mu)`` arrays (all contacts) for parameter vector ``pv``."""
        if self.law_const is not None:
            L = self.law_const
        else:
            key = pv.tobytes()
            L = self._law_cache.get(key)
            if L is None:
                L = np.array(self.law_F(pv)).reshape(-1, 3)
                if len(self._law_cache) > 64:
                    self._law_cache.clear()
                self._law_cache[key] = L
        return L[:, 0], L[:, 1], L[:, 2]

    def evaluate(self, q, u, vx, t, pv, wv):
        """Evaluate every output at one state (on this thread's buffers); returns a dict
        of fresh arrays."""
        ws = self.workspace()
        ins = ws._in
        ins[0][:] = q
        ins[1][:] = u
        if vx is not None and ins[2].size:
            ins[2][:] = vx
        ins[3][0] = t
        ws.t_last = t
        ins[4][:] = pv
        ws.p_is_default = False
        if wv is not None and ins[5].size:
            ins[5][:] = wv
        ws._eval()
        self.check_pivot(float(ws._out[-1][0, 0]), ins[0], ins[4])
        return {n: a.T.copy() for n, a in zip(self.out_names, ws._out)}

    def _batch_function(self):
        """The graph of the vectorized impact path: only what it needs, laws included, so
        that N states are one mapped call."""
        if self._Fb is None:
            with _LOCK:
                if self._Fb is None:
                    S = self._sym
                    outs = [S["gap"], S["Wu"], S["D"], S["B"], S["M"], S["piv"],
                            self.law_sym, S["T"]]
                    self.batch_names = ["gap", "Wu", "D", "B", "M", "piv", "laws", "T"]
                    self.batch_shapes = [(o.shape[0], o.shape[1]) for o in outs]
                    F = ca.Function("contact_impact_batch",
                                    [S[k] for k in "q u v t p w".split()],
                                    [ca.densify(ca.MX(o)) for o in outs])
                    F = _expanded(F)
                    # generated C (mechdae.codegen) mapped over the states: no interpreter
                    from ..codegen import library
                    lib = library([F], what="impact batches")
                    self._Fb = F if lib is None else lib.external(F.name())
        return self._Fb

    def evaluate_batch(self, Q, U, VX, t, P, Wv):
        """Evaluate the batch graph (gap, Wu, D, B, M, piv, laws, T) for N states (columns);
        arrays of shape (N, rows, cols). One mapped call, threaded over
        :data:`BATCH_THREADS` threads for large N."""
        N = Q.shape[1]
        Fb = self._batch_function()
        Fm = self._maps.get(N)
        if Fm is None:
            with _LOCK:
                Fm = self._maps.get(N)
                if Fm is None:
                    Fm = (Fb.map(N, "thread", BATCH_THREADS)
                          if BATCH_THREADS > 1 and N >= 256 else Fb.map(N))
                    if len(self._maps) > 8:
                        self._maps.clear()
                    self._maps[N] = Fm
        # buffer evaluation: inputs as (N, n) C arrays = column-major (n, N); outputs
        # (rows, N*cols) column-major = C arrays (N*cols, rows)
        ins = [np.ascontiguousarray(x.T) for x in (Q, U, VX, np.full((1, N), float(t)), P, Wv)]
        outs = [np.empty((N * c, r_)) for (r_, c) in self.batch_shapes]
        buf, ev = Fm.buffer()
        for i, a in enumerate(ins):
            buf.set_arg(i, memoryview(a))
        for i, a in enumerate(outs):
            buf.set_res(i, memoryview(a))
        ev()
        piv = outs[5].ravel()
        bad = ~(piv > PIVOT_TOL)
        if bad.any():
            i = int(np.argmax(bad))
            try:
                self.check_pivot(piv[i], ins[0][i], ins[4][i])
            except ValueError as exc:
                raise ValueError(f"state {i} ({int(bad.sum())} of {N} states singular): "
                                 f"{exc}") from None
        return {name: a.reshape(N, cols, rows).transpose(0, 2, 1)
                for name, a, (rows, cols) in zip(self.batch_names, outs, self.batch_shapes)}


class _Workspace:
    """One thread's buffers of an :class:`_Assembler`: the input arrays, the buffered
    evaluations of the assembly and gap Functions, and the thread's :class:`_FastImpact`
    solvers (numpy arrays, ``Function.buffer()`` objects and bound C workspaces must not
    be shared between threads)."""

    def __init__(self, asm):
        self.asm = asm
        self._in = [np.zeros(k) for k in asm.in_sizes]
        # outputs column-major: stored transposed
        self._out = [np.zeros((c, r_)) for (r_, c) in asm.shapes]
        self._buf, self._eval = asm.F.buffer()
        for i, a in enumerate(self._in):
            self._buf.set_arg(i, memoryview(a))
        for i, a in enumerate(self._out):
            self._buf.set_res(i, memoryview(a))
        self.gap_out = np.zeros(asm.ngap)
        self.chk_out = np.zeros(1)
        self._gbuf, self.gap_eval = asm.Fg.buffer()
        for i, a in enumerate(self._in):
            self._gbuf.set_arg(i, memoryview(a))
        self._gbuf.set_res(0, memoryview(self.gap_out))
        self._gbuf.set_res(1, memoryview(self.chk_out))
        self.p_is_default = False      # does self._in[4] hold the default parameters?
        self.t_last = 0.0              # the time in self._in[3]
        self._fast = {}

    def fast_solver(self, idx):
        """This thread's :class:`_FastImpact` of the active set ``idx`` (tuple), or None."""
        fs = self._fast.get(idx, False)
        if fs is False:
            ff = self.asm.fast_function(idx)
            fs = self._fast[idx] = None if ff is None else _FastImpact(ff, self)
        return fs


class _FastFunction:
    """The shared part of the fast impact path of one System and one active set (all
    'newton' contacts, <= 6): one expanded CasADi Function that returns exactly what the
    impact needs, already padded to the kernel layout (``D``, ``v-``, ``B``, ``M``, ``T``,
    the LDL pivot ratio and the contact laws), and the layout of its results (read by
    :class:`ImpactResult`)."""

    def __init__(self, asm, idx):
        S = asm._sym
        dim, src, dst, rows = _layout(asm, list(idx))
        nc, nr, nu = len(idx), asm.nr, asm.nu
        n = nc * dim
        Sel = ca.DM(ca.Sparsity.triplet(n, nr, [int(x) for x in dst], [int(x) for x in src]),
                    1.0)
        Dp = ca.mtimes(ca.mtimes(Sel, S["D"]), Sel.T)
        if len(dst) < n:
            dummy = ca.DM.zeros(n)
            for i in sorted(set(range(n)) - set(int(x) for x in dst)):
                dummy[i] = 1.0
            diag = ca.diag(S["D"])
            mean = ca.sum1(ca.vertcat(*[diag[int(i)] for i in src])) / len(src)
            Dp = Dp + ca.diag(dummy) * ca.if_else(mean > 0, mean, 1.0)
        vm = ca.mtimes(Sel, S["Wu"])
        Bp = ca.mtimes(S["B"], Sel.T)
        L = asm.law_sym
        laws = [ca.vertcat(*[L[3 * i + j] for i in idx]) for j in range(3)]
        F = ca.Function("contact_impact", [S[k] for k in "q u v t p w".split()],
                        [ca.densify(x) for x in [Dp, vm, Bp, S["M"], S["T"], S["piv"]] + laws])
        self.F = _expanded(F)
        # generated C of F, compiled in a background thread once the active set is hot
        # (COMPILE_AFTER solves); the threads' _FastImpact rebind their buffers to it
        self.current = self.F
        self.calls = 0
        self._compile_started = False
        self.n, self.nu, self.nq, self.nc = n, nu, asm.nq, nc
        self.names = [asm.names[i] for i in idx]
        self.rows = [[int(j) for j in r] for r in rows]
        self.u_names = list(asm.system.u_names)
        self.dim = dim
        # results keep (this shared object, names): never a thread's buffers
        self.lazy_head = (self, tuple(self.names))

    def start_compile(self):
        """Compile F (mechdae.codegen, cached on disk) in a daemon thread; ``current``
        becomes the compiled Function when it is loaded. Without a working compiler (or
        MECHDAE_CODEGEN=0) nothing happens and F stays in use: no warning from here (the
        results are the same either way: the generated code performs F's operations)."""
        with _LOCK:
            if self._compile_started:
                return
            self._compile_started = True
        from .. import codegen
        if not codegen.available():
            return

        def build():
            try:
                lib = codegen.library([self.F], compiled=True, what="the impact fast path")
                if lib is not None:
                    self.current = lib.external(self.F.name())
            except Exception:      # noqa: BLE001 - any failure leaves F in use
                pass
        threading.Thread(target=build, name="mechdae-impact-codegen", daemon=True).start()


class _FastImpact:
    """One thread's impact solver of one active set: the :class:`_FastFunction`'s
    Function evaluated on a buffer that reads the thread's input arrays and writes into
    arrays that a :class:`mechdae.contact._contact.BoundImpact` (with its own workspace)
    reads, so a solve is one buffer evaluation plus one C call, without Python-level
    array handling."""

    def __init__(self, ff, ws):
        n, nu, nc = ff.n, ff.nu, ff.nc
        self.D = np.zeros((n, n))
        self.vm = np.zeros(n)
        self.Bt = np.zeros((n, nu))           # column-major (nu, n) output = B^T in C order
        self.M = np.zeros((nu, nu))
        self.T = np.zeros(1)
        self.piv = np.zeros(1)
        self.e_n, self.e_t, self.mu = np.zeros(nc), np.zeros(nc), np.zeros(nc)
        self.ff, self._ins = ff, ws._in
        self.bind(ff.current)
        self.kernel = _contact.BoundImpact(self.D, self.vm, self.e_n, self.e_t, self.mu,
                                           self.Bt, self.M, ws._in[1], ff.dim)
        self.kernel.bind(self.T, self.piv, ws._in[0])
        self.lazy_head = ff.lazy_head

    def bind(self, F):
        """Evaluate ``F`` (the Function or its compiled form) on this thread's arrays."""
        self._buf, self.eval = F.buffer()
        for i, a in enumerate(self._ins):
            self._buf.set_arg(i, memoryview(a))
        for i, a in enumerate([self.D, self.vm, self.Bt, self.M, self.T, self.piv,
                               self.e_n, self.e_t, self.mu]):
            self._buf.set_res(i, memoryview(a))
        self.src = F


def _assembler(system):
    asm = system.__dict__.get(_ASM_KEY)
    if asm is None:
        with _LOCK:
            asm = system.__dict__.get(_ASM_KEY)
            if asm is None:
                asm = _Assembler(system)
                system.__dict__[_ASM_KEY] = asm
    return asm


# ------------------------------------------------------------------------------------ #
# inputs
# ------------------------------------------------------------------------------------ #

def _state(system, q, v):
    """Arrays ``(q, u, v_extra)`` from dicts or arrays; errors name ``q`` / ``v``."""
    if (type(q) is np.ndarray and q.shape == (system.nq,) and type(v) is np.ndarray
            and v.shape == (system.nu,) and system.nv == 0):
        qa, ua, va = q.astype(float), v.astype(float), None
    else:
        try:
            qa, ua, va, _, _ = system.state_arrays(q, v)
        except ValueError as exc:
            msg = str(exc).replace("q0:", "q:", 1).replace("v0:", "v:", 1)
            raise ValueError(msg) from None
    if not np.isfinite(qa).all():
        bad = [n for n, x in zip(system.q_names, qa) if not np.isfinite(x)]
        raise ValueError(f"q: coordinate{'s' if len(bad) > 1 else ''} "
                         f"{', '.join(repr(b) for b in bad)} not finite")
    if not np.isfinite(ua).all():
        bad = [n for n, x in zip(system.u_names, ua) if not np.isfinite(x)]
        raise ValueError(f"v: speed{'s' if len(bad) > 1 else ''} "
                         f"{', '.join(repr(b) for b in bad)} not finite")
    return qa, ua, va


def _params(system, params, inputs, t):
    if not system.w_names:
        pv = system.p_defaults if not params else system.param_vector(params)
        return pv, None
    return system._pw(params, inputs, t)


def _active_indices(asm, active, closed, what="active"):
    if active is None:
        return [i for i in range(len(asm.names)) if closed[i]]
    if isinstance(active, str):
        active = [active]
    idx = []
    for a in active:
        if a not in asm.names:
            raise ValueError(f"{what}: unknown contact {a!r} for model "
                             f"'{asm.system.name}'; contacts: "
                             f"{', '.join(asm.names) or 'none'}")
        i = asm.names.index(a)
        if i in idx:
            raise ValueError(f"{what}: contact {a!r} listed twice")
        idx.append(i)
    return idx


# ------------------------------------------------------------------------------------ #
# the problem object
# ------------------------------------------------------------------------------------ #

@dataclass
class ContactProblem:
    r"""Contact-space problem of a System at one state (active contacts only).

    Attributes
    ----------
    contacts : list of str
        Names of the active contacts, in System order.
    dim : int
        Contact dimension of the padded problem (2 or 3).
    M : ndarray (nu, nu)
        Mass matrix.
    h : ndarray (nu,)
        Generalized forces ``h(q, u, t)``.
    W : ndarray (nrows, nu)
        Jacobian rows of the active contacts (unpadded, System row order).
    C : ndarray (m + k, nu)
        Bilateral constraint Jacobian ``[G; A]``.
    D : ndarray (n, n)
        Constrained Delassus matrix ``W M_c^-1 W^T`` (padded, ``n = nc * dim``).
    v_minus : ndarray (n,)
        Contact velocities ``W u`` (padded).
    b : ndarray (n,)
        Contact accelerations at zero contact force (padded).
    B : ndarray (nu, n)
        Speed jump per unit impulse: ``Delta u = B P`` (``M Delta u = W^T P + C^T Lam``).
    acc_free : ndarray (nu,)
        ``u'`` at zero contact force (constraints enforced).
    e_n, e_t, mu : ndarray (nc,)
        Contact laws (parameters evaluated).
    law : list of str
        ``"newton"`` or ``"poisson"`` per contact.
    rows : list of ndarray
        Per active contact, the indices of its real (not padded) rows in the padded vector.
    gap : ndarray (n_contacts,)
        Gaps of all contacts of the System.
    u : ndarray (nu,)
        Speeds the problem was assembled at.
    energy : float
        Kinetic energy ``u^T M u / 2``.
    closure : ndarray of bool (nc,)
        Contacts with ``friction_cone="closure"`` (see :mod:`mechdae.contact.closure`).
    """
    contacts: list
    dim: int
    M: np.ndarray
    h: np.ndarray
    W: np.ndarray
    C: np.ndarray
    D: np.ndarray
    v_minus: np.ndarray
    b: np.ndarray
    B: np.ndarray
    acc_free: np.ndarray
    e_n: np.ndarray
    e_t: np.ndarray
    mu: np.ndarray
    law: list
    rows: list
    gap: np.ndarray
    u: np.ndarray
    energy: float
    closure: np.ndarray = None

    @property
    def nc(self):
        """Number of active contacts."""
        return len(self.contacts)

    def delta_u(self, P):
        """Speed jump ``Delta u`` (nu,) for padded contact impulses ``P`` (n,)."""
        return self.B @ np.asarray(P, dtype=float)

    def kinetic_energy(self, u):
        """``u^T M u / 2`` (J)."""
        u = np.asarray(u, dtype=float)
        return 0.5 * float(u @ self.M @ u)

    def per_contact(self, x):
        """Split a padded contact-space vector into ``{name: tuple}`` (real rows only)."""
        return {n: tuple(float(x[j]) for j in r) for n, r in zip(self.contacts, self.rows)}


def _layout(asm, idx):
    """Padded layout: dim, real-row indices in W (per contact), padded positions (cached)."""
    key = tuple(idx)
    lay = asm._layouts.get(key)
    if lay is None:
        lay = _layout_new(asm, idx)
        asm._layouts[key] = lay
    return lay


def _layout_new(asm, idx):
    nt = [asm.ntan[i] for i in idx]
    dim = max([2] + [1 + k for k in nt])
    if dim > 3:
        raise ValueError("contacts with more than two tangent directions are not supported")
    src, dst, rows = [], [], []
    for a, i in enumerate(idx):
        r = list(range(asm.start[i], asm.start[i] + 1 + asm.ntan[i]))
        pos = list(range(a * dim, a * dim + len(r)))
        src.extend(r)
        dst.extend(pos)
        rows.append(np.array(pos))
    return dim, np.array(src, dtype=int), np.array(dst, dtype=int), rows


def _pad(dim, nc, src, dst, D, Wu, b, B):
    """Padded contact-space arrays (single problem)."""
    n = nc * dim
    if len(dst) == n and (src == dst).all() and D.shape[0] == n:
        return D, Wu.copy(), b.copy(), B
    if len(dst) == n:
        return (D[src[:, None], src[None, :]], Wu[src], b[src], B[:, src])
    Dp = np.zeros((n, n))
    Dp[dst[:, None], dst[None, :]] = D[src[:, None], src[None, :]]
    if len(dst) < n:
        dummy = np.setdiff1d(np.arange(n), dst)
        diag = np.diag(D)[src]
        Dp[dummy, dummy] = float(np.mean(diag)) if diag.size and np.mean(diag) > 0 else 1.0
    vp = np.zeros(n)
    vp[dst] = Wu[src]
    bp = np.zeros(n)
    bp[dst] = b[src]
    Bp = np.zeros((B.shape[0], n))
    Bp[:, dst] = B[:, src]
    return Dp, vp, bp, Bp


def contact_problem(system, q, u, active=None, t=0.0, params=None, inputs=None,
                    gap_tol=GAP_TOL):
    r"""Assemble the contact-space problem of ``system`` at the state ``(q, u)``.

    Parameters
    ----------
    system : System
        A compiled model with contacts.
    q, u : dict by name or array in System order
        Coordinates and speeds (names left out take their defaults).
    active : list of str, optional
        Contacts to include. Default: the closed contacts, ``gap <= gap_tol``.
    t : float
        Time (s).
    params : dict, optional
        Parameter values (no recompilation).
    inputs : dict, optional
        Input values, as in ``simulate``.
    gap_tol : float
        Closed-contact tolerance of the default active set.

    Returns
    -------
    ContactProblem

    Raises
    ------
    ValueError
        Unknown contact in ``active``, wrong state size, non-finite entries.

    Examples
    --------
    >>> prob = contact_problem(sys, {"y": 0.0}, {"y": -1.0})       # doctest: +SKIP
    >>> prob.D, prob.v_minus                                         # doctest: +SKIP
    """
    asm = _assembler(system)
    qa, ua, va = _state(system, q, u)
    pv, wv = _params(system, params, inputs, t)
    out = asm.evaluate(qa, ua, va, float(t), pv, wv)
    return _problem_from(asm, out, ua, active, pv, gap_tol, kind="impact")


def _problem_from(asm, out, ua, active, pv, gap_tol, kind="impact", vel_tol=None):
    gap = out["gap"].ravel()
    if active is None:
        closed = gap <= gap_tol
        if kind == "forces":
            wu = out["Wu"].ravel()
            closed = closed & np.array([wu[asm.start[i]] <= vel_tol for i in range(len(gap))],
                                       dtype=bool) if len(gap) else closed
    else:
        closed = None
    idx = _active_indices(asm, active, closed)
    e_n, e_t, mu = asm.law_values(pv)
    dim, src, dst, rows = _layout(asm, idx)
    nc = len(idx)
    Dp, vp, bp, Bp = _pad(dim, nc, src, dst, out["D"], out["Wu"].ravel(), out["b"].ravel(),
                          out["B"])
    sel = np.array(idx, dtype=int)
    return ContactProblem(
        contacts=[asm.names[i] for i in idx], dim=dim, M=out["M"], h=out["h"].ravel(),
        W=out["W"][src], C=out["C"], D=Dp, v_minus=vp, b=bp, B=Bp,
        acc_free=out["acc"].ravel(), e_n=np.ascontiguousarray(e_n[sel]),
        e_t=np.ascontiguousarray(e_t[sel]), mu=np.ascontiguousarray(mu[sel]),
        law=[asm.laws[i] for i in idx], rows=rows, gap=gap, u=ua,
        energy=float(out["T"].ravel()[0]), closure=asm.closure[sel])


# ------------------------------------------------------------------------------------ #
# impact
# ------------------------------------------------------------------------------------ #

@dataclass
class ImpactOutcome:
    """One consistent solution of an impact problem.

    Attributes
    ----------
    v_plus : dict
        Post-impact speeds by speed name.
    v_plus_array : ndarray (nu,)
        Post-impact speeds in System order.
    impulses : dict
        Per active contact ``(P_n, P_t[, P_t2])`` (N s).
    modes : dict
        Per active contact ``"separate"``, ``"stick"`` or ``"slide"``.
    contact_velocities : dict
        Per active contact post-impact ``(v_n, v_t[, v_t2])`` (m/s).
    energy_after : float
        Kinetic energy after the impact (J).
    """
    v_plus: dict
    v_plus_array: np.ndarray
    impulses: dict
    modes: dict
    contact_velocities: dict
    energy_after: float


class ImpactResult:
    """Result of :meth:`System.impact` (the first, or only, consistent solution on top).

    Attributes
    ----------
    v_plus, v_plus_array, impulses, modes, contact_velocities, energy_after
        As in :class:`ImpactOutcome`, for the first solution (NaN / empty when
        inconsistent).
    energy_before : float
        Kinetic energy before the impact (J).
    status : str
        ``"unique"``, ``"ambiguous"`` (several consistent solutions) or ``"inconsistent"``
        (none); ``"solved"`` from the iterative methods (uniqueness not examined).
    unique, ambiguous : bool
    solutions : list of ImpactOutcome
        Every consistent solution (``all_solutions=True``); otherwise ``[first]``.
    exhaustive : bool
        True when the search behind ``status`` and ``solutions`` was provably complete
        (see :attr:`mechdae.contact.kernels.ImpactSolution.exhaustive`): always for planar
        contacts with ``method="enum"``; in space, unless more than 4 contacts may slide
        at once, the sliding set is statically indeterminate, or the direction search ran
        out of its box budget. False
        from ``"lcp"``/``"nsgs"``. When False, ``"unique"`` / ``"inconsistent"`` mean one /
        no solution found, and others may exist.
    active : list of str
        Contacts that took part.
    delta_u : ndarray (nu,)
        Speed jump of the first solution.
    problem : ContactProblem
        The assembled problem.

    Results of the fast path (one solution, enumeration) keep the raw arrays and build
    the dictionaries, ``solutions``, ``delta_u`` and ``problem`` on first access.
    """
    __slots__ = ("v_plus_array", "energy_before", "energy_after", "status", "active",
                 "_v_plus", "_impulses", "_modes", "_cv", "_solutions", "_delta_u",
                 "_problem", "_lazy", "_fallback", "_exhaustive")

    @property
    def fallback(self):
        """None, or (``energy_gain="fallback"`` when Newton's law would gain energy) a dict
        ``scale`` (applied to e_n, e_t), ``dT_newton``, ``dT``: see
        :mod:`mechdae.contact.energetic`."""
        return getattr(self, "_fallback", None)

    @property
    def exhaustive(self):
        # fast-path results never set it: that path serves complete searches only
        return getattr(self, "_exhaustive", True)

    def __init__(self, v_plus, v_plus_array, impulses, modes, contact_velocities,
                 energy_before, energy_after, status, solutions, active, delta_u,
                 problem=None, exhaustive=True):
        self.v_plus_array = v_plus_array
        self.energy_before = energy_before
        self.energy_after = energy_after
        self.status = status
        self.active = active
        self._v_plus = v_plus
        self._impulses = impulses
        self._modes = modes
        self._cv = contact_velocities
        self._solutions = solutions
        self._delta_u = delta_u
        self._problem = problem
        self._lazy = None
        self._exhaustive = exhaustive

    # fast-path results (BoundImpact.solve_result): _lazy = (fs, names, raw, mode_key,
    # system, t, params, inputs) with raw = [P (n), v_plus (n), delta_u (nu), q (nq), u (nu)]

    def _per_contact(self, x):
        fs = self._lazy[0]
        xl = x.tolist()
        return {n: tuple([xl[j] for j in r]) for n, r in zip(fs.names, fs.rows)}

    def _raw(self, k):
        fs, raw = self._lazy[0], self._lazy[2]
        n, nu = fs.n, fs.nu
        a = (0, n, 2 * n, 2 * n + nu, 2 * n + nu + fs.nq, 2 * n + 2 * nu + fs.nq)
        return raw[a[k]:a[k + 1]]

    @property
    def v_plus(self):
        if self._v_plus is None:
            self._v_plus = dict(zip(self._lazy[0].u_names, self.v_plus_array.tolist()))
        return self._v_plus

    @property
    def impulses(self):
        if self._impulses is None:
            self._impulses = self._per_contact(self._raw(0))
        return self._impulses

    @property
    def modes(self):
        if self._modes is None:
            fs = self._lazy[0]
            self._modes = dict(zip(fs.names, _contact.mode_names(self._lazy[3],
                                                                 len(fs.names))))
        return self._modes

    @property
    def contact_velocities(self):
        if self._cv is None:
            self._cv = self._per_contact(self._raw(1))
        return self._cv

    @property
    def solutions(self):
        if self._solutions is None:
            self._solutions = [ImpactOutcome(self.v_plus, self.v_plus_array, self.impulses,
                                             self.modes, self.contact_velocities,
                                             self.energy_after)]
        return self._solutions

    @property
    def delta_u(self):
        if self._delta_u is None and self._lazy is not None:
            self._delta_u = self._raw(2)
        return self._delta_u

    @property
    def problem(self):
        if self._problem is None and self._lazy is not None:
            system, t, params, inputs = self._lazy[4:]
            self._problem = contact_problem(system, self._raw(3).copy(), self._raw(4).copy(),
                                            active=self.active, t=t, params=params,
                                            inputs=inputs)
        return self._problem

    @property
    def unique(self):
        return self.status in ("unique", "solved")

    @property
    def ambiguous(self):
        return self.status == "ambiguous"

    @property
    def energy_change(self):
        return self.energy_after - self.energy_before

    def __repr__(self):
        return (f"ImpactResult(status={self.status!r}, active={self.active!r}, "
                f"modes={self.modes!r}, v_plus={self.v_plus!r}, "
                f"energy_before={self.energy_before!r}, energy_after={self.energy_after!r})")


def _poisson_solutions(prob, method, all_solutions, tol, max_boxes=None):
    """Two-phase (Poisson) impact: compression to zero normal approach speed, then a
    restitution impulse ``E P_c`` (normal ``e_n``, tangential ``e_t``); a final
    inelastic correction if the restitution phase leaves a contact approaching."""
    fin = np.isfinite(prob.mu) & (prob.mu > 0)
    if fin.any():
        bad = [c for c, f in zip(prob.contacts, fin) if f]
        raise NotImplementedError(
            f"impact: law 'poisson' is implemented for frictionless (mu = 0) and "
            f"no-slip (mu = inf) contacts; contact{'s' if len(bad) > 1 else ''} "
            f"{', '.join(map(repr, bad))} ha{'ve' if len(bad) > 1 else 's'} finite friction: "
            "use law='newton'")
    k, dim = prob.nc, prob.dim
    zero = np.zeros(k)
    mb = kernels.MAX_BOXES if max_boxes is None else max_boxes
    s1 = kernels.impact(prob.D, prob.v_minus, zero, zero, prob.mu, dim, method=method,
                        all_solutions=all_solutions, tol=tol, energy="report", max_boxes=mb)
    E = np.repeat(prob.e_t, dim)
    E[::dim] = prob.e_n
    scale = max(1.0, float(np.max(np.abs(prob.v_minus))) if prob.v_minus.size else 1.0)
    out = []
    for s in (s1.solutions if all_solutions else [s1]) or []:
        if not np.isfinite(s.P).all():
            continue
        P = s.P + E * s.P
        v = prob.v_minus + prob.D @ P
        if (v[::dim] < -tol * scale).any():
            s3 = kernels.impact(prob.D, v, zero, zero, prob.mu, dim, method=method, tol=tol,
                                energy="report", max_boxes=mb)
            P = P + s3.P
            v = s3.v_plus
        out.append((P, v, s.modes))
    return s1.status, out, s1.exhaustive


def _closure_solutions(prob, method, all_solutions, tol, max_boxes=None):
    """Impact with closed friction cones: the reduced inelastic problem (Schur complement
    of the closure contacts' tangent rows, :mod:`mechdae.contact.closure`) solved by the
    kernels, then every solution expanded to the full impulses and velocities."""
    dim, cl = prob.dim, prob.closure
    Dr, _, cr, K = _closure.reduce(prob.D, prob.v_minus, prob.e_n, prob.e_t, cl, dim,
                                   prob.contacts)
    mu = np.where(cl, 0.0, prob.mu)
    zero = np.zeros(prob.nc)
    s = kernels.impact(Dr, cr, zero, zero, mu, dim, method=method,
                       all_solutions=all_solutions, tol=tol, energy="report",
                       max_boxes=kernels.MAX_BOXES if max_boxes is None else max_boxes)
    sols = s.solutions if all_solutions else ([s] if np.isfinite(s.P).all() else [])
    raw = []
    for x in sols or []:
        P, vp = _closure.expand(prob.D, prob.v_minus, x.P, K)
        raw.append((P, vp, _closure.modes(P, cl, dim, x.modes)))
    return s.status, raw, s.exhaustive


def _outcome(system, prob, P, vplus_c, modes):
    du = prob.B @ P
    up = prob.u + du
    names = system.u_names
    return ImpactOutcome(
        v_plus=dict(zip(names, up.tolist())), v_plus_array=up,
        impulses=prob.per_contact(P), modes=dict(zip(prob.contacts, modes)),
        contact_velocities=prob.per_contact(vplus_c),
        energy_after=prob.kinetic_energy(up)), du


def _energy_error(prob, gains, where="impact"):
    names = ", ".join(repr(c) for c in prob.contacts)
    return (f"{where}: the impact law at contact{'s' if prob.nc > 1 else ''} {names} "
            f"would increase the kinetic energy by {max(gains):.6g} J although e_n, e_t <= 1 "
            f"(e_n = {prob.e_n.tolist()}, e_t = {prob.e_t.tolist()}, mu = {prob.mu.tolist()})")


def impact(system, q, v, active=None, all_solutions=False, params=None, t=0.0,
           method="auto", tol=1e-9, gap_tol=GAP_TOL, inputs=None, energy_gain="raise",
           max_boxes=None):
    r"""Solve the impact problem of ``system`` at ``(q, v)``.

    ``M (u+ - u-) = W^T P + C^T Lam``, ``C (u+ - u-) = 0``, with per contact the impact law
    (``"newton"``: ``0 <= P_n _|_ v_n+ + e_n v_n- >= 0`` and Coulomb's law on
    ``v_t+ + e_t v_t-``; ``"poisson"``: compression then restitution impulse
    ``e P_compression``, see :func:`_poisson_solutions`).

    Parameters
    ----------
    system : System
    q, v : dict by name or array in System order
        Coordinates and pre-impact speeds.
    active : list of str, optional
        Contacts taking part; default the closed ones (``gap <= gap_tol``).
    all_solutions : bool
        Report every consistent solution in ``solutions``.
    params : dict, optional
        Parameter values (no recompilation).
    t : float
    method : {"auto", "enum", "lcp", "nsgs"}
        Kernel method (see :func:`mechdae.contact.impact`); ``"auto"`` enumerates.
    tol : float
        Relative tolerance of the consistency checks.
    gap_tol : float
    energy_gain : {"raise", "fallback"}
        When Newton's law (with friction: Kane's paradox) would increase the kinetic
        energy: raise :class:`EnergyGainError` (default), or solve with the energy-limited
        law (restitution scaled to the largest value that does not gain energy, see
        :mod:`mechdae.contact.energetic`); ``out.fallback`` then records the scale and
        both energy changes.
    max_boxes : int, optional
        Box budget (default :data:`mechdae.contact.kernels.MAX_BOXES`) of each search of
        the sliding directions of contacts sliding in space (the interval
        branch-and-bound of the enumeration, one search per mode combination); a search
        that spends it leaves ``out.exhaustive`` False. Larger: slower, complete on harder
        problems; smaller: bounded time.

    Returns
    -------
    ImpactResult

    Raises
    ------
    ValueError
        Bad state, unknown contact.
    EnergyGainError
        An energy gain with ``e_n, e_t <= 1``; the message names the contacts.

    Examples
    --------
    >>> out = sys.impact({"y": 0.0}, {"y": -2.0})                  # doctest: +SKIP
    >>> out.v_plus["der(y)"], out.modes["A"]                         # doctest: +SKIP
    (1.0, 'stick')
    """
    if tol != 1e-9 or gap_tol != GAP_TOL:       # NaN compares unequal: checked too
        kernels.check_options(tol=tol, gap_tol=gap_tol)
    if energy_gain != "raise":
        from .energetic import check_rule
        check_rule(energy_gain)
    max_boxes = _max_boxes(max_boxes)
    if not all_solutions and (method == "auto" or method == "enum"):
        out = _impact_fast(system, q, v, active, params, t, tol, gap_tol, inputs, max_boxes)
        if out is not None:
            return out
    return _impact_general(system, q, v, active, all_solutions, params, t, method, tol,
                           gap_tol, inputs, energy_gain, max_boxes)


def _max_boxes(max_boxes):
    if max_boxes is None:
        return kernels.MAX_BOXES
    return kernels.check_count(max_boxes, "max_boxes", 1, kernels.MAX_ITER,
                               " (box budget of the sliding-direction search)")


def _impact_general(system, q, v, active=None, all_solutions=False, params=None, t=0.0,
                    method="auto", tol=1e-9, gap_tol=GAP_TOL, inputs=None,
                    energy_gain="raise", max_boxes=None):
    """:func:`impact` past the fast path (options checked by the caller)."""
    prob = contact_problem(system, q, v, active=active, t=t, params=params, inputs=inputs,
                           gap_tol=gap_tol)
    return _impact_prob(system, prob, all_solutions, method, tol, energy_gain,
                        kernels.MAX_BOXES if max_boxes is None else max_boxes)


def _impact_fast(system, q, v, active=None, params=None, t=0.0, tol=1e-9, gap_tol=GAP_TOL,
                 inputs=None, max_boxes=None):
    """One consistent solution by enumeration through the per-active-set Function and the
    bound C solver; None whenever the general path must decide (inconsistent, energy
    gain, superelastic laws, bad input, 'poisson', no or more than 6 contacts, an
    incomplete search): that path then recomputes and produces the result or the error
    message. States and parameters as arrays or dicts of floats by name are written into
    this thread's input buffers by one C call each (name -> index maps built once per
    System); anything else goes through :meth:`System.state_arrays` /
    :meth:`System.param_vector`."""
    asm = system.__dict__.get(_ASM_KEY)
    if asm is None:
        asm = _assembler(system)
    if asm.has_closure:                 # closed friction cones: the general path
        return None
    try:
        ws = asm._tls.ws                # this thread's buffers
    except AttributeError:
        ws = asm.workspace()
    ins = ws._in
    if asm.nv or not _contact.load_state(ins[0], q, ins[1], v, asm.q_index, asm.u_index,
                                         asm.q_default, asm.u_default):
        qa, ua, va = _state(system, q, v)
        ins[0][:] = qa
        ins[1][:] = ua
        if va is not None and ins[2].size:
            ins[2][:] = va
    if t != ws.t_last:                  # (a numpy store costs ~0.3 us)
        ins[3][0] = t
        ws.t_last = t
    if asm.has_w:
        pv, wv = _params(system, params, inputs, t)
        ins[4][:] = pv
        ins[5][:] = wv
        ws.p_is_default = False
    elif params:
        ws.p_is_default = False
        if not (type(params) is dict and _contact.load_params(ins[4], params, asm.p_index,
                                                              asm.p_default)):
            ins[4][:] = system.param_vector(params)
    elif not ws.p_is_default:
        ins[4][:] = asm.p_default
        ws.p_is_default = True
    ws.gap_eval()
    if active is None:
        idx = _contact.active_set(ws.gap_out, ws.chk_out, gap_tol)
        if idx is None:
            return None
    else:
        if not math.isfinite(ws.chk_out[0]):
            return None
        idx = tuple(_active_indices(asm, active, None))
    fs = ws._fast.get(idx, False)
    if fs is False:
        fs = ws.fast_solver(idx)
    if fs is None:
        return None
    ff = fs.ff
    if fs.src is not ff.current:          # the compiled Function has arrived
        fs.bind(ff.current)
    elif ff.calls < COMPILE_AFTER:
        ff.calls += 1
        if ff.calls == COMPILE_AFTER:
            ff.start_compile()
    fs.eval()
    # moving surfaces (rheonomic contacts) may raise the kinetic energy: only the kernel's
    # contact-space check (work of P on the relative velocities) applies there
    r = fs.kernel.solve_result(ImpactResult, tol, system.rheonomic, PIVOT_TOL, fs.lazy_head,
                               (system, t, params, inputs),
                               kernels.MAX_BOXES if max_boxes is None else max_boxes)
    if r is None:
        piv = float(fs.piv[0])
        if not piv > PIVOT_TOL:
            asm.check_pivot(piv, ins[0], ins[4])
        return None                     # inconsistent, energy gain, bad input, ...
    return r


def _impact_prob(system, prob, all_solutions, method, tol, energy_gain="raise",
                 max_boxes=None):
    T0 = prob.energy
    if prob.nc == 0:
        u = prob.u.copy()
        o = ImpactOutcome(dict(zip(system.u_names, u.tolist())), u, {}, {}, {}, T0)
        return ImpactResult(o.v_plus, u, {}, {}, {}, T0, T0, "unique", [o], [],
                            np.zeros_like(u), prob)
    superelastic = bool((prob.e_n > 1).any() or (prob.e_t > 1).any())
    laws = set(prob.law)
    if prob.closure is not None and prob.closure.any():
        if laws != {"newton"}:
            raise NotImplementedError("impact: friction_cone='closure' is implemented for the "
                                      "'newton' law; contacts "
                                      f"{dict(zip(prob.contacts, prob.law))}")
        status, raw, exhaustive = _closure_solutions(prob, method, all_solutions, tol,
                                                     max_boxes)
    elif laws <= {"newton"}:
        s = kernels.impact(prob.D, prob.v_minus, prob.e_n, prob.e_t, prob.mu, prob.dim,
                           method=method, all_solutions=all_solutions, tol=tol,
                           energy="report", allow_superelastic=superelastic,
                           max_boxes=kernels.MAX_BOXES if max_boxes is None else max_boxes)
        status, exhaustive = s.status, s.exhaustive
        sols = s.solutions if all_solutions else ([s] if np.isfinite(s.P).all() else [])
        raw = [(x.P, x.v_plus, x.modes) for x in (sols or [])]
    elif laws <= {"poisson"}:
        status, raw, exhaustive = _poisson_solutions(prob, method, all_solutions, tol,
                                                     max_boxes)
    else:
        raise NotImplementedError("impact: active contacts mix the 'newton' and 'poisson' "
                                  f"laws ({dict(zip(prob.contacts, prob.law))}); use one law")
    outs, dus = [], []
    for P, vc, modes in raw:
        o, du = _outcome(system, prob, P, vc, modes)
        outs.append(o)
        dus.append(du)
    if not superelastic and outs:
        scale = max(T0, 1e-300)
        gains = [o.energy_after - T0 for o in outs]
        # a moving surface may do work on the system: with rheonomic contacts only the
        # relative (contact-space) energy check of the kernel applies
        absolute = not system.rheonomic
        if status == "energy_gain" or (absolute and max(gains) > 1e-9 * scale + 1e-14):
            if energy_gain != "fallback" or laws != {"newton"}:
                raise EnergyGainError(_energy_error(prob, gains), outs)
            return _impact_fallback(system, prob, method, tol, T0, gains, max_boxes)
    if status == "energy_gain":   # superelastic allowed: kernel flags, we don't
        status = "unique" if len(outs) == 1 else "ambiguous"
    if not outs:
        nan = np.full(system.nu, np.nan)
        return ImpactResult(dict(zip(system.u_names, nan.tolist())), nan, {}, {}, {}, T0,
                            math.nan, "inconsistent", [], prob.contacts, nan, prob,
                            exhaustive)
    f = outs[0]
    return ImpactResult(f.v_plus, f.v_plus_array, f.impulses, f.modes, f.contact_velocities,
                        T0, f.energy_after, status, outs, prob.contacts, dus[0], prob,
                        exhaustive)


def _impact_fallback(system, prob, method, tol, T0, gains, max_boxes=None):
    """Newton's law would gain energy: the energy-limited law (contact/energetic.py)."""
    from .energetic import impact_no_gain
    kw = {} if method == "auto" else dict(method=method)
    if max_boxes is not None:
        kw["max_boxes"] = max_boxes
    sol, scale = impact_no_gain(prob.D, prob.v_minus, prob.e_n, prob.e_t, prob.mu, prob.dim,
                                tol=tol, **kw)
    o, du = _outcome(system, prob, sol.P, sol.v_plus, sol.modes)
    r = ImpactResult(o.v_plus, o.v_plus_array, o.impulses, o.modes, o.contact_velocities,
                     T0, o.energy_after, "unique" if sol.status == "unique" else sol.status,
                     [o], prob.contacts, du, prob)
    r._fallback = dict(law="energy-limited", scale=float(scale), dT_newton=float(max(gains)),
                       dT=float(o.energy_after - T0))
    return r


# ------------------------------------------------------------------------------------ #
# vectorized impacts
# ------------------------------------------------------------------------------------ #

@dataclass
class ImpactBatchResult:
    """Result of :meth:`System.impact_batch` (first solution of each problem).

    Attributes
    ----------
    v_plus_array : ndarray (N, nu)
        Post-impact speeds (NaN where inconsistent).
    impulses : ndarray (N, n)
        Padded contact impulses, ``dim`` entries per active contact (normal first).
    contact_velocities : ndarray (N, n)
        Post-impact contact velocities (padded layout).
    v_minus : ndarray (N, n)
        Pre-impact contact velocities.
    modes : ndarray of int (N, nc)
        Index into ``MODE_NAMES`` (0 separate, 1 stick, 2 slide); ``MODE_NONE`` (-1,
        ``mode()`` gives ``"none"``) where the problem has no solution.
    status : ndarray of str (N,)
        ``"unique"``, ``"ambiguous"``, ``"inconsistent"`` (or a kernel failure).
    n_solutions : ndarray of int (N,)
    energy_before, energy_after : ndarray (N,)
    active : list of str
    dim : int
    exhaustive : ndarray of bool (N,)
        Per problem, whether the search behind ``status`` and ``n_solutions`` was provably
        complete (as :attr:`ImpactResult.exhaustive`): always with ``method="enum"`` for
        planar contacts; in space False where a search of sliding directions spent its
        ``max_boxes``, met more than 4 contacts sliding at once or a statically
        indeterminate sliding set; False from ``"lcp"``/``"nsgs"`` unless the problem is
        frictionless with a positive definite normal block (one solution).
    """
    v_plus_array: np.ndarray
    impulses: np.ndarray
    contact_velocities: np.ndarray
    v_minus: np.ndarray
    modes: np.ndarray
    status: np.ndarray
    n_solutions: np.ndarray
    energy_before: np.ndarray
    energy_after: np.ndarray
    active: list
    dim: int
    exhaustive: np.ndarray = None

    def impulse(self, contact, component=0):
        """Impulse component (0 normal, 1.. tangents) of ``contact`` for every problem."""
        a = self.active.index(contact)
        return self.impulses[:, a * self.dim + component]

    def velocity(self, contact, component=0):
        """Post-impact contact velocity component of ``contact`` for every problem."""
        a = self.active.index(contact)
        return self.contact_velocities[:, a * self.dim + component]

    def mode(self, contact):
        """Mode names of ``contact`` for every problem (ndarray of str)."""
        names = np.asarray(MODE_NAMES + ("none",), dtype=object)
        return names[self.modes[:, self.active.index(contact)]]


def _batch_states(system, qs, vs):
    def arr(x, names, n, what):
        if isinstance(x, dict):
            for k in x:
                if k not in names:
                    raise ValueError(f"{what}: unknown name {k!r}; names: {', '.join(names)}")
            N = max(np.size(val) for val in x.values()) if x else 1
            return None, N
        a = np.asarray(x, dtype=float)
        if a.ndim != 2 or a.shape[1] != n:
            raise ValueError(f"{what}: expected shape (N, {n}) in System order {names}, "
                             f"got {a.shape}")
        return a, a.shape[0]
    qa, Nq = arr(qs, system.q_names, system.nq, "qs")
    coord_speed = {c: s for s, c in system.speed_of.items()}
    if isinstance(vs, dict):
        vs = {(k if k in system.u_names else coord_speed.get(k, k)): val
              for k, val in vs.items()}
    ua, Nu = arr(vs, system.u_names, system.nu, "vs")
    N = max(Nq, Nu)
    if qa is None:
        qa = np.tile(system.q_defaults, (N, 1))
        for k, val in qs.items():
            qa[:, system.q_names.index(k)] = val
    if ua is None:
        ua = np.tile(system.u_defaults, (N, 1))
        for k, val in vs.items():
            ua[:, system.u_names.index(k)] = val
    if qa.shape[0] != N or ua.shape[0] != N:
        raise ValueError(f"qs, vs: different numbers of states ({qa.shape[0]}, {ua.shape[0]})")
    for a, names, what in ((qa, system.q_names, "qs"), (ua, system.u_names, "vs")):
        fin = np.isfinite(a)
        if not fin.all():
            i, j = np.argwhere(~fin)[0]
            raise ValueError(f"{what}: state {i}: {names[j]!r} is not finite")
    return np.ascontiguousarray(qa), np.ascontiguousarray(ua), N


def impact_batch(system, qs, vs, active=None, params=None, t=0.0, method="enum", tol=1e-9,
                 gap_tol=GAP_TOL, energy="raise", max_boxes=None):
    r"""Solve N impact problems of ``system`` (one active set) in one vectorized pass.

    The CasADi assembly graph is mapped over the N states in one call
    (``Function.map``); the N contact-space problems are solved in one C call
    (:func:`mechdae.contact.impact_batch`); ``u+ = u- + B P`` is applied with numpy.

    Parameters
    ----------
    system : System
    qs : array (N, nq) in System order, or dict name -> scalar or array (N,)
    vs : array (N, nu), or dict name -> scalar or array (N,)
    active : list of str, optional
        Default: the contacts closed (``gap <= gap_tol``) in every state; the default
        must be the same for all states.
    params : dict, optional
        name -> scalar or array (N,) (sweeps over parameters, contact laws included).
    t : float
    method : {"enum", "lcp", "nsgs"}
    tol, gap_tol : float
    energy : {"raise", "report"}
        On an energy gain with ``e <= 1``: raise EnergyGainError naming the problems and
        contacts, or return with ``status == "energy_gain"``.
    max_boxes : int, optional
        Box budget of each search of sliding directions in space (as in :func:`impact`);
        ``out.exhaustive`` is False for the problems whose search spent it.

    Returns
    -------
    ImpactBatchResult

    Examples
    --------
    >>> out = sys.impact_batch(qs, vs, params={"f": 0.5})          # doctest: +SKIP
    >>> out.mode("B")                                                # doctest: +SKIP
    """
    kernels.check_options(tol=tol, gap_tol=gap_tol)
    max_boxes = _max_boxes(max_boxes)
    asm = _assembler(system)
    Q, U, N = _batch_states(system, qs, vs)
    P = np.tile(np.asarray(system.p_defaults, dtype=float)[:, None], (1, N))
    for k, val in (params or {}).items():
        if k not in system.p_names:
            raise ValueError(f"params: unknown parameter {k!r} for model '{system.name}'; "
                             f"parameters: {', '.join(system.p_names) or 'none'}")
        P[system.p_names.index(k)] = val
    if system.nv or system.w_names:
        VX = np.tile(system.v_defaults[:, None], (1, N))
        Wv = np.zeros((len(system.w_names), N))
        if system.w_names:
            from ..simulate.inputs import input_values
            Wv[:] = input_values(system, None, np.atleast_1d(float(t)),
                                 system.p_defaults)[:, :1]
    else:
        VX, Wv = np.zeros((0, N)), np.zeros((0, N))
    out = asm.evaluate_batch(Q.T, U.T, VX, t, P, Wv)
    gap = out["gap"][:, :, 0]                      # (N, ncont)
    if active is None:
        closed = gap <= gap_tol
        if N and not (closed == closed[0]).all():
            i = int(np.argmax((closed != closed[0]).any(axis=1)))
            raise ValueError(f"active: the closed contacts differ between states 0 and {i} "
                             f"({[n for n, c in zip(asm.names, closed[0]) if c]} vs "
                             f"{[n for n, c in zip(asm.names, closed[i]) if c]}); pass active=")
        idx = _active_indices(asm, None, closed[0] if N else np.zeros(len(asm.names), bool))
    else:
        idx = _active_indices(asm, active, None)
    dim, src, dst, rows = _layout(asm, idx)
    nc = len(idx)
    n = nc * dim
    sel = np.array(idx, dtype=int)
    M = out["M"]                                   # symmetric: the buffer is C-ordered M
    T0 = out["T"][:, 0, 0]
    if nc == 0:
        return ImpactBatchResult(U.copy(), np.zeros((N, 0)), np.zeros((N, 0)),
                                 np.zeros((N, 0)), np.zeros((N, 0), int),
                                 np.full(N, "unique", dtype=object), np.ones(N, int), T0,
                                 T0.copy(), [], dim, np.ones(N, bool))
    laws = {asm.laws[i] for i in idx}
    if laws != {"newton"}:
        raise NotImplementedError("impact_batch: only the 'newton' law is vectorized; use "
                                  "System.impact for 'poisson' contacts")
    # D symmetric; B^T in C order is the raw buffer of out["B"]
    Df, Wu, Bt = out["D"], out["Wu"][:, :, 0], out["B"].transpose(0, 2, 1)
    if n == asm.nr and (src == dst).all() and (src == np.arange(n)).all():
        D, vm, Btp = Df, Wu, Bt                    # every contact, no padding: no copy
    else:
        D = np.zeros((N, n, n))
        D[:, dst[:, None], dst[None, :]] = Df[:, src[:, None], src[None, :]]
        if len(dst) < n:
            dummy = np.setdiff1d(np.arange(n), dst)
            d = np.mean(Df[:, src, src], axis=1)
            d = np.where(d > 0, d, 1.0)
            D[:, dummy, dummy] = d[:, None]
        vm = np.zeros((N, n))
        vm[:, dst] = Wu[:, src]
        Btp = np.zeros((N, n, system.nu))
        Btp[:, dst, :] = Bt[:, src, :]
    L = out["laws"][:, :, 0]                       # (N, 3 ncont): (e_n, e_t, mu) per contact
    e_n, e_t, mu = (np.ascontiguousarray(L[:, 3 * sel + j]) for j in range(3))
    superelastic = bool((e_n > 1).any() or (e_t > 1).any())
    cl = asm.closure[sel]
    if cl.any():        # closed friction cones: reduced inelastic problems, then expand
        Dr, _, cr, K = _closure.reduce(D, vm, e_n, e_t, cl, dim, [asm.names[i] for i in idx])
        zero = np.zeros_like(e_n)
        s = kernels.impact_batch(np.ascontiguousarray(Dr), np.ascontiguousarray(cr), zero,
                                 zero, np.where(cl, 0.0, mu), dim, method=method, tol=tol,
                                 energy="report", threads=BATCH_THREADS if N >= 256 else 1,
                                 max_boxes=max_boxes)
        s.P, s.v_plus = _closure.expand(D, vm, s.P, K)
        ok = np.isfinite(s.P).all(axis=1)
        for a in np.flatnonzero(cl):
            s.modes[ok, a] = np.where(s.P[ok, a * dim] > 0, 1, 0)   # stick / separate
    else:
        s = kernels.impact_batch(D, vm, e_n, e_t, mu, dim, method=method, tol=tol,
                                 energy="report", allow_superelastic=superelastic,
                                 threads=BATCH_THREADS if N >= 256 else 1,
                                 max_boxes=max_boxes)
    # u+ = u + B P, T+ in C; problems without a solution have NaN impulses (kernel
    # contract): NaN u+ and T1
    up, T1 = _contact.impact_apply(np.ascontiguousarray(Btp), s.P, U,
                                   np.ascontiguousarray(M.transpose(0, 2, 1)))
    status = s.status.copy()
    if not superelastic:
        if not system.rheonomic:     # moving surfaces may do work: kernel check only
            gain = T1 - T0 > 1e-9 * np.maximum(T0, 1e-300) + 1e-14
            status[gain] = "energy_gain"
        if energy == "raise" and (status == "energy_gain").any():
            ii = np.flatnonzero(status == "energy_gain")
            names = ", ".join(repr(asm.names[i]) for i in idx)
            raise EnergyGainError(
                f"impact_batch: the impact law at contacts {names} would increase the "
                f"kinetic energy in problems {ii[:10].tolist()}"
                f"{'...' if len(ii) > 10 else ''} although e_n, e_t <= 1", s)
    return ImpactBatchResult(up, s.P, s.v_plus, vm, s.modes, status, s.n_solutions, T0, T1,
                             [asm.names[i] for i in idx], dim, s.exhaustive)


# ------------------------------------------------------------------------------------ #
# acceleration level
# ------------------------------------------------------------------------------------ #

@dataclass
class ContactForceOutcome:
    """One consistent solution of the contact-force problem.

    Attributes
    ----------
    lam : dict
        Per active contact ``(lam_n, lam_t[, lam_t2])`` (N).
    modes : dict
        Per active contact ``"separate"`` (lift-off), ``"stick"`` or ``"slide"``.
    acc : dict
        Per active contact accelerations ``(a_n, a_t[, a_t2])`` (m/s^2).
    udot : ndarray (nu,)
        Accelerations ``u'``.
    """
    lam: dict
    modes: dict
    acc: dict
    udot: np.ndarray


@dataclass
class ContactForcesResult:
    """Result of :meth:`System.contact_forces` / :meth:`System.painleve`.

    Attributes
    ----------
    status : str
        ``"unique"``, ``"inconsistent"`` (no consistent mode combination) or
        ``"indeterminate"`` (several).
    solutions : list of ContactForceOutcome
    lam, modes, acc, udot
        Of the first solution (empty / NaN when inconsistent).
    U, F : dict
        For each sliding active contact, the Painlevé coefficients of
        ``a_n = U lam_n + F`` with the other contacts' forces set to zero
        (``U = D_nn - mu D_nt s``, ``s`` the sliding direction, ``F = b_n``).
    active : list of str
    problem : ContactProblem
    exhaustive : bool
        True when ``solutions`` are provably every consistent solution (see
        :attr:`ImpactResult.exhaustive`).
    """
    status: str
    solutions: list
    lam: dict
    modes: dict
    acc: dict
    udot: np.ndarray
    U: dict
    F: dict
    active: list
    problem: ContactProblem = field(default=None, repr=False)
    exhaustive: bool = True


def contact_forces(system, q, v, active=None, params=None, t=0.0, gap_tol=GAP_TOL,
                   vel_tol=1e-9, slide_tol=1e-12, tol=1e-9, inputs=None):
    r"""Contact forces of the closed contacts with Coulomb friction, all consistent modes.

    Contact accelerations ``a = D lam + b``; every active contact obeys
    ``0 <= lam_n _|_ a_n >= 0``; a sliding contact (``|v_t| > slide_tol``) has
    ``lam_t = -mu lam_n v_t/|v_t|``; a sticking one stays (``a_t = 0``,
    ``|lam_t| <= mu lam_n``) or starts to slide. Mode ``"separate"`` is a lift-off.

    Parameters
    ----------
    system : System
    q, v : dict by name or array in System order
    active : list of str, optional
        Default: closed, non-separating contacts (``gap <= gap_tol``, ``v_n <= vel_tol``).
    params : dict, optional
    t, gap_tol, vel_tol, slide_tol, tol : float

    Returns
    -------
    ContactForcesResult

    Raises
    ------
    ValueError
        A contact with ``mu = inf`` is sliding; bad state; unknown contact.
    """
    kernels.check_options(tol=tol, gap_tol=gap_tol, vel_tol=vel_tol, slide_tol=slide_tol)
    asm = _assembler(system)
    qa, ua, va = _state(system, q, v)
    pv, wv = _params(system, params, inputs, t)
    out = asm.evaluate(qa, ua, va, float(t), pv, wv)
    prob = _problem_from(asm, out, ua, active, pv, gap_tol, kind="forces", vel_tol=vel_tol)
    if prob.closure.any():
        _closure.reject(system, "contact_forces / painleve")
    nu = system.nu
    if prob.nc == 0:
        return ContactForcesResult("unique", [ContactForceOutcome({}, {}, {}, prob.acc_free)],
                                   {}, {}, {}, prob.acc_free, {}, {}, [], prob)
    dim = prob.dim
    vt = prob.v_minus.reshape(prob.nc, dim)[:, 1:]
    for a in range(prob.nc):
        if np.isinf(prob.mu[a]) and np.linalg.norm(vt[a]) > slide_tol:
            raise ValueError(f"contact {prob.contacts[a]!r}: sliding velocity "
                             f"{np.linalg.norm(vt[a]):.3g} with friction = inf; a contact "
                             "without sliding cannot slide (resolve the impact first)")
    s = kernels.contact_forces(prob.D, prob.b, vt.reshape(-1) if dim == 3 else vt[:, 0],
                               prob.mu, dim, slide_tol=slide_tol, tol=tol)
    sols = []
    for x in s.solutions:
        udot = prob.acc_free + prob.B @ x.lam
        sols.append(ContactForceOutcome(prob.per_contact(x.lam),
                                        dict(zip(prob.contacts, x.modes)),
                                        prob.per_contact(x.acc), udot))
    U, F = {}, {}
    for a, name in enumerate(prob.contacts):
        sp = np.linalg.norm(vt[a])
        if sp > slide_tol and np.isfinite(prob.mu[a]):
            i = a * dim
            sdir = vt[a] / sp
            U[name] = float(prob.D[i, i] - prob.mu[a] * prob.D[i, i + 1:i + dim] @ sdir)
            F[name] = float(prob.b[i])
    if sols:
        f = sols[0]
        return ContactForcesResult(s.status, sols, f.lam, f.modes, f.acc, f.udot, U, F,
                                   prob.contacts, prob, s.exhaustive)
    return ContactForcesResult(s.status, [], {}, {}, {}, np.full(nu, np.nan), U, F,
                               prob.contacts, prob, s.exhaustive)


def painleve(system, q, v, active=None, params=None, t=0.0, **kw):
    """Painlevé classification of the contact problem at ``(q, v)``.

    Same computation as :func:`contact_forces`; ``status`` is ``"unique"``,
    ``"inconsistent"`` (no consistent solution: ``U < 0, F < 0`` for one sliding contact)
    or ``"indeterminate"`` (several: ``U < 0, F > 0``). ``U`` and ``F`` are reported per
    sliding contact.
    """
    return contact_forces(system, q, v, active=active, params=params, t=t, **kw)
