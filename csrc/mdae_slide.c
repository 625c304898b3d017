/* mdae_slide.c - complete search of the sliding directions of several contacts sliding at
 * once (see mdae_slide.h for the system solved and the guarantee). Plain C99. */
#include "mdae_slide.h"

#include <math.h>
#include <string.h>

#define SL_PI 3.14159265358979323846
#define SL_TH0 0.3183098861837907     /* domain start: off the "nice" angles 0, pi/2, ... */
#define KRAW_WIDTH 0.4                /* try Krawczyk on boxes narrower than this         */
#define MIN_WIDTH 1e-9                /* undecided boxes are not split below this         */
#define SL_DEPTH 512                  /* box stack (depth-first: depth * k suffices)     */
#define K MDAE_SLIDE_KMAX

/* ---- intervals with outward rounding ---------------------------------------------- */

typedef struct { double lo, hi; } iv;

/* one rounding error (<= 2^-53 |x|, or 2^-1075 below the normal range) and more:
 * cheaper than nextafter, the same guarantee */
static double dn(double x) { return x - (fabs(x) * 4.440892098500626e-16 + 1e-300); }
static double up(double x) { return x + (fabs(x) * 4.440892098500626e-16 + 1e-300); }
static iv ipt(double x) { iv r; r.lo = r.hi = x; return r; }
static iv iadd(iv a, iv b) { iv r; r.lo = dn(a.lo + b.lo); r.hi = up(a.hi + b.hi); return r; }
static iv isub(iv a, iv b) { iv r; r.lo = dn(a.lo - b.hi); r.hi = up(a.hi - b.lo); return r; }
static iv imul(iv a, iv b)
{
    double p1 = a.lo * b.lo, p2 = a.lo * b.hi, p3 = a.hi * b.lo, p4 = a.hi * b.hi;
    double lo = p1, hi = p1;
    iv r;
    if (p2 < lo) lo = p2;
    if (p2 > hi) hi = p2;
    if (p3 < lo) lo = p3;
    if (p3 > hi) hi = p3;
    if (p4 < lo) lo = p4;
    if (p4 > hi) hi = p4;
    r.lo = dn(lo); r.hi = up(hi);
    return r;
}
static iv iscale(double s, iv a) { return imul(ipt(s), a); }
static int has0(iv a) { return a.lo <= 0.0 && a.hi >= 0.0; }

/* cos over [lo, hi]: endpoint values, 1 where the interval holds 2 pi m, -1 at pi + 2 pi m;
 * widened by 4e-16 for the error of libm and of the multiples of pi. */
static iv icos(iv x)
{
    iv r;
    double a, b, m;
    if (!(x.hi - x.lo < 2.0 * SL_PI)) { r.lo = -1.0; r.hi = 1.0; return r; }
    a = cos(x.lo); b = cos(x.hi);
    r.lo = a < b ? a : b; r.hi = a < b ? b : a;
    m = ceil(x.lo / (2.0 * SL_PI));
    if (2.0 * SL_PI * m <= x.hi) r.hi = 1.0;
    m = ceil((x.lo - SL_PI) / (2.0 * SL_PI));
    if (SL_PI + 2.0 * SL_PI * m <= x.hi) r.lo = -1.0;
    r.lo -= 4e-16; r.hi += 4e-16;
    if (r.lo < -1.0) r.lo = -1.0;
    if (r.hi > 1.0) r.hi = 1.0;
    return r;
}
static iv isin(iv x) { return icos(isub(x, ipt(0.5 * SL_PI))); }

/* ---- intervals with a gradient (forward differentiation in the k angles) ------------ */

typedef struct { iv v, g[K]; } dv;

static void dconst(int ng, double x, dv *r) { int i; r->v = ipt(x); for (i = 0; i < ng; ++i) r->g[i] = ipt(0.0); }
static void dadd(int ng, const dv *a, const dv *b, dv *r)
{
    int i;
    dv t;
    t.v = iadd(a->v, b->v);
    for (i = 0; i < ng; ++i) t.g[i] = iadd(a->g[i], b->g[i]);
    *r = t;
}
static void dsub(int ng, const dv *a, const dv *b, dv *r)
{
    int i;
    dv t;
    t.v = isub(a->v, b->v);
    for (i = 0; i < ng; ++i) t.g[i] = isub(a->g[i], b->g[i]);
    *r = t;
}
static void dmul(int ng, const dv *a, const dv *b, dv *r)
{
    int i;
    dv t;
    t.v = imul(a->v, b->v);
    for (i = 0; i < ng; ++i) t.g[i] = iadd(imul(a->v, b->g[i]), imul(b->v, a->g[i]));
    *r = t;
}
static void dscale(int ng, double s, const dv *a, dv *r)
{
    int i;
    r->v = iscale(s, a->v);
    for (i = 0; i < ng; ++i) r->g[i] = iscale(s, a->g[i]);
}

