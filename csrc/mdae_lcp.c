/* mdae_lcp.c - linear complementarity solvers (see mdae_lcp.h), plain C99.
 *
 *   find z >= 0 such that w = M z + q >= 0 and z^T w = 0.
 *
 * Lemke: complementary pivoting on a condensed (dictionary) tableau
 *     x_B = b + A x_N,   initially  w = q + M z + 1 z0,
 * stored row-major in the caller's workspace as n rows of n+2 doubles (n+1 nonbasic
 * columns, then b). A pivot scales the pivot row once and updates every other row with a
 * contiguous axpy. Ties in the minimum-ratio test are broken lexicographically on the
 * rows of [b, B^-1] (B^-1 is read off the tableau: column j is e_r when w_j is basic in
 * row r, minus the tableau column of w_j when it is nonbasic), so degenerate problems
 * terminate.
 */
#include <math.h>
#include <string.h>

#include "mdae_lcp.h"

#define MDAE_LCP_TIE_TOL 1e-9

void mdae_lcp_options_default(mdae_lcp_options *opt)
{
    if (!opt) return;
    opt->tol = 1e-10;
    opt->max_iter = 0;          /* 0: method default */
    opt->warm_start = 0;
    opt->omega = 1.0;
    opt->pivot_tol = 1e-12;
    opt->interrupt = NULL;
    opt->interrupt_ctx = NULL;
}

/* Work-based polling of the interrupt callback (see mdae_status.h): add the work done
 * since the last call; nonzero when the callback asks to stop. */
typedef struct {
    mdae_interrupt_fn fn;
    void *ctx;
    double acc;
} poller;

static void poller_init(poller *pl, const mdae_lcp_options *opt)
{
    pl->fn = opt ? opt->interrupt : NULL;
    pl->ctx = opt ? opt->interrupt_ctx : NULL;
    pl->acc = 0.0;
}

static int poll_work(poller *pl, double work)
{
    if (!pl->fn) return 0;
    pl->acc += work;
    if (pl->acc < MDAE_POLL_WORK) return 0;
    pl->acc = 0.0;
    return pl->fn(pl->ctx) != 0;
}

/* finite and >= 0 (NaN and inf fail) */
static int nonneg_finite(double x)
{
    return x >= 0.0 && x <= 1.7976931348623157e308;
}

size_t mdae_lcp_work_size(int n)
{
    size_t m = n > 0 ? (size_t)n : 0;
    /* Lemke: tableau m*(m+2) + gathered column and rhs 2m; Murty: LU m*m + rhs m + z m. */
    return m * (m + 4) + 1;
}

size_t mdae_lcp_iwork_size(int n)
{
    size_t m = n > 0 ? (size_t)n : 0;
    /* Lemke: basis m, nonbasic m+1, location 2m+1. Murty: flags m, index m. */
    return 4 * m + 3;
}

/* ---- residual ------------------------------------------------------------------------ */
#if defined(__GNUC__)
#define MDAE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MDAE_ALWAYS_INLINE inline __attribute__((always_inline))
#define MDAE_NOINLINE __attribute__((noinline))
#else
#define MDAE_UNLIKELY(x) (x)
#define MDAE_ALWAYS_INLINE inline
#define MDAE_NOINLINE
#endif

/* The residual's one body: mdae_lcp_residual calls it, and the small-n Lemke kernels
 * inline it with n a compile-time constant (same operations, same order, same bits). */
static MDAE_ALWAYS_INLINE double residual_body(const double *restrict M,
                                               const double *restrict q, int n,
                                               const double *restrict z, double *restrict w)
{
    int i, j;
    double r2 = 0.0, q2 = 0.0;
    for (i = 0; i < n; ++i) {
        const double *Mi = M + (size_t)i * (size_t)n;
        double s = q[i], m;
        for (j = 0; j < n; ++j) s += Mi[j] * z[j];
        w[i] = s;
        m = z[i] < s ? z[i] : s;          /* z - max(0, z - w) = min(z, w) */
        r2 += m * m;
        q2 += q[i] * q[i];
    }
    return sqrt(r2) / (q2 > 1.0 ? sqrt(q2) : 1.0);
}

double mdae_lcp_residual(const mdae_lcp_problem *p, const double *z, double *w)
{
    return residual_body(p->M, p->q, p->n, z, w);
}

/* ---- input checks -------------------------------------------------------------------- */
static int all_finite(const double *x, size_t k)
{
    /* x - x is NaN iff x is NaN or inf; four accumulators keep the adds independent */
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    size_t i = 0;
    for (; i + 4 <= k; i += 4) {
        a0 += x[i] - x[i];
        a1 += x[i + 1] - x[i + 1];
        a2 += x[i + 2] - x[i + 2];
        a3 += x[i + 3] - x[i + 3];
    }
    for (; i < k; ++i) a0 += x[i] - x[i];
    return (a0 + a1 + a2 + a3) == 0.0;
}

