/* mdae_contact.c - impact and contact problems with Coulomb friction (see mdae_contact.h
 * for the laws). Plain C99, caller-owned memory, no allocation, no printing. */
#include "mdae_contact.h"
#include "mdae_lcp.h"
#include "mdae_slide.h"

#include <math.h>
#include <string.h>

#define MDAE_PI 3.14159265358979323846
#define SLIDE_GRID 96          /* sampling of the sliding angle before bracketing        */
#define MAX_ROOTS 8
#define PICARD_MAX 200
#define SLIDE_ROOTS 64         /* roots of one sliding-direction search kept           */
#define NRHS_MAX (1 + 3 * MDAE_SLIDE_KMAX)
#define SEEN_MAX 16            /* distinct solutions counted exactly past the capacity   */

/* ------------------------------------------------------------------------------------ */
/* small dense helpers                                                                   */
/* ------------------------------------------------------------------------------------ */

static double inf_norm(int n, const double *x)
{
    double m = 0.0;
    int i;
    for (i = 0; i < n; ++i) {
        double a = fabs(x[i]);
        if (a > m) m = a;
    }
    return m;
}

static double norm2(int n, const double *x)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; ++i) s += x[i] * x[i];
    return sqrt(s);
}

#define SB_MAX (3 * MDAE_CONTACT_ENUM_MAX)

/* Solve A X = B (A n x n row-major, B n x nrhs row-major, n <= SB_MAX), both
 * overwritten; X in B. Gaussian elimination with scaled partial pivoting: every decision
 * is made on the equations scaled so that their largest coefficient is 1 (row scaling
 * commutes with elimination, so the scales r_i = max_j |A_ij| are kept aside and the
 * comparisons multiplied out; no division but one per pivot). The rank decisions must
 * not depend on how an equation is written: a sliding row P_t + mu s P_n = 0 with
 * mu = 1e9 next to a Delassus row of order one once set an absolute pivot threshold of
 * 1e-4 and accepted dropped rows with residuals of order one. A column whose best scaled
 * pivot is below 1e-13 is free (its unknown is set to 0: basic solution). Returns 0 when
 * the system is consistent (every dropped row has a scaled right-hand side below
 * 2e-9 max_i |B_i| / r_i), 1 otherwise. piv: n ints. rs_in: the row scales r_i, or
 * NULL (then max_j |A_ij|). */
static int solve_basic(int n, double *A, double *B, int nrhs, int *piv, double *X,
                       const double *rs_in)
{
    int row = 0, j, i, c, r, bi = -1;
    double rs[SB_MAX], ipv[SB_MAX], bb = 0.0, bmax;
    if (n > SB_MAX) return 1;
    for (i = 0; i < n; ++i) {
        double rm = rs_in ? rs_in[i] : inf_norm(n, A + (size_t)i * n);
        double bm = inf_norm(nrhs, B + (size_t)i * nrhs);
        rs[i] = (rm > 0.0 && rm < HUGE_VAL) ? rm : 1.0;
        /* largest scaled right-hand side |B_i| / r_i, compared without dividing */
        if (bm > 0.0 && (bi < 0 || bm * rs[bi] > bb * rs[i])) { bi = i; bb = bm; }
    }
    bmax = bi >= 0 ? bb / rs[bi] : 1.0;
    for (j = 0; j < n; ++j) piv[j] = -1;       /* piv[col] = pivot row or -1 (free) */
    for (j = 0; j < n && row < n; ++j) {
        int best = -1;
        double bv = 0.0, br = 1.0, ip;
        for (i = row; i < n; ++i) {
            double a = fabs(A[i * n + j]);
            if (a > 1e-13 * rs[i] && (best < 0 || a * br > bv * rs[i])) {
                bv = a; br = rs[i]; best = i;
            }
        }
        if (best < 0) continue;
        if (best != row) {
            double t;
            for (c = 0; c < n; ++c) { t = A[row * n + c]; A[row * n + c] = A[best * n + c]; A[best * n + c] = t; }
            for (c = 0; c < nrhs; ++c) { t = B[row * nrhs + c]; B[row * nrhs + c] = B[best * nrhs + c]; B[best * nrhs + c] = t; }
            t = rs[row]; rs[row] = rs[best]; rs[best] = t;
        }
        ip = 1.0 / A[row * n + j];
        ipv[j] = ip;
        for (i = row + 1; i < n; ++i) {
            double f = A[i * n + j] * ip;
            if (f == 0.0) continue;
            A[i * n + j] = 0.0;
            for (c = j + 1; c < n; ++c) A[i * n + c] -= f * A[row * n + c];
            for (c = 0; c < nrhs; ++c) B[i * nrhs + c] -= f * B[row * nrhs + c];
        }
        piv[j] = row;
        ++row;
    }
    /* rows >= row are (numerically) zero: consistent only if their rhs vanish */
    for (r = row; r < n; ++r)
        for (c = 0; c < nrhs; ++c)
            if (fabs(B[r * nrhs + c]) > 2e-9 * bmax * rs[r]) return 1;
    /* back substitution, in B: x_j goes into the pivot row of column j, then permute */
    for (c = 0; c < nrhs; ++c) {
        for (j = n - 1; j >= 0; --j) {
            int pr = piv[j];
            double s;
            if (pr < 0) continue;
            s = B[pr * nrhs + c];
            for (i = j + 1; i < n; ++i)
                if (piv[i] >= 0) s -= A[pr * n + i] * B[piv[i] * nrhs + c];
            B[pr * nrhs + c] = s * ipv[j];
        }
    }
    /* now B[piv[j]] holds x_j; move into order x_j -> row j (free -> 0) */
    for (j = 0; j < n; ++j)
        for (c = 0; c < nrhs; ++c)
            X[j * nrhs + c] = piv[j] >= 0 ? B[piv[j] * nrhs + c] : 0.0;
    memcpy(B, X, sizeof(double) * (size_t)n * (size_t)nrhs);
    return 0;
}

/* Solve a small d x d system (d <= 3) by Cramer's rule; returns 1 if singular. */
static int solve_small(int d, const double *A, const double *b, double *x)
{
    if (d == 2) {
        double det = A[0] * A[3] - A[1] * A[2];
        double sc = fabs(A[0] * A[3]) + fabs(A[1] * A[2]);
        if (!(fabs(det) > 1e-14 * sc)) return 1;
        x[0] = (b[0] * A[3] - A[1] * b[1]) / det;
        x[1] = (A[0] * b[1] - b[0] * A[2]) / det;
        return 0;
    } else {
        double c00 = A[4] * A[8] - A[5] * A[7];
        double c01 = A[5] * A[6] - A[3] * A[8];
        double c02 = A[3] * A[7] - A[4] * A[6];
        double det = A[0] * c00 + A[1] * c01 + A[2] * c02;
        double sc = fabs(A[0]) * (fabs(A[4] * A[8]) + fabs(A[5] * A[7])) + fabs(A[1]) * (fabs(A[5] * A[6]) + fabs(A[3] * A[8]))
                  + fabs(A[2]) * (fabs(A[3] * A[7]) + fabs(A[4] * A[6]));
        if (!(fabs(det) > 1e-14 * sc)) return 1;
        x[0] = (b[0] * c00 + b[1] * (A[2] * A[7] - A[1] * A[8]) + b[2] * (A[1] * A[5] - A[2] * A[4])) / det;
        x[1] = (b[0] * c01 + b[1] * (A[0] * A[8] - A[2] * A[6]) + b[2] * (A[2] * A[3] - A[0] * A[5])) / det;
        x[2] = (b[0] * c02 + b[1] * (A[1] * A[6] - A[0] * A[7]) + b[2] * (A[0] * A[4] - A[1] * A[3])) / det;
        return 0;
    }
}

/* Projection on the cone {|x_T| <= mu x_N} (mu may be INFINITY: half-space x_N >= 0). */
static void proj_cone(int d, double mu, const double *x, double *p)
{
    double t = d == 2 ? fabs(x[1]) : hypot(x[1], x[2]);
    int i;
    if (isinf(mu)) {
        p[0] = x[0] > 0 ? x[0] : 0.0;
        for (i = 1; i < d; ++i) p[i] = x[i];
        return;
    }
    /* inside the cone (x[0] >= 0: with mu = 0 and t = 0, t <= mu x[0] holds for x[0] < 0) */
    if (x[0] >= 0.0 && t <= mu * x[0]) { for (i = 0; i < d; ++i) p[i] = x[i]; return; }
    if (mu * t <= -x[0]) { for (i = 0; i < d; ++i) p[i] = 0.0; return; }
    {
        double a = (x[0] + mu * t) / (1.0 + mu * mu);
        p[0] = a;
        for (i = 1; i < d; ++i) p[i] = a * mu * x[i] / t;
    }
}

/* ------------------------------------------------------------------------------------ */
/* sliding angle of one 3D contact: u = A r + q, r = rho (1, -mu s), s = (cos, sin),     */
/* u_N = 0, u_T = |u_T| s, rho > 0.                                                      */
/* ------------------------------------------------------------------------------------ */

typedef struct { const double *A, *q; double mu; } slide3;

/* g(theta) = cross(den * u_T, s); also returns den and V.s (den * u_T . s). */
static double slide_g(const slide3 *S, double th, double *den_out, double *vs_out)
{
    const double *A = S->A, *q = S->q;
    double mu = S->mu, c = cos(th), s = sin(th);
    double den = A[0] - mu * (A[1] * c + A[2] * s);
    double V0 = -q[0] * (A[3] - mu * (A[4] * c + A[5] * s)) + q[1] * den;
    double V1 = -q[0] * (A[6] - mu * (A[7] * c + A[8] * s)) + q[2] * den;
    if (den_out) *den_out = den;
    if (vs_out) *vs_out = V0 * c + V1 * s;
    return V0 * s - V1 * c;
}

