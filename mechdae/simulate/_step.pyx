# cython: language_level=3
"""Thin wrapper of csrc/mdae_step.{h,c}: the Moreau-Jean stepping loop in C.

The model functions are either CasADi-generated C (function addresses from a shared
library loaded by ctypes) or, as a fallback, Python callables evaluating CasADi Function
objects (one Python call per evaluation: slow, but needs no compiler).
"""
import threading

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_Occurred
from libc.stdlib cimport malloc, free
from libc.stdint cimport uintptr_t
from cpython.ref cimport PyObject

cnp.import_array()

cdef extern from "Python.h":
    # no exception value: the pending KeyboardInterrupt stays set for the wrapper
    int _check_signals "PyErr_CheckSignals" ()
    unsigned long PyThread_get_thread_ident() nogil

cdef extern from "mdae_status.h":
    const char *mdae_status_str(int status)
    ctypedef int (*mdae_interrupt_fn)(void *ctx) noexcept nogil

cdef extern from "mdae_step.h":
    ctypedef int (*mdae_eval_fn)(void *ctx, const double **arg, double **res) noexcept
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
    int mdae_casadi_eval(void *ctx, const double **arg, double **res) noexcept
    ctypedef struct mdae_step_system:
        int nq, nu, np, nw
        int nc, dim
        int rheonomic
        int r, m
        int nquat
        const int *quat
        const double *e_n
        const double *e_t
        const double *mu
        mdae_eval_fn terms
        void *terms_ctx
        mdae_eval_fn proj
        void *proj_ctx
    ctypedef struct mdae_step_options:
        double dt, theta, gamma
        int projection
        int proj_iter
        double proj_tol
        int every
        double impact_ratio
        int nsgs_iter
        double nsgs_tol
        int lcp_friction
        mdae_interrupt_fn interrupt
        void *interrupt_ctx
    ctypedef struct mdae_step_info:
        int status
        int step
        int solver_failures
        int n_events
        int max_active
        double max_proj_residual
        double work_impact, work_contact, work_friction
        int n_contact_steps
    void mdae_step_options_default(mdae_step_options *o)
    size_t mdae_step_work_size(const mdae_step_system *s)
    size_t mdae_step_iwork_size(const mdae_step_system *s)
    int mdae_step_n_out(int nsteps, int every)
    int mdae_step_run(const mdae_step_system *s, const mdae_step_options *o, const double *p,
                      const double *w_const, const double *w_steps, double t0, int nsteps,
                      double *q, double *u, double *T_out, double *Q_out, double *U_out,
                      double *P_out, int *ev_step, int *ev_contact, double *ev_P, double *ev_x,
                      int ev_cap, double *work, int *iwork, mdae_step_info *info) nogil


cdef int _py_eval(void *ctx, const double **arg, double **res) noexcept with gil:
    """Evaluate a Python-side function object (fallback path)."""
    cdef object obj = <object>ctx
    cdef int i, j, n
    cdef double[::1] view
    try:
        args = []
        for i, n in enumerate(obj.in_sizes):
            a = np.empty(n)
            for j in range(n):
                a[j] = arg[i][j]
            args.append(a)
        outs = obj(*args)
        for i, n in enumerate(obj.out_sizes):
            view = np.ascontiguousarray(outs[i], dtype=float).ravel()
            if view.shape[0] != n:
                raise ValueError(f"output {i}: {view.shape[0]} values, expected {n}")
            for j in range(n):
                res[i][j] = view[j]
        return 0
    except BaseException as exc:       # reported by the caller
        obj.error = exc
        return 1


cdef class _Evaluator:
    """One model function for the C loop: generated C (address) or a Python fallback."""
    cdef mdae_casadi_ctx ctx
    cdef object py
    cdef object keep
    cdef public bint compiled

    def __cinit__(self):
        self.ctx.arg = NULL
        self.ctx.res = NULL
        self.ctx.iw = NULL
        self.ctx.w = NULL

    def __init__(self, address=None, sizes=None, n_in=0, n_out=0, py=None, keep=None):
        """``address``: integer address of a CasADi-generated function, ``sizes``:
        ``(sz_arg, sz_res, sz_iw, sz_w)``; or ``py``: a callable with ``in_sizes``,
        ``out_sizes`` attributes returning column-major dense outputs."""
        self.keep = keep
        if address is not None:
            self.compiled = True
            self.ctx.f = <mdae_casadi_fn><uintptr_t>address
            self.ctx.n_in = n_in
            self.ctx.n_out = n_out
            self.ctx.arg = <const double **>malloc(sizeof(double *) * max(1, sizes[0]))
            self.ctx.res = <double **>malloc(sizeof(double *) * max(1, sizes[1]))
            self.ctx.iw = <long long *>malloc(sizeof(long long) * max(1, sizes[2]))
            self.ctx.w = <double *>malloc(sizeof(double) * max(1, sizes[3]))
            if not (self.ctx.arg and self.ctx.res and self.ctx.iw and self.ctx.w):
                raise MemoryError()
        else:
            self.compiled = False
            self.py = py

    def __dealloc__(self):
        free(self.ctx.arg)
        free(self.ctx.res)
        free(self.ctx.iw)
        free(self.ctx.w)

    cdef void bind(self, mdae_eval_fn *fn, void **ctx):
        if self.compiled:
            fn[0] = mdae_casadi_eval
            ctx[0] = <void *>&self.ctx
        else:
            fn[0] = _py_eval
            ctx[0] = <void *>self.py

    def error(self):
        return None if self.compiled else getattr(self.py, "error", None)


include "_interrupt.pxi"