int mdae_lcp_check(const mdae_lcp_problem *p, const mdae_lcp_options *opt, const double *z)
{
    size_t n;
    if (!p || !opt || p->n < 0 || p->n > MDAE_LCP_MAX_N) return MDAE_BAD_INPUT;
    n = (size_t)p->n;
    if (!nonneg_finite(opt->tol) || !nonneg_finite(opt->pivot_tol) || opt->max_iter < 0)
        return MDAE_BAD_INPUT;
    if (n == 0) return MDAE_OK;
    if (!p->M || !p->q) return MDAE_BAD_INPUT;
    if (!all_finite(p->q, n) || !all_finite(p->M, n * n)) return MDAE_BAD_INPUT;
    if (opt->warm_start && z && !all_finite(z, n)) return MDAE_BAD_INPUT;
    return MDAE_OK;
}

static int begin(const mdae_lcp_problem *p, const mdae_lcp_options *opt, double *z,
                 double *w, const void *work, const int *iwork, mdae_lcp_info *info)
{
    int st;
    if (info) { info->status = MDAE_BAD_INPUT; info->iterations = 0; info->residual = 0.0; }
    if (!p || !opt || p->n < 0 || p->n > MDAE_LCP_MAX_N) return MDAE_BAD_INPUT;
    if (p->n > 0 && (!z || !w || !work || !iwork)) return MDAE_BAD_INPUT;
    st = mdae_lcp_check(p, opt, z);
    return st;
}

static int finish(const mdae_lcp_problem *p, int status, int iters, double *z, double *w,
                  mdae_lcp_info *info)
{
    double r = mdae_lcp_residual(p, z, w);
    if (!(r == r) || r > 1e300) {            /* never hand back a non-finite z */
        int i;
        for (i = 0; i < p->n; ++i) z[i] = 0.0;
        r = mdae_lcp_residual(p, z, w);
        if (status == MDAE_OK) status = MDAE_NUMERICAL;
    }
    if (info) { info->status = status; info->iterations = iters; info->residual = r; }
    return status;
}

static int trivial(const mdae_lcp_problem *p)
{
    int i;
    for (i = 0; i < p->n; ++i) if (p->q[i] < 0.0) return 0;
    return 1;
}

/* ---- Lemke --------------------------------------------------------------------------- */
/* labels: w_i -> i, z_i -> n + i, z0 -> 2n.  loc[label] = row if basic, -(col+1) if not. */

#ifndef LEMKE_BRANCHFREE_PIVOT
#define LEMKE_BRANCHFREE_PIVOT 0
#endif
#define MDAE_LEMKE_NFIXED 8          /* sizes with a fixed-size (unrolled) kernel */

/* Pivot on A[r, c] (ip = 1 / A[r, c], passed in so that it can be computed from a
 * register as soon as the ratio test ends): scale row r once, then a contiguous axpy on every other row. For the
 * fixed sizes every row is updated without branches (a zero pivot-column entry adds
 * 0 * row r) and row r is written last from a copy; the generic path skips row r and rows
 * with a zero entry. Both give the same values for finite tableaux. */
static MDAE_ALWAYS_INLINE void lemke_pivot(double *A, int n, int r, int c, double ip)
{
    const int L = n + 2;
    double *restrict pr = A + (size_t)r * (size_t)L;
    const double mip = -ip;
    int i, k;
    if (n <= MDAE_LEMKE_NFIXED) {
        /* the scaled row stays in registers (no run-time index into it); the entries in
         * column c are fixed up afterwards with scalar stores (a scalar store before a
         * vector load of the same row would defeat store forwarding) */
        double prow[MDAE_LEMKE_NFIXED + 2];
        for (k = 0; k < L; ++k) prow[k] = pr[k] * mip;
        for (i = 0; i < n; ++i) {
            double *restrict pi = A + (size_t)i * (size_t)L;
            const double a = pi[c];
            if (i == r || a == 0.0) continue;
            for (k = 0; k < L; ++k) pi[k] += a * prow[k];
            pi[c] = a * ip;                   /* = 0 + a * ip, as in the generic path */
        }
        for (k = 0; k < L; ++k) pr[k] = prow[k];
        pr[c] = ip;
        return;
    }
    for (k = 0; k < L; ++k) pr[k] *= mip;
    pr[c] = ip;
    for (i = 0; i < n; ++i) {
        double *restrict pi;
        double a;
        if (i == r) continue;
        pi = A + (size_t)i * (size_t)L;
        a = pi[c];
        if (a == 0.0) continue;           /* zero entry of the pivot column: row unchanged */
        pi[c] = 0.0;
        for (k = 0; k < L; ++k) pi[k] += a * pr[k];
    }
}

