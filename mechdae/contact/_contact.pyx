# cython: language_level=3
"""Thin wrapper of csrc/mdae_contact.{h,c}: typed memoryviews in, numpy arrays out.

No logic here beyond allocation of outputs and workspace; input checks and status codes
come from C and are interpreted by mechdae.contact.kernels.
"""
import threading

import numpy as np
cimport numpy as cnp
from cpython.exc cimport PyErr_Occurred
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy

cnp.import_array()

cdef extern from "Python.h":
    # no exception value: the pending KeyboardInterrupt stays set for the wrapper
    int _check_signals "PyErr_CheckSignals" ()
    unsigned long PyThread_get_thread_ident() nogil

cdef extern from "mdae_status.h":
    const char *mdae_status_str(int status)

cdef extern from "mdae_slide.h":
    int MDAE_SLIDE_MAX_BOXES
    int MDAE_SLIDE_KMAX

cdef extern from "mdae_contact.h":
    int MDAE_CONTACT_ENUM_MAX
    int MDAE_CONTACT_MAX_FACETS
    int MDAE_CONTACT_MAX_SOLUTIONS
    ctypedef int (*mdae_interrupt_fn)(void *ctx) noexcept nogil
    ctypedef struct mdae_impact_problem:
        int nc
        int dim
        const double *D
        const double *v_minus
        const double *e_n
        const double *e_t
        const double *mu
    ctypedef struct mdae_impact_options:
        int method
        int facets
        int max_solutions
        int max_boxes
        int max_iter
        double tol
        double energy_tol
        int allow_energy_gain
        int check_input
        mdae_interrupt_fn interrupt
        void *interrupt_ctx
    ctypedef struct mdae_impact_info:
        int status
        int nsol
        int iterations
        double residual
        int bad_input
        int bad_index
        int incomplete
    ctypedef struct mdae_fc_problem:
        int dim
        int nc
        const double *W
        const int *indptr
        const int *indices
        const double *data
        const double *q
        const double *mu
    ctypedef struct mdae_fc_options:
        double tol
        int max_iter
        int warm_start
        int error_every
        mdae_interrupt_fn interrupt
        void *interrupt_ctx
    ctypedef struct mdae_fc_info:
        int status
        int iterations
        double error
        int bad_input
        int bad_index

    void mdae_impact_options_default(mdae_impact_options *opt)
    size_t mdae_contact_work_size(int nc, int dim, int facets) nogil
    size_t mdae_contact_iwork_size(int nc, int dim, int facets) nogil
    int mdae_impact_solve(const mdae_impact_problem *p, const mdae_impact_options *opt,
                          double *P, double *v_plus, int *modes, double *dT,
                          double *work, int *iwork, mdae_impact_info *info) nogil
    int mdae_impact_batch(int nprob, int nc, int dim, const double *D, const double *v_minus,
                          const double *e_n, const double *e_t, const double *mu,
                          const mdae_impact_options *opt, double *P, double *v_plus,
                          int *modes, double *dT, int *status, int *nsol, int *incomplete,
                          double *work, int *iwork, mdae_impact_info *info) nogil
    void mdae_impact_apply(int nprob, int n, int nu, const double *Bt, const double *P,
                           const double *u, const double *M, double *u_plus,
                           double *T_plus) nogil
    int mdae_painleve_solve(int nc, int dim, const double *D, const double *b,
                            const double *v_t, const double *mu, double slide_tol,
                            const mdae_impact_options *opt, double *lam, double *acc,
                            int *modes, double *work, int *iwork, mdae_impact_info *info) nogil
    void mdae_fc_options_default(mdae_fc_options *opt)
    size_t mdae_fc_work_size(int nc, int dim)
    double mdae_fc_error(const mdae_fc_problem *p, const double *r, double *u) nogil
    int mdae_fc_nsgs(const mdae_fc_problem *p, const mdae_fc_options *opt, double *r,
                     double *u, double *work, mdae_fc_info *info) nogil

ENUM_MAX = MDAE_CONTACT_ENUM_MAX
MAX_FACETS = MDAE_CONTACT_MAX_FACETS
MAX_SOLUTIONS = MDAE_CONTACT_MAX_SOLUTIONS
MAX_BOXES = MDAE_SLIDE_MAX_BOXES
SLIDE_KMAX = MDAE_SLIDE_KMAX
include "_interrupt.pxi"