/* determinant of the m x m matrix of rows `rows`, columns cols[0..m-1] (Laplace along the
 * first of the rows); Mx is K x K row-major */
static void ddet(int ng, const dv *Mx, int row, const int *cols, int m, dv *out)
{
    int sub[K], j, i, t;
    dv acc, minor, term;
    if (m == 1) { *out = Mx[row * K + cols[0]]; return; }
    dconst(ng, 0.0, &acc);
    for (j = 0; j < m; ++j) {
        for (i = 0, t = 0; i < m; ++i) if (i != j) sub[t++] = cols[i];
        ddet(ng, Mx, row + 1, sub, m - 1, &minor);
        dmul(ng, &Mx[row * K + cols[j]], &minor, &term);
        if (j % 2) dsub(ng, &acc, &term, &acc); else dadd(ng, &acc, &term, &acc);
    }
    *out = acc;
}

typedef struct { int k; const double *A, *c, *mu; } slide_sys;

/* G over the box [lo, hi] (a point when lo == hi); with grad, G' in G[j].g. With sg,
 * returns 1 when the signs prove that no point of the box is a physical sliding state:
 * rho_j = -z_j / det(N) < 0, or det(N) w_{j,t} . s_j = V_j . s_j of the sign opposite to
 * det(N) (the contact would slide against its impulse). */
static int eval_G(const slide_sys *S, const double *lo, const double *hi, int grad, dv *G,
                  int sg, iv *det_out)
{
    int k = S->k, n3 = 3 * k, ng = grad ? k : 0, j, l, i, cols[K];
    const double *A = S->A, *c = S->c;
    dv cs[K], sn[K], gl[K][3], N[K * K], Nl[K * K], det, z[K], t, u;
    memset(N, 0, sizeof(N));
    for (l = 0; l < K; ++l) cols[l] = l;
    for (l = 0; l < k; ++l) {
        iv x;
        x.lo = lo[l]; x.hi = hi[l];
        dconst(ng, 0.0, &cs[l]); dconst(ng, 0.0, &sn[l]);
        cs[l].v = icos(x); sn[l].v = isin(x);
        if (grad) {
            cs[l].g[l] = isub(ipt(0.0), sn[l].v);
            sn[l].g[l] = cs[l].v;
        }
        dconst(ng, 1.0, &gl[l][0]);
        dscale(ng, -S->mu[l], &cs[l], &gl[l][1]);
        dscale(ng, -S->mu[l], &sn[l], &gl[l][2]);
        cols[l] = l;
    }
    /* N_jl = A[3j, 3l:3l+3] . g_l */
    for (j = 0; j < k; ++j)
        for (l = 0; l < k; ++l) {
            const double *a = A + (size_t)(3 * j) * n3 + 3 * l;
            dv *e = &N[j * K + l];
            dconst(ng, a[0], e);
            for (i = 1; i < 3; ++i) { dscale(ng, a[i], &gl[l][i], &t); dadd(ng, e, &t, e); }
        }
    ddet(ng, N, 0, cols, k, &det);
    if (det_out) *det_out = det.v;
    for (l = 0; l < k; ++l) {
        memcpy(Nl, N, sizeof(N));
        for (j = 0; j < k; ++j) dconst(ng, c[3 * j], &Nl[j * K + l]);
        ddet(ng, Nl, 0, cols, k, &z[l]);
    }
    for (j = 0; j < k; ++j) {
        dv V[2];
        for (i = 0; i < 2; ++i) {
            int row = 3 * j + 1 + i;
            dscale(ng, c[row], &det, &V[i]);
            for (l = 0; l < k; ++l) {
                const double *a = A + (size_t)row * n3 + 3 * l;
                dv e;
                int m;
                dconst(ng, a[0], &e);
                for (m = 1; m < 3; ++m) { dscale(ng, a[m], &gl[l][m], &t); dadd(ng, &e, &t, &e); }
                dmul(ng, &e, &z[l], &t);
                dsub(ng, &V[i], &t, &V[i]);
            }
        }
        dmul(ng, &V[0], &sn[j], &t);
        dmul(ng, &V[1], &cs[j], &u);
        dsub(ng, &t, &u, &G[j]);
        if (sg && (det.v.lo > 0.0 || det.v.hi < 0.0)) {
            double sd = det.v.lo > 0.0 ? 1.0 : -1.0;
            iv vs = iadd(imul(V[0].v, cs[j].v), imul(V[1].v, sn[j].v));
            if ((sd > 0.0 && z[j].v.lo > 0.0) || (sd < 0.0 && z[j].v.hi < 0.0)) return 1;
            if ((sd > 0.0 && vs.hi < 0.0) || (sd < 0.0 && vs.lo > 0.0)) return 1;
        }
    }
    return 0;
}

