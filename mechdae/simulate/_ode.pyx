# cython: language_level=3
"""Thin wrapper of csrc/mdae_ode.{h,c}: a smooth phase integrated in C (Dormand-Prince 8(5,3)
or 5(4) with event location), and generated CasADi functions called by address.

:class:`CFunction` calls one CasADi-generated C function (address from
:meth:`mechdae.codegen.Library.symbol`) on dense numpy buffers; :class:`Phase` drives
``mdae_ode_run`` with a mode's right-hand side and event functions, without Python in
the loop.
"""
import threading

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_Occurred
from libc.stdlib cimport malloc, free
from libc.stdint cimport uintptr_t

cnp.import_array()

cdef extern from "Python.h":
    # no exception value: the pending KeyboardInterrupt stays set for the wrapper
    int _check_signals "PyErr_CheckSignals" ()
    unsigned long PyThread_get_thread_ident() nogil

cdef extern from "mdae_status.h":
    const char *mdae_status_str(int status)
    ctypedef int (*mdae_interrupt_fn)(void *ctx) noexcept nogil

cdef extern from "mdae_step.h":
    ctypedef int (*mdae_eval_fn)(void *ctx, const double **arg, double **res) noexcept nogil
    ctypedef int (*mdae_casadi_fn)(const double **arg, double **res, long long *iw, double *w,
                                   int mem) noexcept nogil
    ctypedef struct mdae_casadi_ctx:
        mdae_casadi_fn f
        int n_in
        int n_out
        const double **arg
        double **res
        long long *iw
        double *w
    int mdae_casadi_eval(void *ctx, const double **arg, double **res) noexcept nogil

cdef extern from "mdae_ode.h":
    ctypedef struct mdae_ode_system:
        int nx, ne
        const double *P
        mdae_eval_fn rhs
        void *rhs_ctx
        mdae_eval_fn ev
        void *ev_ctx
    ctypedef struct mdae_ode_options:
        int method
        double rtol, atol
        double window, window_max
        int nsub
        double event_tol
        const double *shift
        double stiff_h
        double h_stab
        long max_steps
        mdae_interrupt_fn interrupt
        void *interrupt_ctx
    ctypedef struct mdae_ode_info:
        int outcome
        double t, h
        int n_out
        long n_steps, n_rejected, n_rhs, n_ev, n_shoots
    void mdae_ode_options_default(mdae_ode_options *o)
    size_t mdae_ode_work_size(int nx, int ne)
    int mdae_ode_run(const mdae_ode_system *s, const mdae_ode_options *o, double t0, double *x,
                     double *xdot, double t_end, double h0, const double *t_out, int n_out,
                     double *T_out, double *X_out, double *e, double *edot, int *fired,
                     double *work, mdae_ode_info *info) nogil
    int mdae_ode_step(int method, const mdae_ode_system *s, double t, const double *x,
                      const double *k1, double h, double *y, double *work) nogil
    double mdae_ode_growth(int method, double re, double im)

cdef extern from "mdae_contact.h":
    ctypedef struct mdae_impact_options:
        int method, facets, max_solutions, max_boxes, max_iter
        double tol, energy_tol
        int allow_energy_gain, check_input
        mdae_interrupt_fn interrupt
        void *interrupt_ctx
    void mdae_impact_options_default(mdae_impact_options *opt)

cdef extern from "mdae_cycle.h":
    ctypedef struct mdae_cycle_model:
        int nq, nu, nc, dim, nW
        const int *offs
        const int *nt
        const double *e_n
        const double *e_t
        const double *mu
        mdae_eval_fn terms
        void *terms_ctx
        mdae_eval_fn energy
        void *energy_ctx
    ctypedef struct mdae_cycle_options:
        const int *gap_of
        double gap_tol, vel_tol, rest_velocity
        int zeno, early, n_ratio
        double min_flight, ratio_tol, r_max, h_min, h_max
        int max_impacts
        mdae_impact_options impact
    ctypedef struct mdae_cycle_info:
        int outcome, n_impacts, n_rows, n_out
        double last_event, window
        long n_phases, n_steps, n_shoots
        mdae_ode_info ode
    int MDAE_CYCLE_LOG(int dim)
    int MDAE_CYCLE_HIST
    size_t mdae_cycle_work_size(const mdae_cycle_model *m, const mdae_cycle_options *c,
                                int nx, int ne)
    size_t mdae_cycle_iwork_size(const mdae_cycle_model *m, const mdae_cycle_options *c)
    int mdae_cycle_run(const mdae_ode_system *s, const mdae_ode_options *o,
                       const mdae_cycle_model *m, const mdae_cycle_options *c, double t0,
                       double *x, double *xdot, double t_end, double window, double h0,
                       double *P, double *hist, int *nhist, const double *t_out, int n_out,
                       double *T_rows, double *X_rows, double *e, double *edot, int *fired,
                       double *log, double *work, int *iwork, mdae_cycle_info *info) nogil