/* B^-1[i, j] in the standard (non-dictionary) sign convention. */
static MDAE_ALWAYS_INLINE double lemke_binv(const double *A, int L, const int *loc, int i,
                                            int j)
{
    int l = loc[j];
    if (l >= 0) return l == i ? 1.0 : 0.0;
    return -A[(size_t)i * (size_t)L + (size_t)(-l - 1)];
}

/* Lemke on one problem whose pointers and options are already checked (n >= 1). Inlined
 * into lemke_fixed<n> with n a compile-time constant (loops unrolled) and into
 * lemke_any; both do the same operations in the same order, so every size gives the same
 * bits whichever entry point (mdae_lcp_lemke, the batch loop) reached it. */
static MDAE_ALWAYS_INLINE int lemke_body(const double *restrict M, const double *restrict q,
                                         const int n, const mdae_lcp_options *opt,
                                         double *restrict z, double *restrict w,
                                         double *restrict A, int *restrict iwork,
                                         mdae_lcp_info *info)
{
    const int L = n + 2;
    const double tie_tol = MDAE_LCP_TIE_TOL;
    int *basis = iwork;                  /* n      */
    int *loc = iwork + n;                /* 2n + 1 */
    int i, j, r, c, entering, leaving, piv = 0, max_piv, st = MDAE_OK;
    double a0 = 0.0, a1 = 0.0, qmin, qtie, res, pw = 0.0;
    /* large n: y and b gathered into the spare workspace after the tableau (2n doubles) */
    const int gather = n > MDAE_LEMKE_NFIXED;
    double *ys = A + (size_t)n * (size_t)L, *bs = ys + n;
#define LEMKE_Y(i) (gather ? ys[i] : -A[(size_t)(i) * (size_t)L + (size_t)c])
#define LEMKE_B(i) (gather ? bs[i] : (A[(size_t)(i) * (size_t)L + (size_t)(n + 1)] < 0.0 ? 0.0 : \
                                      A[(size_t)(i) * (size_t)L + (size_t)(n + 1)]))

    /* tableau rows [M_i | 1 | q_i] (x_B = b + A x_N with w = q + M z + 1 z0), the
     * finiteness check of M fused into the copy: x - x is NaN iff x is NaN or inf */
    for (i = 0; i < n; ++i) {
        const double *Mi = M + (size_t)i * (size_t)n;
        double *Ai = A + (size_t)i * (size_t)L;
        for (j = 0; j + 1 < n; j += 2) {
            const double u = Mi[j], v = Mi[j + 1];
            Ai[j] = u;
            Ai[j + 1] = v;
            a0 += u - u;
            a1 += v - v;
        }
        if (j < n) { const double u = Mi[j]; Ai[j] = u; a0 += u - u; }
        Ai[n] = 1.0;
        Ai[n + 1] = q[i];
    }
    qmin = q[0];
    for (i = 0; i < n; ++i) {
        a1 += q[i] - q[i];
        qmin = q[i] < qmin ? q[i] : qmin;
        basis[i] = i;
        loc[i] = i;
        loc[n + i] = -(i + 1);
    }
    loc[2 * n] = -(n + 1);
    if (!(a0 + a1 == 0.0)) {
        if (info) { info->status = MDAE_BAD_INPUT; info->iterations = 0; info->residual = 0.0; }
        return MDAE_BAD_INPUT;
    }
    if (!(qmin < 0.0)) {                 /* trivial: q >= 0, z = 0 */
        for (i = 0; i < n; ++i) z[i] = 0.0;
        goto done;
    }

    max_piv = opt->max_iter > 0 ? opt->max_iter : (n < 50 ? 1000 : 20 * n);
    /* initial pivot: z0 enters, the most negative q_i leaves; ties -> the largest index
     * (the choice that leaves [b, B^-1] lexicographically positive). */
    qtie = qmin + tie_tol * (fabs(qmin) > 1.0 ? fabs(qmin) : 1.0);
    r = 0;
    for (i = 0; i < n; ++i) r = q[i] <= qtie ? i : r;
    c = n;
    lemke_pivot(A, n, r, c, 1.0 / A[(size_t)r * (size_t)L + (size_t)c]);
    piv = 1;
    leaving = basis[r];
    basis[r] = 2 * n; loc[2 * n] = r;
    loc[leaving] = -(c + 1);
    entering = n + leaving;              /* complement of w_r is z_r */

    for (;;) {
        double cm0 = 0.0, cm1 = 0.0, thr, theta, ttol, ip, bb = 0.0, yb = 1.0;
        int nt = 0, rb = -1;
        /* interrupt poll, about every MDAE_POLL_WORK flops of pivoting (compiled out for
         * the fixed sizes, whose pivot limit keeps them short) */
        if (n > MDAE_LEMKE_NFIXED && opt->interrupt) {
            pw += (double)n * (double)L;
            if (pw >= MDAE_POLL_WORK) {
                pw = 0.0;
                if (opt->interrupt(opt->interrupt_ctx)) {
                    st = MDAE_INTERRUPTED;
                    for (i = 0; i < n; ++i) z[i] = 0.0;
                    break;
                }
            }
        }
        c = -loc[entering] - 1;
        if (gather) {
            /* large n: one strided pass over the tableau gathers y_i = -A[i, c] and
             * b_i = max(A[i, n+1], 0); the ratio passes then read contiguous memory */
            for (i = 0; i < n; ++i) {
                const double y = -A[(size_t)i * (size_t)L + (size_t)c];
                const double b0 = A[(size_t)i * (size_t)L + (size_t)(n + 1)];
                const double a0c = fabs(y);
                ys[i] = y;
                bs[i] = b0 < 0.0 ? 0.0 : b0;
                cm0 = a0c > cm0 ? a0c : cm0;
            }
        } else {
            for (i = 0; i + 1 < n; i += 2) {     /* two independent max chains */
                const double a0c = fabs(A[(size_t)i * (size_t)L + (size_t)c]);
                const double a1c = fabs(A[(size_t)(i + 1) * (size_t)L + (size_t)c]);
                cm0 = a0c > cm0 ? a0c : cm0;
                cm1 = a1c > cm1 ? a1c : cm1;
            }
            if (i < n) {
                const double a0c = fabs(A[(size_t)i * (size_t)L + (size_t)c]);
                cm0 = a0c > cm0 ? a0c : cm0;
            }
        }
        thr = opt->pivot_tol * (cm1 > cm0 ? cm1 : cm0);
        /* plain minimum ratio b_i / y_i (y_i = -A[i, c]) over rows with y_i > thr (>= 0,
         * so y_i > 0), compared without division */
        for (i = 0; i < n; ++i) {
            const double y = LEMKE_Y(i), b = LEMKE_B(i);
            const int take = (y > thr) & ((rb < 0) | (b * yb < bb * y));
            rb = take ? i : rb;
            bb = take ? b : bb;
            yb = take ? y : yb;
        }
        if (rb < 0 || piv >= max_piv) {   /* z = 0 after a ray or the pivot limit */
            st = rb < 0 ? MDAE_RAY : MDAE_MAX_ITER;
            for (i = 0; i < n; ++i) z[i] = 0.0;
            break;
        }
        /* the pivot row is rb unless other rows tie with it (within tie_tol): then z0
         * leaves whenever it is among them, else the lexicographic rule decides. r and
         * ip do not wait for the tie count, which only guards the rare slow path. */
        r = rb;
        ip = -1.0 / yb;                      /* = 1 / A[rb, c] exactly */
        theta = bb / yb;
        ttol = theta + tie_tol * (theta > 1.0 ? theta : 1.0);
        for (i = 0; i < n; ++i) {
            const double y = LEMKE_Y(i), b = LEMKE_B(i);
            nt += (y > thr) & (b <= ttol * y);
        }
        if (nt > 1) {
            /* tied rows marked in w (scratch: >= 0 means still tied) */
            double *ratio = w;
            int z0row = -1;
            for (i = 0; i < n; ++i) {
                const double y = -A[(size_t)i * (size_t)L + (size_t)c];
                double b = A[(size_t)i * (size_t)L + (size_t)(n + 1)];
                if (b < 0.0) b = 0.0;
                ratio[i] = -1.0;
                if (y > thr && b <= ttol * y) {
                    ratio[i] = 0.0;
                    if (basis[i] == 2 * n) z0row = i;
                }
            }
            if (z0row >= 0) r = z0row;
            /* lexicographic minimum of B^-1[i, :] / y_i among the tied rows */
            for (j = 0; j < n && nt > 1 && z0row < 0; ++j) {
                double vmin = HUGE_VAL, vt;
                for (i = 0; i < n; ++i) {
                    if (ratio[i] < 0.0) continue;
                    {
                        double v = lemke_binv(A, L, loc, i, j) /
                                   (-A[(size_t)i * (size_t)L + (size_t)c]);
                        if (v < vmin) vmin = v;
                    }
                }
                vt = vmin + tie_tol * (fabs(vmin) > 1.0 ? fabs(vmin) : 1.0);
                nt = 0;
                for (i = 0; i < n; ++i) {
                    if (ratio[i] < 0.0) continue;
                    if (lemke_binv(A, L, loc, i, j) / (-A[(size_t)i * (size_t)L + (size_t)c])
                        <= vt) {
                        ++nt; r = i;
                    } else {
                        ratio[i] = -1.0;
                    }
                }
            }
            ip = 1.0 / A[(size_t)r * (size_t)L + (size_t)c];
        }
        lemke_pivot(A, n, r, c, ip);
        ++piv;
        leaving = basis[r];
        basis[r] = entering; loc[entering] = r;
        loc[leaving] = -(c + 1);
        if (leaving == 2 * n) break;
        entering = leaving < n ? leaving + n : leaving - n;
    }

    if (st == MDAE_OK) {
        for (j = 0; j < n; ++j) {            /* z_j = b of its row if basic, else 0 */
            const int l = loc[n + j];
            const double v = A[(size_t)(l >= 0 ? l : 0) * (size_t)L + (size_t)(n + 1)];
            z[j] = (l >= 0) & (v > 0.0) ? v : 0.0;
        }
    }