static double mid(iv a) { return 0.5 * (a.lo + a.hi); }

/* Inverse of the k x k point matrix J (row-major, stride K) into Y; 1 when singular. */
static int invert(int k, const double *J, double *Y)
{
    double a[K][2 * K];
    int i, j, r, p;
    for (i = 0; i < k; ++i)
        for (j = 0; j < 2 * k; ++j) a[i][j] = j < k ? J[i * K + j] : (j - k == i ? 1.0 : 0.0);
    for (j = 0; j < k; ++j) {
        double best = 0.0, scale = 0.0, f;
        p = -1;
        for (i = 0; i < k; ++i) for (r = 0; r < k; ++r) if (fabs(J[i * K + r]) > scale) scale = fabs(J[i * K + r]);
        for (i = j; i < k; ++i) if (fabs(a[i][j]) > best) { best = fabs(a[i][j]); p = i; }
        if (p < 0 || !(best > 1e-14 * scale)) return 1;
        if (p != j) for (r = 0; r < 2 * k; ++r) { double t = a[j][r]; a[j][r] = a[p][r]; a[p][r] = t; }
        f = 1.0 / a[j][j];
        for (r = 0; r < 2 * k; ++r) a[j][r] *= f;
        for (i = 0; i < k; ++i) {
            if (i == j || a[i][j] == 0.0) continue;
            f = a[i][j];
            for (r = 0; r < 2 * k; ++r) a[i][r] -= f * a[j][r];
        }
    }
    for (i = 0; i < k; ++i) for (j = 0; j < k; ++j) Y[i * K + j] = a[i][k + j];
    return 0;
}

/* point value and Jacobian of G (midpoints of the degenerate enclosures) */
static void eval_point(const slide_sys *S, const double *x, double *g, double *J)
{
    dv G[K];
    int j, l;
    eval_G(S, x, x, J != NULL, G, 0, NULL);
    for (j = 0; j < S->k; ++j) {
        g[j] = mid(G[j].v);
        if (J) for (l = 0; l < S->k; ++l) J[j * K + l] = mid(G[j].g[l]);
    }
}

/* Krawczyk test on the box [lo, hi]: 0 no root, 1 exactly one root, 2 undecided (then
 * [lo, hi] is narrowed to its intersection with K(X), which holds every root of X). The
 * mean-value form G(m) + G'(X) (X - m) excludes boxes first. */
