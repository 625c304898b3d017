/* mdae_cycle.c - the event cycle of a flight phase in C (see mdae_cycle.h). */
#include <math.h>
#include <string.h>

#include "mdae_cycle.h"

/* work layout (doubles) after the phase's own work */
typedef struct {
    double *M, *h, *C, *W, *Wt, *Wd, *gap, *E, *MiX;
    double *D, *vm, *b, *MW, *P, *vp, *dT, *kwork;
    int *modes, *kiwork;
} cycle_buf;

/* solution capacity of the cycle's impact problems: a simple impact has one solution;
 * nsol is counted exactly up to 16 whatever the capacity */
#define CYCLE_CAP 16

size_t mdae_cycle_work_size(const mdae_cycle_model *m, const mdae_cycle_options *c, int nx,
                             int ne)
{
    size_t nu = (size_t)m->nu, nW = (size_t)m->nW, d = (size_t)m->dim;
    size_t cap = CYCLE_CAP;
    return mdae_ode_work_size(nx, ne) + nu * nu + nu + 1 + nW * nu + 2 * nW + (size_t)m->nc + 1
           + nu * (1 + nW) + d * d + 2 * d + nu * d + 2 * cap * d + cap
           + mdae_contact_work_size(1, m->dim, c->impact.facets) + 64;
}

size_t mdae_cycle_iwork_size(const mdae_cycle_model *m, const mdae_cycle_options *c)
{
    return CYCLE_CAP + mdae_contact_iwork_size(1, m->dim, c->impact.facets) + 16;
}

static void layout(const mdae_cycle_model *m, int nx, int ne, double *work, int *iwork,
                   cycle_buf *B)
{
    size_t nu = (size_t)m->nu, nW = (size_t)m->nW, d = (size_t)m->dim;
    size_t cap = CYCLE_CAP;
    double *w = work + mdae_ode_work_size(nx, ne);
    B->M = w; w += nu * nu;
    B->h = w; w += nu;
    B->C = w; w += 1;                  /* C and rc: no rows (models without bilateral rows) */
    B->W = w; w += nW * nu;
    B->Wt = w; w += nW;
    B->Wd = w; w += nW;
    B->gap = w; w += (size_t)m->nc;
    B->E = w; w += 1;
    B->MiX = w; w += nu * (1 + nW);
    B->D = w; w += d * d;
    B->vm = w; w += d;
    B->b = w; w += d;
    B->MW = w; w += nu * d;
    B->P = w; w += cap * d;
    B->vp = w; w += cap * d;
    B->dT = w; w += cap;
    B->kwork = w;
    B->modes = iwork;
    B->kiwork = iwork + cap;
}

/* measured_ratio (simulate/event/accumulation.py): the ratio of the last flights when the
 * last n flight-time ratios of the times tt[0..m) agree within tol and lie in (0, r_max);
 * 0 otherwise (m >= n + 2 needed). */
static double measured_ratio(const double *tt, int m, int n, double tol, double r_max)
{
    const double *t = tt + (m - (n + 2));
    double lo = INFINITY, up = -INFINITY, sum = 0.0, r = 0.0;
    int k;
    if (n < 1 || m < n + 2)
        return 0.0;
    for (k = 0; k < n + 1; ++k)
        if (!(t[k + 1] - t[k] > 0))
            return 0.0;
    for (k = 0; k < n; ++k) {
        r = (t[k + 2] - t[k + 1]) / (t[k + 1] - t[k]);
        lo = r < lo ? r : lo;
        up = r > up ? r : up;
        sum += r;
    }
    if (0 < lo && up < r_max && up - lo <= tol * sum / n)
        return r;
    return 0.0;
}

/* The accumulation rule's check (simulate/event/accumulation.py, _series_end): whether
 * contact i's series of impacts would be ended here (then the caller decides). */
static int series_ends(const mdae_cycle_model *m, const mdae_cycle_options *c,
                       const mdae_ode_options *o, int i, double t, const double *hist,
                       const int *nhist)
{
    int j, cnt = nhist[i];
    const double *hi = hist + MDAE_CYCLE_HIST * i;
    double tt[MDAE_CYCLE_HIST + 1], r;
    double prev = cnt ? hi[cnt - 1] : -INFINITY, scale = fabs(t) > 1.0 ? fabs(t) : 1.0;
    double tres = o->event_tol * scale;
    if (!c->zeno || !(m->e_n[i] > 0))
        return 0;
    for (j = 0; j < cnt; ++j)
        tt[j] = hi[j];
    tt[cnt] = t;
    if (c->early) {
        if (cnt >= 1 && t - prev < c->min_flight * scale)
            return 1;
        return measured_ratio(tt, cnt + 1, c->n_ratio, c->ratio_tol, c->r_max) != 0.0;
    }
    if (m->nc >= 2)
        for (j = 0; j < m->nc; ++j)          /* another contact impacted since: no series */
            if (j != i && nhist[j] && hist[MDAE_CYCLE_HIST * j + nhist[j] - 1] > prev)
                return 0;
    if (cnt >= 1 && t - prev < tres)
        return 1;
    r = measured_ratio(tt, cnt + 1, 2, c->ratio_tol, c->r_max);
    return r != 0.0 && (t - prev) * r / (1.0 - r) < tres;
}