done:
    /* w = M z + q and the shared residual of the returned z (z = 0 after a ray or the
     * pivot limit); never hand back a non-finite z */
    res = residual_body(M, q, n, z, w);
    if (!(res == res) || res > 1e300) {
        for (i = 0; i < n; ++i) z[i] = 0.0;
        res = residual_body(M, q, n, z, w);
        if (st == MDAE_OK) st = MDAE_NUMERICAL;
    }
    if (st == MDAE_OK && res > opt->tol) st = MDAE_NUMERICAL;
    if (info) { info->status = st; info->iterations = piv; info->residual = res; }
    return st;
}

#undef LEMKE_Y
#undef LEMKE_B

/* Outputs of the problems k0 <= k < nbatch of an interrupted batch: z = 0, w = q,
 * status MDAE_INTERRUPTED. */
static void interrupted_rest(int k0, int nbatch, int n, const double *qs, double *zs,
                             double *ws, int *status, int *iterations, double *residual)
{
    int k, i;
    for (k = k0; k < nbatch; ++k) {
        const size_t o = (size_t)k * (size_t)n;
        for (i = 0; i < n; ++i) { zs[o + i] = 0.0; ws[o + i] = qs[o + i]; }
        if (status) status[k] = MDAE_INTERRUPTED;
        if (iterations) iterations[k] = 0;
        if (residual) residual[k] = NAN;
    }
}