static int krawczyk(const slide_sys *S, double *lo, double *hi)
{
    int k = S->k, i, j, l, inside = 1;
    double m[K] = {0}, J0[K * K] = {0}, Y[K * K];
    iv Kx[K], d[K];
    dv Gm[K], GX[K];
    for (i = 0; i < k; ++i) {
        m[i] = 0.5 * (lo[i] + hi[i]);
        d[i].lo = dn(lo[i] - m[i]); d[i].hi = up(hi[i] - m[i]);
    }
    eval_G(S, m, m, 1, Gm, 0, NULL);
    eval_G(S, lo, hi, 1, GX, 0, NULL);
    for (j = 0; j < k; ++j) {
        iv g = Gm[j].v;
        for (l = 0; l < k; ++l) g = iadd(g, imul(GX[j].g[l], d[l]));
        if (!has0(g)) return 0;
    }
    for (j = 0; j < k; ++j) for (l = 0; l < k; ++l) J0[j * K + l] = mid(Gm[j].g[l]);
    if (invert(k, J0, Y)) return 2;
    for (i = 0; i < k; ++i) {
        iv Ki = ipt(m[i]);
        for (j = 0; j < k; ++j) Ki = isub(Ki, iscale(Y[i * K + j], Gm[j].v));
        for (l = 0; l < k; ++l) {
            iv cil = ipt(i == l ? 1.0 : 0.0);
            for (j = 0; j < k; ++j) cil = isub(cil, iscale(Y[i * K + j], GX[j].g[l]));
            Ki = iadd(Ki, imul(cil, d[l]));
        }
        if (Ki.hi < lo[i] || Ki.lo > hi[i]) return 0;
        if (!(Ki.lo > lo[i] && Ki.hi < hi[i])) inside = 0;
        Kx[i] = Ki;
    }
    if (inside) return 1;
    for (i = 0; i < k; ++i) {
        if (Kx[i].lo > lo[i]) lo[i] = Kx[i].lo;
        if (Kx[i].hi < hi[i]) hi[i] = Kx[i].hi;
    }
    return 2;
}

/* Newton's method from x (in place); 0 when it converged. */
static int newton(const slide_sys *S, double *x)
{
    int k = S->k, it, i, j;
    double g[K], J[K * K], Y[K * K];
    for (it = 0; it < 60; ++it) {
        double step = 0.0;
        eval_point(S, x, g, J);
        if (invert(k, J, Y)) return 1;
        for (i = 0; i < k; ++i) {
            double s = 0.0;
            for (j = 0; j < k; ++j) s += Y[i * K + j] * g[j];
            x[i] -= s;
            if (fabs(s) > step) step = fabs(s);
        }
        if (!(step == step) || step > 10.0) return 1;
        if (step < 1e-15 * (1.0 + fabs(x[0]))) return 0;
    }
    return 0;   /* converged to round-off (oscillating in the last bits) */
}

static int store_root(int k, const double *x, double *th, int *nr, int max_roots)
{
    int r, i;
    double y[K];
    for (i = 0; i < k; ++i) y[i] = SL_TH0 + fmod(fmod(x[i] - SL_TH0, 2.0 * SL_PI) + 2.0 * SL_PI, 2.0 * SL_PI);
    for (r = 0; r < *nr; ++r) {
        double dmax = 0.0;
        for (i = 0; i < k; ++i) {
            double d = fabs(remainder(th[r * k + i] - y[i], 2.0 * SL_PI));
            if (d > dmax) dmax = d;
        }
        if (dmax < 1e-9) return 0;
    }
    if (*nr >= max_roots) return 1;
    memcpy(th + (size_t)(*nr) * k, y, sizeof(double) * (size_t)k);
    ++*nr;
    return 0;
}

/* det N at the angles x (point arithmetic) */
static double det_at(const slide_sys *S, const double *x)
{
    int k = S->k, j, l, i, cols[K];
    dv N[K * K], det, t;
    memset(N, 0, sizeof(N));
    for (l = 0; l < k; ++l) cols[l] = l;
    for (j = 0; j < k; ++j)
        for (l = 0; l < k; ++l) {
            const double *a = S->A + (size_t)(3 * j) * (3 * k) + 3 * l;
            double g[3];
            g[0] = 1.0; g[1] = -S->mu[l] * cos(x[l]); g[2] = -S->mu[l] * sin(x[l]);
            dconst(0, 0.0, &N[j * K + l]);
            for (i = 0; i < 3; ++i) { dconst(0, a[i] * g[i], &t); dadd(0, &N[j * K + l], &t, &N[j * K + l]); }
        }
    ddet(0, N, 0, cols, k, &det);
    return mid(det.v);
}