/* Resolve the event at (t, x) when it is a simple impact (mdae_cycle.h): x becomes the
 * post-impact state, the log row is written. Returns 1 when resolved, 0 when the caller
 * decides (x untouched), < 0 on a failed callback. */
static int simple_impact(const mdae_ode_system *s, const mdae_ode_options *o,
                         const mdae_cycle_model *m, const mdae_cycle_options *c, double t,
                         double *x, const int *fired, double *P, const double *hist,
                         const int *nhist, const cycle_buf *B, double *pre, double *log)
{
    const int nu = m->nu, nW = m->nW, d = m->dim;
    int k, i = -1, nf = 0, j, l, r, st;
    double *u = x + m->nq, E1, vr;
    const double *argv[3];
    double *resv[10];
    mdae_impact_problem p;
    mdae_impact_info kinfo;
    mdae_impact_options ko = c->impact;

    for (k = 0; k < s->ne; ++k)
        if (fired[k]) {
            ++nf;
            i = c->gap_of[k];
        }
    if (nf != 1 || i < 0)
        return 0;
    P[0] = t;
    argv[0] = x; argv[1] = &t; argv[2] = P;
    resv[0] = B->M; resv[1] = B->h; resv[2] = B->C; resv[3] = B->C; resv[4] = B->W;
    resv[5] = B->Wt; resv[6] = B->Wd; resv[7] = B->gap; resv[8] = B->E; resv[9] = B->MiX;
    if (m->terms(m->terms_ctx, argv, resv))
        return -1;
    for (j = 0; j < m->nc; ++j)              /* another contact touching: not simple */
        if (j != i && B->gap[j] <= c->gap_tol)
            return 0;
    r = 1 + m->nt[i];
    if (r > d)
        return 0;
    for (j = 0; j < d; ++j) {
        double v = 0.0, bj = 0.0;
        if (j < r) {
            int row = m->offs[i] + j;
            for (l = 0; l < nu; ++l) {
                v += B->W[row + (size_t)l * nW] * u[l];
                bj += B->W[row + (size_t)l * nW] * B->MiX[l];
            }
            v += B->Wt[row];
            bj += B->Wd[row];
        }
        B->vm[j] = v;
        B->b[j] = bj;
        for (l = 0; l < nu; ++l)
            B->MW[l + (size_t)j * nu] = j < r ? B->MiX[l + (size_t)(1 + m->offs[i] + j) * nu] : 0.0;
    }
    if (!(B->vm[0] < -c->vel_tol))
        return 0;                            /* grazing: the contact-force problem decides */
    for (j = 0; j < d; ++j)
        for (k = 0; k < d; ++k) {
            double a = 0.0;
            if (j < r)
                for (l = 0; l < nu; ++l)
                    a += B->W[m->offs[i] + j + (size_t)l * nW] * B->MW[l + (size_t)k * nu];
            B->D[j * d + k] = a;
        }
    for (j = 0; j < d; ++j)
        for (k = 0; k < j; ++k) {
            double a = 0.5 * (B->D[j * d + k] + B->D[k * d + j]);
            B->D[j * d + k] = B->D[k * d + j] = a;
        }
    if (c->rest_velocity >= 0) {
        vr = c->rest_velocity;
    } else {
        double bmax = 0.0, floor_, an;
        for (j = 0; j < d; ++j)
            bmax = fabs(B->b[j]) > bmax ? fabs(B->b[j]) : bmax;
        floor_ = 1e-3 * (bmax > 1e-300 ? bmax : 1e-300);
        an = fabs(B->b[0]) > floor_ ? fabs(B->b[0]) : floor_;
        vr = 2.0 * sqrt(2.0 * an * c->gap_tol);
    }
    if (!(fabs(B->vm[0]) >= vr))
        return 0;                            /* below the velocity resolution: rest rules */
    if (series_ends(m, c, o, i, t, hist, nhist))
        return 0;
    p.nc = 1; p.dim = d; p.D = B->D; p.v_minus = B->vm;
    p.e_n = m->e_n + i; p.e_t = m->e_t + i; p.mu = m->mu + i;
    ko.max_solutions = CYCLE_CAP;
    st = mdae_impact_solve(&p, &ko, B->P, B->vp, B->modes, B->dT, B->kwork,
                           B->kiwork, &kinfo);
    if (st != MDAE_OK || kinfo.nsol != 1 || kinfo.incomplete)
        return 0;
    if (!(B->vp[0] > c->vel_tol))
        return 0;                            /* not separating: the contact problem decides */
    memcpy(pre, x, sizeof(double) * (size_t)s->nx);
    for (l = 0; l < nu; ++l) {
        double a = 0.0;
        for (j = 0; j < d; ++j)
            a += B->MW[l + (size_t)j * nu] * B->P[j];
        u[l] += a;
    }
    argv[0] = x;
    resv[0] = &E1;
    if (m->energy(m->energy_ctx, argv, resv)) {
        memcpy(x, pre, sizeof(double) * (size_t)s->nx);
        return -1;
    }
    log[0] = t; log[1] = (double)i; log[2] = B->E[0]; log[3] = E1;
    log[4] = (double)B->modes[0];
    for (j = 0; j < d; ++j) {
        log[5 + j] = B->P[j];
        log[5 + d + j] = B->vm[j];
        log[5 + 2 * d + j] = B->vp[j];
    }
    return 1;
}