def status_str(int status):
    return mdae_status_str(status).decode()


cdef double _dummy = 0.0
cdef int _idummy = 0

# Workspace on the C stack for small problems (no malloc per call): enough for the
# enumeration, the LCP and NSGS of up to ~8 planar contacts.
DEF STACK_WORK = 4096
DEF STACK_IWORK = 512


def impact(cnp.ndarray D, cnp.ndarray v_minus, cnp.ndarray e_n, cnp.ndarray e_t,
           cnp.ndarray mu, int dim, int method, int facets, int max_solutions, int max_iter,
           double tol, double energy_tol, bint allow_energy_gain, int max_boxes):
    """Arrays must be float64 and C-contiguous (checked by the caller, kernels.impact).
    Returns (status, nsol, iterations, residual, bad_input, bad_index, P, v_plus, modes,
    dT, incomplete) with P, v_plus of shape (cap, n), modes (cap, nc), dT (cap,)."""
    cdef int n = <int>D.shape[0]
    cdef int nc = <int>e_n.shape[0]
    cdef int cap = max_solutions if method == 0 else 1
    cdef mdae_impact_problem p
    cdef mdae_impact_options o
    cdef mdae_impact_info info
    cdef cnp.npy_intp dims[2]
    cdef size_t ws, iws
    cdef double *work
    cdef int *iwork
    if (D.descr.type_num != cnp.NPY_DOUBLE or not cnp.PyArray_IS_C_CONTIGUOUS(D)
            or v_minus.shape[0] != n or e_t.shape[0] != nc or mu.shape[0] != nc
            or D.ndim != 2 or D.shape[1] != n):
        raise ValueError("_contact.impact: arrays must be float64, C-contiguous, of matching sizes")
    for a in (v_minus, e_n, e_t, mu):
        if (<cnp.ndarray>a).descr.type_num != cnp.NPY_DOUBLE or not cnp.PyArray_IS_C_CONTIGUOUS(a):
            raise ValueError("_contact.impact: arrays must be float64 and C-contiguous")
    dims[0] = cap; dims[1] = n
    P = cnp.PyArray_EMPTY(2, dims, cnp.NPY_DOUBLE, 0)
    vp = cnp.PyArray_EMPTY(2, dims, cnp.NPY_DOUBLE, 0)
    dims[1] = nc
    modes = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT, 0)
    dT = cnp.PyArray_EMPTY(1, dims, cnp.NPY_DOUBLE, 0)
    cdef double swork[STACK_WORK]
    cdef int siwork[STACK_IWORK]
    cdef bint heap = False
    ws = mdae_contact_work_size(nc, dim, facets)
    iws = mdae_contact_iwork_size(nc, dim, facets)
    if ws <= STACK_WORK and iws <= STACK_IWORK:
        work = swork
        iwork = siwork
    else:
        heap = True
        work = <double *>malloc(ws * sizeof(double))
        iwork = <int *>malloc(iws * sizeof(int))
        if work == NULL or iwork == NULL:
            free(work); free(iwork)
            raise MemoryError(f"impact workspace for {nc} contacts: "
                              f"{(ws * 8 + iws * 4) / 2**30:.3g} GiB could not be allocated")
    p.nc = nc; p.dim = dim
    p.D = <const double *>cnp.PyArray_DATA(D)
    p.v_minus = <const double *>cnp.PyArray_DATA(v_minus)
    p.e_n = <const double *>cnp.PyArray_DATA(e_n)
    p.e_t = <const double *>cnp.PyArray_DATA(e_t)
    p.mu = <const double *>cnp.PyArray_DATA(mu)
    mdae_impact_options_default(&o)
    o.method = method; o.facets = facets; o.max_solutions = cap; o.max_iter = max_iter
    o.tol = tol; o.energy_tol = energy_tol; o.allow_energy_gain = allow_energy_gain
    o.max_boxes = max_boxes
    o.interrupt = _interrupted
    cdef double *Pp = <double *>cnp.PyArray_DATA(P)
    cdef double *vpp = <double *>cnp.PyArray_DATA(vp)
    cdef int *mp = <int *>cnp.PyArray_DATA(modes)
    cdef double *dTp = <double *>cnp.PyArray_DATA(dT)
    with nogil:
        mdae_impact_solve(&p, &o, Pp, vpp, mp, dTp, work, iwork, &info)
    if heap:
        free(work); free(iwork)
    if info.status == INTERRUPTED:
        _raise_pending()
    return (info.status, info.nsol, info.iterations, info.residual, info.bad_input,
            info.bad_index, P, vp, modes, dT, info.incomplete)