int mdae_slide_search(int k, const double *A, const double *c, const double *mu,
                      double a_scale, int max_boxes, int max_roots, double *th,
                      int *complete)
{
    slide_sys S;
    double stack[SL_DEPTH][2 * K];
    int top = 0, boxes = 0, nr = 0, i, czero = 1;
    *complete = 1;
    for (i = 0; i < 3 * k && k <= MDAE_SLIDE_KMAX; ++i) if (c[i] != 0.0) czero = 0;
    if (k < 1 || k > MDAE_SLIDE_KMAX) { *complete = 0; return 0; }
    S.k = k; S.A = A; S.c = c; S.mu = mu;
    {
        /* degenerate problems first: the search would spend its budget on a continuum */
        double amax = 0.0, cmax = 0.0, nscale = 1.0, dmax = 0.0;
        int n3 = 3 * k, j, smp;
        for (i = 0; i < n3 * n3; ++i) if (fabs(A[i]) > amax) amax = fabs(A[i]);
        for (i = 0; i < n3; ++i) if (fabs(c[i]) > cmax) cmax = fabs(c[i]);
        if (!(amax > 1e-12 * a_scale)) {
            /* w = c whatever the impulses (the sliding contacts are locked by the others):
             * sliding needs c_n = 0 at every sliding contact */
            for (j = 0; j < k; ++j) if (fabs(c[3 * j]) > 1e-9 * cmax) return 0;
            *complete = 0;
            return 0;
        }
        /* det N vanishing at every sample: N singular for all directions (a statically
         * indeterminate set of sliding contacts); roots form continua */
        for (j = 0; j < k; ++j) nscale *= amax * (1.0 + mu[j]);
        for (smp = 0; smp < 8; ++smp) {
            double x[K], ddet_;
            for (i = 0; i < k; ++i) x[i] = SL_TH0 + 0.7853981633974483 * ((smp * (2 * i + 3) + i) % 8) + 0.1 * i;
            ddet_ = det_at(&S, x);
            if (fabs(ddet_) > dmax) dmax = fabs(ddet_);
        }
        if (!(dmax > 1e-10 * nscale)) { *complete = 0; return 0; }
    }
    for (i = 0; i < k; ++i) { stack[0][i] = SL_TH0; stack[0][K + i] = SL_TH0 + 2.0 * SL_PI; }
    top = 1;
    while (top > 0) {
        double lo[K], hi[K], w = 0.0;
        dv G[K];
        iv detX;
        int wi = 0, excl = 0, kr;
        --top;
        memcpy(lo, stack[top], sizeof(double) * K);
        memcpy(hi, stack[top] + K, sizeof(double) * K);
        if (++boxes > max_boxes) { *complete = 0; break; }
        excl = eval_G(&S, lo, hi, 0, G, 1, &detX);
        for (i = 0; i < k; ++i) if (!has0(G[i].v)) excl = 1;
        /* c = 0: G vanishes identically and N rho = 0 needs det N = 0 (else rho = 0,
         * P = 0: the separated solution) */
        if (czero && (detX.lo > 0.0 || detX.hi < 0.0)) excl = 1;
        if (excl) continue;
        for (i = 0; i < k; ++i) if (hi[i] - lo[i] > w) { w = hi[i] - lo[i]; wi = i; }
        if (w < KRAW_WIDTH) {
            int rep;
            for (rep = 0; rep < 8; ++rep) {       /* again while K(X) narrows X by half */
                double w0 = w;
                kr = krawczyk(&S, lo, hi);
                if (kr != 2) break;
                w = 0.0;
                for (i = 0; i < k; ++i) if (hi[i] - lo[i] > w) { w = hi[i] - lo[i]; wi = i; }
                if (!(w < 0.5 * w0)) break;
            }
            if (kr == 0) continue;
            if (kr == 1) {
                double x[K];
                for (i = 0; i < k; ++i) x[i] = 0.5 * (lo[i] + hi[i]);
                newton(&S, x);
                if (store_root(k, x, th, &nr, max_roots)) *complete = 0;
                continue;
            }
        }
        if (w < MIN_WIDTH) {
            /* epsilon inflation: one root in a box around the Newton root holding X */
            double x[K], zl[K], zh[K];
            int ok = 0;
            for (i = 0; i < k; ++i) x[i] = 0.5 * (lo[i] + hi[i]);
            if (!newton(&S, x)) {
                for (i = 0; i < k; ++i) {
                    double r = fabs(x[i] - lo[i]) > fabs(hi[i] - x[i]) ? fabs(x[i] - lo[i]) : fabs(hi[i] - x[i]);
                    r = 2.0 * r + 1e-8;
                    zl[i] = x[i] - r; zh[i] = x[i] + r;
                }
                ok = krawczyk(&S, zl, zh) == 1;   /* (zl, zh narrowed only when undecided) */
                if (store_root(k, x, th, &nr, max_roots)) *complete = 0;
            }
            if (!ok) *complete = 0;
            continue;
        }
        if (top + 2 > SL_DEPTH) { *complete = 0; break; }
        memcpy(stack[top], lo, sizeof(double) * K);
        memcpy(stack[top] + K, hi, sizeof(double) * K);
        stack[top][K + wi] = 0.5 * (lo[wi] + hi[wi]);
        ++top;
        memcpy(stack[top], lo, sizeof(double) * K);
        memcpy(stack[top] + K, hi, sizeof(double) * K);
        stack[top][wi] = 0.5 * (lo[wi] + hi[wi]);
        ++top;
    }
    return nr;
}

