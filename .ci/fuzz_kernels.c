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
#include "mdae_lcp.h"
#include "mdae_status.h"
#include "mdae_step.h"

static unsigned long long rng_state = 88172645463325252ULL;
static long n_cases = 0, n_fail = 0, n_success = 0;

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
    mdae_impact_options_default(&o);
    o.method = method;
    o.facets = irand(8) == 0 ? irand(600) - 50 : 3 + irand(10);
    o.max_solutions = irand(8) == 0 ? irand(4) - 1 : 1 + irand(6);
    o.max_iter = irand(8) == 0 ? irand(3) - 1 : 1 + irand(3000);
    if (irand(10) == 0) o.tol = irand(2) ? weird() : -1e-9;
    else if (irand(3) == 0) o.tol = pow(10.0, -(double)(3 + irand(12)));
    if (irand(5) == 0) o.allow_energy_gain = 1;
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
    st = mdae_impact_solve(&p, &o, P, vp, modes, dT, work, iwork, &info);
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
        if (dv > 1e-8 * (1.0 + sc)) fail("impact success", "v+ - (v- + D P) = %g (scale %g)", dv, sc);
        for (i = 0; i < nc; ++i)
            if (!(P[i * d] >= -1e-9 * (1.0 + fabs(P[i * d]))))
                fail("impact success", "P_n[%g] = %g < 0", i, P[i * d]);
        fp.dim = d; fp.nc = nc; fp.W = D; fp.indptr = NULL; fp.indices = NULL; fp.data = NULL;
        fp.q = c; fp.mu = mu;
        err = mdae_fc_error(&fp, P, u);
        lim = method == MDAE_CONTACT_NSGS ? 10.0 * o.tol : 1e-6;
        if (method == MDAE_CONTACT_LCP && d == 3) lim = 0.5;   /* polyhedral cone */
        for (i = 0; i < nc; ++i) if (isinf(mu[i])) lim = INFINITY; /* error undefined */
        if (!(err <= lim) && lim < INFINITY)
            fail("impact success", "FC error %g > %g", err, lim);
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
    double *work, *Bt, *u, *M, *up, *T;
    int *iwork, nu = 1 + irand(4);
    mdae_impact_options_default(&o);
    o.method = method;
    o.facets = 3 + irand(6);
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
    mdae_impact_batch(nprob, nc, dim, D, v, en, et, mu, &o, P, vp, modes, dT, st, ns, work,
                      iwork, &info);
    ++n_cases;
    for (k = 0; k < nprob; ++k)
        if (st[k] == MDAE_OK || st[k] == MDAE_AMBIGUOUS) {
            ++n_success;
            for (i = 0; i < n; ++i)
                if (!isfinite(P[k * n + i])) fail("impact batch success", "P[%g] = %g", i, P[k * n + i]);
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
    free(st); free(ns); free(work); free(iwork);
}

static void fuzz_painleve(void)
{
    int dim = 2 + irand(2), nc = irand(10), n = nc * dim, i, cap = irand(8) == 0 ? irand(3) - 1 : 1 + irand(8);
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
    mdae_painleve_solve(nc, dim, D, b, vt, mu, slide_tol, &o, lam, acc, modes, work, iwork, &info);
    ++n_cases;
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

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1ULL;
    clock_t t0 = clock();
    long rounds = 0;
    rng_state ^= seed * 0x9E3779B97F4A7C15ULL;
    if (!rng_state) rng_state = 1;
    while ((double)(clock() - t0) / CLOCKS_PER_SEC < seconds) {
        int k;
        for (k = 0; k < 20; ++k) {
            fuzz_lcp();
            fuzz_impact();
            fuzz_impact_batch();
            fuzz_painleve();
            fuzz_fc();
            fuzz_step();
        }
        ++rounds;
    }
    printf("fuzz_kernels: %ld cases (%ld returned success, every one checked against its "
           "residual), %ld failed checks, %.1f s\n", n_cases, n_success, n_fail,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    return n_fail ? 1 : 0;
}