typedef int (*lemke_fn)(const double *, const double *, int, const mdae_lcp_options *,
                        double *, double *, double *, int *, mdae_lcp_info *);
typedef int (*lemke_batch_fn)(int, int, const double *, const double *,
                              const mdae_lcp_options *, double *, double *, double *, int *,
                              int *, int *, double *);

/* The batch loop with the kernel inlined (no call per problem). */
static MDAE_ALWAYS_INLINE int lemke_batch_body(int nbatch, const int n, const double *Ms,
                                               const double *qs,
                                               const mdae_lcp_options *opt, double *zs,
                                               double *ws, double *work, int *iwork,
                                               int *status, int *iterations,
                                               double *residual)
{
    const size_t nn = (size_t)n * (size_t)n;
    int k, ret = MDAE_OK;
    poller pl;
    poller_init(&pl, opt);
    for (k = 0; k < nbatch; ++k) {
        mdae_lcp_info info;
        const size_t o = (size_t)k * (size_t)n;
        int st = lemke_body(Ms + (size_t)k * nn, qs + o, n, opt, zs + o, ws + o, work, iwork,
                            &info);
        if (st == MDAE_BAD_INPUT) ret = MDAE_BAD_INPUT;
        if (status) status[k] = info.status;
        if (iterations) iterations[k] = info.iterations;
        if (residual) residual[k] = info.residual;
        /* poll every 64 problems (work estimate: pivots of the last one, times 64) */
        if (MDAE_UNLIKELY(st == MDAE_INTERRUPTED) ||
            ((k & 63) == 63 && pl.fn &&
             poll_work(&pl, 64.0 * (double)(info.iterations + 1) * (double)nn))) {
            interrupted_rest(k + 1, nbatch, n, qs, zs, ws, status, iterations, residual);
            return MDAE_INTERRUPTED;
        }
    }
    return ret;
}

#define MDAE_LEMKE_FIXED(N)                                                                \
    static MDAE_NOINLINE int lemke_fixed##N(const double *M, const double *q, int n,       \
                                            const mdae_lcp_options *opt, double *z,         \
                                            double *w, double *A, int *iwork,               \
                                            mdae_lcp_info *info)                            \
    {                                                                                       \
        (void)n;                                                                            \
        return lemke_body(M, q, N, opt, z, w, A, iwork, info);                              \
    }                                                                                       \
    static MDAE_NOINLINE int lemke_batch##N(int nbatch, int n, const double *Ms,           \
                                            const double *qs, const mdae_lcp_options *opt,  \
                                            double *zs, double *ws, double *work,           \
                                            int *iwork, int *status, int *iterations,       \
                                            double *residual)                               \
    {                                                                                       \
        (void)n;                                                                            \
        return lemke_batch_body(nbatch, N, Ms, qs, opt, zs, ws, work, iwork, status,        \
                                iterations, residual);                                      \
    }