#: outcomes of :meth:`Phase.run`
DONE, EVENT, STIFF = 0, 1, 2

include "_interrupt.pxi"


#: Runge-Kutta pairs: Dormand-Prince 5(4) and 8(5,3)
DOPRI5, DOP853 = 0, 1


def growth(int method, z):
    """``|R(z)|``: the growth of one step of ``method`` on ``y' = lambda y``,
    ``z = h lambda`` (the stability function of its tableau)."""
    z = complex(z)
    return mdae_ode_growth(method, z.real, z.imag)


cdef class CFunction:
    """A CasADi-generated C function with dense inputs and outputs, called by address.

    Parameters
    ----------
    address : int
        Address of the generated function (``Library.symbol(name)[0]``).
    sizes : tuple
        ``(sz_arg, sz_res, sz_iw, sz_w)``.
    in_sizes, out_shapes : sequences
        Number of values of each input; ``(rows, cols)`` of each output (dense,
        column-major).
    keep : object
        Kept alive with the function (the loaded library).
    """
    cdef mdae_casadi_ctx ctx
    cdef object keep
    cdef public tuple in_sizes
    cdef public tuple out_shapes
    cdef list res_arrays
    cdef const double **argv
    cdef double **resv
    cdef double scalars[8]      # Python floats given for one-value inputs (the first 8)

    def __cinit__(self):
        self.ctx.arg = NULL
        self.ctx.res = NULL
        self.ctx.iw = NULL
        self.ctx.w = NULL
        self.argv = NULL
        self.resv = NULL

    def __init__(self, address, sizes, in_sizes, out_shapes, keep=None):
        cdef int i
        self.keep = keep
        self.in_sizes = tuple(int(n) for n in in_sizes)
        self.out_shapes = tuple((int(r), int(c)) for r, c in out_shapes)
        self.ctx.f = <mdae_casadi_fn><uintptr_t>address
        self.ctx.n_in = len(self.in_sizes)
        self.ctx.n_out = len(self.out_shapes)
        self.ctx.arg = <const double **>malloc(sizeof(double *) * max(1, sizes[0]))
        self.ctx.res = <double **>malloc(sizeof(double *) * max(1, sizes[1]))
        self.ctx.iw = <long long *>malloc(sizeof(long long) * max(1, sizes[2]))
        self.ctx.w = <double *>malloc(sizeof(double) * max(1, sizes[3]))
        self.argv = <const double **>malloc(sizeof(double *) * max(1, self.ctx.n_in))
        self.resv = <double **>malloc(sizeof(double *) * max(1, self.ctx.n_out))
        if not (self.ctx.arg and self.ctx.res and self.ctx.iw and self.ctx.w and self.argv
                and self.resv):
            raise MemoryError()

    def __dealloc__(self):
        free(self.ctx.arg)
        free(self.ctx.res)
        free(self.ctx.iw)
        free(self.ctx.w)
        free(self.argv)
        free(self.resv)

    def __call__(self, *args):
        """Outputs (new arrays of ``out_shapes``) at the inputs ``args`` (array-likes of
        ``in_sizes`` values each, column-major)."""
        cdef int i, st
        cdef cnp.ndarray a
        if len(args) != self.ctx.n_in:
            raise TypeError(f"expected {self.ctx.n_in} inputs, got {len(args)}")
        cdef object v
        keep = []
        for i in range(self.ctx.n_in):
            v = args[i]
            if type(v) is float and i < 8 and self.in_sizes[i] == 1:
                self.scalars[i] = v           # a time: no array
                self.argv[i] = &self.scalars[i]
                continue
            if not (type(v) is np.ndarray and v.dtype == np.float64 and v.ndim == 1
                    and v.flags.c_contiguous):
                v = np.ascontiguousarray(np.ravel(v, order="F"), dtype=np.float64)
            a = v
            if a.shape[0] != self.in_sizes[i]:
                raise ValueError(f"input {i}: {a.shape[0]} values, expected "
                                 f"{self.in_sizes[i]}")
            keep.append(a)
            self.argv[i] = <const double *>a.data
        outs = []
        for i in range(self.ctx.n_out):
            a = np.empty(self.out_shapes[i], dtype=np.float64, order="F")
            outs.append(a)
            self.resv[i] = <double *>a.data
        with nogil:
            st = mdae_casadi_eval(<void *>&self.ctx, self.argv, self.resv)
        if st:
            raise RuntimeError(f"generated function failed (status {st})")
        return outs

    def columns(self, X, ts, P, int out=0):
        """Output ``out`` at the columns of ``X`` (one state per column) and times ``ts``,
        with parameters ``P``: a ``(numel, N)`` array (one C call per column)."""
        cdef cnp.ndarray[cnp.float64_t, ndim=2, mode="fortran"] Xf = np.asfortranarray(X, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] tf = np.ascontiguousarray(ts, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] Pf = np.ascontiguousarray(P, dtype=np.float64)
        cdef int N = Xf.shape[1], k, i, st = 0
        cdef int nrow = self.out_shapes[out][0] * self.out_shapes[out][1]
        cdef cnp.ndarray[cnp.float64_t, ndim=2, mode="fortran"] R = np.empty((nrow, N), order="F")
        scratch = [np.empty(max(1, r * c)) for r, c in self.out_shapes]
        cdef cnp.ndarray sc
        if self.ctx.n_in != 3 or Xf.shape[0] != self.in_sizes[0] or tf.shape[0] != N:
            raise ValueError("columns: (x, t, P) functions with matching sizes only")
        for i in range(self.ctx.n_out):
            sc = scratch[i]
            self.resv[i] = <double *>sc.data
        self.argv[2] = <const double *>Pf.data
        with nogil:
            for k in range(N):
                self.argv[0] = <const double *>&Xf[0, k]
                self.argv[1] = <const double *>&tf[k]
                self.resv[out] = <double *>&R[0, k]
                st = mdae_casadi_eval(<void *>&self.ctx, self.argv, self.resv)
                if st:
                    break
        if st:
            raise RuntimeError(f"generated function failed (status {st})")
        return R