cdef int _batch_chunk(int k0, int k1, int nc, int dim, const double *D,
                      const double *v_minus, const double *e_n, const double *e_t,
                      const double *mu, const mdae_impact_options *o, double *P, double *vp,
                      int *modes, double *dT, int *st, int *ns, int *inc, int facets,
                      mdae_impact_info *info) noexcept nogil:
    """Problems k0 <= k < k1 with a workspace of their own (one call per thread)."""
    cdef int n = nc * dim
    cdef size_t nn = <size_t>n * n
    cdef double *work = <double *>malloc(mdae_contact_work_size(nc, dim, facets) * sizeof(double))
    cdef int *iwork = <int *>malloc(mdae_contact_iwork_size(nc, dim, facets) * sizeof(int))
    cdef int r
    if work == NULL or iwork == NULL:
        free(work); free(iwork)
        return -1
    r = mdae_impact_batch(k1 - k0, nc, dim, D + k0 * nn, v_minus + <size_t>k0 * n,
                          e_n + <size_t>k0 * nc, e_t + <size_t>k0 * nc, mu + <size_t>k0 * nc,
                          o, P + <size_t>k0 * n, vp + <size_t>k0 * n, modes + <size_t>k0 * nc,
                          dT + k0, st + k0, ns + k0, inc + k0, work, iwork, info)
    free(work); free(iwork)
    if info.bad_index >= 0:
        info.bad_index += k0
    return r


def impact_batch(const double[:, :, ::1] D, const double[:, ::1] v_minus,
                 const double[:, ::1] e_n, const double[:, ::1] e_t, const double[:, ::1] mu,
                 int dim, int method, int facets, int max_iter, double tol, double energy_tol,
                 bint allow_energy_gain, int threads=1, int max_boxes=MDAE_SLIDE_MAX_BOXES):
    """N problems in one C call per thread (``threads`` > 1: contiguous chunks solved
    in parallel, the GIL released). Returns ``(status, bad_input, bad_index, P, v_plus,
    modes, dT, st, ns, inc)`` with ``inc`` the per-problem count of incomplete direction
    searches."""
    cdef int nprob = D.shape[0]
    cdef int n = D.shape[1]
    cdef int nc = e_n.shape[1]
    cdef mdae_impact_options o
    cdef mdae_impact_info info, info2
    cdef int k, r1, r2 = 0, half
    cdef int stop = 0
    P = np.empty((nprob, n))
    vp = np.empty((nprob, n))
    modes = np.empty((nprob, nc), dtype=np.intc)
    dT = np.empty(nprob)
    st = np.empty(nprob, dtype=np.intc)
    ns = np.empty(nprob, dtype=np.intc)
    inc = np.zeros(nprob, dtype=np.intc)
    cdef double[:, ::1] Pv = P
    cdef double[:, ::1] vpv = vp
    cdef int[:, ::1] mv = modes
    cdef double[::1] dTv = dT
    cdef int[::1] stv = st
    cdef int[::1] nsv = ns
    cdef int[::1] incv = inc
    mdae_impact_options_default(&o)
    o.method = method; o.facets = facets; o.max_solutions = 1; o.max_iter = max_iter
    o.tol = tol; o.energy_tol = energy_tol; o.allow_energy_gain = allow_energy_gain
    o.max_boxes = max_boxes
    o.interrupt = _interrupted
    o.interrupt_ctx = &stop
    if nprob == 0 or n == 0:     # no contact: nothing to solve, every problem unique
        dT[:] = 0.0
        st[:] = 0
        ns[:] = 1
        return 0, 0, -1, P, vp, modes, dT, st, ns, inc
    cdef const double *Dp = &D[0, 0, 0]
    cdef const double *vmp = &v_minus[0, 0]
    cdef const double *enp = &e_n[0, 0]
    cdef const double *etp = &e_t[0, 0]
    cdef const double *mup = &mu[0, 0]
    cdef double *Pp = &Pv[0, 0]
    cdef double *vpp = &vpv[0, 0]
    cdef int *mp = &mv[0, 0]
    cdef double *dTp = &dTv[0]
    cdef int *stp = &stv[0]
    cdef int *nsp = &nsv[0]
    cdef int *incp = &incv[0]
    half = nprob if threads <= 1 or nprob < 64 else nprob // 2
    info2.bad_index = -1
    info2.status = 0
    if half < nprob:
        import threading
        res = []

        def second():
            cdef int r
            with nogil:
                r = _batch_chunk(half, nprob, nc, dim, Dp, vmp, enp, etp, mup, &o, Pp, vpp,
                                 mp, dTp, stp, nsp, incp, facets, &info2)
            res.append(r)
        th = threading.Thread(target=second)
        th.start()
        with nogil:
            r1 = _batch_chunk(0, half, nc, dim, Dp, vmp, enp, etp, mup, &o, Pp, vpp, mp, dTp,
                              stp, nsp, incp, facets, &info)
        th.join()
        r2 = res[0]
    else:
        with nogil:
            r1 = _batch_chunk(0, nprob, nc, dim, Dp, vmp, enp, etp, mup, &o, Pp, vpp, mp, dTp,
                              stp, nsp, incp, facets, &info)
    if r1 == -1 or r2 == -1:
        raise MemoryError(f"impact_batch workspace for {nc} contacts could not be allocated")
    if r1 == INTERRUPTED or r2 == INTERRUPTED:
        _raise_pending()
    if r1 == 0 and r2 != 0:      # the first chunk's status wins, as in one serial call
        info = info2
    return info.status, info.bad_input, info.bad_index, P, vp, modes, dT, st, ns, inc


