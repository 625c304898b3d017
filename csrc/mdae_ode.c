/* mdae_ode.c - Dormand-Prince 5(4) integration of a smooth phase with event location.
 * See mdae_ode.h. Plain C99. */
#include "mdae_ode.h"

#include <math.h>
#include <string.h>

/* Dormand-Prince 5(4) (Hairer, Norsett, Wanner, Solving ODEs I, Table 5.2): 6 stages and
 * the FSAL stage, A row-major 7 x 7 */
static const double P5_C[7] = {0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0};
static const double P5_A[49] = {
    0, 0, 0, 0, 0, 0, 0,
    0.2, 0, 0, 0, 0, 0, 0,
    3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0, 0,
    44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0, 0,
    19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0, 0,
    9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0, 0,
    35.0 / 384.0, 0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0, 0};
/* error coefficients b - bhat (7 stages, the last the FSAL stage) */
static const double P5_E[7] = {71.0 / 57600.0, 0, -71.0 / 16695.0, 71.0 / 1920.0,
                               -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};
/* continuous extension (Hairer's dopri5, contd5) */
static const double P5_D[7] = {-12715105075.0 / 11282082432.0, 0,
                               87487479700.0 / 32700410799.0, -10690763975.0 / 1880347072.0,
                               701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                               69997945.0 / 29380423.0};

/* Dormand-Prince 8(5,3) (Hairer's DOP853), coefficients as in Hairer, Norsett, Wanner,
 * Solving ODEs I, and scipy.integrate's dop853_coefficients (its 12 stages, the FSAL
 * stage, 3 extra stages of the continuous extension of order 7). */
static const double P8_C[16] = {0.0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726, 0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6, 0.8571428571428571, 1.0, 1.0, 0.1, 0.2, 0.7777777777777778};
static const double P8_A[256] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.05260015195876773, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0197250569845379, 0.0591751709536137, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.02958758547680685, 0.0, 0.08876275643042054, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2413651341592667, 0.0, -0.8845494793282861, 0.924834003261792, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.037037037037037035, 0.0, 0.0, 0.17082860872947386, 0.12546768756682242, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.037109375, 0.0, 0.0, 0.17025221101954405, 0.06021653898045596, -0.017578125, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.03709200011850479, 0.0, 0.0, 0.17038392571223998, 0.10726203044637328, -0.015319437748624402, 0.008273789163814023, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.6241109587160757, 0.0, 0.0, -3.3608926294469414, -0.868219346841726, 27.59209969944671, 20.154067550477894, -43.48988418106996, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.47766253643826434, 0.0, 0.0, -2.4881146199716677, -0.590290826836843, 21.230051448181193, 15.279233632882423, -33.28821096898486, -0.020331201708508627, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.9371424300859873, 0.0, 0.0, 5.186372428844064, 1.0914373489967295, -8.149787010746927, -18.52006565999696, 22.739487099350505, 2.4936055526796523, -3.0467644718982196, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.273310147516538, 0.0, 0.0, -10.53449546673725, -2.0008720582248625, -17.9589318631188, 27.94888452941996, -2.8589982771350235, -8.87285693353063, 12.360567175794303, 0.6433927460157636, 0.0, 0.0, 0.0, 0.0, 0.0, 0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003, -5.801203960010585, 0.3111643669578199, -0.1521609496625161, 0.20136540080403034, 0.04471061572777259, 0.0, 0.0, 0.0, 0.0, 0.056167502283047954, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25350021021662483, -0.2462390374708025, -0.12419142326381637, 0.15329179827876568, 0.00820105229563469, 0.007567897660545699, -0.008298, 0.0, 0.0, 0.0, 0.03183464816350214, 0.0, 0.0, 0.0, 0.0, 0.028300909672366776, 0.053541988307438566, -0.05492374857139099, 0.0, 0.0, -0.00010834732869724932, 0.0003825710908356584, -0.00034046500868740456, 0.1413124436746325, 0.0, 0.0, -0.42889630158379194, 0.0, 0.0, 0.0, 0.0, -4.697621415361164, 7.683421196062599, 4.06898981839711, 0.3567271874552811, 0.0, 0.0, 0.0, -0.0013990241651590145, 2.9475147891527724, -9.15095847217987, 0.0};
static const double P8_B[12] = {0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003, -5.801203960010585, 0.3111643669578199, -0.1521609496625161, 0.20136540080403034, 0.04471061572777259};
static const double P8_E3[13] = {-0.18980075407240762, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003, -5.801203960010585, -0.4226823213237919, -0.1521609496625161, 0.20136540080403034, 0.02265179219836082, 0.0};
static const double P8_E5[13] = {0.01312004499419488, 0.0, 0.0, 0.0, 0.0, -1.2251564463762044, -0.4957589496572502, 1.6643771824549864, -0.35032884874997366, 0.3341791187130175, 0.08192320648511571, -0.022355307863886294, 0.0};
static const double P8_D[64] = {-8.428938276109013, 0.0, 0.0, 0.0, 0.0, 0.5667149535193777, -3.0689499459498917, 2.38466765651207, 2.117034582445028, -0.871391583777973, 2.2404374302607883, 0.6315787787694688, -0.08899033645133331, 18.148505520854727, -9.194632392478356, -4.436036387594894, 10.427508642579134, 0.0, 0.0, 0.0, 0.0, 242.28349177525817, 165.20045171727028, -374.5467547226902, -22.113666853125306, 7.733432668472264, -30.674084731089398, -9.332130526430229, 15.697238121770845, -31.139403219565178, -9.35292435884448, 35.81684148639408, 19.985053242002433, 0.0, 0.0, 0.0, 0.0, -387.0373087493518, -189.17813819516758, 527.8081592054236, -11.57390253995963, 6.8812326946963, -1.0006050966910838, 0.7777137798053443, -2.778205752353508, -60.19669523126412, 84.32040550667716, 11.99229113618279, -25.69393346270375, 0.0, 0.0, 0.0, 0.0, -154.18974869023643, -231.5293791760455, 357.6391179106141, 93.40532418362432, -37.45832313645163, 104.0996495089623, 29.8402934266605, -43.53345659001114, 96.32455395918828, -39.17726167561544, -149.72683625798564};
#define P8_NS 12
#define P8_NX 16
/* shapes: (16, 16) (12,) (13,) (13,) (4, 16) */