/* Every valid sliding angle (rho > 0, u_T along s) into th[0..]; returns the count. */
static int slide_roots_3d(const double *A, const double *q, double mu, double *th, int maxr)
{
    slide3 S;
    double g0, gprev, tprev, scale;
    int k, nr = 0;
    S.A = A; S.q = q; S.mu = mu;
    if (!(q[0] < 0.0)) return 0;
    scale = fabs(q[0]) * (fabs(A[3]) + fabs(A[6]) + mu * (fabs(A[4]) + fabs(A[5]) + fabs(A[7]) + fabs(A[8])))
          + (fabs(q[1]) + fabs(q[2])) * (fabs(A[0]) + mu * (fabs(A[1]) + fabs(A[2])));
    if (scale == 0.0) return 0;
    tprev = 0.0;
    g0 = gprev = slide_g(&S, 0.0, NULL, NULL);
    for (k = 1; k <= SLIDE_GRID; ++k) {
        double t = (k == SLIDE_GRID) ? 2.0 * MDAE_PI : 2.0 * MDAE_PI * k / SLIDE_GRID;
        double g = (k == SLIDE_GRID) ? g0 : slide_g(&S, t, NULL, NULL);
        double root;
        int found = 0;
        if (gprev == 0.0) { root = tprev; found = 1; }
        else if ((gprev < 0.0) != (g < 0.0) && g != 0.0) {
            /* Illinois regula falsi on [tprev, t] */
            double a = tprev, b = t, ga = gprev, gb = g, x = a;
            int it, side = 0;
            for (it = 0; it < 100; ++it) {
                double gx;
                x = (a * gb - b * ga) / (gb - ga);
                if (!(x > a && x < b)) x = 0.5 * (a + b);
                gx = slide_g(&S, x, NULL, NULL);
                if (gx == 0.0 || fabs(b - a) < 1e-15) break;
                if ((gx < 0.0) == (gb < 0.0)) {
                    b = x; gb = gx;
                    if (side == -1) ga *= 0.5;
                    side = -1;
                } else {
                    a = x; ga = gx;
                    if (side == 1) gb *= 0.5;
                    side = 1;
                }
                if (fabs(gx) <= 1e-16 * scale) break;
            }
            root = x; found = 1;
        }
        if (found && nr < maxr) {
            double den, vs;
            slide_g(&S, root, &den, &vs);
            if (den > 0.0 && vs >= -1e-12 * scale) th[nr++] = root;
        }
        tprev = t; gprev = g;
    }
    return nr;
}

/* Impulse and target velocity for a 3D sliding angle. */
static void slide_point_3d(const double *A, const double *q, double mu, double th, double *r, double *u)
{
    double c = cos(th), s = sin(th);
    double den = A[0] - mu * (A[1] * c + A[2] * s);
    double rho = -q[0] / den;
    int i;
    r[0] = rho; r[1] = -mu * rho * c; r[2] = -mu * rho * s;
    for (i = 0; i < 3; ++i) u[i] = A[3 * i] * r[0] + A[3 * i + 1] * r[1] + A[3 * i + 2] * r[2] + q[i];
    u[0] = 0.0;
}

/* ------------------------------------------------------------------------------------ */
/* exact local solver                                                                    */
/* ------------------------------------------------------------------------------------ */

static void matvec_add(int d, const double *A, const double *r, const double *q, double *u)
{
    int i, j;
    for (i = 0; i < d; ++i) {
        double s = q[i];
        for (j = 0; j < d; ++j) s += A[i * d + j] * r[j];
        u[i] = s;
    }
}

int mdae_fc_local_solve(int dim, const double *A, const double *q, double mu,
                        double *r, double *u, double *theta)
{
    double mq[3], rs[3], t;
    int i, d = dim;
    const double rt = 1e-12;
    if (d != 2 && d != 3) return MDAE_BAD_INPUT;
    /* separate */
    if (q[0] >= 0.0) {
        for (i = 0; i < d; ++i) { r[i] = 0.0; u[i] = q[i]; }
        return MDAE_OK;
    }
    for (i = 0; i < d; ++i) mq[i] = -q[i];
    /* stick */
    if (mu > 0.0 && solve_small(d, A, mq, rs) == 0) {
        t = d == 2 ? fabs(rs[1]) : hypot(rs[1], rs[2]);
        if (rs[0] >= 0.0 && (isinf(mu) || t <= mu * rs[0] * (1.0 + rt))) {
            for (i = 0; i < d; ++i) { r[i] = rs[i]; u[i] = 0.0; }
            return MDAE_OK;
        }
    } else if (mu > 0.0) {
        rs[0] = -1.0;
    }
    if (isinf(mu)) {            /* no sliding possible and neither separate nor stick */
        for (i = 0; i < d; ++i) r[i] = 0.0;
        matvec_add(d, A, r, q, u);
        return MDAE_INCONSISTENT;
    }
    if (mu == 0.0) {
        if (A[0] > 0.0) {
            r[0] = -q[0] / A[0];
            for (i = 1; i < d; ++i) r[i] = 0.0;
            matvec_add(d, A, r, q, u);
            u[0] = 0.0;
            return MDAE_OK;
        }
    } else if (d == 2) {
        int sgn;
        for (sgn = 1; sgn >= -1; sgn -= 2) {
            double den = A[0] - mu * sgn * A[1];
            double rho, ut;
            if (!(den > 0.0)) continue;
            rho = -q[0] / den;
            ut = rho * (A[2] - mu * sgn * A[3]) + q[1];
            if (sgn * ut >= -rt * (fabs(q[1]) + fabs(rho) * (fabs(A[2]) + mu * fabs(A[3])))) {
                r[0] = rho; r[1] = -mu * sgn * rho;
                u[0] = 0.0; u[1] = ut;
                return MDAE_OK;
            }
        }
    } else {
        double th[MAX_ROOTS];
        int nr = slide_roots_3d(A, q, mu, th, MAX_ROOTS);
        if (nr > 0) {
            int best = 0;
            if (theta && nr > 1) {
                double bd = 1e300;
                int k;
                for (k = 0; k < nr; ++k) {
                    double dd = fabs(remainder(th[k] - *theta, 2.0 * MDAE_PI));
                    if (dd < bd) { bd = dd; best = k; }
                }
            }
            slide_point_3d(A, q, mu, th[best], r, u);
            if (theta) *theta = th[best];
            return MDAE_OK;
        }
    }
    /* nothing consistent (degenerate block): project the stick candidate on the cone */
    if (rs[0] < 0.0 && mu > 0.0) { for (i = 0; i < d; ++i) r[i] = 0.0; }
    else proj_cone(d, mu, rs, r);
    matvec_add(d, A, r, q, u);
    return MDAE_INCONSISTENT;
}

/* ------------------------------------------------------------------------------------ */
/* Siconos local FC problem: error and NSGS                                              */
/* ------------------------------------------------------------------------------------ */

void mdae_fc_options_default(mdae_fc_options *opt)
{
    opt->tol = 1e-5;
    opt->max_iter = 10000;
    opt->warm_start = 0;
    opt->error_every = 1;
    opt->interrupt = NULL;
    opt->interrupt_ctx = NULL;
}

/* finite (NaN and inf fail) */
static int finite_(double x) { return x - x == 0.0; }

/* Interrupt poll after `work` flops since the last one (see mdae_status.h). */
static int poll_work(mdae_interrupt_fn fn, void *ctx, double *acc, double work)
{
    if (!fn) return 0;
    *acc += work;
    if (*acc < MDAE_POLL_WORK) return 0;
    *acc = 0.0;
    return fn(ctx) != 0;
}

size_t mdae_fc_work_size(int nc, int dim)
{
    return (size_t)nc * (size_t)(dim * dim + 1) + (size_t)(nc * dim);
}

static double row_dot(const mdae_fc_problem *p, int i, const double *x)
{
    int n = p->nc * p->dim, k;
    double s = 0.0;
    if (p->indptr == NULL) {
        const double *row = p->W + (size_t)i * (size_t)n;
        for (k = 0; k < n; ++k) s += row[k] * x[k];
    } else {
        for (k = p->indptr[i]; k < p->indptr[i + 1]; ++k) s += p->data[k] * x[p->indices[k]];
    }
    return s;
}

double mdae_fc_error(const mdae_fc_problem *p, const double *r, double *u)
{
    int d = p->dim, n = p->nc * d, a, i;
    double sum = 0.0, den;
    for (i = 0; i < n; ++i) u[i] = row_dot(p, i, r) + p->q[i];
    for (a = 0; a < p->nc; ++a) {
        const double *ra = r + a * d, *ua = u + a * d;
        double mu = p->mu[a], x[3], pr[3];
        double ut = d == 2 ? fabs(ua[1]) : hypot(ua[1], ua[2]);
        if (isinf(mu)) {
            x[0] = ra[0] - ua[0];
            for (i = 1; i < d; ++i) x[i] = ra[i] - ua[i];
        } else {
            x[0] = ra[0] - (ua[0] + mu * ut);
            for (i = 1; i < d; ++i) x[i] = ra[i] - ua[i];
        }
        proj_cone(d, mu, x, pr);
        for (i = 0; i < d; ++i) sum += (ra[i] - pr[i]) * (ra[i] - pr[i]);
    }
    den = norm2(n, p->q);
    if (norm2(n, r) > den) den = norm2(n, r);
    if (norm2(n, u) > den) den = norm2(n, u);
    /* as Siconos: relative only when the scale exceeds machine epsilon */
    if (!(den > 2.220446049250313e-16)) den = 1.0;
    return sqrt(sum) / den;
}