def impact_apply(const double[:, :, ::1] Bt, const double[:, ::1] P, const double[:, ::1] u,
                 const double[:, :, ::1] M):
    """``u+ = u + B P`` and ``T+ = u+^T M u+ / 2`` for N problems (Bt: (N, n, nu))."""
    cdef int nprob = u.shape[0]
    cdef int nu = u.shape[1]
    cdef int n = P.shape[1]
    up = np.empty((nprob, nu))
    T = np.empty(nprob)
    cdef double[:, ::1] upv = up
    cdef double[::1] Tv = T
    if Bt.shape[0] != nprob or P.shape[0] != nprob or M.shape[0] != nprob or \
            Bt.shape[1] != n or Bt.shape[2] != nu or M.shape[1] != nu or M.shape[2] != nu:
        raise ValueError("impact_apply: shapes do not match")
    if nprob == 0 or nu == 0:
        T[:] = 0.0
        return up, T
    with nogil:
        mdae_impact_apply(nprob, n, nu, &Bt[0, 0, 0] if n > 0 else &_dummy,
                          &P[0, 0] if n > 0 else &_dummy, &u[0, 0], &M[0, 0, 0], &upv[0, 0],
                          &Tv[0])
    return up, T


def painleve(const double[:, ::1] D, const double[::1] b, const double[::1] v_t,
             const double[::1] mu, int dim, double slide_tol, int max_solutions, double tol,
             int max_boxes):
    cdef int n = D.shape[0]
    cdef int nc = mu.shape[0]
    cdef mdae_impact_options o
    cdef mdae_impact_info info
    lam = np.empty((max_solutions, n))
    acc = np.empty((max_solutions, n))
    modes = np.empty((max_solutions, nc), dtype=np.intc)
    work = np.empty(mdae_contact_work_size(nc, dim, 3) + 2 * nc + 16)
    iwork = np.empty(mdae_contact_iwork_size(nc, dim, 3) + nc + 16, dtype=np.intc)
    cdef double[:, ::1] lv = lam
    cdef double[:, ::1] av = acc
    cdef int[:, ::1] mv = modes
    cdef double[::1] wv = work
    cdef int[::1] iwv = iwork
    mdae_impact_options_default(&o)
    o.max_solutions = max_solutions; o.tol = tol; o.max_boxes = max_boxes
    o.interrupt = _interrupted
    with nogil:
        mdae_painleve_solve(nc, dim, &D[0, 0] if n > 0 else &_dummy, &b[0] if n > 0 else &_dummy,
                            &v_t[0] if nc > 0 else &_dummy, &mu[0] if nc > 0 else &_dummy,
                            slide_tol, &o, &lv[0, 0] if n > 0 else &_dummy,
                            &av[0, 0] if n > 0 else &_dummy, &mv[0, 0] if nc > 0 else &_idummy,
                            &wv[0], &iwv[0], &info)
    if info.status == INTERRUPTED:
        _raise_pending()
    return info.status, info.nsol, info.bad_input, info.bad_index, lam, acc, modes, info.incomplete


