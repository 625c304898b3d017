/* mdae_rk.c - the Runge-Kutta pairs of the phase integrator: DOPRI5 and DOP853.
 * See mdae_rk.h. Plain C99. */
#include "mdae_rk.h"

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



const mdae_rk_tableau MDAE_RK_TAB[2] = {
    {6, 7, 7, P5_C, P5_A, P5_A + 6 * 7, 0.2 - 0.04 * 0.75, 0.04, 0.1, 5.0, 3.25},
    {12, 16, 16, P8_C, P8_A, P8_B, 1.0 / 8.0, 0.0, 1.0 / 6.0, 3.0, 6.1}};

int mdae_rk_finite(const double *v, int n)
{
    int i;
    for (i = 0; i < n; ++i)
        if (!isfinite(v[i])) return 0;
    return 1;
}

int mdae_rk_rhs(const mdae_ode_system *s, const double *x, double t, double *out,
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

/* RMS norm of v / (atol + rtol max(|a_i - r_i|, |b_i - r_i|)) */
double mdae_rk_err_norm(const double *v, const double *a, const double *b, const double *r,
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

/* stages 1..ns of a step of size h from (t, x) with k[0] = f(t, x): y the solution,
 * ysti the argument of stage ns - 1 (c = 1: the stiffness test; may be NULL), k[ns] =
 * f(t + h, y) (FSAL) */
int mdae_rk_stages(const mdae_rk_tableau *T, const mdae_ode_system *s, double t,
                   const double *x, double h, double **k, double *yt, double *y, double *ysti,
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
        if ((st = mdae_rk_rhs(s, dst, t + (r < T->ns ? T->c[r] : 1.0) * h, k[r], info)))
            return st;
    }
    return MDAE_OK;
}

/* RMS error of the step scaled by atol + rtol max(|z|, |z+|), z = x - xref */
double mdae_rk_error(int method, double **k, double h, const double *y0, const double *y1,
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
        return mdae_rk_err_norm(tmp, y0, y1, xref, n, rtol, atol);
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
int mdae_rk_dense_prep(int method, const mdae_ode_system *s, double t, double h,
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
        if ((st = mdae_rk_rhs(s, yt, t + P8_C[r] * h, k[r], info))) return st;
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
    const mdae_rk_tableau *T;
    double *k[16];
    if (method != MDAE_ODE_DOPRI5 && method != MDAE_ODE_DOP853) return MDAE_BAD_INPUT;
    T = &MDAE_RK_TAB[method];
    k[0] = (double *)k1;
    for (j = 1; j <= T->ns; ++j) k[j] = work + (size_t)(j - 1) * (size_t)n;
    return mdae_rk_stages(T, s, t, x, h, k, work + (size_t)T->ns * (size_t)n, y, NULL, NULL);
}

double mdae_ode_growth(int method, double re, double im)
{
    /* |R(z)| = |1 + z b^T (I - z A)^-1 1| of the mdae_rk_tableau (A strictly lower triangular) */
    const mdae_rk_tableau *T = &MDAE_RK_TAB[method == MDAE_ODE_DOP853];
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
void mdae_rk_dense(int method, const double *const *rc, const double *y0, int n, double th,
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

/* Hairer's starting step (scaled by atol + rtol |x|) */
int mdae_rk_initial_step(const mdae_ode_system *s, const mdae_ode_options *o, int order,
                         double t, const double *x, const double *f0, double hmax, double *yt,
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
    if ((st = mdae_rk_rhs(s, yt, t + h0, f1, info))) return st;
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