static int fc_check(const mdae_fc_problem *p, const mdae_fc_options *opt, mdae_fc_info *info)
{
    int n, i;
    if ((p->dim != 2 && p->dim != 3) || p->nc < 0 || p->nc > 715827882 ||
        (p->indptr == NULL && p->nc * p->dim > MDAE_LCP_MAX_N)) {
        info->bad_input = MDAE_BAD_SIZE; return 1;
    }
    n = p->nc * p->dim;
    if (!(opt->tol >= 0.0 && opt->tol < 1.0)) { info->bad_input = MDAE_BAD_TOL; return 1; }
    if (opt->max_iter < 1 || opt->error_every < 1) { info->bad_input = MDAE_BAD_MAX_ITER; return 1; }
    if (p->indptr != NULL) {
        if (p->indptr[0] != 0) { info->bad_input = MDAE_BAD_SPARSE; info->bad_index = 0; return 1; }
        for (i = 0; i < n; ++i) {
            int k;
            if (p->indptr[i + 1] < p->indptr[i]) { info->bad_input = MDAE_BAD_SPARSE; info->bad_index = i; return 1; }
            for (k = p->indptr[i]; k < p->indptr[i + 1]; ++k) {
                if (p->indices[k] < 0 || p->indices[k] >= n) { info->bad_input = MDAE_BAD_SPARSE; info->bad_index = i; return 1; }
                if (!finite_(p->data[k])) { info->bad_input = MDAE_BAD_D_FINITE; info->bad_index = i; return 1; }
            }
        }
    } else {
        size_t e, nn = (size_t)n * (size_t)n;
        for (e = 0; e < nn; ++e)
            if (!finite_(p->W[e])) { info->bad_input = MDAE_BAD_D_FINITE; info->bad_index = (int)e; return 1; }
    }
    for (i = 0; i < n; ++i)
        if (!isfinite(p->q[i])) { info->bad_input = MDAE_BAD_Q_FINITE; info->bad_index = i; return 1; }
    for (i = 0; i < p->nc; ++i)
        if (!(p->mu[i] >= 0.0)) { info->bad_input = MDAE_BAD_MU; info->bad_index = i; return 1; }
    return 0;
}

int mdae_fc_nsgs(const mdae_fc_problem *p, const mdae_fc_options *opt, double *r,
                 double *u, double *work, mdae_fc_info *info)
{
    int d = p->dim, nc = p->nc, n = nc * d, dd = d * d, a, i, j, it, k;
    double *blocks = work, *theta = work + (size_t)nc * dd, *scratch = theta + nc;
    int every = opt->error_every > 0 ? opt->error_every : 1;
    double pw = 0.0, sweep_work;
    info->status = MDAE_OK; info->iterations = 0; info->error = 0.0;
    info->bad_input = 0; info->bad_index = -1;
    if (fc_check(p, opt, info)) return info->status = MDAE_BAD_INPUT;
    sweep_work = p->indptr ? 2.0 * p->indptr[n] + 64.0 * nc : 2.0 * (double)n * (double)n + 64.0 * nc;
    (void)scratch;
    /* diagonal blocks */
    for (a = 0; a < nc; ++a) {
        double *B = blocks + (size_t)a * dd;
        for (i = 0; i < d; ++i) {
            int row = a * d + i;
            for (j = 0; j < d; ++j) B[i * d + j] = 0.0;
            if (p->indptr == NULL) {
                for (j = 0; j < d; ++j) B[i * d + j] = p->W[(size_t)row * n + a * d + j];
            } else {
                for (k = p->indptr[row]; k < p->indptr[row + 1]; ++k) {
                    int col = p->indices[k] - a * d;
                    if (col >= 0 && col < d) B[i * d + col] += p->data[k];
                }
            }
        }
        theta[a] = 0.0;
    }
    if (!opt->warm_start) for (i = 0; i < n; ++i) r[i] = 0.0;
    info->error = mdae_fc_error(p, r, u);
    if (info->error <= opt->tol) return info->status;
    for (it = 1; it <= opt->max_iter; ++it) {
        for (a = 0; a < nc; ++a) {
            const double *B = blocks + (size_t)a * dd;
            double ql[3], ra[3], ua[3];
            for (i = 0; i < d; ++i) {
                double s = row_dot(p, a * d + i, r) + p->q[a * d + i];
                for (j = 0; j < d; ++j) s -= B[i * d + j] * r[a * d + j];
                ql[i] = s;
            }
            mdae_fc_local_solve(d, B, ql, p->mu[a], ra, ua, &theta[a]);
            for (i = 0; i < d; ++i) r[a * d + i] = ra[i];
        }
        info->iterations = it;
        if (opt->interrupt && poll_work(opt->interrupt, opt->interrupt_ctx, &pw, sweep_work)) {
            info->error = mdae_fc_error(p, r, u);
            return info->status = MDAE_INTERRUPTED;
        }
        if (it % every == 0 || it == opt->max_iter) {
            info->error = mdae_fc_error(p, r, u);
            if (!isfinite(info->error)) return info->status = MDAE_NUMERICAL;
            if (info->error <= opt->tol) return info->status = MDAE_OK;
        }
    }
    info->error = mdae_fc_error(p, r, u);
    return info->status = info->error <= opt->tol ? MDAE_OK : MDAE_MAX_ITER;
}

/* ------------------------------------------------------------------------------------ */
/* mode enumeration                                                                      */
/* ------------------------------------------------------------------------------------ */

/* per-contact mode codes used while enumerating */
enum { EM_SEP = 0, EM_STICK = 1, EM_SLIDE_P = 2, EM_SLIDE_M = 3, EM_SLIDE_3D = 4,
       EM_SLIDE_0 = 5, EM_SLIDE_KNOWN = 6 };

typedef struct {
    int nc, d, n;
    const double *D, *c, *mu;
    const double *sdir;       /* nc*(d-1) known sliding directions (unit) or NULL        */
    const int *kind;          /* 0 sticking/impact, 1 sliding with known direction      */
    double tw, tp;            /* tolerances on w and P                                   */
    /* output store */
    int cap, nsol;
    int max_boxes;            /* box budget of one sliding-direction search              */
    int incomplete;           /* combinations whose direction search is not proven whole */
    double *Ps, *ws;          /* cap*n                                                   */
    int *ms;                  /* cap*nc                                                  */
    /* scratch */
    double *A, *B, *P, *w, *s3, *X; /* n*n, n*NRHS_MAX, n, n, nc*2 directions (3D), n*NRHS_MAX */
    double *rn;               /* n: max_j |D_ij| per row (set by enumerate)               */
    double *seen;             /* (SEEN_MAX - cap) * n: w of solutions past the capacity,
                                 so that nsol counts distinct solutions (up to SEEN_MAX)  */
    int *piv;
    /* Ctrl-C (mdae_status.h): polled between mode combinations, after every search of
     * the sliding directions and at the leaves of the tree; stop set ends the enumeration
     * (the solve returns MDAE_INTERRUPTED) */
    mdae_interrupt_fn interrupt;
    void *interrupt_ctx;
    double pw;                /* work since the last poll (flops)                          */
    int stop;
} enum_ctx;

/* Poll the interrupt after `work` flops; nonzero (and E->stop set) when asked to stop. */
static int enum_poll(enum_ctx *E, double work)
{
    if (!E->stop && E->interrupt && poll_work(E->interrupt, E->interrupt_ctx, &E->pw, work))
        E->stop = 1;
    return E->stop;
}

static int mode_list(const enum_ctx *E, int a, int *list)
{
    double mu = E->mu[a];
    int m = 0;
    list[m++] = EM_SEP;
    if (E->kind && E->kind[a] == 1) { list[m++] = EM_SLIDE_KNOWN; return m; }
    if (mu == 0.0) { list[m++] = EM_SLIDE_0; return m; }
    list[m++] = EM_STICK;
    if (isinf(mu)) return m;
    if (E->d == 2) { list[m++] = EM_SLIDE_P; list[m++] = EM_SLIDE_M; }
    else list[m++] = EM_SLIDE_3D;
    return m;
}

static void compute_w(const enum_ctx *E)
{
    int n = E->n, i, j, nz = 0, cols[SB_MAX];
    /* the columns of nonzero impulses only (separated contacts: P_a = 0 exactly) */
    for (j = 0; j < n; ++j) if (E->P[j] != 0.0) cols[nz++] = j;
    for (i = 0; i < n; ++i) {
        const double *Dr = E->D + (size_t)i * n;
        double s = E->c[i];
        for (j = 0; j < nz; ++j) s += Dr[cols[j]] * E->P[cols[j]];
        E->w[i] = s;
    }
}

/* The conditions of check_modes on P alone (NaN passes: check_modes rejects it): a
 * combination failing them is rejected before w is computed. */
static int check_P(const enum_ctx *E, const int *mode)
{
    int d = E->d, a;
    for (a = 0; a < E->nc; ++a) {
        const double *P = E->P + a * d;
        double mu;
        if (mode[a] == EM_SEP) continue;
        if (P[0] < -E->tp) return 0;
        if (mode[a] == EM_STICK) {
            double pt = d == 2 ? fabs(P[1]) : hypot(P[1], P[2]);
            mu = E->mu[a];
            if (isinf(mu)) { if (P[0] <= E->tp && pt > E->tp) return 0; }
            else if (pt > mu * P[0] + E->tp) return 0;
        }
    }
    return 1;
}