def fc_nsgs(int dim, int nc, W, const double[::1] q, const double[::1] mu, double tol,
            int max_iter, r0, int error_every):
    """W: dense (n, n) C-contiguous float64 array or a tuple (indptr, indices, data) (CSR,
    int32 indices). r0: None or an initial guess. Returns (status, iterations, error,
    bad_input, bad_index, r, u)."""
    cdef int n = dim * nc
    cdef mdae_fc_problem p
    cdef mdae_fc_options o
    cdef mdae_fc_info info
    cdef const double[:, ::1] Wd
    cdef const int[::1] ip
    cdef const int[::1] ix
    cdef const double[::1] dx
    r = np.zeros(n) if r0 is None else np.array(r0, dtype=np.float64, copy=True)
    u = np.empty(n)
    work = np.empty(mdae_fc_work_size(nc, dim) + 1)
    cdef double[::1] rv = r
    cdef double[::1] uv = u
    cdef double[::1] wv = work
    p.dim = dim; p.nc = nc
    p.q = &q[0] if n > 0 else &_dummy
    p.mu = &mu[0] if nc > 0 else &_dummy
    if isinstance(W, tuple):
        ip = W[0]; ix = W[1]; dx = W[2]
        p.W = NULL; p.indptr = &ip[0]
        p.indices = &ix[0] if ix.shape[0] > 0 else &_idummy
        p.data = &dx[0] if dx.shape[0] > 0 else &_dummy
    else:
        Wd = W
        p.W = &Wd[0, 0] if n > 0 else &_dummy
        p.indptr = NULL; p.indices = NULL; p.data = NULL
    mdae_fc_options_default(&o)
    o.tol = tol; o.max_iter = max_iter; o.warm_start = r0 is not None
    o.error_every = error_every
    o.interrupt = _interrupted
    with nogil:
        mdae_fc_nsgs(&p, &o, &rv[0] if n > 0 else &_dummy, &uv[0] if n > 0 else &_dummy,
                     &wv[0], &info)
    if info.status == INTERRUPTED:
        _raise_pending()
    return info.status, info.iterations, info.error, info.bad_input, info.bad_index, r, u


def fc_error(int dim, int nc, W, const double[::1] q, const double[::1] mu, const double[::1] r):
    cdef int n = dim * nc
    cdef mdae_fc_problem p
    cdef const double[:, ::1] Wd
    cdef const int[::1] ip
    cdef const int[::1] ix
    cdef const double[::1] dx
    u = np.empty(n)
    cdef double[::1] uv = u
    cdef double err
    if n == 0:
        return 0.0, u
    p.dim = dim; p.nc = nc; p.q = &q[0]; p.mu = &mu[0]
    if isinstance(W, tuple):
        ip = W[0]; ix = W[1]; dx = W[2]
        p.W = NULL; p.indptr = &ip[0]
        p.indices = &ix[0] if ix.shape[0] > 0 else &_idummy
        p.data = &dx[0] if dx.shape[0] > 0 else &_dummy
    else:
        Wd = W
        p.W = &Wd[0, 0]
        p.indptr = NULL; p.indices = NULL; p.data = NULL
    with nogil:
        err = mdae_fc_error(&p, &r[0], &uv[0])
    return err, u


_MODE_NAMES = ("separate", "stick", "slide")


