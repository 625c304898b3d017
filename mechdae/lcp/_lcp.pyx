# cython: language_level=3
"""Thin wrapper over csrc/mdae_lcp.c: typed contiguous memoryviews (ndarrays and data
pointers in solve_one, the per-call path) in, numpy arrays out, the C call without the
GIL. Validation of shapes and dtypes is done by the caller (mechdae.lcp); finiteness and
sizes are checked again in C (MDAE_BAD_INPUT)."""
import threading

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_Occurred
from libc.stdlib cimport malloc, free

cnp.import_array()

cdef extern from "Python.h":
    # declared without an exception value: the pending KeyboardInterrupt stays set for
    # the wrapper to raise once the C solver has returned
    int _check_signals "PyErr_CheckSignals" ()
    unsigned long PyThread_get_thread_ident() nogil

cdef extern from "mdae_status.h":
    const char *mdae_status_str(int status)

cdef extern from "mdae_lcp.h":
    ctypedef struct mdae_lcp_problem:
        int n
        const double *M
        const double *q
    ctypedef int (*mdae_interrupt_fn)(void *ctx) noexcept nogil
    ctypedef struct mdae_lcp_options:
        double tol
        int max_iter
        int warm_start
        double omega
        double pivot_tol
        mdae_interrupt_fn interrupt
        void *interrupt_ctx
    ctypedef struct mdae_lcp_info:
        int status
        int iterations
        double residual
    void mdae_lcp_options_default(mdae_lcp_options *opt)
    double mdae_lcp_residual(const mdae_lcp_problem *p, const double *z, double *w) nogil
    size_t mdae_lcp_work_size(int n)
    size_t mdae_lcp_iwork_size(int n)
    int mdae_lcp_solve(int method, const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                       double *z, double *w, double *work, int *iwork,
                       mdae_lcp_info *info) nogil
    int mdae_lcp_solve_batch(int method, int nbatch, int n, const double *Ms,
                             const double *qs, const mdae_lcp_options *opt, double *zs,
                             double *ws, double *work, int *iwork, int *status,
                             int *iterations, double *residual) nogil

    int MDAE_LCP_MAX_N

MDAE_OK = 0
MDAE_BAD_INPUT = 4
MDAE_INTERRUPTED = 11
MAX_N = MDAE_LCP_MAX_N
STATUS_NAMES = tuple(mdae_status_str(i).decode("ascii") for i in range(12))
cdef tuple _STATUS_NAMES = STATUS_NAMES

DEF STACK_WORK = 1200      # doubles on the stack: enough for n <= 32
DEF STACK_IWORK = 160


include "_interrupt.pxi"


def status_str(int code):
    """Name of a status code (``mdae_status_str``)."""
    return mdae_status_str(code).decode("ascii")


def residual(const double[:, ::1] M, const double[::1] q, const double[::1] z):
    """Shared residual ``||min(z, w)||_2 / max(||q||_2, 1)`` with ``w = M z + q``.

    Returns ``(residual, w)``.
    """
    cdef mdae_lcp_problem p
    cdef int n = q.shape[0]
    cdef cnp.ndarray w = cnp.PyArray_EMPTY(1, [n], cnp.NPY_DOUBLE, 0)
    cdef double r
    p.n = n
    p.M = &M[0, 0] if n > 0 else NULL
    p.q = &q[0] if n > 0 else NULL
    with nogil:
        r = mdae_lcp_residual(&p, &z[0] if n > 0 else NULL, <double *>cnp.PyArray_DATA(w))
    return r, w