def _pending():
    """The exception a signal handler left pending (see :func:`_interrupted`)."""
    try:
        _raise_pending()
    except BaseException as exc:        # noqa: B036 - handed to the caller, re-raised there
        return exc


def n_out(int nsteps, int every):
    return mdae_step_n_out(nsteps, every)


def run(_Evaluator terms, _Evaluator proj, dict sizes, double[::1] e_n, double[::1] e_t,
        double[::1] mu, int[::1] quat, double[::1] p, double[::1] w_const, w_steps,
        double t0, int nsteps, double[::1] q, double[::1] u, dict opts, bint store_impulses,
        int ev_cap):
    """Run the stepping loop; returns a dict of arrays and the C info fields.

    Ctrl-C stops the loop (polled between steps): ``status`` is MDAE_INTERRUPTED,
    ``step`` the steps done, ``interrupt`` the exception the signal handler raised (the
    caller re-raises it with the rows done); otherwise ``interrupt`` is None."""
    cdef mdae_step_system s
    cdef mdae_step_options o
    cdef mdae_step_info info
    cdef int nrow, nout, status
    cdef double[::1] wsv
    cdef const double *wsp = NULL
    s.nq = sizes["nq"]; s.nu = sizes["nu"]; s.np = sizes["np"]; s.nw = sizes["nw"]
    s.nc = sizes["nc"]; s.dim = sizes["dim"]; s.r = sizes["r"]; s.m = sizes["m"]
    s.rheonomic = 1 if sizes.get("rheonomic") else 0
    s.nquat = quat.shape[0] // 4
    s.quat = &quat[0] if quat.shape[0] else NULL
    s.e_n = &e_n[0] if e_n.shape[0] else NULL
    s.e_t = &e_t[0] if e_t.shape[0] else NULL
    s.mu = &mu[0] if mu.shape[0] else NULL
    terms.bind(&s.terms, &s.terms_ctx)
    if proj is None:
        s.proj = NULL
        s.proj_ctx = NULL
    else:
        proj.bind(&s.proj, &s.proj_ctx)
    mdae_step_options_default(&o)
    o.dt = opts["dt"]; o.theta = opts["theta"]; o.gamma = opts["gamma"]
    o.projection = opts["projection"]; o.proj_iter = opts["proj_iter"]
    o.proj_tol = opts["proj_tol"]; o.every = opts["every"]
    o.impact_ratio = opts["impact_ratio"]; o.nsgs_iter = opts["nsgs_iter"]
    o.nsgs_tol = opts["nsgs_tol"]; o.lcp_friction = opts["lcp_friction"]
    o.interrupt = _interrupted
    o.interrupt_ctx = NULL
    nrow = s.nc * s.dim
    nout = mdae_step_n_out(nsteps, o.every)
    T = np.zeros(nout)
    Q = np.zeros((nout, s.nq))
    U = np.zeros((nout, s.nu))
    P = np.zeros((nout if store_impulses else 1, max(nrow, 1)))
    ev_step = np.zeros(max(ev_cap, 1), dtype=np.intc)
    ev_contact = np.zeros(max(ev_cap, 1), dtype=np.intc)
    ev_P = np.zeros(max(ev_cap, 1))
    ev_x = np.zeros((max(ev_cap, 1), 2 * (s.nq + s.nu)))
    work = np.zeros(mdae_step_work_size(&s))
    iwork = np.zeros(mdae_step_iwork_size(&s), dtype=np.intc)
    if w_steps is not None:
        wsv = np.ascontiguousarray(w_steps, dtype=float).ravel()
        if wsv.shape[0]:
            wsp = &wsv[0]
    cdef double[::1] Tv = T
    cdef double[:, ::1] Qv = Q
    cdef double[:, ::1] Uv = U
    cdef double[:, ::1] Pv = P
    cdef int[::1] esv = ev_step
    cdef int[::1] ecv = ev_contact
    cdef double[::1] epv = ev_P
    cdef double[:, ::1] exv = ev_x
    cdef double[::1] wv = work
    cdef int[::1] iwv = iwork
    cdef double dummy = 0.0
    cdef const double *pp = &p[0] if p.shape[0] else &dummy
    cdef const double *wcp = &w_const[0] if w_const.shape[0] else &dummy
    cdef double *qp = &q[0] if q.shape[0] else &dummy
    cdef double *up = &u[0] if u.shape[0] else &dummy
    cdef double *Pout = &Pv[0, 0] if store_impulses else NULL
    with nogil:
        status = mdae_step_run(&s, &o, pp, wcp, wsp, t0, nsteps, qp, up, &Tv[0], &Qv[0, 0],
                               &Uv[0, 0], Pout, &esv[0], &ecv[0], &epv[0], &exv[0, 0],
                               ev_cap, &wv[0], &iwv[0], &info)
    pending = _pending() if status == INTERRUPTED else None
    ne = min(info.n_events, ev_cap)
    return dict(status=status, status_str=mdae_status_str(status).decode(), step=info.step,
                solver_failures=info.solver_failures, n_events=info.n_events,
                max_active=info.max_active, max_proj_residual=info.max_proj_residual,
                work_impact=info.work_impact, work_contact=info.work_contact,
                work_friction=info.work_friction, n_contact_steps=info.n_contact_steps,
                t=T, q=Q, u=U, P=P if store_impulses else None,
                ev_step=ev_step[:ne].copy(), ev_contact=ev_contact[:ne].copy(),
                ev_P=ev_P[:ne].copy(), ev_x=ev_x[:ne].copy(),
                terms_error=terms.error(), proj_error=None if proj is None else proj.error(),
                interrupt=pending)