/* Consistency of (P, w) with the mode combination. */
static int check_modes(const enum_ctx *E, const int *mode)
{
    int d = E->d, a, i;
    double fin = 0.0;
    /* an overflowed solve (a tiny pivot of a degenerate D) is no solution */
    for (i = 0; i < E->n; ++i) fin += (E->P[i] - E->P[i]) + (E->w[i] - E->w[i]);
    if (!(fin == 0.0)) return 0;
    for (a = 0; a < E->nc; ++a) {
        const double *P = E->P + a * d, *w = E->w + a * d;
        double mu = E->mu[a], pt = d == 2 ? fabs(P[1]) : hypot(P[1], P[2]);
        switch (mode[a]) {
        case EM_SEP:
            if (w[0] < -E->tw) return 0;
            break;
        case EM_STICK:
            if (P[0] < -E->tp) return 0;
            if (isinf(mu)) { if (P[0] <= E->tp && pt > E->tp) return 0; }
            else if (pt > mu * P[0] + E->tp) return 0;
            break;
        case EM_SLIDE_P:
            if (P[0] < -E->tp || w[1] < -E->tw) return 0;
            break;
        case EM_SLIDE_M:
            if (P[0] < -E->tp || w[1] > E->tw) return 0;
            break;
        case EM_SLIDE_3D:
            if (P[0] < -E->tp) return 0;
            if (w[1] * E->s3[2 * a] + w[2] * E->s3[2 * a + 1] < -E->tw) return 0;
            if (fabs(w[1] * E->s3[2 * a + 1] - w[2] * E->s3[2 * a]) > 1e3 * E->tw) return 0;
            break;
        default:
            if (P[0] < -E->tp) return 0;
            break;
        }
    }
    return 1;
}

static int classify(const enum_ctx *E, int a)
{
    int d = E->d;
    const double *P = E->P + a * d, *w = E->w + a * d;
    double wt = d == 2 ? fabs(w[1]) : hypot(w[1], w[2]);
    if (P[0] <= E->tp) return MDAE_MODE_SEPARATE;
    if (E->kind && E->kind[a] == 1) return MDAE_MODE_SLIDE;
    return wt <= E->tw ? MDAE_MODE_STICK : MDAE_MODE_SLIDE;
}

static void record(enum_ctx *E)
{
    int n = E->n, k, i, nk;
    /* de-duplicated by w against every solution kept: the stored ones and, past the
     * capacity, up to SEEN_MAX in all (nsol may overcount only beyond that) */
    nk = E->nsol < SEEN_MAX ? E->nsol : SEEN_MAX;
    if (E->cap > nk) nk = E->nsol < E->cap ? E->nsol : E->cap;
    for (k = 0; k < nk; ++k) {
        const double *w = k < E->cap ? E->ws + (size_t)k * n : E->seen + (size_t)(k - E->cap) * n;
        double dmax = 0.0;
        for (i = 0; i < n; ++i) { double t = fabs(w[i] - E->w[i]); if (t > dmax) dmax = t; }
        if (dmax <= 1e2 * E->tw) return;
    }
    if (E->nsol < E->cap) {
        memcpy(E->Ps + (size_t)E->nsol * n, E->P, sizeof(double) * (size_t)n);
        memcpy(E->ws + (size_t)E->nsol * n, E->w, sizeof(double) * (size_t)n);
        for (i = 0; i < E->nc; ++i) E->ms[E->nsol * E->nc + i] = classify(E, i);
    } else if (E->nsol < SEEN_MAX) {
        memcpy(E->seen + (size_t)(E->nsol - E->cap) * n, E->w, sizeof(double) * (size_t)n);
    }
    E->nsol++;
}

/* The system of a mode combination reduced to its free impulse components, solved; the
 * same solution as solve_basic on the full n x n system (separated contacts' rows P_a = 0,
 * sliding contacts' rows P_t + mu s P_n = 0, the other rows of D), at a fraction of
 * the cost (the enumeration's hot loop: 2^k..4^k combinations per problem).
 *
 * A separated contact has P_a = 0 and a fixed one (fixj[a] >= 0) P_a = the unit columns
 * 1 + 3 fixj[a] + i of the right-hand side: both leave the unknowns. A sticking contact
 * keeps its d components and its d rows w_a = 0; a sliding one keeps P_n (P_t = -mu s P_n,
 * the column g = e_n - mu s e_t) and its normal row w_n = 0. With P = G y the reduced
 * system R D G y = -R (c + D P_fixed) has m = (d per sticking, 1 per sliding contact)
 * unknowns. Separated and fixed contacts' identity rows are always pivotal in the full
 * system, and a sliding contact's constraint row P_t + mu s P_n = 0 makes its two columns
 * pivotal exactly when the reduced column is independent of the earlier ones, so the
 * basic solution (free unknowns 0) and the consistency verdict of solve_basic are those
 * of the full system in exact arithmetic. Writes X (n x nrhs, row-major) into E->B
 * (with one right-hand side and no fixed contact: P into E->P); returns 0 when
 * consistent. */
static int solve_reduced(const enum_ctx *E, const int *mode, const int *fixj, int nrhs)
{
    int n = E->n, d = E->d, nc = E->nc, a, i, j, c, m = 0, r;
    int col_of[SB_MAX];              /* reduced column -> contact * 4 + component (3: g) */
    int row_of[SB_MAX];              /* reduced row -> full row                          */
    double g[SB_MAX][3];             /* slide column: (1, -mu s) per contact             */
    double rsc[SB_MAX];              /* row scales                                       */
    double *A = E->A, *B = E->B, *X = E->X;
    for (a = 0; a < nc; ++a) {
        int o = a * d, md = mode[a];
        if ((fixj && fixj[a] >= 0) || md == EM_SEP) continue;
        if (md == EM_STICK) {
            for (i = 0; i < d; ++i) { col_of[m] = 4 * a + i; row_of[m] = o + i; ++m; }
        } else {
            double s[2] = {0.0, 0.0}, muu = E->mu[a];
            if (md == EM_SLIDE_P) s[0] = 1.0;
            else if (md == EM_SLIDE_M) s[0] = -1.0;
            else if (md == EM_SLIDE_3D) { s[0] = E->s3[2 * a]; s[1] = E->s3[2 * a + 1]; }
            else if (md == EM_SLIDE_KNOWN) { for (i = 0; i < d - 1; ++i) s[i] = E->sdir[a * (d - 1) + i]; }
            else muu = 0.0;
            g[m][0] = 1.0;
            for (i = 1; i < d; ++i) g[m][i] = -muu * s[i - 1];
            col_of[m] = 4 * a + 3; row_of[m] = o; ++m;
        }
    }
    /* reduced matrix and right-hand sides; the row scales of solve_basic's decisions are
     * those of the full rows (max_j |D_rj|, at least the reduced row's) */
    for (r = 0; r < m; ++r) {
        const double *Dr = E->D + (size_t)row_of[r] * n;
        double rm = E->rn[row_of[r]];
        for (c = 0; c < m; ++c) {
            int ac = col_of[c] >> 2, comp = col_of[c] & 3, oc = ac * d;
            double v;
            if (comp < 3) v = Dr[oc + comp];
            else { v = Dr[oc]; for (i = 1; i < d; ++i) v += Dr[oc + i] * g[c][i]; }
            A[r * m + c] = v;
            if (fabs(v) > rm) rm = fabs(v);
        }
        rsc[r] = rm;
        B[r * nrhs] = -E->c[row_of[r]];
        for (j = 1; j < nrhs; ++j) B[r * nrhs + j] = 0.0;
        if (fixj)
            for (a = 0; a < nc; ++a)
                if (fixj[a] >= 0)
                    for (i = 0; i < d; ++i) B[r * nrhs + 1 + 3 * fixj[a] + i] = -Dr[a * d + i];
    }
    if (m > 0 && solve_basic(m, A, B, nrhs, E->piv, X, rsc)) return 1;
    /* expand P = G y (+ the fixed contacts' unit columns) into X, then into B (one
     * right-hand side: straight into P) */
    if (nrhs == 1 && !fixj) X = E->P;
    memset(X, 0, sizeof(double) * (size_t)n * (size_t)nrhs);
    for (c = 0; c < m; ++c) {
        int ac = col_of[c] >> 2, comp = col_of[c] & 3, oc = ac * d;
        const double *y = B + (size_t)c * nrhs;
        if (comp < 3) {
            for (j = 0; j < nrhs; ++j) X[(oc + comp) * nrhs + j] = y[j];
        } else {
            for (i = 0; i < d; ++i)
                for (j = 0; j < nrhs; ++j) X[(oc + i) * nrhs + j] = g[c][i] * y[j];
        }
    }
    if (fixj)
        for (a = 0; a < nc; ++a)
            if (fixj[a] >= 0)
                for (i = 0; i < d; ++i) X[(a * d + i) * nrhs + 1 + 3 * fixj[a] + i] = 1.0;
    if (X != E->P) memcpy(B, X, sizeof(double) * (size_t)n * (size_t)nrhs);
    return 0;
}

/* solve the combination with all directions fixed; returns 1 if consistent */
static int solve_fixed(enum_ctx *E, const int *mode)
{
    if (solve_reduced(E, mode, NULL, 1)) return 0;
    compute_w(E);
    return 1;
}

/* solve the combination with all directions fixed and record it when it is a solution */
static void solve_record(enum_ctx *E, const int *mode)
{
    if (solve_reduced(E, mode, NULL, 1) || !check_P(E, mode)) return;
    compute_w(E);
    if (check_modes(E, mode)) record(E);
}