MDAE_LEMKE_FIXED(1)
MDAE_LEMKE_FIXED(2)
MDAE_LEMKE_FIXED(3)
MDAE_LEMKE_FIXED(4)
MDAE_LEMKE_FIXED(5)
MDAE_LEMKE_FIXED(6)
MDAE_LEMKE_FIXED(7)
MDAE_LEMKE_FIXED(8)
#undef MDAE_LEMKE_FIXED

static int lemke_any(const double *M, const double *q, int n, const mdae_lcp_options *opt,
                     double *z, double *w, double *A, int *iwork, mdae_lcp_info *info)
{
    return lemke_body(M, q, n, opt, z, w, A, iwork, info);
}

static int lemke_batch_any(int nbatch, int n, const double *Ms, const double *qs,
                           const mdae_lcp_options *opt, double *zs, double *ws, double *work,
                           int *iwork, int *status, int *iterations, double *residual)
{
    return lemke_batch_body(nbatch, n, Ms, qs, opt, zs, ws, work, iwork, status, iterations,
                            residual);
}

/* The Lemke kernel for size n >= 1: fixed-size (unrolled) up to n = MDAE_LEMKE_NFIXED.
 * The single-problem and batch instances of a size compile the same lemke_body with
 * the same constant n, so they return the same bits. */
static lemke_fn lemke_kernel(int n)
{
    static const lemke_fn fixed[MDAE_LEMKE_NFIXED + 1] = {
        0, lemke_fixed1, lemke_fixed2, lemke_fixed3, lemke_fixed4, lemke_fixed5,
        lemke_fixed6, lemke_fixed7, lemke_fixed8};
    return n <= MDAE_LEMKE_NFIXED ? fixed[n] : lemke_any;
}

static lemke_batch_fn lemke_batch_kernel(int n)
{
    static const lemke_batch_fn fixed[MDAE_LEMKE_NFIXED + 1] = {
        0, lemke_batch1, lemke_batch2, lemke_batch3, lemke_batch4, lemke_batch5,
        lemke_batch6, lemke_batch7, lemke_batch8};
    return n <= MDAE_LEMKE_NFIXED ? fixed[n] : lemke_batch_any;
}

/* Pointers and options valid for Lemke (data finiteness is checked in lemke_body). */
static int lemke_args_ok(const mdae_lcp_options *opt)
{
    return opt && nonneg_finite(opt->tol) && nonneg_finite(opt->pivot_tol) &&
           opt->max_iter >= 0;
}

int mdae_lcp_lemke(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   double *z, double *w, double *work, int *iwork, mdae_lcp_info *info)
{
    int n;
    if (info) { info->status = MDAE_BAD_INPUT; info->iterations = 0; info->residual = 0.0; }
    if (!p || !opt || p->n < 0 || p->n > MDAE_LCP_MAX_N) return MDAE_BAD_INPUT;
    n = p->n;
    if (n > 0 && (!z || !w || !work || !iwork)) return MDAE_BAD_INPUT;
    if (!lemke_args_ok(opt)) return MDAE_BAD_INPUT;
    if (n == 0) return finish(p, MDAE_OK, 0, z, w, info);
    if (!p->M || !p->q) return MDAE_BAD_INPUT;
    if (opt->warm_start && !all_finite(z, (size_t)n)) return MDAE_BAD_INPUT;
    return lemke_kernel(n)(p->M, p->q, n, opt, z, w, work, iwork, info);
}

/* ---- projected Gauss-Seidel ---------------------------------------------------------- */
int mdae_lcp_pgs(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                 double *z, double *w, double *work, int *iwork, mdae_lcp_info *info)
{
    int n, i, j, sweep, max_sweeps, st;
    double res, omega;
    double *dinv;
    poller pl;

    st = begin(p, opt, z, w, work, iwork, info);
    if (st != MDAE_OK) return st;
    omega = opt->omega;
    if (!(omega > 0.0 && omega < 2.0)) return MDAE_BAD_INPUT;
    n = p->n;
    if (n == 0) return finish(p, MDAE_OK, 0, z, w, info);
    if (!opt->warm_start) for (i = 0; i < n; ++i) z[i] = 0.0;
    else for (i = 0; i < n; ++i) if (z[i] < 0.0) z[i] = 0.0;
    dinv = work;
    for (i = 0; i < n; ++i) {
        double d = p->M[(size_t)i * (size_t)n + (size_t)i];
        if (!(d > 0.0)) {
            /* PGS needs a positive diagonal: method not applicable */
            return finish(p, MDAE_NOT_CONVERGED, 0, z, w, info);
        }
        dinv[i] = omega / d;
    }
    max_sweeps = opt->max_iter > 0 ? opt->max_iter : 10000;
    poller_init(&pl, opt);
    res = mdae_lcp_residual(p, z, w);
    if (res <= opt->tol) return finish(p, MDAE_OK, 0, z, w, info);
    for (sweep = 1; sweep <= max_sweeps; ++sweep) {
        for (i = 0; i < n; ++i) {
            const double *Mi = p->M + (size_t)i * (size_t)n;
            double s = p->q[i], zi;
            for (j = 0; j < n; ++j) s += Mi[j] * z[j];
            zi = z[i] - dinv[i] * s;
            z[i] = zi > 0.0 ? zi : 0.0;
        }
        res = mdae_lcp_residual(p, z, w);
        if (res <= opt->tol) return finish(p, MDAE_OK, sweep, z, w, info);
        if (!(res == res) || res > 1e300) return finish(p, MDAE_NUMERICAL, sweep, z, w, info);
        if (pl.fn && poll_work(&pl, 2.0 * (double)n * (double)n)) {
            for (i = 0; i < n; ++i) z[i] = 0.0;
            return finish(p, MDAE_INTERRUPTED, sweep, z, w, info);
        }
    }
    return finish(p, MDAE_MAX_ITER, max_sweeps, z, w, info);
}