/* ---- one contact in closed form --------------------------------------------------- */

/* G(th) = e1 c + e2 s + e3 c^2 + e4 c s + e5 s^2 (c = cos th, s = sin th), and G' */
static double g1_eval(const double *e, double x, double *dg)
{
    double c = cos(x), s = sin(x);
    if (dg) *dg = -e[1] * s + e[2] * c - 2.0 * e[3] * c * s + e[4] * (c * c - s * s) + 2.0 * e[5] * s * c;
    return e[1] * c + e[2] * s + e[3] * c * c + e[4] * c * s + e[5] * s * s;
}

/* complex helpers on (re, im) pairs (moduli of moderate numbers: no hypot needed) */
static double cabs_(double re, double im) { return sqrt(re * re + im * im); }
static void cmul(double ar, double ai, double br, double bi, double *r, double *i)
{
    *r = ar * br - ai * bi; *i = ar * bi + ai * br;
}
static void cdiv(double ar, double ai, double br, double bi, double *r, double *i)
{
    double d;
    if (fabs(br) >= fabs(bi)) {
        double q = bi / br; d = br + bi * q;
        *r = (ar + ai * q) / d; *i = (ai - ar * q) / d;
    } else {
        double q = br / bi; d = bi + br * q;
        *r = (ar * q + ai) / d; *i = (ai * q - ar) / d;
    }
}
/* monic quartic t^4 + p[3] t^3 + ... + p[0] at t = (zr, zi) */
static void pq_eval(const double *p, double zr, double zi, double *vr, double *vi)
{
    double r = 1.0, i = 0.0, tr, ti;
    int k;
    for (k = 3; k >= 0; --k) { cmul(r, i, zr, zi, &tr, &ti); r = tr + p[k]; i = ti; }
    *vr = r; *vi = i;
}

/* inclusion radius 4 (|p(z_i)| + margin) / prod |z_i - z_j| of root approximation i */
static double incl_radius(const double *p, const double *pm, const double *zr,
                          const double *zi, int i)
{
    double vr, vi, pr = 1.0, az = cabs_(zr[i], zi[i]), m = 0.0, zk = 1.0;
    int j, k;
    pq_eval(p, zr[i], zi[i], &vr, &vi);
    for (k = 0; k <= 4; ++k) { m += pm[k] * zk; zk *= az; }
    for (j = 0; j < 4; ++j) if (j != i) pr *= cabs_(zr[i] - zr[j], zi[i] - zi[j]);
    if (!(pr > 0.0)) return HUGE_VAL;
    return 4.0 * (cabs_(vr, vi) + m) / pr;
}

