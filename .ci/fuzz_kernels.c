/* fuzz_kernels.c - random and adversarial inputs for every C entry point of csrc/, built
 * with AddressSanitizer and UndefinedBehaviorSanitizer by .ci/sanitize.
 *
 *   fuzz_kernels [seconds] [seed]     (default 10 s, seed 1)
 *
 * Inputs: n = 0 and 1 up to ~40, NaN/inf entries, zero or negative diagonals, singular,
 * rank-deficient and ill-conditioned matrices, non-symmetric Delassus matrices, bad
 * options (NaN / negative / huge tolerances and counts, unknown methods, facets out of
 * range), CSR matrices, interrupt callbacks that fire, a Moreau-Jean stepping loop on a
 * particle system. Every buffer is malloc'ed at exactly its documented size, so ASan
 * reports any out-of-bounds access. Every returned success is checked against its own
 * residual; a failed check prints the case and the run exits with status 1 at the end.
 * Prints the number of cases run. Plain C99.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mdae_contact.h"
#include "mdae_cycle.h"
#include "mdae_lcp.h"
#include "mdae_ode.h"
#include "mdae_slide.h"
#include "mdae_status.h"
#include "mdae_step.h"

static unsigned long long rng_state = 88172645463325252ULL;
static long n_cases = 0, n_fail = 0, n_success = 0, n_interrupted = 0;

static unsigned long long rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static double urand(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }
static int irand(int n) { return n > 0 ? (int)(rnd() % (unsigned long long)n) : 0; }
static double nrand(void)
{
    double u = urand() + 1e-300, v = urand();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static void fail(const char *what, const char *fmt, double a, double b)
{
    ++n_fail;
    if (n_fail <= 20) {
        fprintf(stderr, "FAIL %s: ", what);
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) { fprintf(stderr, "out of memory\n"); exit(2); }
    return p;
}

/* an occasional adversarial value */
static double weird(void)
{
    switch (irand(6)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 1e308;
    case 4: return -0.0;
    default: return 5e-324;
    }
}

/* n x n row-major matrix of a random kind */
static void random_matrix(int n, double *A, int kind)
{
    int i, j, k;
    double *B = xmalloc(sizeof(double) * (size_t)(n * n + 1));
    for (i = 0; i < n * n; ++i) B[i] = nrand();
    switch (kind) {
    case 0: /* SPD */
    case 1: /* PSD, rank deficient */
    case 2: /* P-matrix: SPD + skew */
    {
        int r = kind == 1 ? (n > 1 ? irand(n) : 0) : n;
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) {
                double s = 0.0;
                for (k = 0; k < r; ++k) s += B[i * n + k] * B[j * n + k];
                A[i * n + j] = s / (n > 0 ? n : 1) + (kind == 1 ? 0.0 : (i == j ? 0.1 : 0.0));
            }
        if (kind == 2)
            for (i = 0; i < n; ++i)
                for (j = i + 1; j < n; ++j) {
                    double sk = nrand();
                    A[i * n + j] += sk;
                    A[j * n + i] -= sk;
                }
        break;
    }
    case 3: /* general */
        for (i = 0; i < n * n; ++i) A[i] = B[i];
        break;
    case 4: /* zero */
        for (i = 0; i < n * n; ++i) A[i] = 0.0;
        break;
    case 5: /* negative / zero diagonal */
        for (i = 0; i < n * n; ++i) A[i] = B[i] * 0.1;
        for (i = 0; i < n; ++i) A[i * n + i] = irand(2) ? 0.0 : -fabs(B[i]);
        break;
    default: /* ill-conditioned SPD: scaled rows and columns */
        for (i = 0; i < n; ++i)
            for (j = 0; j < n; ++j) {
                double s = 0.0;
                for (k = 0; k < n; ++k) s += B[i * n + k] * B[j * n + k];
                A[i * n + j] = s + (i == j ? 1e-12 : 0.0);
            }
        for (i = 0; i < n; ++i) {
            double sc = pow(10.0, (double)(irand(17) - 8));
            for (j = 0; j < n; ++j) { A[i * n + j] *= sc; A[j * n + i] *= sc; }
        }
        break;
    }
    free(B);
}

static int poll_count;
static int poll_fire_at;
static int test_interrupt(void *ctx)
{
    (void)ctx;
    return ++poll_count >= poll_fire_at;
}

/* ---- LCP ----------------------------------------------------------------------------- */
static void fuzz_lcp(void)
{
    int n = irand(4) == 0 ? irand(3) : (irand(3) == 0 ? 9 + irand(32) : irand(9));
    int kind = irand(7), method = irand(8) == 0 ? 3 + irand(3) - 4 : irand(3), i, st;
    double *M = xmalloc(sizeof(double) * (size_t)(n * n + 1));
    double *q = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *z = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *w = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *w2 = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *work = xmalloc(sizeof(double) * mdae_lcp_work_size(n));
    int *iwork = xmalloc(sizeof(int) * mdae_lcp_iwork_size(n));
    mdae_lcp_problem p;
    mdae_lcp_options o;
    mdae_lcp_info info;
    random_matrix(n, M, kind);
    for (i = 0; i < n; ++i) q[i] = nrand() * (irand(4) == 0 ? 1e6 : 1.0);
    for (i = 0; i < n; ++i) z[i] = fabs(nrand());
    if (n > 0 && irand(10) == 0) M[irand(n * n)] = weird();
    if (n > 0 && irand(10) == 0) q[irand(n)] = weird();
    mdae_lcp_options_default(&o);
    if (irand(3) == 0) o.max_iter = irand(50);
    if (irand(4) == 0) o.warm_start = 1;
    if (o.warm_start && n > 0 && irand(8) == 0) z[irand(n)] = NAN;
    if (irand(10) == 0) o.tol = irand(2) ? -1.0 : weird();
    if (irand(10) == 0) o.omega = 3.0 * urand() - 0.5;
    if (irand(10) == 0) o.max_iter = -1 - irand(5);
    if (irand(6) == 0) {
        o.interrupt = test_interrupt;
        poll_count = 0;
        poll_fire_at = 1 + irand(3);
    }
    p.n = n; p.M = M; p.q = q;
    st = mdae_lcp_solve(method, &p, &o, z, w, work, iwork, &info);
    ++n_cases;
    n_interrupted += st == MDAE_INTERRUPTED;
    if (st != info.status && method >= 0 && method <= 2)
        fail("lcp", "returned status %g differs from info %g", st, info.status);
    if (st == MDAE_OK) {
        double r = mdae_lcp_residual(&p, z, w2);
        ++n_success;
        for (i = 0; i < n; ++i)
            if (!(z[i] >= 0.0) || !isfinite(z[i])) fail("lcp", "z[%g] = %g not >= 0", i, z[i]);
        if (!(r <= o.tol)) fail("lcp success", "residual %g > tol %g", r, o.tol);
        if (!(fabs(r - info.residual) <= 1e-12 + 1e-9 * r))
            fail("lcp", "info residual %g differs from recomputed %g", info.residual, r);
    }
    /* the batch entry point, three problems */
    {
        int nb = irand(4), k;
        double *Ms = xmalloc(sizeof(double) * (size_t)(nb * n * n + 1));
        double *qs = xmalloc(sizeof(double) * (size_t)(nb * n + 1));
        double *zs = xmalloc(sizeof(double) * (size_t)(nb * n + 1));
        double *ws = xmalloc(sizeof(double) * (size_t)(nb * n + 1));
        int *sts = xmalloc(sizeof(int) * (size_t)(nb + 1)), *its = xmalloc(sizeof(int) * (size_t)(nb + 1));
        double *res = xmalloc(sizeof(double) * (size_t)(nb + 1));
        for (k = 0; k < nb; ++k) {
            random_matrix(n, Ms + (size_t)k * n * n, irand(7));
            for (i = 0; i < n; ++i) { qs[k * n + i] = nrand(); zs[k * n + i] = 0.0; }
        }
        if (nb > 0 && n > 0 && irand(8) == 0) qs[irand(nb * n)] = NAN;
        if (o.interrupt) { poll_count = 0; poll_fire_at = 1 + irand(3); }
        mdae_lcp_solve_batch(method, nb, n, Ms, qs, &o, zs, ws, work, iwork, sts, its, res);
        ++n_cases;
        for (k = 0; k < nb; ++k)
            if (sts[k] == MDAE_OK) {
                mdae_lcp_problem pk;
                double r;
                pk.n = n; pk.M = Ms + (size_t)k * n * n; pk.q = qs + (size_t)k * n;
                r = mdae_lcp_residual(&pk, zs + (size_t)k * n, w2);
                ++n_success;
                if (!(r <= o.tol)) fail("lcp batch success", "residual %g > tol %g", r, o.tol);
            }
        free(Ms); free(qs); free(zs); free(ws); free(sts); free(its); free(res);
    }
    free(M); free(q); free(z); free(w); free(w2); free(work); free(iwork);
}