cdef class BoundImpact:
    """Enumeration solver bound to caller-owned arrays (the System fast path).

    The arrays are given once; each :meth:`solve_result` reads their current contents (filled by
    a CasADi buffer evaluation), solves the impact problem (first solution, enumeration)
    with a workspace allocated once, and applies ``u+ = u + B P``,
    ``T+ = u+^T M u+ / 2``. Not reentrant: one object per thread.

    Parameters (float64, C-contiguous, kept alive by the object)
    ----------
    D : (n, n)    v_minus : (n,)    e_n, e_t, mu : (nc,)
    Bt : (n, nu)  transposed speed jump per unit impulse (``Delta u = Bt^T P``)
    M : (nu, nu)  u : (nu,)
    """
    cdef object _keep
    cdef double *D
    cdef double *vm
    cdef double *en
    cdef double *et
    cdef double *mu
    cdef double *Bt
    cdef double *M
    cdef double *u
    cdef int n, nc, nu, dim
    cdef double *work
    cdef int *iwork
    cdef object _keep2
    cdef double *T
    cdef double *piv
    cdef double *q
    cdef int nq

    def __cinit__(self, cnp.ndarray D, cnp.ndarray v_minus, cnp.ndarray e_n,
                  cnp.ndarray e_t, cnp.ndarray mu, cnp.ndarray Bt, cnp.ndarray M,
                  cnp.ndarray u, int dim):
        cdef cnp.ndarray a
        self.work = NULL
        self.iwork = NULL
        self.T = NULL
        self.piv = NULL
        self.q = NULL
        self.nq = 0
        for a in (D, v_minus, e_n, e_t, mu, Bt, M, u):
            if a.descr.type_num != cnp.NPY_DOUBLE or not cnp.PyArray_IS_C_CONTIGUOUS(a):
                raise ValueError("BoundImpact: arrays must be float64 and C-contiguous")
        self.n = <int>v_minus.shape[0]
        self.nc = <int>e_n.shape[0]
        self.nu = <int>u.shape[0]
        self.dim = dim
        if (D.size != self.n * self.n or e_t.shape[0] != self.nc or mu.shape[0] != self.nc
                or self.n != self.nc * dim or Bt.size != self.n * self.nu
                or M.size != self.nu * self.nu or self.nc > MDAE_CONTACT_ENUM_MAX
                or self.nc > 16):
            raise ValueError("BoundImpact: sizes do not match")
        self._keep = (D, v_minus, e_n, e_t, mu, Bt, M, u)
        self.D = <double *>cnp.PyArray_DATA(D)
        self.vm = <double *>cnp.PyArray_DATA(v_minus)
        self.en = <double *>cnp.PyArray_DATA(e_n)
        self.et = <double *>cnp.PyArray_DATA(e_t)
        self.mu = <double *>cnp.PyArray_DATA(mu)
        self.Bt = <double *>cnp.PyArray_DATA(Bt)
        self.M = <double *>cnp.PyArray_DATA(M)
        self.u = <double *>cnp.PyArray_DATA(u)
        self.work = <double *>malloc(mdae_contact_work_size(self.nc, dim, 8) * sizeof(double))
        self.iwork = <int *>malloc(mdae_contact_iwork_size(self.nc, dim, 8) * sizeof(int))
        if self.work == NULL or self.iwork == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.work)
        free(self.iwork)

    def bind(self, cnp.ndarray T, cnp.ndarray piv, cnp.ndarray q):
        """Bind the kinetic energy ``T`` (1,), the LDL pivot ratio ``piv`` (1,) and the
        coordinates ``q`` (nq,) (float64, C-contiguous) read by :meth:`solve_result`."""
        cdef cnp.ndarray a
        for a in (T, piv, q):
            if a.descr.type_num != cnp.NPY_DOUBLE or not cnp.PyArray_IS_C_CONTIGUOUS(a):
                raise ValueError("BoundImpact.bind: arrays must be float64 and C-contiguous")
        if T.size < 1 or piv.size < 1:
            raise ValueError("BoundImpact.bind: sizes do not match")
        self._keep2 = (T, piv, q)
        self.T = <double *>cnp.PyArray_DATA(T)
        self.piv = <double *>cnp.PyArray_DATA(piv)
        self.q = <double *>cnp.PyArray_DATA(q)
        self.nq = <int>q.size

    def solve_result(self, cls, double tol, bint rheonomic, double piv_tol, lazy_head,
                     lazy_tail, int max_boxes=MDAE_SLIDE_MAX_BOXES):
        """The whole fast path after the CasADi evaluation, in one call: ``None`` unless
        the problem has a usable first solution (pivot ratio of M above ``piv_tol``, status
        unique or ambiguous from a complete search, no kinetic energy gain over the bound ``T`` beyond
        ``1e-9 T + 1e-14``; no energy check when ``rheonomic``), otherwise a ``cls``
        (:class:`mechdae.contact.assembly.ImpactResult`) with ``v_plus_array``,
        ``energy_before``, ``energy_after``, ``status`` and ``active`` set, and
        ``_lazy = lazy_head + (raw, mode_key) + lazy_tail``: ``raw`` one fresh array
        ``[P (n), v_plus (n), delta_u (nu), q (nq), u- (nu)]``, ``mode_key`` the modes in
        base 3 (see :func:`mode_names`). ``max_boxes``: the box budget of the searches of
        sliding directions in space."""
        cdef mdae_impact_problem p
        cdef mdae_impact_options o
        cdef mdae_impact_info info
        cdef cnp.npy_intp dims[1]
        cdef int modes[16]
        cdef double dT = 0.0, s, T = 0.0, T0
        cdef int i, j, n = self.n, nu = self.nu, nq = self.nq
        cdef long key = 0
        if self.T == NULL:
            raise RuntimeError("BoundImpact.solve_result: call bind() first")
        if not self.piv[0] > piv_tol:
            return None
        T0 = self.T[0]
        dims[0] = 2 * n + 2 * nu + nq
        raw = cnp.PyArray_EMPTY(1, dims, cnp.NPY_DOUBLE, 0)
        dims[0] = nu
        up = cnp.PyArray_EMPTY(1, dims, cnp.NPY_DOUBLE, 0)
        cdef double *Pp = <double *>cnp.PyArray_DATA(raw)
        cdef double *vpp = Pp + n
        cdef double *dup = vpp + n
        cdef double *qp = dup + nu
        cdef double *ump = qp + nq
        cdef double *upp = <double *>cnp.PyArray_DATA(up)
        p.nc = self.nc; p.dim = self.dim; p.D = self.D; p.v_minus = self.vm
        p.e_n = self.en; p.e_t = self.et; p.mu = self.mu
        mdae_impact_options_default(&o)
        o.max_solutions = 1; o.tol = tol; o.energy_tol = tol
        o.allow_energy_gain = False
        o.max_boxes = max_boxes
        with nogil:
            mdae_impact_solve(&p, &o, Pp, vpp, modes, &dT, self.work, self.iwork, &info)
            for i in range(nu):
                s = 0.0
                for j in range(n):
                    s = s + self.Bt[j * nu + i] * Pp[j]
                dup[i] = s
                upp[i] = self.u[i] + s
            for i in range(nu):
                s = 0.0
                for j in range(nu):
                    s = s + self.M[i * nu + j] * upp[j]
                T = T + upp[i] * s
        T = 0.5 * T
        if (info.status != 0 and info.status != 7) or info.incomplete:
            return None       # (an incomplete search: the general path says so)
        if not rheonomic and T - T0 > 1e-9 * (T0 if T0 > 1e-300 else 1e-300) + 1e-14:
            return None
        memcpy(qp, self.q, nq * sizeof(double))
        memcpy(ump, self.u, nu * sizeof(double))
        if info.nsol > 0:
            for i in range(self.nc - 1, -1, -1):
                key = key * 3 + modes[i]
        else:
            key = -1
        r = _object_new(cls)
        r.v_plus_array = up
        r.energy_before = T0
        r.energy_after = T
        r.status = "unique" if info.nsol == 1 else "ambiguous"
        r.active = list(lazy_head[1])
        r._v_plus = r._impulses = r._modes = r._cv = r._solutions = r._problem = None
        r._delta_u = None
        r._lazy = lazy_head + (raw, key) + lazy_tail
        return r