cdef void _options(mdae_ode_options *o, double rtol, double atol, double window,
                   double window_max, int nsub, double event_tol, double stiff_h,
                   long max_steps, double h_stab, int method, const double *shift):
    """The phase options of :meth:`Phase.run` and :meth:`Cycle.run`."""
    mdae_ode_options_default(o)
    o.rtol, o.atol = rtol, atol
    o.window, o.window_max, o.nsub = window, window_max, nsub
    o.event_tol, o.stiff_h, o.max_steps = event_tol, stiff_h, max_steps
    o.h_stab = h_stab
    o.method = method
    o.shift = shift
    o.interrupt = _interrupted
    o.interrupt_ctx = NULL


cdef class Phase:
    """One mode's smooth phase integrated in C (``mdae_ode_run``).

    Parameters
    ----------
    rhs : CFunction
        ``(x, t, P) -> xdot``.
    ev : CFunction or None
        ``(x, t, P) -> (e, edot)``; None: no event function is watched.
    shift : array (ne,)
        Shift of the event functions that start non-positive (see mdae_ode.h).
    """
    cdef CFunction rhs_f, ev_f
    cdef mdae_ode_system sys
    cdef public int nx, ne
    cdef cnp.ndarray work
    cdef cnp.ndarray shift

    def __init__(self, CFunction rhs, ev, int nx, int ne, shift=None):
        self.rhs_f = rhs
        self.nx, self.ne = nx, ne
        self.sys.nx = nx
        self.sys.ne = ne
        self.sys.rhs = mdae_casadi_eval
        self.sys.rhs_ctx = <void *>&rhs.ctx
        if ne:
            self.ev_f = <CFunction?>ev
            self.sys.ev = mdae_casadi_eval
            self.sys.ev_ctx = <void *>&self.ev_f.ctx
        else:
            self.sys.ev = NULL
            self.sys.ev_ctx = NULL
        self.shift = np.ascontiguousarray(np.zeros(max(ne, 1)) if shift is None
                                          else np.asarray(shift, float).reshape(-1))
        self.work = np.zeros(mdae_ode_work_size(nx, ne))

    def set_shift(self, shift):
        self.shift = np.ascontiguousarray(np.asarray(shift, float).reshape(-1))

    def run(self, double t0, x0, double t_end, P, double h0=0.0, double rtol=1e-10,
            double atol=1e-12, double window=0.2, double window_max=0.2, int nsub=32,
            double event_tol=1e-10, double stiff_h=0.0, t_out=None, long max_steps=10000000,
            double h_stab=0.0, int method=1):
        """Integrate from ``(t0, x0)`` to ``t_end`` or the first event.

        Returns
        -------
        dict
            ``outcome`` (DONE, EVENT or STIFF), ``t``, ``x``, ``xdot``, ``e``, ``edot``,
            ``fired`` (indices), ``h`` (step for a continuation), ``T_out``, ``X_out``
            (outputs written, one row per output time), ``steps``, ``rejected``,
            ``rhs``, ``ev``, ``shoots``.
        """
        cdef mdae_ode_options o
        cdef mdae_ode_info info
        cdef int st, nx = self.nx, ne = self.ne, nout
        cdef cnp.ndarray[cnp.float64_t, ndim=1] x = np.array(x0, dtype=np.float64).reshape(-1)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] xd = np.empty(nx)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] Pc = np.ascontiguousarray(P, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] e = np.empty(max(ne, 1))
        cdef cnp.ndarray[cnp.float64_t, ndim=1] ed = np.empty(max(ne, 1))
        cdef cnp.ndarray[int, ndim=1] fired = np.zeros(max(ne, 1), dtype=np.intc)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] to
        cdef cnp.ndarray[cnp.float64_t, ndim=1] To
        cdef cnp.ndarray[cnp.float64_t, ndim=2] Xo
        cdef cnp.ndarray[cnp.float64_t, ndim=1] work = self.work
        cdef cnp.ndarray[cnp.float64_t, ndim=1] shift = self.shift
        if x.shape[0] != nx:
            raise ValueError(f"x0: {x.shape[0]} values, expected {nx}")
        if ne and shift.shape[0] != ne:
            raise ValueError(f"shift: {shift.shape[0]} values, expected {ne}")
        to = np.ascontiguousarray(np.zeros(0) if t_out is None else t_out, dtype=np.float64)
        nout = to.shape[0]
        To = np.empty(max(nout, 1))
        Xo = np.empty((max(nout, 1), nx))
        _options(&o, rtol, atol, window, window_max, nsub, event_tol, stiff_h, max_steps,
                 h_stab, method, &shift[0])
        self.sys.P = &Pc[0]
        with nogil:
            st = mdae_ode_run(&self.sys, &o, t0, &x[0], &xd[0], t_end, h0, &to[0] if nout else NULL,
                              nout, &To[0], &Xo[0, 0], &e[0], &ed[0], &fired[0], &work[0], &info)
        if st == INTERRUPTED:
            _raise_pending()
        if st:
            raise RuntimeError(f"phase integration failed at t = {info.t:.12g}: "
                               f"{mdae_status_str(st).decode()}")
        return dict(outcome=info.outcome, t=info.t, x=x, xdot=xd, e=e[:ne], edot=ed[:ne],
                    fired=np.flatnonzero(fired[:ne]).tolist(), h=info.h,
                    T_out=To[:info.n_out], X_out=Xo[:info.n_out], steps=info.n_steps,
                    rejected=info.n_rejected, rhs=info.n_rhs, ev=info.n_ev,
                    shoots=info.n_shoots)

    def step(self, double t, x, xdot, double h, P, int method=1):
        """One step of ``method`` of size ``h`` from ``(t, x)`` (``xdot = f(x, t)``)."""
        cdef cnp.ndarray[cnp.float64_t, ndim=1] xa = np.ascontiguousarray(x, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] k1 = np.ascontiguousarray(xdot, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] Pc = np.ascontiguousarray(P, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] y = np.empty(self.nx)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] w = np.empty(13 * self.nx)
        cdef int st
        if xa.shape[0] != self.nx or k1.shape[0] != self.nx:
            raise ValueError("x, xdot: wrong size")
        self.sys.P = &Pc[0]
        with nogil:
            st = mdae_ode_step(method, &self.sys, t, &xa[0], &k1[0], h, &y[0], &w[0])
        if st:
            raise RuntimeError(f"step failed: {mdae_status_str(st).decode()}")
        return y