/* ---- Murty's least-index principal pivoting ------------------------------------------ */
/* Solve the m x m system in LU (overwritten) with partial pivoting; 0 if singular. */
/* Returns -1 when the interrupt callback of pl asked to stop. */
static int dense_solve(double *LU, double *x, int m, double scale, poller *pl)
{
    int k, i, j;
    double tiny = 1e-13 * (scale > 0.0 ? scale : 1.0);
    for (k = 0; k < m; ++k) {
        int pr = k;
        double best = fabs(LU[(size_t)k * (size_t)m + (size_t)k]), f;
        if (pl->fn && poll_work(pl, (double)(m - k) * (double)(m - k))) return -1;
        for (i = k + 1; i < m; ++i) {
            double a = fabs(LU[(size_t)i * (size_t)m + (size_t)k]);
            if (a > best) { best = a; pr = i; }
        }
        if (!(best > tiny)) return 0;
        if (pr != k) {
            double *a = LU + (size_t)k * (size_t)m, *b = LU + (size_t)pr * (size_t)m, t;
            for (j = 0; j < m; ++j) { t = a[j]; a[j] = b[j]; b[j] = t; }
            t = x[k]; x[k] = x[pr]; x[pr] = t;
        }
        for (i = k + 1; i < m; ++i) {
            double *restrict ri = LU + (size_t)i * (size_t)m;
            const double *restrict rk = LU + (size_t)k * (size_t)m;
            f = ri[k] / rk[k];
            if (f == 0.0) continue;
            for (j = k; j < m; ++j) ri[j] -= f * rk[j];
            x[i] -= f * x[k];
        }
    }
    for (k = m - 1; k >= 0; --k) {
        const double *rk = LU + (size_t)k * (size_t)m;
        double s = x[k];
        for (j = k + 1; j < m; ++j) s -= rk[j] * x[j];
        x[k] = s / rk[k];
    }
    return 1;
}