typedef struct {
    int ns;                 /* stages of the step (the FSAL stage is stage ns)            */
    int nk;                 /* stages stored (with the dense output's extra stages)       */
    int lda;                /* row length of a                                            */
    const double *c, *a, *b;
    double expo, beta, lo, hi, stiff;   /* step control (h_new / h in [lo, hi]) and the
                                           stiffness test's bound of |h lambda|        */
} tableau;

static const tableau TAB[2] = {
    {6, 7, 7, P5_C, P5_A, P5_A + 6 * 7, 0.2 - 0.04 * 0.75, 0.04, 0.1, 5.0, 3.25},
    {12, 16, 16, P8_C, P8_A, P8_B, 1.0 / 8.0, 0.0, 1.0 / 6.0, 3.0, 6.1}};

/* attempts below stiff_h in one run before MDAE_ODE_STIFF */
#define SMALL_STEPS 500

void mdae_ode_options_default(mdae_ode_options *o)
{
    o->rtol = 1e-10;
    o->atol = 1e-12;
    o->window = 0.2;
    o->window_max = 0.2;
    o->nsub = 32;
    o->event_tol = 1e-10;
    o->shift = NULL;
    o->stiff_h = 0.0;
    o->h_stab = 0.0;
    o->method = MDAE_ODE_DOP853;
    o->max_steps = 10000000L;
}

/* work layout (doubles) */
enum { W_K = 0, W_KS = 16, W_Y0 = 28, W_Y1, W_YSTI, W_YT, W_XREF, W_XS, W_XC, W_XB,
       W_XBEST, W_ERR, W_RC, W_NXBLOCKS = W_RC + 7 };
enum { E_A = 0, E_DA, E_B, E_DB, E_C, E_DC, E_BEST, E_DBEST, E_OFF, E_OFFB, E_ARMED, E_H, E_DH,
       E_NEBLOCKS };

size_t mdae_ode_work_size(int nx, int ne)
{
    return (size_t)W_NXBLOCKS * (size_t)(nx > 0 ? nx : 1)
           + (size_t)E_NEBLOCKS * (size_t)(ne > 0 ? ne : 1) + 8;
}

typedef struct {
    const mdae_ode_system *s;
    const tableau *T;
    int nx, ne;
    double *w;              /* work base */
    double *xa;             /* accepted step start (y0) */
    double *k1;             /* f at the step start */
    double ta, h;           /* accepted step */
    mdae_ode_info *info;
} run_ctx;

static double *blk(double *w, int nx, int b) { return w + (size_t)b * (size_t)nx; }