/* ---- impact -------------------------------------------------------------------------- */
static void delassus(int n, double *D, int kind)
{
    int i, j;
    if (kind < 3) { random_matrix(n, D, kind == 2 ? 0 : kind); return; }
    random_matrix(n, D, kind == 3 ? 6 : 5);
    if (kind == 4 && n > 1) { i = irand(n); j = irand(n); if (i != j) D[i * n + j] += 1.0; }
}

static void fuzz_impact(void)
{
    int dim = irand(12) == 0 ? irand(5) : 2 + irand(2);
    int nc = irand(5) == 0 ? irand(2) : 1 + irand(irand(4) == 0 ? 12 : 5);
    int method = irand(12) == 0 ? irand(5) - 1 : irand(3);
    int d = (dim == 2 || dim == 3) ? dim : 2, n = nc * d, i, st, cap;
    mdae_impact_problem p;
    mdae_impact_options o;
    mdae_impact_info info;
    double *D, *v, *en, *et, *mu, *P, *vp, *dT, *work, *c, *u;
    int *modes, *iwork;
    size_t ws, iws;
    /* spatial enumeration visits 3^nc mode combinations, each with its direction searches:
     * 8 contacts take seconds under ASan; up to 5 keep a case in milliseconds */
    if (method == MDAE_CONTACT_ENUM && d == 3 && nc > 5 && nc <= MDAE_CONTACT_ENUM_MAX) {
        nc = 4 + irand(2);
        n = nc * d;
    }
    mdae_impact_options_default(&o);
    o.method = method;
    o.facets = irand(8) == 0 ? irand(600) - 50 : 3 + irand(10);
    o.max_solutions = irand(8) == 0 ? irand(4) - 1 : 1 + irand(6);
    o.max_iter = irand(8) == 0 ? irand(3) - 1 : 1 + irand(3000);
    if (irand(10) == 0) o.tol = irand(2) ? weird() : -1e-9;
    else if (irand(3) == 0) o.tol = pow(10.0, -(double)(3 + irand(12)));
    if (irand(5) == 0) o.allow_energy_gain = 1;
    /* the box budget of the sliding-direction searches: every mode combination of several
     * spatial contacts searches up to max_boxes boxes (~0.1 ms each under ASan), so the
     * default (MDAE_SLIDE_MAX_BOXES) would make one problem with 5+ contacts take minutes */
    if (irand(12) == 0) o.max_boxes = irand(3) - 1;
    else if (irand(3) == 0 || (dim == 3 && nc > 2)) o.max_boxes = 1 + irand(nc > 2 ? 20 : 300);
    if (irand(8) == 0) { o.interrupt = test_interrupt; poll_count = 0; poll_fire_at = 1 + irand(2); }
    cap = o.max_solutions > 0 ? o.max_solutions : 1;
    if (method != MDAE_CONTACT_ENUM) cap = 1;
    D = xmalloc(sizeof(double) * (size_t)(n * n + 1));
    v = xmalloc(sizeof(double) * (size_t)(n + 1));
    en = xmalloc(sizeof(double) * (size_t)(nc + 1));
    et = xmalloc(sizeof(double) * (size_t)(nc + 1));
    mu = xmalloc(sizeof(double) * (size_t)(nc + 1));
    P = xmalloc(sizeof(double) * (size_t)(cap * n + 1));
    vp = xmalloc(sizeof(double) * (size_t)(cap * n + 1));
    dT = xmalloc(sizeof(double) * (size_t)(cap + 1));
    modes = xmalloc(sizeof(int) * (size_t)(cap * nc + 1));
    c = xmalloc(sizeof(double) * (size_t)(n + 1));
    u = xmalloc(sizeof(double) * (size_t)(n + 1));
    delassus(n, D, irand(5));
    for (i = 0; i < n; ++i) v[i] = nrand();
    for (i = 0; i < nc; ++i) {
        v[i * d] = -fabs(v[i * d]);
        en[i] = irand(3) ? urand() : (double)irand(2);
        et[i] = irand(3) ? 2.0 * urand() - 1.0 : 0.0;
        mu[i] = irand(6) == 0 ? INFINITY : (irand(5) == 0 ? 0.0 : 2.0 * urand());
    }
    if (irand(12) == 0 && n > 0) D[irand(n * n)] = weird();
    if (irand(12) == 0 && n > 0) v[irand(n)] = weird();
    if (irand(12) == 0 && nc > 0) en[irand(nc)] = irand(2) ? weird() : 1.5;
    if (irand(12) == 0 && nc > 0) mu[irand(nc)] = irand(2) ? NAN : -1.0;
    ws = mdae_contact_work_size(nc, dim, o.facets);
    iws = mdae_contact_iwork_size(nc, dim, o.facets);
    work = xmalloc(sizeof(double) * ws);
    iwork = xmalloc(sizeof(int) * iws);
    p.nc = nc; p.dim = dim; p.D = D; p.v_minus = v; p.e_n = en; p.e_t = et; p.mu = mu;
    {
        clock_t c0 = clock();
        double sec;
        st = mdae_impact_solve(&p, &o, P, vp, modes, dT, work, iwork, &info);
        n_interrupted += st == MDAE_INTERRUPTED;
        sec = (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (sec > 0.5)
            fprintf(stderr, "slow impact case (%.1f s): method %d nc %d dim %d max_boxes %d max_iter %d facets %d st %d nsol %d\n",
                    sec, method, nc, dim, o.max_boxes, o.max_iter, o.facets, st, info.nsol);
    }
    ++n_cases;
    if (st == MDAE_OK || st == MDAE_AMBIGUOUS) {
        /* the first solution against its own residual: v+ = v- + D P, and the FC error of
         * the impact law (exact for enumeration and the 2D LCP; NSGS to its tol) */
        mdae_fc_problem fp;
        double err, sc = 0.0, dv = 0.0, lim;
        int k;
        ++n_success;
        for (i = 0; i < n; ++i) {
            int a = i / d;
            double e = (i % d == 0) ? en[a] : et[a], s = v[i];
            c[i] = (1.0 + e) * v[i];
            for (k = 0; k < n; ++k) s += D[i * n + k] * P[k];
            if (!isfinite(P[i]) || !isfinite(vp[i])) {
                fail("impact success", "P[%g] = %g", i, P[i]);
                fprintf(stderr, "   method %d nc %d dim %d tol %g allow %d st %d\n", method, nc, dim, o.tol, o.allow_energy_gain, st);
                for (k = 0; k < n * n; ++k) fprintf(stderr, " D %.17g", D[k]);
                for (k = 0; k < n; ++k) fprintf(stderr, " v %.17g", v[k]);
                fprintf(stderr, " en %.17g et %.17g mu %.17g\n", en[0], et[0], mu[0]);
            }
            {
                double si = fabs(v[i]) + fabs(vp[i]);
                for (k = 0; k < n; ++k) si += fabs(D[i * n + k] * P[k]);
                if (fabs(s - vp[i]) > dv) dv = fabs(s - vp[i]);
                if (si > sc) sc = si;
            }
        }
        if (dv > 1e-8 * (1.0 + sc)) {
            fail("impact success", "v+ - (v- + D P) = %g (scale %g)", dv, sc);
            fprintf(stderr, "   method %d nc %d dim %d tol %g allow %d st %d facets %d max_sol %d max_iter %d\n", method, nc, dim, o.tol, o.allow_energy_gain, st, o.facets, o.max_solutions, o.max_iter);
            for (k = 0; k < n * n; ++k) fprintf(stderr, " D %.17g", D[k]);
            for (k = 0; k < n; ++k) fprintf(stderr, " v %.17g", v[k]);
            for (k = 0; k < nc; ++k) fprintf(stderr, " en %.17g et %.17g mu %.17g", en[k], et[k], mu[k]);
            fprintf(stderr, "\n");
        }
        for (i = 0; i < nc; ++i)
            if (!(P[i * d] >= -1e-9 * (1.0 + fabs(P[i * d]))))
                fail("impact success", "P_n[%g] = %g < 0", i, P[i * d]);
        fp.dim = d; fp.nc = nc; fp.W = D; fp.indptr = NULL; fp.indices = NULL; fp.data = NULL;
        fp.q = c; fp.mu = mu;
        err = mdae_fc_error(&fp, P, u);
        lim = method == MDAE_CONTACT_NSGS ? 10.0 * o.tol : 1e-6;
        for (i = 0; i < nc; ++i)               /* e = 1e308 (allow_energy_gain): overflow */
            if (!(fabs(en[i]) <= 1e6 && fabs(et[i]) <= 1e6)) lim = INFINITY;
        if (method == MDAE_CONTACT_LCP && d == 3) lim = 0.5;   /* polyhedral cone */
        for (i = 0; i < nc; ++i) if (isinf(mu[i])) lim = INFINITY; /* error undefined */
        if (!(err <= lim) && lim < INFINITY) {
            fail("impact success", "FC error %g > %g", err, lim);
            fprintf(stderr, "   method %d nc %d dim %d tol %g allow %d st %d\n", method, nc, dim, o.tol, o.allow_energy_gain, st);
            for (k = 0; k < n * n; ++k) fprintf(stderr, " D %.17g", D[k]);
            for (k = 0; k < n; ++k) fprintf(stderr, " v %.17g P %.17g", v[k], P[k]);
            for (k = 0; k < nc; ++k) fprintf(stderr, " en %.17g et %.17g mu %.17g", en[k], et[k], mu[k]);
            fprintf(stderr, "\n");
        }
    }
    free(D); free(v); free(en); free(et); free(mu); free(P); free(vp); free(dT); free(modes);
    free(work); free(iwork); free(c); free(u);
}

static void fuzz_impact_batch(void)
{
    int dim = 2 + irand(2), nc = 1 + irand(4), n = nc * dim, nprob = irand(5), i, k;
    int method = irand(3);
    mdae_impact_options o;
    mdae_impact_info info;
    double *D = xmalloc(sizeof(double) * (size_t)(nprob * n * n + 1));
    double *v = xmalloc(sizeof(double) * (size_t)(nprob * n + 1));
    double *en = xmalloc(sizeof(double) * (size_t)(nprob * nc + 1));
    double *et = xmalloc(sizeof(double) * (size_t)(nprob * nc + 1));
    double *mu = xmalloc(sizeof(double) * (size_t)(nprob * nc + 1));
    double *P = xmalloc(sizeof(double) * (size_t)(nprob * n + 1));
    double *vp = xmalloc(sizeof(double) * (size_t)(nprob * n + 1));
    double *dT = xmalloc(sizeof(double) * (size_t)(nprob + 1));
    int *modes = xmalloc(sizeof(int) * (size_t)(nprob * nc + 1));
    int *st = xmalloc(sizeof(int) * (size_t)(nprob + 1)), *ns = xmalloc(sizeof(int) * (size_t)(nprob + 1));
    int *inc = irand(4) == 0 ? NULL : xmalloc(sizeof(int) * (size_t)(nprob + 1));
    double *work, *Bt, *u, *M, *up, *T;
    int *iwork, nu = 1 + irand(4), ret;
    mdae_impact_options_default(&o);
    o.method = method;
    o.facets = 3 + irand(6);
    if (irand(10) == 0) o.max_boxes = irand(3) - 1;      /* 0, -1: MDAE_BAD_MAX_BOXES */
    else if (irand(3) == 0 || (dim == 3 && nc > 2)) o.max_boxes = 1 + irand(nc > 2 ? 20 : 200);
    if (method == MDAE_CONTACT_LCP) for (i = 0; i < nprob * nc; ++i) mu[i] = 1.0;
    if (irand(5) == 0) { o.interrupt = test_interrupt; poll_count = 0; poll_fire_at = 1; }
    work = xmalloc(sizeof(double) * mdae_contact_work_size(nc, dim, o.facets));
    iwork = xmalloc(sizeof(int) * mdae_contact_iwork_size(nc, dim, o.facets));
    for (k = 0; k < nprob; ++k) {
        delassus(n, D + (size_t)k * n * n, irand(4));
        for (i = 0; i < n; ++i) v[k * n + i] = nrand();
        for (i = 0; i < nc; ++i) {
            en[k * nc + i] = urand(); et[k * nc + i] = 0.0;
            mu[k * nc + i] = method == MDAE_CONTACT_LCP ? urand() : (irand(5) ? urand() : INFINITY);
        }
    }
    if (nprob > 0 && irand(6) == 0) v[irand(nprob * n)] = NAN;
    if (inc) for (k = 0; k < nprob; ++k) inc[k] = -7;   /* every entry must be written */
    ret = mdae_impact_batch(nprob, nc, dim, D, v, en, et, mu, &o, P, vp, modes, dT, st, ns,
                            inc, work, iwork, &info);
    ++n_cases;
    if (method == MDAE_CONTACT_ENUM && o.max_boxes < 1 && nprob > 0 && ret != MDAE_BAD_INPUT)
        fail("impact batch", "max_boxes %g accepted (status %g)", o.max_boxes, ret);
    for (k = 0; k < nprob; ++k) {
        if (inc && inc[k] < 0) fail("impact batch", "incomplete[%g] = %g not written", k, inc[k]);
        if (st[k] == MDAE_OK || st[k] == MDAE_AMBIGUOUS) {
            ++n_success;
            for (i = 0; i < n; ++i)
                if (!isfinite(P[k * n + i])) fail("impact batch success", "P[%g] = %g", i, P[k * n + i]);
            if (!(ns[k] >= 1)) fail("impact batch success", "problem %g: nsol %g", k, ns[k]);
        }
    }
    /* mdae_impact_apply on the results (NaN impulses allowed) */
    Bt = xmalloc(sizeof(double) * (size_t)(nprob * n * nu + 1));
    u = xmalloc(sizeof(double) * (size_t)(nprob * nu + 1));
    M = xmalloc(sizeof(double) * (size_t)(nprob * nu * nu + 1));
    up = xmalloc(sizeof(double) * (size_t)(nprob * nu + 1));
    T = xmalloc(sizeof(double) * (size_t)(nprob + 1));
    for (i = 0; i < nprob * n * nu; ++i) Bt[i] = nrand();
    for (i = 0; i < nprob * nu; ++i) u[i] = nrand();
    for (i = 0; i < nprob * nu * nu; ++i) M[i] = nrand();
    mdae_impact_apply(nprob, n, nu, Bt, P, u, M, up, T);
    ++n_cases;
    free(Bt); free(u); free(M); free(up); free(T);
    free(D); free(v); free(en); free(et); free(mu); free(P); free(vp); free(dT); free(modes);
    free(st); free(ns); free(inc); free(work); free(iwork);
}

static void fuzz_painleve(void)
{
    int dim = 2 + irand(2), nc = irand(10) == 0 ? irand(10) : irand(5), n = nc * dim, i, st, cap = irand(8) == 0 ? irand(3) - 1 : 1 + irand(8);
    int capa = cap > 0 ? cap : 1;
    mdae_impact_options o;
    mdae_impact_info info;
    double *D = xmalloc(sizeof(double) * (size_t)(n * n + 1)), *b = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *vt = xmalloc(sizeof(double) * (size_t)(nc * (dim - 1) + 1)), *mu = xmalloc(sizeof(double) * (size_t)(nc + 1));
    double *lam = xmalloc(sizeof(double) * (size_t)(capa * n + 1)), *acc = xmalloc(sizeof(double) * (size_t)(capa * n + 1));
    int *modes = xmalloc(sizeof(int) * (size_t)(capa * nc + 1));
    double *work = xmalloc(sizeof(double) * (mdae_contact_work_size(nc, dim, 3) + 2 * (size_t)nc + 16));
    int *iwork = xmalloc(sizeof(int) * (mdae_contact_iwork_size(nc, dim, 3) + (size_t)nc + 16));
    double slide_tol = irand(10) == 0 ? weird() : 1e-12;
    delassus(n, D, irand(5));
    for (i = 0; i < n; ++i) b[i] = nrand();
    for (i = 0; i < nc * (dim - 1); ++i) vt[i] = irand(3) ? nrand() : 0.0;
    for (i = 0; i < nc; ++i) mu[i] = irand(8) == 0 ? INFINITY : urand();
    if (n > 0 && irand(10) == 0) b[irand(n)] = weird();
    mdae_impact_options_default(&o);
    o.max_solutions = cap;
    if (irand(10) == 0) o.tol = weird();
    if (dim == 3 && nc > 2) o.max_boxes = 1 + irand(20);   /* see fuzz_impact */
    if (irand(8) == 0) { o.interrupt = test_interrupt; poll_count = 0; poll_fire_at = 1 + irand(3); }
    if (irand(12) == 0) o.max_boxes = irand(3) - 1;
    st = mdae_painleve_solve(nc, dim, D, b, vt, mu, slide_tol, &o, lam, acc, modes, work, iwork, &info);
    ++n_cases;
    n_interrupted += st == MDAE_INTERRUPTED;
    if (st != info.status) fail("painleve", "returned status %g differs from info %g", st, info.status);
    if (st == MDAE_OK || st == MDAE_AMBIGUOUS) {
        ++n_success;
        for (i = 0; i < n; ++i)
            if (!isfinite(lam[i]) || !isfinite(acc[i])) fail("painleve success", "lam[%g] = %g", i, lam[i]);
    }
    free(D); free(b); free(vt); free(mu); free(lam); free(acc); free(modes); free(work); free(iwork);
}

/* ---- Siconos friction-contact -------------------------------------------------------- */
static void fuzz_fc(void)
{
    int dim = 2 + irand(2), nc = irand(8), n = nc * dim, i, j, nnz = 0, st;
    int sparse = irand(2);
    mdae_fc_problem p;
    mdae_fc_options o;
    mdae_fc_info info;
    double *W = xmalloc(sizeof(double) * (size_t)(n * n + 1)), *q = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *mu = xmalloc(sizeof(double) * (size_t)(nc + 1)), *r = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *u = xmalloc(sizeof(double) * (size_t)(n + 1)), *u2 = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *work = xmalloc(sizeof(double) * (mdae_fc_work_size(nc, dim) + 1));
    int *indptr = xmalloc(sizeof(int) * (size_t)(n + 1)), *indices;
    double *data;
    delassus(n, W, irand(4));
    for (i = 0; i < n; ++i) { q[i] = nrand(); r[i] = fabs(nrand()); }
    for (i = 0; i < nc; ++i) mu[i] = irand(6) == 0 ? 0.0 : urand();
    if (n > 0 && irand(10) == 0) q[irand(n)] = weird();
    if (n > 0 && irand(10) == 0) W[irand(n * n)] = weird();
    indices = xmalloc(sizeof(int) * (size_t)(n * n + 1));
    data = xmalloc(sizeof(double) * (size_t)(n * n + 1));
    indptr[0] = 0;
    for (i = 0; i < n; ++i) {
        for (j = 0; j < n; ++j)
            if (W[i * n + j] != 0.0 || irand(4)) { indices[nnz] = j; data[nnz] = W[i * n + j]; ++nnz; }
        indptr[i + 1] = nnz;
    }
    if (sparse && nnz > 0 && irand(10) == 0) indices[irand(nnz)] = irand(2) ? n + irand(3) : -1;
    p.dim = dim; p.nc = nc; p.q = q; p.mu = mu;
    p.W = sparse ? NULL : W; p.indptr = sparse ? indptr : NULL;
    p.indices = sparse ? indices : NULL; p.data = sparse ? data : NULL;
    mdae_fc_options_default(&o);
    o.max_iter = irand(8) == 0 ? irand(3) - 1 : 1 + irand(500);
    o.warm_start = irand(2);
    o.error_every = irand(8) == 0 ? irand(2) - 1 : 1 + irand(5);
    if (irand(4) == 0) o.tol = pow(10.0, -(double)(2 + irand(12)));
    if (irand(10) == 0) o.tol = weird();
    if (irand(6) == 0) { o.interrupt = test_interrupt; poll_count = 0; poll_fire_at = 1 + irand(2); }
    st = mdae_fc_nsgs(&p, &o, r, u, work, &info);
    ++n_cases;
    n_interrupted += st == MDAE_INTERRUPTED;
    if (st == MDAE_OK) {
        double e = mdae_fc_error(&p, r, u2);
        ++n_success;
        if (!(e <= o.tol * (1.0 + 1e-9))) fail("fc nsgs success", "error %g > tol %g", e, o.tol);
    }
    /* the exact local solver on one contact */
    if (n >= dim) {
        double A[9], ql[3], rl[3], ul[3], th = urand();
        for (i = 0; i < dim * dim; ++i) A[i] = W[(i / dim) * n + (i % dim)];
        for (i = 0; i < dim; ++i) ql[i] = irand(12) == 0 ? weird() : q[i];
        mdae_fc_local_solve(dim, A, ql, irand(6) == 0 ? INFINITY : mu[0], rl, ul, irand(2) ? &th : NULL);
        ++n_cases;
    }
    free(W); free(q); free(mu); free(r); free(u); free(u2); free(work); free(indptr);
    free(indices); free(data);
}

/* ---- Moreau-Jean stepping: np particles in the plane above the floor y = 0 ----------- */
typedef struct { int np; double m, g; int bad; } particles;

static int particle_terms(void *ctx, const double **arg, double **res)
{
    const particles *P = ctx;
    int nu = 2 * P->np, i, a;
    const double *q = arg[0];
    /* column-major outputs: M, h, Ku, Kq, W (nrow x nu), gap, C, cz, N, V */
    for (i = 0; i < nu * nu; ++i) { res[0][i] = 0.0; res[2][i] = 0.0; res[3][i] = 0.0; res[8][i] = 0.0; }
    for (i = 0; i < nu; ++i) {
        res[0][i * nu + i] = P->m;
        res[1][i] = i % 2 ? -P->m * P->g : 0.0;
        res[8][i * nu + i] = 1.0;
    }
    for (i = 0; i < 2 * P->np * nu; ++i) res[4][i] = 0.0;
    for (a = 0; a < P->np; ++a) {
        int rn = 2 * a, rt = 2 * a + 1, nrow = 2 * P->np;
        res[4][(2 * a + 1) * nrow + rn] = 1.0;   /* normal row: v_y */
        res[4][(2 * a) * nrow + rt] = 1.0;       /* tangent row: v_x */
        res[5][a] = q[2 * a + 1];
    }
    res[9][0] = 0.0;
    if (P->bad == 1) res[1][0] = NAN;
    return P->bad == 2;
}

static void fuzz_step(void)
{
    particles P;
    mdae_step_system s;
    mdae_step_options o;
    mdae_step_info info;
    int np = irand(4), nq, nu, nc, nsteps = irand(60), every = 1 + irand(4), nout, ev_cap = irand(4), i, st;
    double *e_n, *e_t, *mu, *q, *u, *T, *Q, *U, *Pout, *evP, *evx, *work, *pp, wc[1];
    int *evs, *evc, *iwork;
    P.np = np; P.m = 0.5 + urand(); P.g = 9.81; P.bad = irand(12) == 0 ? 1 + irand(2) : 0;
    nq = nu = 2 * np; nc = np;
    memset(&s, 0, sizeof s);
    s.nq = nq; s.nu = nu; s.np = 0; s.nw = 0; s.nc = nc; s.dim = 2; s.rheonomic = 0;
    s.r = 0; s.m = 0; s.nquat = 0; s.quat = NULL;
    e_n = xmalloc(sizeof(double) * (size_t)(nc + 1)); e_t = xmalloc(sizeof(double) * (size_t)(nc + 1));
    mu = xmalloc(sizeof(double) * (size_t)(nc + 1));
    for (i = 0; i < nc; ++i) { e_n[i] = urand(); e_t[i] = 0.0; mu[i] = irand(5) == 0 ? INFINITY : urand(); }
    s.e_n = e_n; s.e_t = e_t; s.mu = mu;
    s.terms = particle_terms; s.terms_ctx = &P; s.proj = NULL; s.proj_ctx = NULL;
    mdae_step_options_default(&o);
    o.dt = irand(12) == 0 ? weird() : 1e-3 * (1 + irand(20));
    o.projection = MDAE_STEP_PROJ_NONE;
    o.every = every;
    o.lcp_friction = irand(2);
    if (irand(10) == 0) o.nsgs_iter = irand(2) - 1;
    if (irand(10) == 0) o.nsgs_tol = weird();
    if (irand(6) == 0) {   /* polled about every MDAE_POLL_WORK flops: may fire at once */
        o.interrupt = test_interrupt; o.interrupt_ctx = NULL;
        poll_count = 0; poll_fire_at = 1 + irand(3);
        if (irand(3) == 0 && np > 0) {   /* long enough to be polled (~1000-6000 steps a poll) */
            nsteps = 20000 + irand(10000);
            o.every = every = 1000;
        }
    }
    nout = mdae_step_n_out(nsteps, every);
    q = xmalloc(sizeof(double) * (size_t)(nq + 1)); u = xmalloc(sizeof(double) * (size_t)(nu + 1));
    for (i = 0; i < np; ++i) {
        q[2 * i] = nrand(); q[2 * i + 1] = irand(2) ? 0.0 : 0.01 * urand();
        u[2 * i] = nrand(); u[2 * i + 1] = -fabs(nrand());
    }
    T = xmalloc(sizeof(double) * (size_t)nout); Q = xmalloc(sizeof(double) * (size_t)(nout * nq + 1));
    U = xmalloc(sizeof(double) * (size_t)(nout * nu + 1)); Pout = xmalloc(sizeof(double) * (size_t)(nout * nc * 2 + 1));
    evs = xmalloc(sizeof(int) * (size_t)(ev_cap + 1)); evc = xmalloc(sizeof(int) * (size_t)(ev_cap + 1));
    evP = xmalloc(sizeof(double) * (size_t)(ev_cap + 1)); evx = xmalloc(sizeof(double) * (size_t)(ev_cap * 2 * (nq + nu) + 1));
    work = xmalloc(sizeof(double) * mdae_step_work_size(&s)); iwork = xmalloc(sizeof(int) * mdae_step_iwork_size(&s));
    pp = wc;
    st = mdae_step_run(&s, &o, pp, wc, NULL, 0.0, nsteps, q, u, T, Q, U, Pout, evs, evc, evP, evx,
                       ev_cap, work, iwork, &info);
    ++n_cases;
    if (st == MDAE_INTERRUPTED) {
        ++n_success;                     /* a stop asked for and honoured */
        ++n_interrupted;
        if (!o.interrupt) fail("step", "interrupted without a callback (%g %g)", 0, 0);
        if (!(info.step >= 0 && info.step <= nsteps)) fail("step interrupted", "at step %g of %g", info.step, nsteps);
    }
    if (st == MDAE_OK) {
        ++n_success;
        for (i = 0; i < nq; ++i) if (!isfinite(q[i])) fail("step success", "q[%g] = %g", i, q[i]);
        for (i = 0; i < np; ++i)
            if (q[2 * i + 1] < -0.05) {
                fail("step success", "particle %g below the floor: y = %g", i, q[2 * i + 1]);
                fprintf(stderr, "   dt %g nsteps %d failures %d nsgs_iter %d tol %g lcp %d mu %g e %g\n", o.dt, nsteps, info.solver_failures, o.nsgs_iter, o.nsgs_tol, o.lcp_friction, mu[i], e_n[i]);
            }
    }
    free(e_n); free(e_t); free(mu); free(q); free(u); free(T); free(Q); free(U); free(Pout);
    free(evs); free(evc); free(evP); free(evx); free(work); free(iwork);
}

/* ---- sliding directions of contacts sliding at once in space (mdae_slide.h) ---------- */
/* G(th) of one sliding contact (k = 1): V_1 sin th - V_2 cos th with N = A[0,:] . g,
 * V = N c_t - A[1:3,:] g c_n; returns |G| and its scale in *sc */
static double slide_g1(const double *A, const double *c, double mu, double th, double *sc)
{
    double g[3], N = 0.0, V[2], s = 0.0;
    int i, j;
    g[0] = 1.0; g[1] = -mu * cos(th); g[2] = -mu * sin(th);
    for (j = 0; j < 3; ++j) N += A[j] * g[j];
    for (i = 0; i < 2; ++i) {
        double ag = 0.0, aga = 0.0;
        for (j = 0; j < 3; ++j) { ag += A[(i + 1) * 3 + j] * g[j]; aga += fabs(A[(i + 1) * 3 + j] * g[j]); }
        V[i] = N * c[i + 1] - ag * c[0];
        s += fabs(N * c[i + 1]) + aga * fabs(c[0]);
    }
    /* |g_j| <= mu for j = 1, 2 whatever th: the scale must not vanish with sin th at a root */
    for (j = 0; j < 3; ++j) s += fabs(A[j]) * (j ? mu : 1.0) * (fabs(c[1]) + fabs(c[2]));
    for (i = 0; i < 2; ++i)
        for (j = 0; j < 3; ++j) s += fabs(A[(i + 1) * 3 + j]) * (j ? mu : 1.0) * fabs(c[0]);
    *sc = s;
    return fabs(V[0] * sin(th) - V[1] * cos(th));
}

static void fuzz_slide(void)
{
    int k = irand(6) == 0 ? irand(MDAE_SLIDE_KMAX + 3) - 1 : 1 + irand(3), n = k > 0 ? 3 * k : 0;
    int max_roots = irand(8) == 0 ? irand(2) : 1 + irand(16), max_boxes, i, nr, complete = -1;
    double *A = xmalloc(sizeof(double) * (size_t)(n * n + 1)), *c = xmalloc(sizeof(double) * (size_t)(n + 1));
    double *mu = xmalloc(sizeof(double) * (size_t)(k > 0 ? k + 1 : 1));
    double *th = xmalloc(sizeof(double) * (size_t)(max_roots * (k > 0 ? k : 1) + 1));
    double a_scale = 0.0;
    /* the budget: ~40 us a box for k = 3 */
    max_boxes = irand(10) == 0 ? irand(3) - 1 : 1 + irand(k >= 3 ? 60 : 400);
    delassus(n, A, irand(5));
    for (i = 0; i < n; ++i) c[i] = irand(8) == 0 ? 0.0 : nrand();
    for (i = 0; i < k; ++i) mu[i] = irand(6) == 0 ? 0.0 : 2.0 * urand();
    if (n > 0 && irand(12) == 0) A[irand(n * n)] = weird();
    if (n > 0 && irand(12) == 0) c[irand(n)] = weird();
    if (k > 0 && irand(12) == 0) mu[irand(k)] = irand(2) ? INFINITY : NAN;
    for (i = 0; i < n * n; ++i) if (fabs(A[i]) > a_scale) a_scale = fabs(A[i]);
    if (irand(10) == 0) a_scale = irand(2) ? 0.0 : weird();
    nr = mdae_slide_search(k, A, c, mu, a_scale, max_boxes, max_roots, th, &complete);
    ++n_cases;
    if (nr < 0 || nr > max_roots) fail("slide search", "%g roots, capacity %g", nr, max_roots);
    if (complete != 0 && complete != 1) fail("slide search", "complete = %g (%g)", complete, 0);
    for (i = 0; i < (nr > 0 ? nr : 0) * k && i < max_roots * k; ++i)
        if (!isfinite(th[i])) fail("slide search", "root entry %g = %g", i, th[i]);
    if (nr > 0) ++n_success;
    /* the closed form for one contact, each root checked against G = 0 */
    if (k >= 1) {
        double th1[4], sc;
        int ok = 1;
        for (i = 0; i < 9; ++i) ok = ok && isfinite(A[i]);
        for (i = 0; i < 3; ++i) ok = ok && fabs(c[i]) < 1e100;   /* no overflow in G */
        for (i = 0; i < 9; ++i) ok = ok && fabs(A[i]) < 1e100;
        complete = -1;
        nr = mdae_slide_search1(A, c, mu[0], th1, &complete);
        ++n_cases;
        if (nr < 0 || nr > 4) fail("slide search1", "%g roots (at most %g)", nr, 4);
        if (complete != 0 && complete != 1) fail("slide search1", "complete = %g (%g)", complete, 0);
        if (ok && isfinite(mu[0]) && complete == 1)
            for (i = 0; i < nr && i < 4; ++i) {
                double g = slide_g1(A, c, mu[0], th1[i], &sc);
                ++n_success;
                if (!(g <= 1e-6 * sc + 1e-300)) {
                    int j;
                    fail("slide search1 root", "|G(th)| = %g, scale %g", g, sc);
                    fprintf(stderr, "   th %.17g mu %.17g A", th1[i], mu[0]);
                    for (j = 0; j < 9; ++j) fprintf(stderr, " %.17g", A[j]);
                    fprintf(stderr, " c %.17g %.17g %.17g\n", c[0], c[1], c[2]);
                }
            }
    }
    free(A); free(c); free(mu); free(th);
}

/* ---- smooth phase (mdae_ode.h): damped oscillators x_i'' = -w_i^2 x_i, events x_i = lev_i */
typedef struct { int m; double w[8], lev[8]; int fail_at, nan_at, calls; } osc;

static int osc_rhs(void *ctx, const double **arg, double **res)
{
    osc *O = ctx;
    const double *x = arg[0];
    int i;
    ++O->calls;
    for (i = 0; i < O->m; ++i) {
        res[0][2 * i] = x[2 * i + 1];
        res[0][2 * i + 1] = -O->w[i] * O->w[i] * x[2 * i];
    }
    if (O->nan_at && O->calls == O->nan_at) res[0][0] = NAN;
    return O->fail_at && O->calls == O->fail_at;
}

static int osc_ev(void *ctx, const double **arg, double **res)
{
    const osc *O = ctx;
    const double *x = arg[0];
    int i;
    for (i = 0; i < O->m; ++i) {
        res[0][i] = x[2 * i] - O->lev[i];
        res[1][i] = x[2 * i + 1];
    }
    return 0;
}

static void random_ode_options(mdae_ode_options *o, double *shift, int ne)
{
    int i;
    mdae_ode_options_default(o);
    o->method = irand(12) == 0 ? irand(4) - 1 : irand(2);
    o->rtol = pow(10.0, -(double)(4 + irand(9)));
    o->atol = 1e-12;
    o->window = 0.05 + urand();
    o->window_max = o->window * (1.0 + 4.0 * urand());
    o->nsub = 1 + irand(40);
    o->event_tol = 1e-10;
    o->max_steps = 100000;
    for (i = 0; i < ne; ++i) shift[i] = irand(3) ? 0.0 : 1e-9 * urand();
    o->shift = shift;
    if (irand(10) == 0) o->max_steps = irand(20);
    if (irand(20) == 0) o->rtol = irand(2) ? weird() : -1.0;
    if (irand(20) == 0) o->atol = irand(2) ? weird() : 0.0;
    if (irand(20) == 0) o->window = irand(2) ? weird() : 0.0;
    if (irand(20) == 0) o->window_max = weird();
    if (irand(20) == 0) o->nsub = irand(2) - 1;
    if (irand(20) == 0) o->event_tol = weird();
    if (irand(8) == 0) o->stiff_h = 1e-3 * urand();
    if (irand(8) == 0) o->h_stab = irand(4) ? 1e-2 * urand() + 1e-4 : weird();
}

static void fuzz_ode(void)
{
    osc O;
    mdae_ode_system s;
    mdae_ode_options o;
    mdae_ode_info info;
    int m = irand(10) == 0 ? 0 : 1 + irand(4), nx = 2 * m, ne = irand(3) ? m : 0, i, st;
    int n_out = irand(12), fired[8], spoilt;
    double x0[8], x[8], xdot[8], e[8], ed[8], shift[8], t_out[12], T[12], X[12 * 8];
    double t0 = irand(4) ? 0.0 : 10.0 * nrand(), t_end = t0 + (irand(10) ? 2.0 * urand() : -urand());
    double h0 = irand(3) ? 0.0 : 1e-3 * urand(), *work;
    memset(&O, 0, sizeof O);
    memset(&s, 0, sizeof s);
    O.m = m;
    for (i = 0; i < m; ++i) {
        O.w[i] = irand(10) == 0 ? 50.0 * urand() : 0.5 + 5.0 * urand();
        O.lev[i] = -0.5 - urand();
        x0[2 * i] = nrand(); x0[2 * i + 1] = nrand();
    }
    if (irand(12) == 0) O.fail_at = 1 + irand(50);
    if (irand(12) == 0) O.nan_at = 1 + irand(50);
    for (i = 0; i < n_out; ++i) t_out[i] = t0 + 2.0 * (i + 1) / (n_out + 1);
    spoilt = n_out > 1 && irand(12) == 0;     /* t_out not increasing: against the contract */
    if (spoilt) t_out[irand(n_out)] = weird();
    s.nx = nx; s.ne = ne; s.P = NULL; s.rhs = osc_rhs; s.rhs_ctx = &O;
    s.ev = osc_ev; s.ev_ctx = &O;
    random_ode_options(&o, shift, ne);
    if (m > 0 && irand(20) == 0) x0[irand(nx)] = weird();
    memcpy(x, x0, sizeof(double) * (size_t)nx);
    work = xmalloc(sizeof(double) * (mdae_ode_work_size(nx, ne) + 1));
    st = mdae_ode_run(&s, &o, t0, x, xdot, t_end, h0, t_out, n_out, T, X, e, ed, fired, work, &info);
    ++n_cases;
    if (st == MDAE_OK) {
        double err = 0.0, scale = 1.0, t = info.t;
        ++n_success;
        if (!(info.n_out >= 0 && info.n_out <= n_out)) fail("ode success", "%g output rows of %g", info.n_out, n_out);
        for (i = 1; i < info.n_out && !spoilt; ++i)
            if (!(T[i] >= T[i - 1])) fail("ode success", "output time %g = %g decreases", i, T[i]);
        if (!(t >= t0 - 1e-12 && t <= t_end + 1e-12 * (1 + fabs(t_end))) && t_end >= t0)
            fail("ode success", "t = %g outside [t0, t_end = %g]", t, t_end);
        /* the exact solution where the run stopped (skipped when the callbacks were spoilt) */
        for (i = 0; i < m && !O.fail_at && !O.nan_at && o.rtol <= 1e-6 && o.atol <= 1e-6 && isfinite(t); ++i) {
            double w = O.w[i], dt = t - t0;
            double xe = x0[2 * i] * cos(w * dt) + x0[2 * i + 1] / w * sin(w * dt);
            scale += fabs(x0[2 * i]) + fabs(x0[2 * i + 1]) / w;
            if (fabs(x[2 * i] - xe) > err) err = fabs(x[2 * i] - xe);
        }
        if (!(err <= 1e-3 * scale)) {
            fail("ode success", "error %g against the exact solution (scale %g)", err, scale);
            fprintf(stderr, "   t0 %g t %g t_end %g outcome %d method %d rtol %g atol %g window %g wmax %g nsub %d event_tol %g stiff_h %g h_stab %g h0 %g steps %ld\n",
                    t0, t, t_end, info.outcome, o.method, o.rtol, o.atol, o.window, o.window_max, o.nsub, o.event_tol, o.stiff_h, o.h_stab, h0, info.n_steps);
        }
        if (info.outcome == MDAE_ODE_EVENT)
            for (i = 0; i < ne; ++i)
                if (fired[i] && !(e[i] <= 0.0)) fail("ode event", "fired function %g is %g > 0", i, e[i]);
    }
    /* one step, the stability function */
    for (i = 0; i < nx; ++i) if (!(fabs(x0[i]) < 1e100)) O.nan_at = -1;   /* overflow: no check */
    if (m > 0 && !O.fail_at && !O.nan_at) {
        double k1[8], y[8], h = irand(10) == 0 ? weird() : 1e-2 * urand();
        double *w13 = xmalloc(sizeof(double) * (size_t)(13 * nx));
        const double *arg[3];
        double *res[1];
        int meth = irand(10) == 0 ? 2 : irand(2);
        arg[0] = x0; arg[1] = &t0; arg[2] = NULL; res[0] = k1;
        osc_rhs(&O, arg, res);
        st = mdae_ode_step(meth, &s, t0, x0, k1, h, y, w13);
        ++n_cases;
        if (st == MDAE_OK && fabs(h) <= 1.0) {   /* h = 1e308 overflows: NaN is arithmetic */
            ++n_success;
            for (i = 0; i < nx; ++i) if (!isfinite(y[i]) && isfinite(x0[i])) fail("ode step", "y[%g] = %g", i, y[i]);
        }
        free(w13);
    }
    {
        double g0 = mdae_ode_growth(irand(2), 0.0, 0.0), g;
        g = mdae_ode_growth(irand(3) - (irand(8) == 0), -5.0 * urand(), irand(8) == 0 ? weird() : 5.0 * nrand());
        (void)g;
        ++n_cases;
        if (!(fabs(g0 - 1.0) <= 1e-14)) fail("ode growth", "R(0) = %g (%g)", g0, 1.0);
    }
    free(work);
}

/* ---- the event cycle (mdae_cycle.h): nb balls in the plane over the floor y = 0 ------- */
typedef struct { int nb; double m, g; int fail_at, calls; } balls;

static int balls_rhs(void *ctx, const double **arg, double **res)
{
    balls *B = ctx;
    const double *x = arg[0];
    int n = 2 * B->nb, i;
    ++B->calls;
    for (i = 0; i < n; ++i) {
        res[0][i] = x[n + i];
        res[0][n + i] = i % 2 ? -B->g : 0.0;
    }
    return B->fail_at && B->calls == B->fail_at;
}

static int balls_ev(void *ctx, const double **arg, double **res)
{
    const balls *B = ctx;
    const double *x = arg[0];
    int n = 2 * B->nb, i;
    for (i = 0; i < B->nb; ++i) { res[0][i] = x[2 * i + 1]; res[1][i] = x[n + 2 * i + 1]; }
    return 0;
}

static double balls_energy_of(const balls *B, const double *x)
{
    int n = 2 * B->nb, i;
    double E = 0.0;
    for (i = 0; i < B->nb; ++i)
        E += 0.5 * B->m * (x[n + 2 * i] * x[n + 2 * i] + x[n + 2 * i + 1] * x[n + 2 * i + 1])
             + B->m * B->g * x[2 * i + 1];
    return E;
}

/* terms -> M, h, C, rc, W, Wt, Wdot_u, gap, E, MiX (column-major; no bilateral rows) */
static int balls_terms(void *ctx, const double **arg, double **res)
{
    const balls *B = ctx;
    const double *x = arg[0];
    int nu = 2 * B->nb, nW = 2 * B->nb, i;
    for (i = 0; i < nu * nu; ++i) res[0][i] = 0.0;
    for (i = 0; i < nW * nu; ++i) res[4][i] = 0.0;
    for (i = 0; i < nu * (1 + nW); ++i) res[9][i] = 0.0;
    for (i = 0; i < nu; ++i) {
        res[0][i * nu + i] = B->m;
        res[1][i] = i % 2 ? -B->m * B->g : 0.0;
        res[9][i] = i % 2 ? -B->g : 0.0;                 /* M^-1 h */
    }
    for (i = 0; i < B->nb; ++i) {
        int rn = 2 * i, rt = 2 * i + 1;
        res[4][rn + (2 * i + 1) * nW] = 1.0;             /* normal row: v_y */
        res[4][rt + (2 * i) * nW] = 1.0;                 /* tangent row: v_x */
        res[9][(2 * i + 1) + (1 + rn) * nu] = 1.0 / B->m; /* M^-1 W^T */
        res[9][(2 * i) + (1 + rt) * nu] = 1.0 / B->m;
        res[7][i] = x[2 * i + 1];
    }
    for (i = 0; i < nW; ++i) { res[5][i] = 0.0; res[6][i] = 0.0; }
    res[8][0] = balls_energy_of(B, x);
    return 0;
}

static int balls_energy(void *ctx, const double **arg, double **res)
{
    balls *B = ctx;
    ++B->calls;
    res[0][0] = balls_energy_of(B, arg[0]);
    return B->fail_at && B->calls == B->fail_at;
}

static void fuzz_cycle(void)
{
    balls B;
    mdae_ode_system s;
    mdae_ode_options o;
    mdae_cycle_model m;
    mdae_cycle_options c;
    mdae_cycle_info info;
    int nb = 1 + irand(3), nq = 2 * nb, nx = 4 * nb, ne = nb, i, st, n_out = irand(10);
    int offs[4], nt[4], gap_of[4], nhist[4], fired[4], rows, *iwork;
    double e_n[4], e_t[4], mu[4], x[16], x0[16], xdot[16], e[4], ed[4], shift[4], P[2];
    double hist[4 * MDAE_CYCLE_HIST], t_out[10], *T, *X, *lg, *work, E0;
    double t_end = 0.2 + 2.0 * urand();
    memset(&s, 0, sizeof s); memset(&m, 0, sizeof m); memset(&c, 0, sizeof c);
    B.nb = nb; B.m = 0.2 + urand(); B.g = 9.81; B.calls = 0;
    B.fail_at = irand(15) == 0 ? 1 + irand(200) : 0;
    for (i = 0; i < nb; ++i) {
        offs[i] = 2 * i; nt[i] = 1; gap_of[i] = i; nhist[i] = 0;
        e_n[i] = irand(4) ? 0.3 + 0.7 * urand() : urand();
        e_t[i] = irand(3) ? 0.0 : urand();
        mu[i] = irand(5) == 0 ? INFINITY : urand();
        x0[2 * i] = nrand(); x0[2 * i + 1] = irand(8) == 0 ? 0.0 : 0.05 + urand();
        x0[nq + 2 * i] = nrand(); x0[nq + 2 * i + 1] = nrand();
    }
    if (irand(15) == 0) e_n[irand(nb)] = irand(2) ? weird() : 1.5;
    if (irand(15) == 0) mu[irand(nb)] = irand(2) ? NAN : -1.0;
    for (i = 0; i < n_out; ++i) t_out[i] = t_end * (i + 1) / (n_out + 1);
    s.nx = nx; s.ne = ne; s.P = P; s.rhs = balls_rhs; s.rhs_ctx = &B; s.ev = balls_ev; s.ev_ctx = &B;
    random_ode_options(&o, shift, ne);
    if (irand(3)) { o.method = irand(2); o.rtol = 1e-10; o.max_steps = 100000; }
    m.nq = nq; m.nu = nq; m.nc = nb; m.dim = 2; m.nW = 2 * nb; m.offs = offs; m.nt = nt;
    m.e_n = e_n; m.e_t = e_t; m.mu = mu;
    m.terms = balls_terms; m.terms_ctx = &B; m.energy = balls_energy; m.energy_ctx = &B;
    c.gap_of = gap_of; c.gap_tol = 1e-9; c.vel_tol = 1e-9;
    c.rest_velocity = irand(3) ? -1.0 : 1e-3 * urand();
    c.zeno = irand(3) != 0; c.early = irand(3) == 0;
    c.n_ratio = irand(12) == 0 ? irand(MDAE_CYCLE_HIST + 2) - 1 : 2 + irand(3);
    c.min_flight = 1e-6; c.ratio_tol = 1e-3; c.r_max = 0.99;
    c.h_min = 1e-12; c.h_max = o.window_max;
    c.max_impacts = irand(12) == 0 ? irand(3) - 1 : irand(30);
    mdae_impact_options_default(&c.impact);
    c.impact.method = MDAE_CONTACT_ENUM;
    if (irand(12) == 0) c.impact.method = irand(3);
    rows = n_out + 2 * (c.max_impacts > 0 ? c.max_impacts : 0);
    T = xmalloc(sizeof(double) * (size_t)(rows + 1));
    X = xmalloc(sizeof(double) * (size_t)(rows * nx + 1));
    lg = xmalloc(sizeof(double) * (size_t)((c.max_impacts > 0 ? c.max_impacts : 0) * MDAE_CYCLE_LOG(2) + 1));
    work = xmalloc(sizeof(double) * mdae_cycle_work_size(&m, &c, nx, ne));
    iwork = xmalloc(sizeof(int) * mdae_cycle_iwork_size(&m, &c));
    memcpy(x, x0, sizeof(double) * (size_t)nx);
    E0 = balls_energy_of(&B, x0);
    st = mdae_cycle_run(&s, &o, &m, &c, 0.0, x, xdot, t_end, irand(10) ? 0.1 : weird(),
                        irand(3) ? 0.0 : 1e-4, P, hist, nhist, t_out, n_out, T, X, e, ed,
                        fired, lg, work, iwork, &info);
    ++n_cases;
    if (st == MDAE_OK) {
        ++n_success;
        if (!(info.n_rows >= 0 && info.n_rows <= rows))
            fail("cycle success", "%g rows written, capacity %g", info.n_rows, rows);
        if (info.n_impacts > (c.max_impacts > 0 ? c.max_impacts : 0))
            fail("cycle success", "%g impacts resolved, at most %g", info.n_impacts, c.max_impacts);
        for (i = 1; i < info.n_rows && i < rows; ++i)
            if (!(T[i] >= T[i - 1])) fail("cycle success", "row time %g = %g decreases", i, T[i]);
        for (i = 0; i < nb && o.event_tol <= 1e-6; ++i)   /* the event lies within event_tol */
            if (!(x[2 * i + 1] >= -1e-6)) {
                int j;
                fail("cycle success", "ball %g below the floor: y = %g", i, x[2 * i + 1]);
                fprintf(stderr, "   t %.17g outcome %d impacts %d rows %d method %d rtol %g window %g wmax %g nsub %d event_tol %g stiff_h %g h_stab %g max_imp %d zeno %d early %d vres %g\n",
                        info.ode.t, info.outcome, info.n_impacts, info.n_rows, o.method, o.rtol, o.window, o.window_max, o.nsub, o.event_tol, o.stiff_h, o.h_stab, c.max_impacts, c.zeno, c.early, c.rest_velocity);
                for (j = 0; j < nb; ++j)
                    fprintf(stderr, "   ball %d: x0 %.17g %.17g %.17g %.17g e_n %g e_t %g mu %g shift %g\n", j, x0[2*j], x0[2*j+1], x0[nq+2*j], x0[nq+2*j+1], e_n[j], e_t[j], mu[j], shift[j]);
            }
        for (i = 0; i < info.n_impacts && i < c.max_impacts; ++i) {
            const double *L = lg + (size_t)i * MDAE_CYCLE_LOG(2);
            if (!(L[3] <= L[2] + 1e-9 * (1.0 + fabs(L[2]))) && e_n[(int)L[1]] <= 1.0 && e_t[(int)L[1]] <= 1.0)
                fail("cycle impact", "energy gained: %g -> %g", L[2], L[3]);
        }
        if (!B.fail_at && o.rtol <= 1e-8 && !(balls_energy_of(&B, x) <= E0 + 1e-6 * (1.0 + fabs(E0))))
            fail("cycle success", "energy %g > initial %g", balls_energy_of(&B, x), E0);
    }
    free(T); free(X); free(lg); free(work); free(iwork);
}

/* the kernel families, run in turn; their case counts are printed ("per kernel: ...")
 * and tests/test_sanitize.py requires every one to be > 0 */
typedef struct { const char *name; void (*run)(void); long cases; double seconds; } family;

int main(int argc, char **argv)
{
    family fam[] = {
        {"lcp", fuzz_lcp, 0, 0.0}, {"impact", fuzz_impact, 0, 0.0},
        {"impact_batch", fuzz_impact_batch, 0, 0.0}, {"painleve", fuzz_painleve, 0, 0.0},
        {"fc", fuzz_fc, 0, 0.0}, {"step", fuzz_step, 0, 0.0}, {"slide", fuzz_slide, 0, 0.0},
        {"ode", fuzz_ode, 0, 0.0}, {"cycle", fuzz_cycle, 0, 0.0}
    };
    const int nfam = (int)(sizeof fam / sizeof fam[0]);
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1ULL;
    clock_t t0 = clock();
    int f;
    rng_state ^= seed * 0x9E3779B97F4A7C15ULL;
    if (!rng_state) rng_state = 1;
    if (mdae_status_str(MDAE_INTERRUPTED) == NULL || mdae_status_str(-1) == NULL
        || mdae_status_str(1000) == NULL)
        fail("status", "mdae_status_str returned NULL (%g %g)", 0, 0);
    /* at least one round, so that every family runs whatever the budget */
    do {
        int k;
        for (k = 0; k < 20; ++k)
            for (f = 0; f < nfam; ++f) {
                long before = n_cases;
                clock_t c0 = clock();
                fam[f].run();
                fam[f].cases += n_cases - before;
                fam[f].seconds += (double)(clock() - c0) / CLOCKS_PER_SEC;
            }
    } while ((double)(clock() - t0) / CLOCKS_PER_SEC < seconds);
    printf("fuzz_kernels: %ld cases (%ld returned success, every one checked against its "
           "residual; %ld stopped by the interrupt callback), %ld failed checks, %.1f s; "
           "per kernel:", n_cases, n_success, n_interrupted, n_fail,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    for (f = 0; f < nfam; ++f)
        printf(" %s %ld (%.1f s)%s", fam[f].name, fam[f].cases, fam[f].seconds,
               f + 1 < nfam ? "," : "\n");
    return n_fail ? 1 : 0;
}