static void enum_combination(enum_ctx *E, const int *mode)
{
    int nc = E->nc, d = E->d, n = E->n, a, nl = 0, i, j;
    if (d == 3)
        for (a = 0; a < nc; ++a) if (mode[a] == EM_SLIDE_3D) ++nl;
    if (nl == 0) {
        solve_record(E, mode);
        return;
    }
    /* 3D sliding contacts: the complete search of mdae_slide.c on the problem reduced to
     * the sliding contacts. One contact: the closed form of mdae_slide_search1 (the real
     * roots of a quartic, certified by inclusion disks), and where that cannot separate
     * the roots the branch-and-bound over one angle with at least the default box budget
     * (a 96-point scan of the angle once stood here, which missed a double root or two
     * roots between samples and never said so). Beyond the search's reach (too many
     * sliding contacts, box budget spent, an undecided box) the combination is counted
     * incomplete and the fixed-point iteration below adds what it finds */
    if (nl <= MDAE_SLIDE_KMAX) {
        int fixj[MDAE_CONTACT_ENUM_MAX], sl[MDAE_SLIDE_KMAX], nrhs = 1 + 3 * nl, k, l, m, nr, complete;
        int budget = nl == 1 && E->max_boxes < MDAE_SLIDE_MAX_BOXES ? MDAE_SLIDE_MAX_BOXES : E->max_boxes;
        double Aeff[9 * MDAE_SLIDE_KMAX * MDAE_SLIDE_KMAX], ceff[3 * MDAE_SLIDE_KMAX];
        double muS[MDAE_SLIDE_KMAX], th[SLIDE_ROOTS * MDAE_SLIDE_KMAX];
        for (a = 0, k = 0; a < nc; ++a) {
            fixj[a] = -1;
            if (mode[a] == EM_SLIDE_3D) { fixj[a] = k; sl[k] = a; muS[k] = E->mu[a]; ++k; }
        }
        /* column 0 inconsistent: no impulse satisfies the other contacts' rows; columns 1..
         * lie in the range of the sticking rows for a positive semidefinite D */
        if (solve_reduced(E, mode, fixj, nrhs)) return;
        for (k = 0; k < nl; ++k)
            for (i = 0; i < 3; ++i) {
                const double *Drow = E->D + (size_t)(3 * sl[k] + i) * n;
                double s0 = E->c[3 * sl[k] + i];
                for (j = 0; j < n; ++j) s0 += Drow[j] * E->B[(size_t)j * nrhs];
                ceff[3 * k + i] = s0;
                for (l = 0; l < 3 * nl; ++l) {
                    double sv = 0.0;
                    for (j = 0; j < n; ++j) sv += Drow[j] * E->B[(size_t)j * nrhs + 1 + l];
                    Aeff[(3 * k + i) * (3 * nl) + l] = sv;
                }
            }
        nr = nl == 1 ? mdae_slide_search1(Aeff, ceff, muS[0], th, &complete) : 0;
        if (nl > 1 || !complete) {
            nr = mdae_slide_search(nl, Aeff, ceff, muS, inf_norm(n * n, E->D), budget,
                                   SLIDE_ROOTS, th, &complete);
            /* a search costs up to its box budget (~40 us a box): a poll after each */
            if (enum_poll(E, MDAE_POLL_WORK)) return;
        }
        for (m = 0; m < nr; ++m) {
            for (k = 0; k < nl; ++k) {
                E->s3[2 * sl[k]] = cos(th[m * nl + k]);
                E->s3[2 * sl[k] + 1] = sin(th[m * nl + k]);
            }
            solve_record(E, mode);
        }
        if (complete) return;
    }
    E->incomplete++;
    {
        int start, it;
        for (start = 0; start < 2; ++start) {
            for (a = 0; a < nc; ++a) {
                if (mode[a] != EM_SLIDE_3D) continue;
                {
                    double x = E->c[a * 3 + 1], y = E->c[a * 3 + 2], t = hypot(x, y);
                    if (start == 1 || t == 0.0) {
                        double ang = 2.0 * MDAE_PI * (a + 1) / (nc + 1) + start;
                        x = cos(ang); y = sin(ang); t = 1.0;
                    }
                    E->s3[2 * a] = x / t; E->s3[2 * a + 1] = y / t;
                }
            }
            for (it = 0; it < PICARD_MAX; ++it) {
                double change = 0.0;
                if (enum_poll(E, (double)n * n * n) || !solve_fixed(E, mode)) break;
                for (a = 0; a < nc; ++a) {
                    double x, y, t;
                    if (mode[a] != EM_SLIDE_3D) continue;
                    x = E->w[a * 3 + 1]; y = E->w[a * 3 + 2]; t = hypot(x, y);
                    if (t <= E->tw) continue;
                    x /= t; y /= t;
                    change += fabs(x - E->s3[2 * a]) + fabs(y - E->s3[2 * a + 1]);
                    E->s3[2 * a] = x; E->s3[2 * a + 1] = y;
                }
                if (change < 1e-13) {
                    solve_record(E, mode);
                    break;
                }
            }
        }
    }
}

/* ---- mode combinations by nested elimination ------------------------------------- */
/* Without sliding directions to search (planar contacts, or mu in {0, inf}, or known
 * directions), the combinations are visited depth first over the contacts, the last one
 * outermost (the order of the loop of enumerate: contact 0 varies fastest), and each
 * contact's mode is eliminated once for all the combinations below it: separate drops
 * its rows and columns (P_a = 0), stick eliminates its d x d block (P_a = x_a + K_a P_rest
 * from its rows), slide its column g = (1, -mu s) against its normal row; what remains is
 * the Schur complement of the contacts still to choose. A leaf back-substitutes P. Where
 * a block pivot is small (|det| below 1e-6 of the product of its rows' sizes, or the
 * block itself cancelled to below 1e-6 of D's rows: a singular or ill-conditioned
 * combination, e.g. a rocking block's two sticking corners) the subtree is solved
 * combination by combination as before (solve_record: the reduced system with pivoting
 * and its basic solution). A nonsingular combination has one solution, the same either
 * way up to round-off; the checks and the record are those of solve_record. */
typedef struct {
    int lists[MDAE_CONTACT_ENUM_MAX][4], counts[MDAE_CONTACT_ENUM_MAX];
    double x[MDAE_CONTACT_ENUM_MAX][3];                 /* P_a = x_a + K_a P_(0..a-1)     */
    double K[MDAE_CONTACT_ENUM_MAX][3 * SB_MAX];        /* d x (a d), row-major            */
} tree_ctx;

static void tree_g(const enum_ctx *E, int a, int md, double *g)
{
    int d = E->d, i;
    double s[2] = {0.0, 0.0}, muu = E->mu[a];
    if (md == EM_SLIDE_P) s[0] = 1.0;
    else if (md == EM_SLIDE_M) s[0] = -1.0;
    else if (md == EM_SLIDE_KNOWN) { for (i = 0; i < d - 1; ++i) s[i] = E->sdir[a * (d - 1) + i]; }
    else muu = 0.0;
    g[0] = 1.0;
    for (i = 1; i < d; ++i) g[i] = -muu * s[i - 1];
}

static void tree_leaf(enum_ctx *E, tree_ctx *T, const int *mode)
{
    int d = E->d, nc = E->nc, a, i, j;
    double *P = E->P;
    for (a = 0; a < nc; ++a) {
        const double *K = T->K[a];
        int nr = a * d;
        for (i = 0; i < d; ++i) {
            double v = T->x[a][i];
            for (j = 0; j < nr; ++j) v += K[i * nr + j] * P[j];
            P[a * d + i] = v;
        }
    }
    if (!check_P(E, mode)) return;
    compute_w(E);
    if (check_modes(E, mode)) record(E);
}

static void tree_visit(enum_ctx *E, tree_ctx *T, int a, const double *S, const double *r,
                       int *mode, int safe)
{
    int d = E->d, na = (a + 1) * d, nr = a * d, o = nr, k, i, j, l;
    double S2[SB_MAX * SB_MAX], r2[SB_MAX];
    for (k = 0; k < T->counts[a]; ++k) {
        int md = T->lists[a][k], ok = safe;
        double *x = T->x[a], *K = T->K[a];
        mode[a] = md;
        if (ok && md == EM_SEP) {
            for (i = 0; i < d; ++i) x[i] = 0.0;
            for (i = 0; i < d * nr; ++i) K[i] = 0.0;
            for (i = 0; i < nr; ++i) {
                for (j = 0; j < nr; ++j) S2[i * nr + j] = S[i * na + j];
                r2[i] = r[i];
            }
        } else if (ok && md == EM_STICK) {
            /* S_aa^-1 by its adjugate (d = 2, 3), guarded */
            double M[9], inv[9], det, sc = 1.0;
            for (i = 0; i < d; ++i) {
                double rm = 0.0;
                for (j = 0; j < d; ++j) {
                    M[i * d + j] = S[(o + i) * na + o + j];
                    if (fabs(M[i * d + j]) > rm) rm = fabs(M[i * d + j]);
                }
                if (!(rm >= 1e-6 * E->rn[o + i])) ok = 0;
                sc *= rm;
            }
            if (d == 2) {
                det = M[0] * M[3] - M[1] * M[2];
                inv[0] = M[3]; inv[1] = -M[1]; inv[2] = -M[2]; inv[3] = M[0];
            } else {
                inv[0] = M[4] * M[8] - M[5] * M[7];
                inv[1] = M[2] * M[7] - M[1] * M[8];
                inv[2] = M[1] * M[5] - M[2] * M[4];
                inv[3] = M[5] * M[6] - M[3] * M[8];
                inv[4] = M[0] * M[8] - M[2] * M[6];
                inv[5] = M[2] * M[3] - M[0] * M[5];
                inv[6] = M[3] * M[7] - M[4] * M[6];
                inv[7] = M[1] * M[6] - M[0] * M[7];
                inv[8] = M[0] * M[4] - M[1] * M[3];
                det = M[0] * inv[0] + M[1] * inv[3] + M[2] * inv[6];
            }
            if (!(fabs(det) > 1e-6 * sc)) ok = 0;
            if (ok) {
                double id = 1.0 / det;
                for (i = 0; i < d * d; ++i) inv[i] *= id;
                for (i = 0; i < d; ++i) {
                    double v = 0.0;
                    for (l = 0; l < d; ++l) v -= inv[i * d + l] * r[o + l];
                    x[i] = v;
                    for (j = 0; j < nr; ++j) {
                        double w = 0.0;
                        for (l = 0; l < d; ++l) w -= inv[i * d + l] * S[(o + l) * na + j];
                        K[i * nr + j] = w;
                    }
                }
                for (i = 0; i < nr; ++i) {
                    double v = r[i];
                    for (l = 0; l < d; ++l) v += S[i * na + o + l] * x[l];
                    r2[i] = v;
                    for (j = 0; j < nr; ++j) {
                        double w = S[i * na + j];
                        for (l = 0; l < d; ++l) w += S[i * na + o + l] * K[l * nr + j];
                        S2[i * nr + j] = w;
                    }
                }
            }
        } else if (ok) {
            /* sliding: P_a = g y, normal row of a */
            double g[3], piv = 0.0, pm = 0.0, f;
            tree_g(E, a, md, g);
            for (i = 0; i < d; ++i) { piv += S[o * na + o + i] * g[i]; pm += fabs(S[o * na + o + i] * g[i]); }
            if (!(fabs(piv) > 1e-6 * pm && pm >= 1e-6 * E->rn[o])) ok = 0;
            if (ok) {
                f = -1.0 / piv;
                for (i = 0; i < d; ++i) {
                    x[i] = g[i] * r[o] * f;
                    for (j = 0; j < nr; ++j) K[i * nr + j] = g[i] * S[o * na + j] * f;
                }
                for (i = 0; i < nr; ++i) {
                    double sg = 0.0;
                    for (l = 0; l < d; ++l) sg += S[i * na + o + l] * g[l];
                    r2[i] = r[i] + sg * r[o] * f;
                    for (j = 0; j < nr; ++j) S2[i * nr + j] = S[i * na + j] + sg * S[o * na + j] * f;
                }
            }
        }
        if (a == 0) {
            if (ok) tree_leaf(E, T, mode);
            else solve_record(E, mode);
            if (enum_poll(E, ok ? (double)E->n * E->n : (double)E->n * E->n * E->n))
                return;
        } else {
            tree_visit(E, T, a - 1, S2, r2, mode, ok);
            if (E->stop) return;
        }
    }
}