int mdae_lcp_murty(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   double *z, double *w, double *work, int *iwork, mdae_lcp_info *info)
{
    int n, i, j, a, b, m, it, max_it, st;
    int *inJ, *idx, ds;
    size_t nn, e;
    double *LU, *x, scale = 0.0, qinf = 0.0, feas;
    poller pl;

    st = begin(p, opt, z, w, work, iwork, info);
    if (st != MDAE_OK) return st;
    n = p->n;
    if (n == 0) return finish(p, MDAE_OK, 0, z, w, info);
    for (i = 0; i < n; ++i) z[i] = 0.0;
    if (trivial(p)) return finish(p, MDAE_OK, 0, z, w, info);
    max_it = opt->max_iter > 0 ? opt->max_iter : (n < 50 ? 1000 : 20 * n);
    inJ = iwork;
    idx = iwork + n;
    LU = work;
    x = work + (size_t)n * (size_t)n;
    poller_init(&pl, opt);
    nn = (size_t)n * (size_t)n;
    for (e = 0; e < nn; ++e)
        if (fabs(p->M[e]) > scale) scale = fabs(p->M[e]);
    for (i = 0; i < n; ++i) { inJ[i] = 0; if (fabs(p->q[i]) > qinf) qinf = fabs(p->q[i]); }
    feas = 1e-13 * (qinf > 1.0 ? qinf : 1.0);

    for (it = 0; ; ++it) {
        int flip = -1;
        m = 0;
        for (i = 0; i < n; ++i) if (inJ[i]) idx[m++] = i;
        for (a = 0; a < m; ++a) {
            const double *Mi = p->M + (size_t)idx[a] * (size_t)n;
            for (b = 0; b < m; ++b) LU[(size_t)a * (size_t)m + (size_t)b] = Mi[idx[b]];
            x[a] = -p->q[idx[a]];
        }
        ds = m > 0 ? dense_solve(LU, x, m, scale, &pl) : 1;
        if (ds <= 0 || (pl.fn && poll_work(&pl, (double)m * (double)m + (double)n * m))) {
            for (i = 0; i < n; ++i) z[i] = 0.0;
            return finish(p, ds == 0 ? MDAE_NUMERICAL : MDAE_INTERRUPTED, it, z, w, info);
        }
        for (i = 0; i < n; ++i) z[i] = 0.0;
        for (a = 0; a < m; ++a) z[idx[a]] = x[a];
        for (i = 0; i < n; ++i) {
            const double *Mi = p->M + (size_t)i * (size_t)n;
            double s = p->q[i];
            if (inJ[i]) {
                if (z[i] < -feas) { flip = i; break; }
                continue;
            }
            for (j = 0; j < m; ++j) s += Mi[idx[j]] * x[j];
            if (s < -feas) { flip = i; break; }
        }
        if (flip < 0) break;
        if (it >= max_it) {
            for (i = 0; i < n; ++i) z[i] = 0.0;
            return finish(p, MDAE_MAX_ITER, it, z, w, info);
        }
        inJ[flip] = !inJ[flip];
    }
    for (i = 0; i < n; ++i) if (z[i] < 0.0) z[i] = 0.0;
    {
        mdae_lcp_info tmp;
        st = finish(p, MDAE_OK, it, z, w, &tmp);
        if (st == MDAE_OK && tmp.residual > opt->tol) st = MDAE_NUMERICAL;
        if (info) { *info = tmp; info->status = st; }
    }
    return st;
}

/* ---- dispatch and batch -------------------------------------------------------------- */
int mdae_lcp_solve(int method, const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   double *z, double *w, double *work, int *iwork, mdae_lcp_info *info)
{
    switch (method) {
    case MDAE_LCP_LEMKE: return mdae_lcp_lemke(p, opt, z, w, work, iwork, info);
    case MDAE_LCP_PGS: return mdae_lcp_pgs(p, opt, z, w, work, iwork, info);
    case MDAE_LCP_MURTY: return mdae_lcp_murty(p, opt, z, w, work, iwork, info);
    default:
        if (info) { info->status = MDAE_BAD_INPUT; info->iterations = 0; info->residual = 0.0; }
        return MDAE_BAD_INPUT;
    }
}

int mdae_lcp_solve_batch(int method, int nbatch, int n, const double *Ms, const double *qs,
                         const mdae_lcp_options *opt, double *zs, double *ws,
                         double *work, int *iwork,
                         int *status, int *iterations, double *residual)
{
    int k, ret = MDAE_OK;
    size_t nn = n > 0 ? (size_t)n * (size_t)n : 0, n1 = n > 0 ? (size_t)n : 0;
    poller pl;
    if (nbatch < 0 || n < 0 || n > MDAE_LCP_MAX_N || !opt) return MDAE_BAD_INPUT;
    if (nbatch > 0 && n > 0 && (!Ms || !qs || !zs || !ws)) return MDAE_BAD_INPUT;
    if (method == MDAE_LCP_LEMKE && n > 0 && work && iwork && lemke_args_ok(opt) &&
        !opt->warm_start) {
        /* the common case, without per-problem dispatch and option checks: the same
         * lemke_body mdae_lcp_lemke runs, so the same bits */
        return lemke_batch_kernel(n)(nbatch, n, Ms, qs, opt, zs, ws, work, iwork, status,
                                     iterations, residual);
    }
    poller_init(&pl, opt);
    for (k = 0; k < nbatch; ++k) {
        mdae_lcp_problem pk;
        mdae_lcp_info info;
        int st;
        pk.n = n;
        pk.M = Ms ? Ms + (size_t)k * nn : 0;
        pk.q = qs ? qs + (size_t)k * n1 : 0;
        st = mdae_lcp_solve(method, &pk, opt, zs ? zs + (size_t)k * n1 : 0,
                            ws ? ws + (size_t)k * n1 : 0, work, iwork, &info);
        if (st == MDAE_BAD_INPUT) ret = MDAE_BAD_INPUT;
        if (status) status[k] = info.status;
        if (iterations) iterations[k] = info.iterations;
        if (residual) residual[k] = info.residual;
        if (st == MDAE_INTERRUPTED ||
            (pl.fn && poll_work(&pl, (double)(info.iterations + 1) * (double)(nn + n1)))) {
            if (zs && ws && qs)
                interrupted_rest(k + 1, nbatch, n, qs, zs, ws, status, iterations, residual);
            return MDAE_INTERRUPTED;
        }
    }
    return ret;
}