cdef inline bint _f64_vec(cnp.ndarray a, Py_ssize_t n):
    return (a.descr.type_num == cnp.NPY_DOUBLE and cnp.PyArray_IS_C_CONTIGUOUS(a)
            and a.ndim == 1 and a.shape[0] == n)


cdef bint _load_dict(double *buf, dict d, dict index):
    """``buf[index[k]] = d[k]`` for every item; False (buf partly written) when a key is
    not in ``index`` or a value is not a float (the general path then decides)."""
    cdef object k, val, i
    for k, val in d.items():
        i = index.get(k)
        if i is None or not isinstance(val, float):
            return False
        buf[<Py_ssize_t>i] = <double>val
    return True


def load_state(cnp.ndarray q_buf, q, cnp.ndarray u_buf, u, dict q_index=None,
               dict u_index=None, cnp.ndarray q_default=None, cnp.ndarray u_default=None):
    """Copy ``q``, ``u`` into the float64 buffers; True when done, False (buffers partly
    written) when the general path must convert them.

    Arrays: float64 C-contiguous of the buffers' sizes. Dicts of floats by name (with
    ``q_index``, ``u_index``: name -> position, speeds also by coordinate name, and the
    defaults ``q_default``, ``u_default`` for the names left out): any other key or value
    type gives False."""
    cdef Py_ssize_t nq = q_buf.shape[0], nu = u_buf.shape[0]
    if not (_f64_vec(q_buf, nq) and _f64_vec(u_buf, nu)):
        return False
    if type(q) is np.ndarray and type(u) is np.ndarray:
        if not (_f64_vec(<cnp.ndarray>q, nq) and _f64_vec(<cnp.ndarray>u, nu)):
            return False
        memcpy(cnp.PyArray_DATA(q_buf), cnp.PyArray_DATA(<cnp.ndarray>q), nq * sizeof(double))
        memcpy(cnp.PyArray_DATA(u_buf), cnp.PyArray_DATA(<cnp.ndarray>u), nu * sizeof(double))
        return True
    if (type(q) is not dict or type(u) is not dict or q_index is None or u_index is None
            or q_default is None or u_default is None or not _f64_vec(q_default, nq)
            or not _f64_vec(u_default, nu)):
        return False
    memcpy(cnp.PyArray_DATA(q_buf), cnp.PyArray_DATA(q_default), nq * sizeof(double))
    memcpy(cnp.PyArray_DATA(u_buf), cnp.PyArray_DATA(u_default), nu * sizeof(double))
    return (_load_dict(<double *>cnp.PyArray_DATA(q_buf), <dict>q, q_index)
            and _load_dict(<double *>cnp.PyArray_DATA(u_buf), <dict>u, u_index))