cdef class Cycle:
    """Flight phases and their simple impacts in C (``mdae_cycle_run``, see
    csrc/mdae_cycle.h): a :class:`Phase` of a mode with every contact open, the engine's
    generated ``terms`` and ``energy``, the contact data and the accumulation rule's
    settings (fixed per engine and mode)."""
    cdef Phase phase
    cdef CFunction terms_f, energy_f
    cdef mdae_cycle_model m
    cdef mdae_cycle_options c
    cdef cnp.ndarray offs, nt, e_n, e_t, mu, gap_of, work, iwork
    cdef public int dim, L
    #: impact times kept per contact (columns of ``hist``)
    HIST = MDAE_CYCLE_HIST

    def __init__(self, Phase phase, CFunction terms, CFunction energy, int nq, int nu,
                 offs, nt, e_n, e_t, mu, int nW, gap_of, double gap_tol, double vel_tol,
                 double rest_velocity, bint zeno, double ratio_tol, double r_max,
                 int facets, int max_iter, double tol, int max_boxes, bint early=False,
                 int n_ratio=2, double min_flight=0.0):
        cdef int nc = len(offs)
        self.phase, self.terms_f, self.energy_f = phase, terms, energy
        self.offs = np.ascontiguousarray(offs, dtype=np.intc)
        self.nt = np.ascontiguousarray(nt, dtype=np.intc)
        self.e_n = np.ascontiguousarray(e_n, dtype=np.float64)
        self.e_t = np.ascontiguousarray(e_t, dtype=np.float64)
        self.mu = np.ascontiguousarray(mu, dtype=np.float64)
        self.gap_of = np.ascontiguousarray(gap_of, dtype=np.intc)
        if (self.gap_of.shape[0] != phase.ne or self.nt.shape[0] != nc
                or self.e_n.shape[0] != nc or self.e_t.shape[0] != nc
                or self.mu.shape[0] != nc or nc < 1 or phase.ne < 1):
            raise ValueError("Cycle: contact data and event functions of inconsistent sizes")
        # the C cycle writes the terms into buffers of these sizes: a mismatch (bilateral
        # rows, another model's function) would overrun them
        want = ((nu, nu), (nu, 1), (0, nu), (0, 1), (nW, nu), (nW, 1), (nW, 1), (nc, 1),
                (1, 1), (nu, 1 + nW))
        if (tuple(terms.out_shapes) != want or tuple(energy.out_shapes) != ((1, 1),)
                or terms.in_sizes[0] != phase.nx or nq + nu > phase.nx):
            raise ValueError(f"Cycle: terms outputs {terms.out_shapes} (energy "
                             f"{energy.out_shapes}) do not match a model of {nq}+{nu} "
                             f"coordinates, {nc} contacts, {nW} contact rows and no "
                             "bilateral constraints")
        self.dim = max([2] + [1 + int(k) for k in nt])
        self.L = MDAE_CYCLE_LOG(self.dim)
        self.m.nq, self.m.nu, self.m.nc, self.m.dim, self.m.nW = nq, nu, nc, self.dim, nW
        self.m.offs = <const int *>cnp.PyArray_DATA(self.offs)
        self.m.nt = <const int *>cnp.PyArray_DATA(self.nt)
        self.m.e_n = <const double *>cnp.PyArray_DATA(self.e_n)
        self.m.e_t = <const double *>cnp.PyArray_DATA(self.e_t)
        self.m.mu = <const double *>cnp.PyArray_DATA(self.mu)
        self.m.terms = mdae_casadi_eval
        self.m.terms_ctx = <void *>&terms.ctx
        self.m.energy = mdae_casadi_eval
        self.m.energy_ctx = <void *>&energy.ctx
        self.c.gap_of = <const int *>cnp.PyArray_DATA(self.gap_of)
        self.c.gap_tol, self.c.vel_tol, self.c.rest_velocity = gap_tol, vel_tol, rest_velocity
        self.c.zeno, self.c.ratio_tol, self.c.r_max = zeno, ratio_tol, r_max
        if early and not 1 <= n_ratio <= MDAE_CYCLE_HIST - 1:
            raise ValueError(f"Cycle: n_ratio must be in [1, {MDAE_CYCLE_HIST - 1}]")
        self.c.early, self.c.n_ratio, self.c.min_flight = early, n_ratio, min_flight
        mdae_impact_options_default(&self.c.impact)
        self.c.impact.facets, self.c.impact.max_iter = facets, max_iter
        self.c.impact.tol = self.c.impact.energy_tol = tol
        self.c.impact.max_boxes = max_boxes
        self.work = np.zeros(mdae_cycle_work_size(&self.m, &self.c, phase.nx, phase.ne))
        self.iwork = np.zeros(mdae_cycle_iwork_size(&self.m, &self.c), dtype=np.intc)

    def run(self, double t0, x0, double t_end, P, hist, nhist, double h0=0.0,
            double rtol=1e-10, double atol=1e-12, double window=0.2, double window_max=0.2,
            int nsub=32, double event_tol=1e-10, double stiff_h=0.0, t_out=None,
            long max_steps=10000000, double h_stab=0.0, int method=1, double h_min=0.0,
            int max_impacts=256):
        """Integrate from ``(t0, x0)`` to ``t_end`` through simple impacts; stops at
        ``t_end``, at an event that is not a simple impact, at a stiff stretch, or after
        ``max_impacts`` impacts. ``hist`` (nc, HIST) and ``nhist`` (nc,) int: the last
        impact times per contact (oldest first), updated in place.

        Returns
        -------
        dict
            As :meth:`Phase.run` (of the last phase; ``T_out``, ``X_out`` every sample
            row: outputs and the states before and after each impact, in time order) and
            ``log`` (one row per impact: t, contact, E0, E1, mode, P, v^-, v^+),
            ``last_event``, ``window``, ``phases``.
        """
        cdef Phase ph = self.phase
        cdef mdae_ode_options o
        cdef mdae_cycle_info info
        cdef int st, nx = ph.nx, ne = ph.ne, nout
        cdef cnp.ndarray[cnp.float64_t, ndim=1] x = np.array(x0, dtype=np.float64).reshape(-1)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] xd = np.empty(nx)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] Pc = np.array(P, dtype=np.float64)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] e = np.empty(ne)
        cdef cnp.ndarray[cnp.float64_t, ndim=1] ed = np.empty(ne)
        cdef cnp.ndarray[int, ndim=1] fired = np.zeros(ne, dtype=np.intc)
        cdef cnp.ndarray[cnp.float64_t, ndim=2] H = hist
        cdef cnp.ndarray[int, ndim=1] nH = nhist
        cdef cnp.ndarray[cnp.float64_t, ndim=1] to
        cdef cnp.ndarray[cnp.float64_t, ndim=1] To
        cdef cnp.ndarray[cnp.float64_t, ndim=2] Xo
        cdef cnp.ndarray[cnp.float64_t, ndim=2] lg
        cdef cnp.ndarray[cnp.float64_t, ndim=1] work = self.work
        cdef cnp.ndarray[int, ndim=1] iwork = self.iwork
        cdef cnp.ndarray[cnp.float64_t, ndim=1] shift = ph.shift
        if x.shape[0] != nx:
            raise ValueError(f"x0: {x.shape[0]} values, expected {nx}")
        if (H.shape[0] != self.m.nc or H.shape[1] != MDAE_CYCLE_HIST or not H.flags.c_contiguous
                or nH.shape[0] != self.m.nc or shift.shape[0] != ne or max_impacts < 0):
            raise ValueError("Cycle.run: hist (nc, HIST) C-contiguous, nhist (nc,), max_impacts >= 0")
        to = np.ascontiguousarray(np.zeros(0) if t_out is None else t_out, dtype=np.float64)
        nout = to.shape[0]
        To = np.empty(nout + 2 * max_impacts + 1)
        Xo = np.empty((nout + 2 * max_impacts + 1, nx))
        lg = np.empty((max_impacts + 1, self.L))
        _options(&o, rtol, atol, window, window_max, nsub, event_tol, stiff_h, max_steps,
                 h_stab, method, &shift[0])
        self.c.h_min, self.c.h_max, self.c.max_impacts = h_min, window_max, max_impacts
        ph.sys.P = &Pc[0]
        with nogil:
            st = mdae_cycle_run(&ph.sys, &o, &self.m, &self.c, t0, &x[0], &xd[0], t_end,
                                window, h0, &Pc[0], &H[0, 0], &nH[0],
                                &to[0] if nout else NULL, nout, &To[0], &Xo[0, 0], &e[0],
                                &ed[0], &fired[0], &lg[0, 0], &work[0], &iwork[0], &info)
        if st == INTERRUPTED:
            _raise_pending()
        if st:
            raise RuntimeError(f"phase integration failed at t = {info.ode.t:.12g}: "
                               f"{mdae_status_str(st).decode()}")
        return dict(outcome=info.outcome, t=info.ode.t, x=x, xdot=xd, e=e, edot=ed,
                    fired=np.flatnonzero(fired).tolist(), h=info.ode.h,
                    T_out=To[:info.n_rows], X_out=Xo[:info.n_rows], n_out=info.n_out,
                    log=lg[:info.n_impacts], last_event=info.last_event,
                    window=info.window, phases=info.n_phases, steps=info.n_steps,
                    shoots=info.n_shoots)