/* Enumerate every mode combination of w = D P + c. Returns the number of solutions. */
static int enumerate(enum_ctx *E)
{
    int lists[MDAE_CONTACT_ENUM_MAX][4], counts[MDAE_CONTACT_ENUM_MAX];
    int idx[MDAE_CONTACT_ENUM_MAX], mode[MDAE_CONTACT_ENUM_MAX] = {0};
    int a, nc = E->nc;
    E->nsol = 0;
    for (a = 0; a < nc; ++a) { counts[a] = mode_list(E, a, lists[a]); idx[a] = 0; }
    for (a = 0; a < E->n; ++a) E->rn[a] = inf_norm(E->n, E->D + (size_t)a * E->n);
    if (nc == 0) {
        compute_w(E);
        record(E);
        return E->nsol;
    }
    {
        int search = 0, k;
        for (a = 0; a < nc; ++a)
            for (k = 0; k < counts[a]; ++k) if (lists[a][k] == EM_SLIDE_3D) search = 1;
        if (!search) {
            tree_ctx T;
            for (a = 0; a < nc; ++a) {
                T.counts[a] = counts[a];
                for (k = 0; k < counts[a]; ++k) T.lists[a][k] = lists[a][k];
            }
            tree_visit(E, &T, nc - 1, E->D, E->c, mode, 1);
            return E->nsol;
        }
    }
    for (;;) {
        for (a = 0; a < nc; ++a) mode[a] = lists[a][idx[a]];
        enum_combination(E, mode);
        if (enum_poll(E, (double)E->n * E->n * (E->n + 8))) break;
        for (a = 0; a < nc; ++a) {
            if (++idx[a] < counts[a]) break;
            idx[a] = 0;
        }
        if (a == nc) break;
    }
    return E->nsol;
}

/* Scratch of the enumeration in work (mdae_contact_work_size) and piv; options. */
static void enum_workspace(enum_ctx *E, double *work, int *piv, const mdae_impact_options *opt)
{
    size_t n = (size_t)E->n;
    E->A = work; E->B = E->A + n * n; E->P = E->B + NRHS_MAX * n; E->w = E->P + n;
    E->s3 = E->w + n; E->X = E->s3 + 2 * (size_t)E->nc; E->rn = E->X + NRHS_MAX * n;
    E->seen = E->rn + n;
    E->piv = piv;
    E->max_boxes = opt->max_boxes;
    E->incomplete = 0;
    E->interrupt = opt->interrupt;
    E->interrupt_ctx = opt->interrupt_ctx;
    E->pw = 0.0;
    E->stop = 0;
}

static void set_tolerances(enum_ctx *E, double tol)
{
    int n = E->n, i;
    double sw = inf_norm(n, E->c), dmax = 0.0;
    for (i = 0; i < n; ++i) if (E->D[i * n + i] > dmax) dmax = E->D[i * n + i];
    if (!(sw > 0.0)) sw = 1.0;
    if (!(dmax > 0.0)) dmax = 1.0;
    E->tw = tol * sw;
    E->tp = tol * sw / dmax;
}

/* ------------------------------------------------------------------------------------ */
/* impact problem                                                                        */
/* ------------------------------------------------------------------------------------ */

void mdae_impact_options_default(mdae_impact_options *opt)
{
    opt->method = MDAE_CONTACT_ENUM;
    opt->facets = 8;
    opt->max_solutions = 1;
    opt->max_boxes = MDAE_SLIDE_MAX_BOXES;
    opt->max_iter = 10000;
    opt->tol = 1e-9;
    opt->energy_tol = 1e-9;
    opt->allow_energy_gain = 0;
    opt->check_input = 1;
    opt->interrupt = NULL;
    opt->interrupt_ctx = NULL;
}

/* clamped to [3, MDAE_CONTACT_MAX_FACETS] so that workspace sizes stay bounded (the
 * option itself is checked in impact_check) */
static int lcp_dirs(int dim, int facets)
{
    return dim == 2 ? 2 : (facets < 3 ? 3 : (facets > MDAE_CONTACT_MAX_FACETS ?
                                              MDAE_CONTACT_MAX_FACETS : facets));
}

size_t mdae_contact_work_size(int nc, int dim, int facets)
{
    size_t n = (size_t)nc * (size_t)dim, m = (size_t)lcp_dirs(dim, facets);
    size_t nl = (size_t)nc * (m + 2), ny = (size_t)nc * (m + 1);
    size_t en = n * n + (2 * NRHS_MAX + 4 + SEEN_MAX) * n + 8 * (size_t)nc; /* enumeration */
    size_t lc = 2 * n * ny + nl * nl + 3 * nl + mdae_lcp_work_size((int)nl); /* LCP      */
    size_t ns = mdae_fc_work_size(nc, dim) + n;                         /* NSGS         */
    size_t mx = en > lc ? en : lc;
    if (ns > mx) mx = ns;
    return mx + 2 * n + 16;
}

size_t mdae_contact_iwork_size(int nc, int dim, int facets)
{
    size_t n = (size_t)nc * (size_t)dim, m = (size_t)lcp_dirs(dim, facets);
    size_t nl = (size_t)nc * (m + 2);
    return n + 2 * (size_t)nc + mdae_lcp_iwork_size((int)nl) + 16;
}

static int impact_check(const mdae_impact_problem *p, const mdae_impact_options *opt, mdae_impact_info *info)
{
    int nc = p->nc, d = p->dim, n = nc * d, i, j;
    double dmax;
    if ((d != 2 && d != 3) || nc < 0 || nc > MDAE_LCP_MAX_N / d) { info->bad_input = MDAE_BAD_SIZE; return 1; }
    if (opt->method < 0 || opt->method > 2) { info->bad_input = MDAE_BAD_METHOD; return 1; }
    if (opt->method == MDAE_CONTACT_ENUM && nc > MDAE_CONTACT_ENUM_MAX) { info->bad_input = MDAE_BAD_SIZE; return 1; }
    /* options, checked even without check_input: NaN tolerances make every consistency
     * test fail silently, and counts size the caller's outputs and workspace */
    if (!(opt->tol > 0.0 && opt->tol < 1.0) || !(opt->energy_tol >= 0.0 && opt->energy_tol < 1.0)) {
        info->bad_input = MDAE_BAD_TOL; return 1;
    }
    if (opt->method == MDAE_CONTACT_ENUM &&
        (opt->max_solutions < 1 || opt->max_solutions > MDAE_CONTACT_MAX_SOLUTIONS)) {
        info->bad_input = MDAE_BAD_MAX_SOLUTIONS; return 1;
    }
    if (opt->method == MDAE_CONTACT_NSGS && opt->max_iter < 1) { info->bad_input = MDAE_BAD_MAX_ITER; return 1; }
    if (opt->method == MDAE_CONTACT_ENUM && opt->max_boxes < 1) { info->bad_input = MDAE_BAD_MAX_BOXES; return 1; }
    if (opt->method == MDAE_CONTACT_LCP && d == 3 &&
        (opt->facets < 3 || opt->facets > MDAE_CONTACT_MAX_FACETS)) {
        info->bad_input = MDAE_BAD_FACETS; return 1;
    }
    if (opt->method == MDAE_CONTACT_LCP && (long)nc * (lcp_dirs(d, opt->facets) + 2) > MDAE_LCP_MAX_N) {
        info->bad_input = MDAE_BAD_SIZE; return 1;
    }
    if (!opt->check_input) return 0;
    for (i = 0; i < n * n; ++i)
        if (!isfinite(p->D[i])) { info->bad_input = MDAE_BAD_D_FINITE; info->bad_index = i; return 1; }
    dmax = inf_norm(n * n, p->D);
    for (i = 0; i < n; ++i)
        for (j = i + 1; j < n; ++j)
            if (fabs(p->D[i * n + j] - p->D[j * n + i]) > 1e-8 * dmax) {
                info->bad_input = MDAE_BAD_D_SYMMETRIC; info->bad_index = i * n + j; return 1;
            }
    for (i = 0; i < n; ++i)
        if (!isfinite(p->v_minus[i])) { info->bad_input = MDAE_BAD_V_FINITE; info->bad_index = i; return 1; }
    for (i = 0; i < nc; ++i) {
        double en = p->e_n[i], et = p->e_t[i], mu = p->mu[i];
        if (!(en >= 0.0 && (en <= 1.0 || (opt->allow_energy_gain && isfinite(en))))) {
            info->bad_input = MDAE_BAD_E_N; info->bad_index = i; return 1;
        }
        if (!(et >= -1.0 && (et <= 1.0 || (opt->allow_energy_gain && isfinite(et))))) {
            info->bad_input = MDAE_BAD_E_T; info->bad_index = i; return 1;
        }
        if (!(mu >= 0.0)) { info->bad_input = MDAE_BAD_MU; info->bad_index = i; return 1; }
        if (isinf(mu) && opt->method == MDAE_CONTACT_LCP) { info->bad_input = MDAE_BAD_MU_INF_LCP; info->bad_index = i; return 1; }
    }
    return 0;
}