int mdae_slide_search1(const double *A, const double *c0_, double mu, double *th,
                       int *complete)
{
    double c[3], cn = 0.0, e[6], E[6], best = -1.0, th0 = SL_TH0 - SL_PI, C0, S0;
    double f[6], F[6], q[5], Q[5], p[4], pm[5], zr[4], zi[4], rad[4], qmax = 0.0, Qmax = 0.0;
    double d0, d1, d2, a0, a1, a2, b0, b1, b2, A_[9];
    int i, j, it, nr = 0;
    *complete = 0;
    for (i = 0; i < 3; ++i) if (fabs(c0_[i]) > cn) cn = fabs(c0_[i]);
    if (!(cn < HUGE_VAL)) return 0;
    for (i = 0; i < 9; ++i) A_[i] = A[i];
    if (cn == 0.0) {
        /* w = A r: rho den(th) = 0 with den = A_0 - mu (A_1 cos + A_2 sin): rho = 0 (P = 0,
         * the separated solution) unless den vanishes at a direction where also w_t =
         * rho A_t g is parallel to s (a ray of impulses: statically indeterminate, not
         * complete); two conditions on one angle, generically never both */
        double R = cabs_(A_[1], A_[2]), sc = 0.0;
        for (i = 0; i < 9; ++i) if (fabs(A_[i]) > sc) sc = fabs(A_[i]);
        sc *= 1.0 + mu;
        if (!(mu * R >= A_[0])) { *complete = 1; return 0; }
        if (!(R > 0.0) || !(sc > 0.0)) return 0;
        for (j = -1; j <= 1; j += 2) {
            double r = A_[0] / (mu * R), x, cs, sn, g[3], wt1, wt2;
            if (r > 1.0) r = 1.0;
            x = atan2(A_[2], A_[1]) + j * acos(r);
            cs = cos(x); sn = sin(x);
            g[0] = 1.0; g[1] = -mu * cs; g[2] = -mu * sn;
            wt1 = A_[3] * g[0] + A_[4] * g[1] + A_[5] * g[2];
            wt2 = A_[6] * g[0] + A_[7] * g[1] + A_[8] * g[2];
            if (fabs(wt1 * sn - wt2 * cs) <= 1e-9 * sc && wt1 * cs + wt2 * sn >= -1e-9 * sc)
                return 0;
        }
        *complete = 1;
        return 0;
    }
    for (i = 0; i < 3; ++i) c[i] = c0_[i] / cn;          /* G is linear in c */
    /* V1 = a0 + a1 cos + a2 sin, V2 = b0 + b1 cos + b2 sin (mdae_slide.h with k = 1) */
    d0 = A_[0]; d1 = -mu * A_[1]; d2 = -mu * A_[2];
    a0 = c[1] * d0 - c[0] * A_[3]; a1 = c[1] * d1 + c[0] * mu * A_[4]; a2 = c[1] * d2 + c[0] * mu * A_[5];
    b0 = c[2] * d0 - c[0] * A_[6]; b1 = c[2] * d1 + c[0] * mu * A_[7]; b2 = c[2] * d2 + c[0] * mu * A_[8];
    e[0] = 0.0; e[1] = -b0; e[2] = a0; e[3] = -b1; e[4] = a1 - b2; e[5] = a2;
    /* magnitudes of the terms behind each coefficient (rounding bounds) */
    {
        double D0 = fabs(d0), D1 = fabs(d1), D2 = fabs(d2);
        double A0m = fabs(c[1]) * D0 + fabs(c[0] * A_[3]), A1m = fabs(c[1]) * D1 + fabs(c[0] * mu * A_[4]);
        double A2m = fabs(c[1]) * D2 + fabs(c[0] * mu * A_[5]);
        double B0m = fabs(c[2]) * D0 + fabs(c[0] * A_[6]), B1m = fabs(c[2]) * D1 + fabs(c[0] * mu * A_[7]);
        double B2m = fabs(c[2]) * D2 + fabs(c[0] * mu * A_[8]);
        E[0] = 0.0; E[1] = B0m; E[2] = A0m; E[3] = B1m; E[4] = A1m + B2m; E[5] = A2m;
    }
    /* th0 + pi: the largest |G| of eight samples (the leading coefficient) */
    for (i = 0; i < 8; ++i) {
        double x = SL_TH0 + 0.25 * SL_PI * i, g = fabs(g1_eval(e, x, NULL));
        if (g > best) { best = g; th0 = x - SL_PI; }
    }
    C0 = cos(th0); S0 = sin(th0);
    f[1] = e[1] * C0 + e[2] * S0;
    f[2] = -e[1] * S0 + e[2] * C0;
    f[3] = e[3] * C0 * C0 + e[4] * C0 * S0 + e[5] * S0 * S0;
    f[4] = -2.0 * e[3] * C0 * S0 + e[4] * (C0 * C0 - S0 * S0) + 2.0 * e[5] * S0 * C0;
    f[5] = e[3] * S0 * S0 - e[4] * S0 * C0 + e[5] * C0 * C0;
    F[1] = E[1] + E[2]; F[2] = F[1];
    F[3] = E[3] + E[4] + E[5]; F[4] = 2.0 * E[3] + E[4] + 2.0 * E[5]; F[5] = F[3];
    /* (1 + t^2)^2 G with cos = (1 - t^2)/(1 + t^2), sin = 2t/(1 + t^2), t = tan(phi/2) */
    q[4] = f[3] - f[1]; q[3] = 2.0 * (f[2] - f[4]); q[2] = 4.0 * f[5] - 2.0 * f[3];
    q[1] = 2.0 * (f[2] + f[4]); q[0] = f[1] + f[3];
    Q[4] = F[3] + F[1]; Q[3] = 2.0 * (F[2] + F[4]); Q[2] = 4.0 * F[5] + 2.0 * F[3];
    Q[1] = Q[3]; Q[0] = Q[4];
    for (i = 0; i <= 4; ++i) {
        if (fabs(q[i]) > qmax) qmax = fabs(q[i]);
        if (Q[i] > Qmax) Qmax = Q[i];
    }
    /* G ~ 0 identically (e.g. isotropic tangents and a normal approach: every direction
     * parallel): not for this search */
    if (!(qmax > 1e-12 * Qmax) || !(fabs(q[4]) > 1e-12 * Qmax)) return 0;
    for (i = 0; i < 4; ++i) p[i] = q[i] / q[4];
    for (i = 0; i <= 4; ++i) pm[i] = 1e-14 * Q[i] / fabs(q[4]);   /* rounding margin */
    /* Durand-Kerner from points on a circle of the roots' size */
    {
        double R = 0.0;
        for (i = 0; i < 4; ++i) { double r = pow(fabs(p[i]), 1.0 / (4 - i)); if (r > R) R = r; }
        R = R > 0.0 ? R : 1.0;
        for (i = 0; i < 4; ++i) { zr[i] = R * cos(0.4 + 0.5 * SL_PI * i); zi[i] = R * sin(0.4 + 0.5 * SL_PI * i); }
    }
    for (it = 0; it < 500; ++it) {
        double step = 0.0;
        for (i = 0; i < 4; ++i) {
            double vr, vi, dr = 1.0, di = 0.0, tr, ti, wr, wi;
            pq_eval(p, zr[i], zi[i], &vr, &vi);
            for (j = 0; j < 4; ++j) {
                if (j == i) continue;
                cmul(dr, di, zr[i] - zr[j], zi[i] - zi[j], &tr, &ti); dr = tr; di = ti;
            }
            if (dr == 0.0 && di == 0.0) { dr = 1e-300; }
            cdiv(vr, vi, dr, di, &wr, &wi);
            zr[i] -= wr; zi[i] -= wi;
            tr = cabs_(wr, wi) / (1.0 + cabs_(zr[i], zi[i]));
            if (tr > step) step = tr;
        }
        if (!(step == step)) return 0;
        if (step < 1e-16) break;
    }
    /* certify: approximations whose disk meets the real axis move onto it */
    for (i = 0; i < 4; ++i) {
        rad[i] = incl_radius(p, pm, zr, zi, i);
        if (fabs(zi[i]) <= rad[i]) { zi[i] = 0.0; }
    }
    for (i = 0; i < 4; ++i) rad[i] = incl_radius(p, pm, zr, zi, i);
    for (i = 0; i < 4; ++i) {
        if (!(rad[i] < HUGE_VAL)) return 0;
        if (zi[i] != 0.0 && !(fabs(zi[i]) > rad[i])) return 0;
        for (j = i + 1; j < 4; ++j)
            if (!(cabs_(zr[i] - zr[j], zi[i] - zi[j]) > rad[i] + rad[j])) return 0;
    }
    *complete = 1;
    for (i = 0; i < 4; ++i) {
        double x, lo, hi, g, dg;
        if (zi[i] != 0.0) continue;
        x = th0 + 2.0 * atan(zr[i]);
        lo = th0 + 2.0 * atan(zr[i] - rad[i]); hi = th0 + 2.0 * atan(zr[i] + rad[i]);
        for (it = 0; it < 4; ++it) {          /* Newton on G, kept inside the disk */
            double y;
            g = g1_eval(e, x, &dg);
            if (g == 0.0 || dg == 0.0) break;
            y = x - g / dg;
            if (!(y >= lo && y <= hi)) break;
            x = y;
        }
        th[nr++] = SL_TH0 + fmod(fmod(x - SL_TH0, 2.0 * SL_PI) + 2.0 * SL_PI, 2.0 * SL_PI);
    }
    return nr;
}