def solve_one(cnp.ndarray M, cnp.ndarray q, int method, double tol, int max_iter,
              double omega, z0, result_cls, method_name):
    """Solve one LCP; returns ``result_cls(z, w, status, iterations, residual, success,
    method_name)`` (:class:`mechdae.lcp.LCPResult`), or None for MDAE_BAD_INPUT (the caller
    words the error).

    ``M`` (n, n) and ``q`` (n,) float64 C-contiguous with matching sizes (checked by the
    caller; dtype, layout and sizes are checked again here, cheaply); ``z0`` None or a
    float64 (n,) starting point (copied).
    """
    cdef cnp.npy_intp n
    cdef mdae_lcp_problem p
    cdef mdae_lcp_options opt
    cdef mdae_lcp_info info
    cdef double stack_work[STACK_WORK]
    cdef int stack_iwork[STACK_IWORK]
    cdef double *work = stack_work
    cdef int *iwork = stack_iwork
    cdef size_t nw, niw
    cdef cnp.ndarray z, w
    cdef cnp.npy_intp dims[1]
    if (cnp.PyArray_TYPE(M) != cnp.NPY_DOUBLE or cnp.PyArray_TYPE(q) != cnp.NPY_DOUBLE
            or not cnp.PyArray_IS_C_CONTIGUOUS(M) or not cnp.PyArray_IS_C_CONTIGUOUS(q)
            or cnp.PyArray_NDIM(M) != 2 or cnp.PyArray_NDIM(q) != 1
            or M.shape[0] != q.shape[0] or M.shape[1] != q.shape[0]):
        raise ValueError("solve_one: M (n, n) and q (n,) must be float64 C-contiguous")
    n = q.shape[0]
    if n > MDAE_LCP_MAX_N:
        raise ValueError(f"M: n = {n} exceeds the LCP size limit n <= {MDAE_LCP_MAX_N}")
    dims[0] = n
    nw = mdae_lcp_work_size(<int>n)
    niw = mdae_lcp_iwork_size(<int>n)
    w = cnp.PyArray_EMPTY(1, dims, cnp.NPY_DOUBLE, 0)
    mdae_lcp_options_default(&opt)
    opt.tol = tol
    opt.max_iter = max_iter
    opt.omega = omega
    opt.interrupt = _interrupted
    if z0 is None:
        z = cnp.PyArray_EMPTY(1, dims, cnp.NPY_DOUBLE, 0)
    else:
        z = np.array(z0, dtype=np.float64, copy=True, order="C")
        if z.ndim != 1 or z.shape[0] != n:
            raise ValueError("solve_one: z0 must have shape (n,)")
        opt.warm_start = 1
    p.n = <int>n
    p.M = <const double *>cnp.PyArray_DATA(M) if n > 0 else NULL
    p.q = <const double *>cnp.PyArray_DATA(q) if n > 0 else NULL
    if nw > STACK_WORK:
        work = <double *>malloc(nw * sizeof(double))
    if niw > STACK_IWORK:
        iwork = <int *>malloc(niw * sizeof(int))
    if work == NULL or iwork == NULL:
        if work != stack_work: free(work)
        if iwork != stack_iwork: free(iwork)
        raise MemoryError(f"LCP workspace for n={n}: {(nw * 8 + niw * 4) / 2**30:.3g} GiB "
                          "could not be allocated")
    with nogil:
        mdae_lcp_solve(method, &p, &opt, <double *>cnp.PyArray_DATA(z),
                       <double *>cnp.PyArray_DATA(w), work, iwork, &info)
    if work != stack_work:
        free(work)
    if iwork != stack_iwork:
        free(iwork)
    if info.status == 11:           # MDAE_INTERRUPTED (Ctrl-C)
        _raise_pending()
    if info.status == 4:            # MDAE_BAD_INPUT
        return None
    return result_cls(z, w, _STATUS_NAMES[info.status], info.iterations, info.residual,
                      info.status == 0, method_name)


def solve_many(const double[:, :, ::1] Ms, const double[:, ::1] qs, int method, double tol,
               int max_iter, double omega, z0):
    """Solve a stack of LCPs in one C loop without the GIL.

    Returns ``(z, w, status_codes, iterations, residual, all_inputs_ok)``.
    """
    cdef int nb = qs.shape[0]
    cdef int n = qs.shape[1]
    cdef mdae_lcp_options opt
    cdef size_t nw, niw
    if qs.shape[1] > MDAE_LCP_MAX_N:
        raise ValueError(f"Ms: n = {qs.shape[1]} exceeds the LCP size limit "
                         f"n <= {MDAE_LCP_MAX_N}")
    nw = mdae_lcp_work_size(n)
    niw = mdae_lcp_iwork_size(n)
    cdef double *work
    cdef int *iwork
    cdef int ret
    cdef cnp.ndarray z
    cdef cnp.ndarray w = cnp.PyArray_EMPTY(2, [nb, n], cnp.NPY_DOUBLE, 0)
    cdef cnp.ndarray st = cnp.PyArray_EMPTY(1, [nb], cnp.NPY_INT, 0)
    cdef cnp.ndarray it = cnp.PyArray_EMPTY(1, [nb], cnp.NPY_INT, 0)
    cdef cnp.ndarray res = cnp.PyArray_EMPTY(1, [nb], cnp.NPY_DOUBLE, 0)
    mdae_lcp_options_default(&opt)
    opt.tol = tol
    opt.max_iter = max_iter
    opt.omega = omega
    opt.interrupt = _interrupted
    if z0 is None:
        z = cnp.PyArray_EMPTY(2, [nb, n], cnp.NPY_DOUBLE, 0)
    else:
        z = np.array(z0, dtype=np.float64, copy=True, order="C")
        opt.warm_start = 1
    work = <double *>malloc(nw * sizeof(double))
    iwork = <int *>malloc(niw * sizeof(int))
    if work == NULL or iwork == NULL:
        free(work)
        free(iwork)
        raise MemoryError(f"LCP workspace for n={n}: {(nw * 8 + niw * 4) / 2**30:.3g} GiB "
                          "could not be allocated")
    with nogil:
        ret = mdae_lcp_solve_batch(method, nb, n,
                                   &Ms[0, 0, 0] if nb > 0 and n > 0 else NULL,
                                   &qs[0, 0] if nb > 0 and n > 0 else NULL, &opt,
                                   <double *>cnp.PyArray_DATA(z),
                                   <double *>cnp.PyArray_DATA(w), work, iwork,
                                   <int *>cnp.PyArray_DATA(st), <int *>cnp.PyArray_DATA(it),
                                   <double *>cnp.PyArray_DATA(res))
    free(work)
    free(iwork)
    if ret == 11:                   # MDAE_INTERRUPTED (Ctrl-C)
        _raise_pending()
    return z, w, st, it, res, ret == MDAE_OK
