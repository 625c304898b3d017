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

Modules: this one holds the assembler (the CasADi graph, its per-thread buffers, the
per-active-set Functions of the fast path) and the shared settings; the entry points live
in :mod:`.problem` (``contact_problem``, ``ContactProblem``), :mod:`.impacts` (``impact``,
``ImpactResult``, the fast path), :mod:`.batch` (``impact_batch``, ``ImpactBatchResult``)
and :mod:`.forces` (``contact_forces``, ``painleve``), all re-exported here.
"""
import threading

import casadi as ca
import numpy as np

from .. import _threads
from . import _contact, closure as _closure
from ._ldl import _ldl_solve

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


# ------------------------------------------------------------------------------------ #
# the entry points (their modules import the assembler above)
# ------------------------------------------------------------------------------------ #

from .problem import ContactProblem, contact_problem  # noqa: E402
from .impacts import (ImpactOutcome, ImpactResult, impact, _impact_fast,  # noqa: E402
                      _impact_general, _impact_prob)
from .batch import ImpactBatchResult, impact_batch  # noqa: E402
from .forces import (ContactForceOutcome, ContactForcesResult, contact_forces,  # noqa: E402
                     painleve)