static int finite_all(const double *v, int n)
{
    int i;
    for (i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

static int eval_rhs(const mdae_ode_system *s, const double *x, double t, double *out,
                    mdae_ode_info *info)
{
    const double *arg[3];
    double *res[1];
    arg[0] = x; arg[1] = &t; arg[2] = s->P;
    res[0] = out;
    if (info) info->n_rhs++;
    if (s->rhs(s->rhs_ctx, arg, res)) return MDAE_NUMERICAL;
    return MDAE_OK;
}

static int eval_ev(const mdae_ode_system *s, const double *x, double t, double *e, double *ed,
                   mdae_ode_info *info)
{
    const double *arg[3];
    double *res[2];
    arg[0] = x; arg[1] = &t; arg[2] = s->P;
    res[0] = e; res[1] = ed;
    if (info) info->n_ev++;
    if (s->ev(s->ev_ctx, arg, res)) return MDAE_NUMERICAL;
    if (!finite_all(e, s->ne)) return MDAE_NUMERICAL;
    return MDAE_OK;
}

static double err_norm(const double *v, const double *a, const double *b, const double *r,
                       int n, double rtol, double atol);

/* stages 1..ns of a step of size h from (t, x) with k[0] = f(t, x): y the solution,
 * ysti the argument of stage ns - 1 (c = 1: the stiffness test; may be NULL), k[ns] =
 * f(t + h, y) (FSAL) */
static int rk_stages(const tableau *T, const mdae_ode_system *s, double t, const double *x,
                     double h, double **k, double *yt, double *y, double *ysti,
                     mdae_ode_info *info)
{
    int n = s->nx, i, j, r, st;
    for (r = 1; r <= T->ns; ++r) {
        const double *ar = r < T->ns ? T->a + (size_t)r * T->lda : T->b;
        double *dst = r < T->ns ? yt : y;
        for (i = 0; i < n; ++i) {
            double acc = 0.0;
            for (j = 0; j < r; ++j)
                if (ar[j] != 0.0) acc += ar[j] * k[j][i];
            dst[i] = x[i] + h * acc;
        }
        if (r == T->ns - 1 && ysti) memcpy(ysti, yt, sizeof(double) * (size_t)n);
        if ((st = eval_rhs(s, dst, t + (r < T->ns ? T->c[r] : 1.0) * h, k[r], info)))
            return st;
    }
    return MDAE_OK;
}

/* RMS error of the step scaled by atol + rtol max(|z|, |z+|), z = x - xref */
static double rk_error(int method, double **k, double h, const double *y0, const double *y1,
                       const double *xref, int n, double rtol, double atol, double *tmp)
{
    int i, j;
    if (method == MDAE_ODE_DOPRI5) {
        for (i = 0; i < n; ++i) {
            double acc = 0.0;
            for (j = 0; j < 7; ++j)
                if (P5_E[j] != 0.0) acc += P5_E[j] * k[j][i];
            tmp[i] = h * acc;
        }
        return err_norm(tmp, y0, y1, xref, n, rtol, atol);
    } else {
        /* Hairer's dop853: the 5th-order estimate corrected by the 3rd-order one */
        double e5 = 0.0, e3 = 0.0, den;
        for (i = 0; i < n; ++i) {
            double a5 = 0.0, a3 = 0.0, za = fabs(y0[i] - xref[i]), zb = fabs(y1[i] - xref[i]);
            double sc = atol + rtol * (za > zb ? za : zb);
            for (j = 0; j < 13; ++j) {
                a5 += P8_E5[j] * k[j][i];
                a3 += P8_E3[j] * k[j][i];
            }
            e5 += (a5 / sc) * (a5 / sc);
            e3 += (a3 / sc) * (a3 / sc);
        }
        if (e5 == 0.0 && e3 == 0.0) return 0.0;
        den = e5 + 0.01 * e3;
        return fabs(h) * e5 / sqrt(den * n);
    }
}

/* coefficients of the continuous extension of the accepted step (rc: 5 blocks for DOPRI5,
 * 7 for DOP853, whose 3 extra stages k[13..15] are evaluated here) */
static int rk_dense_prep(int method, const mdae_ode_system *s, double t, double h,
                         const double *y0, const double *y1, double **k, double **rc,
                         double *yt, mdae_ode_info *info)
{
    int n = s->nx, i, j, r, st;
    if (method == MDAE_ODE_DOPRI5) {
        for (i = 0; i < n; ++i) {
            double ydiff = y1[i] - y0[i], bspl = h * k[0][i] - ydiff, acc = 0.0;
            rc[0][i] = y0[i];
            rc[1][i] = ydiff;
            rc[2][i] = bspl;
            rc[3][i] = ydiff - h * k[6][i] - bspl;
            for (j = 0; j < 7; ++j)
                if (P5_D[j] != 0.0) acc += P5_D[j] * k[j][i];
            rc[4][i] = h * acc;
        }
        return MDAE_OK;
    }
    for (r = P8_NS + 1; r < P8_NX; ++r) {
        const double *ar = P8_A + (size_t)r * P8_NX;
        for (i = 0; i < n; ++i) {
            double acc = 0.0;
            for (j = 0; j < r; ++j)
                if (ar[j] != 0.0) acc += ar[j] * k[j][i];
            yt[i] = y0[i] + h * acc;
        }
        if ((st = eval_rhs(s, yt, t + P8_C[r] * h, k[r], info))) return st;
    }
    for (i = 0; i < n; ++i) {
        double dy = y1[i] - y0[i];
        rc[0][i] = dy;
        rc[1][i] = h * k[0][i] - dy;
        rc[2][i] = 2 * dy - h * (k[12][i] + k[0][i]);
        for (r = 0; r < 4; ++r) {
            double acc = 0.0;
            for (j = 0; j < P8_NX; ++j)
                if (P8_D[r * P8_NX + j] != 0.0) acc += P8_D[r * P8_NX + j] * k[j][i];
            rc[3 + r][i] = h * acc;
        }
    }
    return MDAE_OK;
}

int mdae_ode_step(int method, const mdae_ode_system *s, double t, const double *x,
                  const double *k1, double h, double *y, double *work)
{
    int n = s->nx, j;
    const tableau *T;
    double *k[16];
    if (method != MDAE_ODE_DOPRI5 && method != MDAE_ODE_DOP853) return MDAE_BAD_INPUT;
    T = &TAB[method];
    k[0] = (double *)k1;
    for (j = 1; j <= T->ns; ++j) k[j] = work + (size_t)(j - 1) * (size_t)n;
    return rk_stages(T, s, t, x, h, k, work + (size_t)T->ns * (size_t)n, y, NULL, NULL);
}

double mdae_ode_growth(int method, double re, double im)
{
    /* |R(z)| = |1 + z b^T (I - z A)^-1 1| of the tableau (A strictly lower triangular) */
    const tableau *T = &TAB[method == MDAE_ODE_DOP853];
    double gr[16], gi[16], sr = 0.0, si = 0.0, r, i2;
    int a, j;
    for (a = 0; a < T->ns; ++a) {
        double accr = 0.0, acci = 0.0;
        for (j = 0; j < a; ++j) {
            double c = T->a[(size_t)a * T->lda + j];
            accr += c * gr[j];
            acci += c * gi[j];
        }
        /* g_a = 1 + z acc */
        gr[a] = 1.0 + re * accr - im * acci;
        gi[a] = re * acci + im * accr;
    }
    for (j = 0; j < T->ns; ++j) {
        sr += T->b[j] * gr[j];
        si += T->b[j] * gi[j];
    }
    r = 1.0 + re * sr - im * si;
    i2 = re * si + im * sr;
    return sqrt(r * r + i2 * i2);
}

/* state at theta of the accepted step from the continuous extension */
static void dense(int method, const double *const *rc, const double *y0, int n, double th,
                  double *out)
{
    int i;
    double th1 = 1.0 - th;
    if (method == MDAE_ODE_DOPRI5) {
        for (i = 0; i < n; ++i)
            out[i] = rc[0][i] + th * (rc[1][i] + th1 * (rc[2][i] + th * (rc[3][i]
                                                                        + th1 * rc[4][i])));
        return;
    }
    for (i = 0; i < n; ++i)
        out[i] = y0[i] + th * (rc[0][i] + th1 * (rc[1][i] + th * (rc[2][i] + th1 * (
                     rc[3][i] + th * (rc[4][i] + th1 * (rc[5][i] + th * rc[6][i]))))));
}

/* the state, event values and rates at tc by one step from the accepted step's start */
static int shoot(run_ctx *c, double tc, double *xc, double *ec, double *edc)
{
    const mdae_ode_system *s = c->s;
    double *w = c->w;
    int n = c->nx, j, st;
    double *k[16];
    double hc = tc - c->ta;
    c->info->n_shoots++;
    if (hc == 0.0) {
        memcpy(xc, c->xa, sizeof(double) * (size_t)n);
    } else {
        k[0] = c->k1;
        for (j = 1; j <= c->T->ns; ++j) k[j] = blk(w, n, W_KS + j - 1);
        if ((st = rk_stages(c->T, s, c->ta, c->xa, hc, k, blk(w, n, W_YT), xc, NULL, c->info)))
            return st;
        if (!finite_all(xc, n)) return MDAE_NUMERICAL;
    }
    return eval_ev(s, xc, tc, ec, edc, c->info);
}

/* root in [0, T] of the cubic Hermite interpolant with values fa > 0 >= fb, rates da, db */
static double hermite_root(double fa, double da, double fb, double db, double T, double tol)
{
    double p0 = fa, m0 = da * T, p1 = fb, m1 = db * T;
    double c3 = 2 * p0 + m0 - 2 * p1 + m1, c2 = -3 * p0 - 2 * m0 + 3 * p1 - m1;
    double lo = 0.0, hi = 1.0, mid;
    int it;
    for (it = 0; it < 60; ++it) {
        mid = 0.5 * (lo + hi);
        if (((c3 * mid + c2) * mid + m0) * mid + p0 > 0) lo = mid;
        else hi = mid;
        if (hi - lo < 1e-3 * tol / T) break;
    }
    return hi * T;
}

typedef struct {
    double t;
    double *x, *e, *ed;     /* unshifted values */
    int found;
} hit_t;

/* Hermite-seeded Newton on function k in (ta, tb] (shifted by off[k]); 1 found, 0 failed,
 * < 0 a callback error */
static int newton(run_ctx *c, int k, double ta, double fa, double da, double tb, double fb,
                  double db, double tol, const double *off, hit_t *hit)
{
    int n = c->nx, ne = c->ne, it, st, have = 0;
    double T = tb - ta, lo = ta, hi = tb, tc, fc, d, step, tn;
    double *xc = blk(c->w, n, W_XC);
    double *ec = c->w + (size_t)W_NXBLOCKS * n + (size_t)E_C * ne;
    double *edc = c->w + (size_t)W_NXBLOCKS * n + (size_t)E_DC * ne;
    if (!(T > 0 && fa > 0 && fb <= 0)) return 0;
    tc = ta + hermite_root(fa, da, fb, db, T, tol);
    for (it = 0; it < 8; ++it) {
        if (tc < lo + 0.01 * tol) tc = lo + 0.01 * tol;
        if (tc > hi) tc = hi;
        if ((st = shoot(c, tc, xc, ec, edc))) return -st;
        fc = ec[k] + off[k];
        d = edc[k];
        if (fc > 0) {
            lo = tc;
        } else {
            hi = tc;
            memcpy(hit->x, xc, sizeof(double) * (size_t)n);
            memcpy(hit->e, ec, sizeof(double) * (size_t)ne);
            memcpy(hit->ed, edc, sizeof(double) * (size_t)ne);
            have = 1;
        }
        if (have && hi - lo <= tol) { hit->t = hi; return 1; }
        step = d < 0 ? -fc / d : NAN;
        if (fc <= 0 && fabs(step) <= tol) { hit->t = hi; return 1; }
        tn = tc + step + 0.25 * tol;         /* aim just past the root: e <= 0 there */
        if (!(lo < tn && tn < hi + 0.5 * tol)) tn = 0.5 * (lo + hi);
        tc = tn;
    }
    return 0;
}

/* Illinois regula falsi on function k in (ta, tb]; (xb, eb, edb) the state at tb */
static int illinois(run_ctx *c, int k, double ta, double fa, double tb, const double *xb,
                    const double *eb, const double *edb, double tol, const double *off,
                    hit_t *hit)
{
    int n = c->nx, ne = c->ne, it, st, side = 0;
    double a = ta, b = tb, fb = eb[k] + off[k], cc, fc;
    double *xc = blk(c->w, n, W_XC);
    double *ec = c->w + (size_t)W_NXBLOCKS * n + (size_t)E_C * ne;
    double *edc = c->w + (size_t)W_NXBLOCKS * n + (size_t)E_DC * ne;
    memcpy(hit->x, xb, sizeof(double) * (size_t)n);
    memcpy(hit->e, eb, sizeof(double) * (size_t)ne);
    memcpy(hit->ed, edb, sizeof(double) * (size_t)ne);
    for (it = 0; it < 200; ++it) {
        if (b - a <= tol) break;
        cc = b - fb * (b - a) / (fb - fa);
        if (!(a < cc && cc < b)) cc = 0.5 * (a + b);
        if (cc < a + 0.01 * tol) cc = a + 0.01 * tol;
        if (cc > b - 0.01 * tol) cc = b - 0.01 * tol;
        if ((st = shoot(c, cc, xc, ec, edc))) return -st;
        fc = ec[k] + off[k];
        if (fc > 0) {
            a = cc; fa = fc;
            if (side == -1) fb *= 0.5;
            side = -1;
        } else {
            b = cc; fb = fc;
            memcpy(hit->x, xc, sizeof(double) * (size_t)n);
            memcpy(hit->e, ec, sizeof(double) * (size_t)ne);
            memcpy(hit->ed, edc, sizeof(double) * (size_t)ne);
            if (side == 1) fa *= 0.5;
            side = 1;
        }
    }
    hit->t = b;
    return 1;
}

/* RMS norm of v / (atol + rtol max(|a_i - r_i|, |b_i - r_i|)) */
static double err_norm(const double *v, const double *a, const double *b, const double *r,
                       int n, double rtol, double atol)
{
    int i;
    double acc = 0.0, sc, za, zb;
    for (i = 0; i < n; ++i) {
        za = fabs(a[i] - r[i]);
        zb = fabs(b[i] - r[i]);
        sc = atol + rtol * (za > zb ? za : zb);
        acc += (v[i] / sc) * (v[i] / sc);
    }
    return sqrt(acc / (n > 0 ? n : 1));
}

/* Hairer's starting step (scaled by atol + rtol |x|) */
static int initial_step(const mdae_ode_system *s, const mdae_ode_options *o, int order, double t,
                        const double *x, const double *f0, double hmax, double *yt,
                        double *f1, double *h_out, mdae_ode_info *info)
{
    int n = s->nx, i, st;
    double d0 = 0, d1 = 0, d2 = 0, sc, h0, h1, m;
    for (i = 0; i < n; ++i) {
        sc = o->atol + o->rtol * fabs(x[i]);
        d0 += (x[i] / sc) * (x[i] / sc);
        d1 += (f0[i] / sc) * (f0[i] / sc);
    }
    d0 = sqrt(d0 / n);
    d1 = sqrt(d1 / n);
    h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    if (h0 > hmax) h0 = hmax;
    for (i = 0; i < n; ++i) yt[i] = x[i] + h0 * f0[i];
    if ((st = eval_rhs(s, yt, t + h0, f1, info))) return st;
    for (i = 0; i < n; ++i) {
        sc = o->atol + o->rtol * fabs(x[i]);
        d2 += ((f1[i] - f0[i]) / sc) * ((f1[i] - f0[i]) / sc);
    }
    d2 = sqrt(d2 / n) / h0;
    m = d1 > d2 ? d1 : d2;
    h1 = m <= 1e-15 ? (h0 * 1e-3 > 1e-6 ? h0 * 1e-3 : 1e-6) : pow(0.01 / m, 1.0 / order);
    *h_out = 100 * h0 < h1 ? 100 * h0 : h1;
    if (!isfinite(*h_out) || *h_out > hmax) *h_out = hmax;
    return MDAE_OK;
}

/* the run ends at (t, y0) with f = k0 and event values (eA, edA) there */
static int finish(int outcome, double t, double h, int io, int n, int ne, const double *y0,
                  const double *k0, const double *eA, const double *edA, double *x,
                  double *xdot, double *e, double *edot, mdae_ode_info *info)
{
    memcpy(x, y0, sizeof(double) * (size_t)n);
    memcpy(xdot, k0, sizeof(double) * (size_t)n);
    if (ne) {
        memcpy(e, eA, sizeof(double) * (size_t)ne);
        memcpy(edot, edA, sizeof(double) * (size_t)ne);
    }
    info->outcome = outcome;
    info->t = t;
    info->h = h;
    info->n_out = io;
    return MDAE_OK;
}

int mdae_ode_run(const mdae_ode_system *s, const mdae_ode_options *o, double t0, double *x,
                 double *xdot, double t_end, double h0, const double *t_out, int n_out,
                 double *T_out, double *X_out, double *e, double *edot, int *fired,
                 double *work, mdae_ode_info *info)
{
    const int n = s ? s->nx : 0, ne = s ? s->ne : 0;
    double *w = work, *k[16], *rc[7];
    double *y0, *y1, *ysti, *yt, *xref, *xs, *xb;
    double *eA, *edA, *eB, *edB, *off, *offB, *armed;
    double *ebest, *edbest, *xbest, *eH, *edH, tA = t0;
    double t = t0, h, hnew, err, fac, fac11, facold = 1e-4, win, win_end, spacing, next_s;
    double hmax, tol, span, stnum, stden;
    int i, j, st, io = 0, reject = 0, iasti = 0, nonsti = 0, last;
    long small = 0;
    run_ctx c;
    const double safe = 0.9;
    const tableau *T;
    int method, fsal, have_dense = 0, crossed = 0;

    if (!s || !o || !x || !xdot || !work || !info || n <= 0 || ne < 0 || !s->rhs
        || (ne > 0 && (!s->ev || !e || !edot || !fired || !o->shift))
        || (n_out > 0 && (!t_out || !T_out || !X_out))
        || !(o->rtol > 0) || !(o->atol >= 0) || !(o->window > 0) || !(o->window_max > 0)
        || o->nsub < 1 || !isfinite(t0) || !isfinite(t_end))
        return MDAE_BAD_INPUT;
    memset(info, 0, sizeof(*info));
    info->outcome = MDAE_ODE_DONE;
    info->t = t0;
    method = o->method == MDAE_ODE_DOP853 ? MDAE_ODE_DOP853 : MDAE_ODE_DOPRI5;
    T = &TAB[method];
    fsal = T->ns;
    for (j = 0; j < 16; ++j) k[j] = blk(w, n, W_K + j);
    for (j = 0; j < 7; ++j) rc[j] = blk(w, n, W_RC + j);
    y0 = blk(w, n, W_Y0); y1 = blk(w, n, W_Y1); ysti = blk(w, n, W_YSTI);
    yt = blk(w, n, W_YT); xref = blk(w, n, W_XREF); xs = blk(w, n, W_XS);
    xb = blk(w, n, W_XB); xbest = blk(w, n, W_XBEST);
    {
        double *eb = w + (size_t)W_NXBLOCKS * n;
        eA = eb + (size_t)E_A * ne; edA = eb + (size_t)E_DA * ne;
        eB = eb + (size_t)E_B * ne; edB = eb + (size_t)E_DB * ne;
        ebest = eb + (size_t)E_BEST * ne; edbest = eb + (size_t)E_DBEST * ne;
        off = eb + (size_t)E_OFF * ne; offB = eb + (size_t)E_OFFB * ne;
        armed = eb + (size_t)E_ARMED * ne;
        eH = eb + (size_t)E_H * ne; edH = eb + (size_t)E_DH * ne;
    }
    c.s = s; c.T = T; c.nx = n; c.ne = ne; c.w = w; c.xa = y0; c.k1 = k[0]; c.info = info;

    memcpy(y0, x, sizeof(double) * (size_t)n);
    if (!finite_all(y0, n)) return MDAE_BAD_INPUT;
    if ((st = eval_rhs(s, y0, t, k[0], info))) return st;
    if (!finite_all(k[0], n)) return MDAE_NUMERICAL;
    if (ne) {
        if ((st = eval_ev(s, y0, t, eA, edA, info))) return st;
        for (j = 0; j < ne; ++j) {
            off[j] = eA[j] > 0 ? 0.0 : o->shift[j] - (eA[j] < 0 ? eA[j] : 0.0);
            armed[j] = off[j] == 0.0 ? 1.0 : 0.0;
            fired[j] = 0;
        }
    }
    memcpy(xref, y0, sizeof(double) * (size_t)n);
    win = o->window < o->window_max ? o->window : o->window_max;
    win_end = t0 + win;
    spacing = win / o->nsub;
    next_s = t0 + spacing;
    hmax = o->window_max;
    span = t_end - t0;
    if (!(span > 0)) {
        memcpy(xdot, k[0], sizeof(double) * (size_t)n);
        if (ne) { memcpy(e, eA, sizeof(double) * ne); memcpy(edot, edA, sizeof(double) * ne); }
        return MDAE_OK;
    }
    if (h0 > 0) h = h0;
    else if ((st = initial_step(s, o, method == MDAE_ODE_DOP853 ? 8 : 5, t, y0, k[0],
                                hmax < span ? hmax : span, yt, k[1], &h, info)))
        return st;
    if (h > hmax) h = hmax;
    if (o->h_stab > 0 && h > o->h_stab) h = o->h_stab;

    for (;;) {
        /* the last step lands on t_end exactly */
        last = 0;
        if (t + h >= t_end - 1e-14 * (fabs(t_end) > 1 ? fabs(t_end) : 1.0) || t + 1.01 * h >= t_end) {
            h = t_end - t;
            last = 1;
        }
        if (h <= 16 * 2.2e-16 * (fabs(t) > 1 ? fabs(t) : 1.0)) return MDAE_NUMERICAL;
        if (info->n_steps + info->n_rejected >= o->max_steps) return MDAE_MAX_ITER;
        if (o->stiff_h > 0 && h < o->stiff_h && ++small > SMALL_STEPS) {
            /* hundreds of attempts below stiff_h: stability-limited (a stiff or
               near-singular phase, e.g. spatial sliding starting from rest) */
            return finish(MDAE_ODE_STIFF, t, h, io, n, ne, y0, k[0], eA, edA, x, xdot, e, edot,
                          info);
        }
        if ((st = rk_stages(T, s, t, y0, h, k, yt, y1, ysti, info))) return st;
        err = rk_error(method, k, h, y0, y1, xref, n, o->rtol, o->atol, blk(w, n, W_ERR));
        if (!isfinite(err) || !finite_all(k[fsal], n) || !finite_all(y1, n)) err = 1e10;
        fac11 = pow(err, T->expo);
        fac = fac11 / pow(facold, T->beta) / safe;
        if (fac < 1.0 / T->hi) fac = 1.0 / T->hi;
        if (fac > 1.0 / T->lo) fac = 1.0 / T->lo;
        hnew = h / fac;
        if (err > 1.0) {
            info->n_rejected++;
            fac = fac11 / safe;
            if (fac > 1.0 / T->lo) fac = 1.0 / T->lo;
            if (fac < 1.0) fac = 1.0;
            h = h / (reject ? 2.0 * fac : fac);
            reject = 1;
            continue;
        }
        /* accepted */
        info->n_steps++;
        facold = err > 1e-4 ? err : 1e-4;
        have_dense = 0;
#define NEED_DENSE()                                                                    \
        do {                                                                            \
            if (!have_dense) {                                                          \
                if ((st = rk_dense_prep(method, s, t, h, y0, y1, k, rc, yt, info)))     \
                    return st;                                                          \
                have_dense = 1;                                                         \
            }                                                                           \
        } while (0)
        c.ta = t; c.h = h;

        /* events: sub-samples of the continuous extension, then the step end */
        if (ne) {
            double ts, tb = t + h;
            int sub, any;
            for (;;) {
                sub = next_s < tb - 1e-12 * spacing;
                ts = sub ? next_s : tb;
                if (sub) {
                    NEED_DENSE();
                    dense(method, (const double *const *)rc, y0, n, (ts - t) / h, xs);
                }
                else memcpy(xs, y1, sizeof(double) * (size_t)n);
                if ((st = eval_ev(s, xs, ts, eB, edB, info))) return st;
                any = 0;
                for (j = 0; j < ne; ++j) {
                    offB[j] = armed[j] != 0.0 ? 0.0 : off[j];
                    fired[j] = eB[j] + offB[j] <= 0;
                    any |= fired[j];
                }
                if (any) break;
                for (j = 0; j < ne; ++j)
                    if (armed[j] == 0.0 && eB[j] > 1e-3 * o->shift[j]) armed[j] = 1.0;
                tA = ts;               /* bracket start for the next sample */
                memcpy(eA, eB, sizeof(double) * ne);
                memcpy(edA, edB, sizeof(double) * ne);
                if (!sub) break;
                if (next_s >= win_end - 1e-12 * spacing) {
                    /* the window's last sample: the next window is 4x wider */
                    win = 4 * win < o->window_max ? 4 * win : o->window_max;
                    next_s = win_end + win / o->nsub;
                    win_end += win;
                    spacing = win / o->nsub;
                    crossed = 1;
                } else {
                    next_s += spacing;
                }
            }
            if (any) {
                /* earliest root in the bracket (tA, ts] */
                hit_t best, got;
                int kk, r, nf = 0, first = -1;
                best.found = 0; best.t = 0;
                best.x = xbest; best.e = ebest; best.ed = edbest;
                got.found = 0; got.t = 0;
                got.x = xb; got.e = eH; got.ed = edH;
                tol = o->event_tol * (fabs(ts) > 1 ? fabs(ts) : 1.0);
                for (kk = 0; kk < ne; ++kk) {
                    double fa, fb;
                    if (!fired[kk]) continue;
                    fa = eA[kk] + offB[kk];
                    fb = eB[kk] + offB[kk];
                    if (!(fa > 0)) {      /* fired at the bracket start: no bracket */
                        if (!best.found || tA < best.t) {
                            best.found = 1; best.t = tA;
                            if (tA == t) memcpy(xbest, y0, sizeof(double) * (size_t)n);
                            else {
                                NEED_DENSE();
                                dense(method, (const double *const *)rc, y0, n, (tA - t) / h,
                                      xbest);
                            }
                            memcpy(ebest, eA, sizeof(double) * ne);
                            memcpy(edbest, edA, sizeof(double) * ne);
                            first = kk;
                        }
                        continue;
                    }
                    if (best.found && best.t <= tA) continue;
                    r = newton(&c, kk, tA, fa, edA[kk], ts, fb, edB[kk], tol, offB, &got);
                    if (r < 0) return -r;
                    if (r == 0) {
                        r = illinois(&c, kk, tA, fa, ts, xs, eB, edB, tol, offB, &got);
                        if (r < 0) return -r;
                    }
                    if (!best.found || got.t < best.t) {
                        best.found = 1; best.t = got.t;
                        memcpy(xbest, got.x, sizeof(double) * (size_t)n);
                        memcpy(ebest, got.e, sizeof(double) * ne);
                        memcpy(edbest, got.ed, sizeof(double) * ne);
                        first = kk;
                    }
                }
                /* every armed function non-positive at the event fires with it */
                for (j = 0; j < ne; ++j) {
                    fired[j] = (eA[j] + offB[j] > 0) && (ebest[j] + offB[j] <= 0);
                    nf += fired[j];
                }
                if (!nf && first >= 0) fired[first] = 1;
                /* outputs up to the event */
                while (io < n_out && t_out[io] <= best.t * (1 + 1e-15) + 1e-300) {
                    if (t_out[io] > t) {
                        T_out[io] = t_out[io];
                        NEED_DENSE();
                        dense(method, (const double *const *)rc, y0, n, (t_out[io] - t) / h,
                              X_out + (size_t)io * (size_t)n);
                    } else {
                        T_out[io] = t_out[io];
                        memcpy(X_out + (size_t)io * (size_t)n, y0, sizeof(double) * (size_t)n);
                    }
                    ++io;
                }
                memcpy(x, xbest, sizeof(double) * (size_t)n);
                memcpy(e, ebest, sizeof(double) * ne);
                memcpy(edot, edbest, sizeof(double) * ne);
                if ((st = eval_rhs(s, x, best.t, xdot, info))) return st;
                info->outcome = MDAE_ODE_EVENT;
                info->t = best.t;
                info->h = h;
                info->n_out = io;
                return MDAE_OK;
            }
        }

        /* outputs passed by this step */
        while (io < n_out) {
            double to = t_out[io];
            if (last) {
                if (to > t_end * (1 + 1e-15) + 1e-300) break;
                if (fabs(to - t_end) <= 1e-15 * (fabs(t_end) > 1 ? fabs(t_end) : 1.0) + 1e-300
                    || to >= t_end) {
                    T_out[io] = t_end;
                    memcpy(X_out + (size_t)io * (size_t)n, y1, sizeof(double) * (size_t)n);
                    ++io;
                    break;
                }
            } else if (to > t + h) {
                break;
            }
            T_out[io] = to;
            if (to <= t) memcpy(X_out + (size_t)io * (size_t)n, y0, sizeof(double) * (size_t)n);
            else {
                NEED_DENSE();
                dense(method, (const double *const *)rc, y0, n, (to - t) / h,
                      X_out + (size_t)io * (size_t)n);
            }
            ++io;
        }

        /* stiffness test (Hairer's dopri5 / dop853) */
        stnum = 0; stden = 0;
        for (i = 0; i < n; ++i) {
            stnum += (k[fsal][i] - k[fsal - 1][i]) * (k[fsal][i] - k[fsal - 1][i]);
            stden += (y1[i] - ysti[i]) * (y1[i] - ysti[i]);
        }
        if (stden > 0 && h * sqrt(stnum / stden) > T->stiff) {
            nonsti = 0;
            ++iasti;
        } else if (++nonsti == 6) {
            iasti = 0;
        }

        /* move on */
        t = last ? t_end : t + h;
        memcpy(y0, y1, sizeof(double) * (size_t)n);
        memcpy(k[0], k[fsal], sizeof(double) * (size_t)n);
        while (t >= win_end) {            /* window passed: wider samples */
            win = 4 * win < o->window_max ? 4 * win : o->window_max;
            win_end += win;
            spacing = win / o->nsub;
            crossed = 1;
        }
        if (crossed) {                    /* and a new reference of the tolerance */
            memcpy(xref, y0, sizeof(double) * (size_t)n);
            crossed = 0;
        }
        if (next_s <= t) next_s = t + spacing;
        if (hnew > hmax) hnew = hmax;
        if (o->h_stab > 0 && hnew > o->h_stab) hnew = o->h_stab;
        if (reject && hnew > h) hnew = h;
        reject = 0;
        if (last) {
            return finish(MDAE_ODE_DONE, t_end, hnew, io, n, ne, y0, k[0], eA, edA, x, xdot, e,
                          edot, info);
        }
        h = hnew;
        if (o->stiff_h > 0 && iasti >= 15 && h < o->stiff_h) {
            /* the last sample was this step's end: (eA, edA) are the values at y0 */
            return finish(MDAE_ODE_STIFF, t, h, io, n, ne, y0, k[0], eA, edA, x, xdot, e, edot,
                          info);
        }
    }
}
#undef NEED_DENSE