def load_params(cnp.ndarray p_buf, dict params, dict index, cnp.ndarray default):
    """``p_buf = default`` with the entries of ``params`` (floats by name) written in;
    False (``p_buf`` partly written) for an unknown name, a value that is not a float or a
    NaN (the general path then raises the error that names it)."""
    cdef Py_ssize_t n = p_buf.shape[0]
    cdef object k, val, i
    cdef double x
    cdef double *b
    if not (_f64_vec(p_buf, n) and _f64_vec(default, n)):
        return False
    b = <double *>cnp.PyArray_DATA(p_buf)
    memcpy(b, cnp.PyArray_DATA(default), n * sizeof(double))
    for k, val in params.items():
        i = index.get(k)
        if i is None or not isinstance(val, float):
            return False
        x = <double>val
        if x != x:
            return False
        b[<Py_ssize_t>i] = x
    return True


_object_new = object.__new__


def mode_names(long key, int nc):
    """Mode names of the contacts from :meth:`BoundImpact.solve_result`'s ``mode_key``."""
    cdef int i
    if key < 0:
        return ("",) * nc
    out = []
    for i in range(nc):
        out.append(_MODE_NAMES[key % 3])
        key //= 3
    return tuple(out)


def active_set(cnp.ndarray gap, cnp.ndarray chk, double gap_tol):
    """Indices ``i`` with ``gap[i] <= gap_tol`` as a tuple, or None when ``chk[0]`` is not
    finite (float64 C-contiguous arrays)."""
    cdef double *g
    cdef double c
    cdef Py_ssize_t i, m = gap.size
    if gap.descr.type_num != cnp.NPY_DOUBLE or chk.descr.type_num != cnp.NPY_DOUBLE \
            or not cnp.PyArray_IS_C_CONTIGUOUS(gap) or chk.size < 1:
        raise ValueError("active_set: float64 C-contiguous arrays expected")
    g = <double *>cnp.PyArray_DATA(gap)
    c = (<double *>cnp.PyArray_DATA(chk))[0]
    if not (c - c == 0.0):
        return None
    out = []
    for i in range(m):
        if g[i] <= gap_tol:
            out.append(i)
    return tuple(out)
