/* mdae_ode.c - a smooth phase integrated by a Runge-Kutta pair (mdae_rk.c) with step
 * control, event sampling and location, and outputs. See mdae_ode.h. Plain C99. */
#include "mdae_ode.h"
#include "mdae_rk.h"

#include <math.h>
#include <string.h>

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
    o->interrupt = NULL;
    o->interrupt_ctx = NULL;
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
    const mdae_rk_tableau *T;
    int nx, ne;
    double *w;              /* work base */
    double *xa;             /* accepted step start (y0) */
    double *k1;             /* f at the step start */
    double ta, h;           /* accepted step */
    mdae_ode_info *info;
} run_ctx;

static double *blk(double *w, int nx, int b) { return w + (size_t)b * (size_t)nx; }

static int eval_ev(const mdae_ode_system *s, const double *x, double t, double *e, double *ed,
                   mdae_ode_info *info)
{
    const double *arg[3];
    double *res[2];
    arg[0] = x; arg[1] = &t; arg[2] = s->P;
    res[0] = e; res[1] = ed;
    if (info) info->n_ev++;
    if (s->ev(s->ev_ctx, arg, res)) return MDAE_NUMERICAL;
    if (!mdae_rk_finite(e, s->ne)) return MDAE_NUMERICAL;
    return MDAE_OK;
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
        if ((st = mdae_rk_stages(c->T, s, c->ta, c->xa, hc, k, blk(w, n, W_YT), xc, NULL, c->info)))
            return st;
        if (!mdae_rk_finite(xc, n)) return MDAE_NUMERICAL;
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
    double hmax, tol, span, stnum, stden, pw = 0.0;
    int i, j, st, io = 0, reject = 0, iasti = 0, nonsti = 0, last;
    long small = 0;
    run_ctx c;
    const double safe = 0.9;
    const mdae_rk_tableau *T;
    int method, fsal, have_dense = 0, crossed = 0;

    if (!s || !o || !x || !xdot || !work || !info || n <= 0 || ne < 0 || !s->rhs
        || (ne > 0 && (!s->ev || !e || !edot || !fired || !o->shift))
        || (n_out > 0 && (!t_out || !T_out || !X_out))
        || !(o->rtol > 0) || !(o->atol >= 0) || !(o->window > 0) || !(o->window_max > 0)
        || o->nsub < 1 || !isfinite(t0) || !isfinite(t_end)
        || !isfinite(o->rtol) || !isfinite(o->atol)   /* atol = inf accepts every step */
        || !(o->window / o->nsub > 0)      /* a zero sample spacing never advances */
        || !(o->event_tol >= 0) || !isfinite(o->event_tol))
        return MDAE_BAD_INPUT;
    memset(info, 0, sizeof(*info));
    info->outcome = MDAE_ODE_DONE;
    info->t = t0;
    method = o->method == MDAE_ODE_DOP853 ? MDAE_ODE_DOP853 : MDAE_ODE_DOPRI5;
    T = &MDAE_RK_TAB[method];
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
    if (!mdae_rk_finite(y0, n)) return MDAE_BAD_INPUT;
    if ((st = mdae_rk_rhs(s, y0, t, k[0], info))) return st;
    if (!mdae_rk_finite(k[0], n)) return MDAE_NUMERICAL;
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
    else if ((st = mdae_rk_initial_step(s, o, method == MDAE_ODE_DOP853 ? 8 : 5, t, y0, k[0],
                                hmax < span ? hmax : span, yt, k[1], &h, info)))
        return st;
    if (h > hmax) h = hmax;
    if (o->h_stab > 0 && h > o->h_stab) h = o->h_stab;

    for (;;) {
        /* the last step lands on t_end exactly */
        last = 0;
        if (t + h >= t_end - 1e-14 * (fabs(t_end) > 1 ? fabs(t_end) : 1.0)
            || t + 1.01 * h >= t_end) {
            h = t_end - t;
            last = 1;
        }
        if (h <= 16 * 2.2e-16 * (fabs(t) > 1 ? fabs(t) : 1.0)) return MDAE_NUMERICAL;
        if (info->n_steps + info->n_rejected >= o->max_steps) return MDAE_MAX_ITER;
        /* Ctrl-C: a poll about every MDAE_POLL_WORK flops (a step: 13 stages of nx) */
        if (o->interrupt && (pw += 64.0 + 40.0 * n) >= MDAE_POLL_WORK) {
            pw = 0.0;
            if (o->interrupt(o->interrupt_ctx)) return MDAE_INTERRUPTED;
        }
        if (o->stiff_h > 0 && h < o->stiff_h && ++small > SMALL_STEPS) {
            /* hundreds of attempts below stiff_h: stability-limited (a stiff or
               near-singular phase, e.g. spatial sliding starting from rest) */
            return finish(MDAE_ODE_STIFF, t, h, io, n, ne, y0, k[0], eA, edA, x, xdot, e, edot,
                          info);
        }
        if ((st = mdae_rk_stages(T, s, t, y0, h, k, yt, y1, ysti, info))) return st;
        err = mdae_rk_error(method, k, h, y0, y1, xref, n, o->rtol, o->atol, blk(w, n, W_ERR));
        if (!isfinite(err) || !mdae_rk_finite(k[fsal], n) || !mdae_rk_finite(y1, n)) err = 1e10;
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
                if ((st = mdae_rk_dense_prep(method, s, t, h, y0, y1, k, rc, yt, info)))     \
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
                    mdae_rk_dense(method, (const double *const *)rc, y0, n, (ts - t) / h, xs);
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
                                mdae_rk_dense(method, (const double *const *)rc, y0, n,
                                              (tA - t) / h, xbest);
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
                        mdae_rk_dense(method, (const double *const *)rc, y0, n, (t_out[io] - t) / h,
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
                if ((st = mdae_rk_rhs(s, x, best.t, xdot, info))) return st;
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
                mdae_rk_dense(method, (const double *const *)rc, y0, n, (to - t) / h,
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