/* The restitution term of row i: e_n min(v_n-, 0) for a normal row (restitution acts on
 * the approach only: a touching contact that already separates must not be given a
 * penetrating target -e_n v_n- < 0), e_t v_t- for a tangential row. */
static double restitution_term(const mdae_impact_problem *p, int i)
{
    int d = p->dim, a = i / d;
    if (i % d == 0) {
        double vn = p->v_minus[i];
        return p->e_n[a] * (vn < 0.0 ? vn : 0.0);
    }
    return p->e_t[a] * p->v_minus[i];
}

/* v+ = w - E v-, dT = P.(v- + v+)/2; returns 1 on an energy gain beyond tolerance. */
static int finish_solution(const mdae_impact_problem *p, const mdae_impact_options *opt,
                           const double *P, const double *w, double *vp, double *dT)
{
    int d = p->dim, n = p->nc * d, i;
    double s = 0.0, sc = 0.0;
    for (i = 0; i < n; ++i) {
        vp[i] = w[i] - restitution_term(p, i);
        s += P[i] * (p->v_minus[i] + vp[i]);
        sc += fabs(P[i]) * (fabs(p->v_minus[i]) + fabs(vp[i]));
    }
    *dT = 0.5 * s;
    return !opt->allow_energy_gain && *dT > opt->energy_tol * 0.5 * sc + 1e-300;
}

static void target_offset(const mdae_impact_problem *p, double *c)
{
    int n = p->nc * p->dim, i;
    for (i = 0; i < n; ++i)
        c[i] = p->v_minus[i] + restitution_term(p, i);
}

static int impact_lcp(const mdae_impact_problem *p, const mdae_impact_options *opt, const double *c,
                      double *P, double *w, double *work, int *iwork, mdae_impact_info *info)
{
    int nc = p->nc, d = p->dim, n = nc * d, m = lcp_dirs(d, opt->facets);
    int nb = m + 2, nl = nc * nb, ny = nc * (m + 1), a, i, j, k, st;
    double *G = work, *DG = G + (size_t)n * ny, *M = DG + (size_t)n * ny, *q = M + (size_t)nl * nl;
    double *z = q + nl, *wl = z + nl, *lw = wl + nl;
    mdae_lcp_problem lp;
    mdae_lcp_options lo;
    mdae_lcp_info li;
    /* G: n x ny, columns per contact: P_n, beta_1..m */
    memset(G, 0, sizeof(double) * (size_t)n * ny);
    for (a = 0; a < nc; ++a) {
        int col = a * (m + 1);
        G[(a * d) * ny + col] = 1.0;
        for (j = 0; j < m; ++j) {
            if (d == 2) G[(a * d + 1) * ny + col + 1 + j] = j == 0 ? 1.0 : -1.0;
            else {
                double ang = 2.0 * MDAE_PI * j / m;
                G[(a * d + 1) * ny + col + 1 + j] = cos(ang);
                G[(a * d + 2) * ny + col + 1 + j] = sin(ang);
            }
        }
    }
    for (i = 0; i < n; ++i)
        for (j = 0; j < ny; ++j) {
            double s = 0.0;
            for (k = 0; k < n; ++k) s += p->D[i * n + k] * G[k * ny + j];
            DG[i * ny + j] = s;
        }
    memset(M, 0, sizeof(double) * (size_t)nl * nl);
    /* LCP variable index of y_j (contact a = j / (m+1), local l): a*nb + l; lambda: a*nb + m+1 */
    for (i = 0; i < ny; ++i) {
        int ai = i / (m + 1), li_ = i % (m + 1), ri = ai * nb + li_;
        double s0 = 0.0;
        for (k = 0; k < n; ++k) s0 += G[k * ny + i] * c[k];
        q[ri] = s0;
        for (j = 0; j < ny; ++j) {
            int aj = j / (m + 1), lj = j % (m + 1);
            double s = 0.0;
            for (k = 0; k < n; ++k) s += G[k * ny + i] * DG[k * ny + j];
            M[ri * nl + aj * nb + lj] = s;
        }
        if (li_ > 0) M[ri * nl + ai * nb + m + 1] = 1.0;
    }
    for (a = 0; a < nc; ++a) {
        int r = a * nb + m + 1;
        M[r * nl + a * nb] = p->mu[a];
        for (j = 1; j <= m; ++j) M[r * nl + a * nb + j] = -1.0;
        q[r] = 0.0;
    }
    lp.n = nl; lp.M = M; lp.q = q;
    mdae_lcp_options_default(&lo);
    lo.interrupt = opt->interrupt;
    lo.interrupt_ctx = opt->interrupt_ctx;
    st = mdae_lcp_lemke(&lp, &lo, z, wl, lw, iwork, &li);
    info->iterations = li.iterations;
    if (st != MDAE_OK) return st;
    for (i = 0; i < n; ++i) {
        double s = 0.0;
        for (j = 0; j < ny; ++j) {
            int aj = j / (m + 1), lj = j % (m + 1);
            s += G[i * ny + j] * z[aj * nb + lj];
        }
        P[i] = s;
    }
    for (i = 0; i < n; ++i) {
        double s = c[i];
        for (j = 0; j < n; ++j) s += p->D[i * n + j] * P[j];
        w[i] = s;
    }
    return MDAE_OK;
}

/* The outputs of a problem without a solution: NaN impulses, velocities and energy
 * change, modes MDAE_MODE_NONE. */
static void no_solution(int n, int nc, double *P, double *v_plus, int *modes, double *dT)
{
    int i;
    for (i = 0; i < n; ++i) { P[i] = NAN; v_plus[i] = NAN; }
    for (i = 0; i < nc; ++i) modes[i] = MDAE_MODE_NONE;
    *dT = NAN;
}

static int impact_solve_(const mdae_impact_problem *p, const mdae_impact_options *opt,
                         double *P, double *v_plus, int *modes, double *dT,
                         double *work, int *iwork, mdae_impact_info *info);

int mdae_impact_solve(const mdae_impact_problem *p, const mdae_impact_options *opt,
                      double *P, double *v_plus, int *modes, double *dT,
                      double *work, int *iwork, mdae_impact_info *info)
{
    int st = impact_solve_(p, opt, P, v_plus, modes, dT, work, iwork, info);
    if (st == MDAE_BAD_INPUT && (p->dim == 2 || p->dim == 3) && p->nc >= 0)
        no_solution(p->nc * p->dim, p->nc, P, v_plus, modes, dT);
    else if (st != MDAE_BAD_INPUT && st != MDAE_OK && st != MDAE_AMBIGUOUS && st != MDAE_ENERGY_GAIN)
        no_solution(p->nc * p->dim, p->nc, P, v_plus, modes, dT);
    return st;
}