int mdae_cycle_run(const mdae_ode_system *s, const mdae_ode_options *o,
                   const mdae_cycle_model *m, const mdae_cycle_options *c, double t0,
                   double *x, double *xdot, double t_end, double window, double h0,
                   double *P, double *hist, int *nhist, const double *t_out, int n_out,
                   double *T_rows, double *X_rows, double *e, double *edot, int *fired,
                   double *log, double *work, int *iwork, mdae_cycle_info *info)
{
    mdae_ode_options oo;
    cycle_buf B;
    double t = t0, hstart = h0;
    int st, nx, rows = 0;
    const size_t L = (size_t)MDAE_CYCLE_LOG(m ? m->dim : 2);

    if (!s || !o || !m || !c || !info || !P || !hist || !nhist || !T_rows || !X_rows
        || !log || !work || !iwork || !m->terms || !m->energy || !c->gap_of || s->ne < 1
        || m->nc < 1 || m->dim < 2 || m->dim > 3 || m->nu < 1 || m->nq < 0
        || m->nq + m->nu > s->nx
        || !(window > 0) || c->max_impacts < 0
        || (c->early && (c->n_ratio < 1 || c->n_ratio > MDAE_CYCLE_HIST - 1)))
        return MDAE_BAD_INPUT;
    memset(info, 0, sizeof(*info));
    nx = s->nx;
    layout(m, nx, s->ne, work, iwork, &B);
    oo = *o;
    info->last_event = t0;
    info->window = window;
    for (;;) {
        int res;
        oo.window = info->window;
        P[0] = t;
        st = mdae_ode_run(s, &oo, t, x, xdot, t_end, hstart, t_out, n_out, T_rows + rows,
                          X_rows + (size_t)rows * nx, e, edot, fired, work, &info->ode);
        info->n_phases += 1;
        info->n_steps += info->ode.n_steps;
        info->n_shoots += info->ode.n_shoots;
        rows += info->ode.n_out;
        info->n_out += info->ode.n_out;
        t_out += info->ode.n_out;
        n_out -= info->ode.n_out;
        info->outcome = info->ode.outcome;
        info->n_rows = rows;
        if (st)
            return st;
        t = info->ode.t;
        if (info->ode.outcome != MDAE_ODE_EVENT || info->n_impacts >= c->max_impacts)
            return MDAE_OK;
        res = simple_impact(s, o, m, c, t, x, fired, P, hist, nhist, &B,
                            X_rows + (size_t)rows * nx, log + (size_t)info->n_impacts * L);
        if (res < 0)
            return MDAE_NUMERICAL;
        if (res == 0)
            return MDAE_OK;
        /* rows: the state before (written by simple_impact) and after the impact */
        T_rows[rows] = t;
        T_rows[rows + 1] = t;
        memcpy(X_rows + (size_t)(rows + 1) * nx, x, sizeof(double) * (size_t)nx);
        rows += 2;
        info->n_rows = rows;
        info->n_impacts += 1;
        {
            int i = (int)log[(size_t)(info->n_impacts - 1) * L + 1], n = nhist[i], k;
            double *hi = hist + MDAE_CYCLE_HIST * i, dt = t - info->last_event;
            double hmin64 = 64 * c->h_min;
            if (n == MDAE_CYCLE_HIST) {
                for (k = 1; k < n; ++k)
                    hi[k - 1] = hi[k];
                hi[n - 1] = t;
            } else {
                hi[n] = t;
                nhist[i] = n + 1;
            }
            info->last_event = t;
            dt = dt > hmin64 ? dt : hmin64;
            info->window = dt < c->h_max ? dt : c->h_max;
        }
        hstart = 0.0;
    }
}