static int impact_solve_(const mdae_impact_problem *p, const mdae_impact_options *opt,
                         double *P, double *v_plus, int *modes, double *dT,
                         double *work, int *iwork, mdae_impact_info *info)
{
    int nc = p->nc, d = p->dim, n = nc * d, i, k, gain = 0;
    double *c = work, *wbuf = c + n, *rest = wbuf + n;
    info->status = MDAE_OK; info->nsol = 0; info->iterations = 0; info->residual = 0.0;
    info->bad_input = 0; info->bad_index = -1; info->incomplete = 0;
    if (impact_check(p, opt, info)) return info->status = MDAE_BAD_INPUT;
    target_offset(p, c);
    if (opt->method == MDAE_CONTACT_ENUM) {
        enum_ctx E;
        int cap = opt->max_solutions > 0 ? opt->max_solutions : 1;
        E.nc = nc; E.d = d; E.n = n; E.D = p->D; E.c = c; E.mu = p->mu;
        E.sdir = NULL; E.kind = NULL; E.cap = cap; E.nsol = 0;
        E.Ps = P; E.ws = v_plus; E.ms = modes;
        enum_workspace(&E, rest, iwork, opt);
        set_tolerances(&E, opt->tol);
        enumerate(&E);
        if (E.stop) return info->status = MDAE_INTERRUPTED;
        info->nsol = E.nsol;
        info->incomplete = E.incomplete;
        for (k = 0; k < E.nsol && k < cap; ++k) {
            memcpy(wbuf, v_plus + (size_t)k * n, sizeof(double) * (size_t)n);
            gain |= finish_solution(p, opt, P + (size_t)k * n, wbuf, v_plus + (size_t)k * n, dT + k);
        }
        if (E.nsol > 0) {
            mdae_fc_problem fp;
            fp.dim = d; fp.nc = nc; fp.W = p->D; fp.indptr = NULL; fp.indices = NULL; fp.data = NULL;
            fp.q = c; fp.mu = p->mu;
            info->residual = mdae_fc_error(&fp, P, wbuf);
        }
        if (gain) return info->status = MDAE_ENERGY_GAIN;
        if (E.nsol == 0) return info->status = MDAE_INCONSISTENT;
        return info->status = E.nsol > 1 ? MDAE_AMBIGUOUS : MDAE_OK;
    }
    if (opt->method == MDAE_CONTACT_LCP) {
        int st = impact_lcp(p, opt, c, P, wbuf, rest, iwork, info);
        if (st != MDAE_OK) return info->status = st;
    } else {
        mdae_fc_problem fp;
        mdae_fc_options fo;
        mdae_fc_info fi;
        int st;
        fp.dim = d; fp.nc = nc; fp.W = p->D; fp.indptr = NULL; fp.indices = NULL; fp.data = NULL;
        fp.q = c; fp.mu = p->mu;
        mdae_fc_options_default(&fo);
        fo.tol = opt->tol; fo.max_iter = opt->max_iter;
        fo.interrupt = opt->interrupt; fo.interrupt_ctx = opt->interrupt_ctx;
        st = mdae_fc_nsgs(&fp, &fo, P, wbuf, rest, &fi);
        info->iterations = fi.iterations;
        if (st != MDAE_OK) { info->residual = fi.error; return info->status = st; }
    }
    {
        enum_ctx E;
        E.nc = nc; E.d = d; E.n = n; E.D = p->D; E.c = c; E.mu = p->mu; E.kind = NULL;
        E.P = P; E.w = wbuf;
        set_tolerances(&E, opt->tol > 1e-9 ? opt->tol : 1e-9);
        for (i = 0; i < nc; ++i) modes[i] = classify(&E, i);
    }
    {
        mdae_fc_problem fp;
        double *u = rest;
        fp.dim = d; fp.nc = nc; fp.W = p->D; fp.indptr = NULL; fp.indices = NULL; fp.data = NULL;
        fp.q = c; fp.mu = p->mu;
        info->residual = mdae_fc_error(&fp, P, u);
    }
    info->nsol = 1;
    gain = finish_solution(p, opt, P, wbuf, v_plus, dT);
    return info->status = gain ? MDAE_ENERGY_GAIN : MDAE_OK;
}

int mdae_impact_batch(int nprob, int nc, int dim, const double *D, const double *v_minus,
                      const double *e_n, const double *e_t, const double *mu,
                      const mdae_impact_options *opt, double *P, double *v_plus,
                      int *modes, double *dT, int *status, int *nsol, int *incomplete,
                      double *work, int *iwork, mdae_impact_info *info)
{
    int n = nc * dim, k, first = MDAE_OK, bad_k = -1, bad_code = MDAE_BAD_NONE;
    mdae_impact_options o = *opt;
    double pw = 0.0, per = (double)n * (double)n * (double)(n + 8) + 64.0;
    o.max_solutions = 1;
    for (k = 0; k < nprob; ++k) {
        mdae_impact_problem p;
        int st;
        p.nc = nc; p.dim = dim; p.D = D + (size_t)k * n * n; p.v_minus = v_minus + (size_t)k * n;
        p.e_n = e_n + (size_t)k * nc; p.e_t = e_t + (size_t)k * nc; p.mu = mu + (size_t)k * nc;
        st = mdae_impact_solve(&p, &o, P + (size_t)k * n, v_plus + (size_t)k * n, modes + (size_t)k * nc,
                               dT + k, work, iwork, info);
        status[k] = st;
        nsol[k] = info->nsol;
        if (incomplete) incomplete[k] = info->incomplete;
        if (st == MDAE_BAD_INPUT && bad_k < 0) { bad_k = k; bad_code = info->bad_input; }
        if (first == MDAE_OK && st != MDAE_OK && st != MDAE_AMBIGUOUS && st != MDAE_INCONSISTENT) first = st;
        if (st == MDAE_INTERRUPTED ||
            (o.interrupt && poll_work(o.interrupt, o.interrupt_ctx, &pw, per * (1.0 + info->iterations)))) {
            int j;
            for (j = k + 1; j < nprob; ++j) {
                no_solution(n, nc, P + (size_t)j * n, v_plus + (size_t)j * n, modes + (size_t)j * nc, dT + j);
                status[j] = MDAE_INTERRUPTED;
                nsol[j] = 0;
                if (incomplete) incomplete[j] = 0;
            }
            info->bad_input = bad_code;
            info->bad_index = bad_k;
            return info->status = MDAE_INTERRUPTED;
        }
    }
    info->bad_input = bad_code;
    info->bad_index = bad_k;
    info->status = bad_k >= 0 ? MDAE_BAD_INPUT : first;
    return info->status;
}

void mdae_impact_apply(int nprob, int n, int nu, const double *Bt, const double *P,
                       const double *u, const double *M, double *u_plus, double *T_plus)
{
    int k, i, j;
    for (k = 0; k < nprob; ++k) {
        const double *B = Bt + (size_t)k * n * nu, *Pk = P + (size_t)k * n;
        const double *uk = u + (size_t)k * nu, *Mk = M + (size_t)k * nu * nu;
        double *up = u_plus + (size_t)k * nu, T = 0.0;
        for (i = 0; i < nu; ++i) up[i] = uk[i];
        for (j = 0; j < n; ++j) {
            double pj = Pk[j];
            for (i = 0; i < nu; ++i) up[i] += B[j * nu + i] * pj;
        }
        for (i = 0; i < nu; ++i) {
            double s = 0.0;
            for (j = 0; j < nu; ++j) s += Mk[i * nu + j] * up[j];
            T += up[i] * s;
        }
        T_plus[k] = 0.5 * T;
    }
}

/* ------------------------------------------------------------------------------------ */
/* acceleration level, Painleve                                                          */
/* ------------------------------------------------------------------------------------ */

int mdae_painleve_solve(int nc, int dim, const double *D, const double *b,
                        const double *v_t, const double *mu, double slide_tol,
                        const mdae_impact_options *opt, double *lam, double *acc,
                        int *modes, double *work, int *iwork, mdae_impact_info *info)
{
    int d = dim, n = nc * d, a, i;
    enum_ctx E;
    double *sdir = work, *rest = work + (size_t)nc * 2;
    int *kind = iwork, *piv = iwork + nc;
    info->status = MDAE_OK; info->nsol = 0; info->iterations = 0; info->residual = 0.0;
    info->bad_input = 0; info->bad_index = -1; info->incomplete = 0;
    if ((d != 2 && d != 3) || nc < 0 || nc > MDAE_CONTACT_ENUM_MAX) { info->bad_input = MDAE_BAD_SIZE; return info->status = MDAE_BAD_INPUT; }
    if (!(opt->tol > 0.0 && opt->tol < 1.0)) { info->bad_input = MDAE_BAD_TOL; return info->status = MDAE_BAD_INPUT; }
    if (!(slide_tol >= 0.0 && finite_(slide_tol))) { info->bad_input = MDAE_BAD_SLIDE_TOL; return info->status = MDAE_BAD_INPUT; }
    if (opt->max_solutions < 1 || opt->max_solutions > MDAE_CONTACT_MAX_SOLUTIONS) { info->bad_input = MDAE_BAD_MAX_SOLUTIONS; return info->status = MDAE_BAD_INPUT; }
    if (opt->max_boxes < 1) { info->bad_input = MDAE_BAD_MAX_BOXES; return info->status = MDAE_BAD_INPUT; }
    for (i = 0; i < n * n; ++i)
        if (!isfinite(D[i])) { info->bad_input = MDAE_BAD_D_FINITE; info->bad_index = i; return info->status = MDAE_BAD_INPUT; }
    for (i = 0; i < n; ++i)
        if (!isfinite(b[i])) { info->bad_input = MDAE_BAD_V_FINITE; info->bad_index = i; return info->status = MDAE_BAD_INPUT; }
    for (a = 0; a < nc; ++a) {
        double t = d == 2 ? fabs(v_t[a]) : hypot(v_t[2 * a], v_t[2 * a + 1]);
        if (!(mu[a] >= 0.0)) { info->bad_input = MDAE_BAD_MU; info->bad_index = a; return info->status = MDAE_BAD_INPUT; }
        if (!isfinite(t)) { info->bad_input = MDAE_BAD_V_FINITE; info->bad_index = a; return info->status = MDAE_BAD_INPUT; }
        kind[a] = t > slide_tol ? 1 : 0;
        if (kind[a] == 1 && isinf(mu[a])) { info->bad_input = MDAE_BAD_SLIDING_MU_INF; info->bad_index = a; return info->status = MDAE_BAD_INPUT; }
        for (i = 0; i < d - 1; ++i) sdir[a * (d - 1) + i] = kind[a] ? v_t[a * (d - 1) + i] / t : 0.0;
    }
    E.nc = nc; E.d = d; E.n = n; E.D = D; E.c = b; E.mu = mu; E.sdir = sdir; E.kind = kind;
    E.cap = opt->max_solutions > 0 ? opt->max_solutions : 1; E.nsol = 0;
    E.Ps = lam; E.ws = acc; E.ms = modes;
    enum_workspace(&E, rest, piv, opt);
    set_tolerances(&E, opt->tol);
    enumerate(&E);
    if (E.stop) return info->status = MDAE_INTERRUPTED;
    info->nsol = E.nsol;
    info->incomplete = E.incomplete;
    if (E.nsol == 0) return info->status = MDAE_INCONSISTENT;
    return info->status = E.nsol > 1 ? MDAE_AMBIGUOUS : MDAE_OK;
}
