/* mdae_fmu_core.c - see mdae_fmu.h. */
#include "mdae_fmu.h"
#if MDAE_CS
#include "mdae_ode.h"
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mdae_fmu_logf(mdae_fmu *m, int status, const char *category, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    if (!m || !m->log || (!m->logging && status == MDAE_FMU_OK)) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    m->log(m->env, m->name, status, category, msg);
}

void mdae_fmu_reset(mdae_fmu *m)
{
    memcpy(m->r, MDAE_START, sizeof m->r);
    m->dirty = 1;
    m->initializing = 1;
    m->h_next = 0.0;
    m->n_steps = m->n_rhs = m->n_impacts = 0;
#if MDAE_NC > 0
    {
        int a;
        for (a = 0; a < MDAE_NC; ++a) {
            m->armed[a] = 1;
            m->closed[a] = m->stick[a] = m->slide[a] = 0;
            m->cmu[a] = m->slide_d[a] = 0.0;
        }
        for (a = 0; a < MDAE_NROWS; ++a) m->rows_d[a] = m->clam[a] = 0.0;
        m->any_closed = 0;
    }
#endif
}

mdae_fmu *mdae_fmu_new(const char *name, const char *token, int cs, mdae_fmu_log_fn log,
                       void *env, int logging)
{
    mdae_fmu *m;
    if (!token || strcmp(token, MDAE_TOKEN) != 0) {
        if (log) log(env, name ? name : "", MDAE_FMU_ERROR, "logStatusError",
                     "the instantiation token (GUID) does not match this FMU's "
                     "modelDescription.xml (" MDAE_TOKEN "): re-extract the FMU");
        return NULL;
    }
    m = (mdae_fmu *)calloc(1, sizeof *m);
    if (!m) return NULL;
    snprintf(m->name, sizeof m->name, "%s", name ? name : "");
    m->cs = cs;
    m->log = log;
    m->env = env;
    m->logging = logging;
#if MDAE_CS
    if (cs) {
        m->ode_work = (double *)calloc(mdae_ode_work_size(MDAE_NX, 2 * MDAE_NC), sizeof(double));
        if (!m->ode_work) { free(m); return NULL; }
    }
#endif
#if MDAE_NC > 0
    if (mdae_fmu_contact_init(m)) { mdae_fmu_contact_free(m); free(m->ode_work); free(m);
                                    return NULL; }
#endif
    mdae_fmu_reset(m);
    return m;
}

void mdae_fmu_free(mdae_fmu *m)
{
    if (!m) return;
#if MDAE_NC > 0
    mdae_fmu_contact_free(m);
#endif
    free(m->ode_work);
    free(m);
}

/* x' = f(x, t, p, w), y = g(x, t, p, w) and the gaps at the instance's values (y, gaps:
 * when not NULL) */
static int eval_at(mdae_fmu *m, const double *x, double t, double *dx, double *y,
                   double *gaps)
{
    m->arg[0] = x; m->arg[1] = &t; m->arg[2] = m->r + MDAE_VR_P; m->arg[3] = m->r + MDAE_VR_W;
    m->res[0] = dx;
    m->res[1] = m->lam;
#if MDAE_NC > 0
    if (m->any_closed) {            /* persistent contacts: their mode's dynamics */
        m->arg[4] = m->rows_d;
        m->arg[5] = m->slide_d;
        m->res[2] = m->clam;
        if (mdae_fmu_mode(m->arg, m->res, m->iw, m->w, 0)) return 1;
    } else
#endif
    if (mdae_fmu_ode(m->arg, m->res, m->iw, m->w, 0)) return 1;
#if MDAE_NY > 0
    if (y) {
        m->arg[0] = x; m->arg[1] = &t; m->arg[2] = m->r + MDAE_VR_P;
        m->arg[3] = m->r + MDAE_VR_W; m->arg[4] = dx; m->arg[5] = m->lam;
        m->res[0] = y;
        if (mdae_fmu_out(m->arg, m->res, m->iw, m->w, 0)) return 1;
    }
#else
    (void)y;
#endif
#if MDAE_NC > 0
    if (gaps) {
        m->arg[0] = x; m->arg[1] = &t; m->arg[2] = m->r + MDAE_VR_P;
        m->arg[3] = m->r + MDAE_VR_W;
        m->res[0] = gaps;
        m->res[1] = m->cvel;
        if (mdae_fmu_gap(m->arg, m->res, m->iw, m->w, 0)) return 1;
    }
#else
    (void)gaps;
#endif
    return 0;
}

int mdae_fmu_eval(mdae_fmu *m)
{
    int i;
    if (!m->dirty) return MDAE_FMU_OK;
    if (eval_at(m, m->r + MDAE_VR_X, m->r[0], m->r + MDAE_VR_DX, m->r + MDAE_VR_Y,
                m->r + MDAE_VR_G)) {
        mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                      "evaluation of the model equations failed at t = %g", m->r[0]);
        return MDAE_FMU_ERROR;
    }
#if MDAE_NC > 0
    mdae_fmu_indicators(m, m->r + MDAE_VR_G, m->r + MDAE_VR_E);
#endif
    for (i = 0; i < MDAE_NX; ++i) {
        if (!isfinite(m->r[MDAE_VR_DX + i])) {
            mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                          "the derivative of state %d is not finite at t = %g (a singular "
                          "mass matrix or constraint Jacobian?)", i, m->r[0]);
            return MDAE_FMU_ERROR;
        }
    }
    m->dirty = 0;
    return MDAE_FMU_OK;
}

static int bad_vr(mdae_fmu *m, unsigned int vr)
{
    mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                  "value reference %u is not a variable of this FMU", vr);
    return MDAE_FMU_ERROR;
}

int mdae_fmu_get(mdae_fmu *m, const unsigned int *vr, size_t n, double *values)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        if (vr[i] >= MDAE_NR) return bad_vr(m, vr[i]);
        if ((vr[i] >= MDAE_VR_DX && vr[i] < MDAE_VR_P) || vr[i] >= MDAE_VR_Y) {
            int st = mdae_fmu_eval(m);
            if (st != MDAE_FMU_OK) return st;
        }
        values[i] = m->r[vr[i]];
    }
    return MDAE_FMU_OK;
}

int mdae_fmu_set(mdae_fmu *m, const unsigned int *vr, size_t n, const double *values,
                 int initializing)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        unsigned int k = vr[i];
        if (k >= MDAE_NR) return bad_vr(m, k);
        if (k == 0 || (k >= MDAE_VR_DX && k < MDAE_VR_P) || k >= MDAE_VR_Y
            || (k < MDAE_VR_DX && !initializing)) {
            mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                          "variable with value reference %u cannot be set here (states are "
                          "set before initialization or through SetContinuousStates; "
                          "derivatives and outputs are computed)", k);
            return MDAE_FMU_ERROR;
        }
        if (!isfinite(values[i])) {
            mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                          "value of variable %u is not finite", k);
            return MDAE_FMU_ERROR;
        }
        m->r[k] = values[i];
    }
    m->dirty = 1;
    return MDAE_FMU_OK;
}

int mdae_fmu_set_states(mdae_fmu *m, const double *x, size_t n)
{
    if (n != MDAE_NX) {
        mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError", "%zu states given, the FMU has %d",
                      n, MDAE_NX);
        return MDAE_FMU_ERROR;
    }
    memcpy(m->r + MDAE_VR_X, x, n * sizeof(double));
    m->dirty = 1;
    return MDAE_FMU_OK;
}

int mdae_fmu_get_states(mdae_fmu *m, double *x, size_t n)
{
    if (n != MDAE_NX) return MDAE_FMU_ERROR;
    memcpy(x, m->r + MDAE_VR_X, n * sizeof(double));
    return MDAE_FMU_OK;
}

int mdae_fmu_get_derivatives(mdae_fmu *m, double *dx, size_t n)
{
    int st;
    if (n != MDAE_NX) return MDAE_FMU_ERROR;
    st = mdae_fmu_eval(m);
    if (st == MDAE_FMU_OK) memcpy(dx, m->r + MDAE_VR_DX, n * sizeof(double));
    return st;
}

int mdae_fmu_get_indicators(mdae_fmu *m, double *g, size_t n)
{
    int st;
    if (n != 2 * MDAE_NC) {
        mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                      "%zu event indicators asked for, the FMU has %d", n, 2 * MDAE_NC);
        return MDAE_FMU_ERROR;
    }
    if (!n) return MDAE_FMU_OK;
    st = mdae_fmu_eval(m);
#if MDAE_NC > 0
    if (st == MDAE_FMU_OK) memcpy(g, m->r + MDAE_VR_E, n * sizeof(double));
#endif
    return st;
}

int mdae_fmu_get_nominals(mdae_fmu *m, double *nominal, size_t n)
{
    size_t i;
    (void)m;
    if (n != MDAE_NX) return MDAE_FMU_ERROR;
    for (i = 0; i < n; ++i) nominal[i] = 1.0;
    return MDAE_FMU_OK;
}

/* ------------------------------------------------------------------ Co-Simulation */
#if MDAE_CS
static int cs_rhs(void *ctx, const double **arg, double **res)
{
    mdae_fmu *m = (mdae_fmu *)ctx;
    m->n_rhs++;
    return eval_at(m, arg[0], arg[1][0], res[0], NULL, NULL);
}

#if MDAE_NC > 0
/* the event indicators at (x, t) (ne = NC) and their rates along the motion (a forward
 * difference over dt = 1e-7 (1 + |t|): they seed the integrator's event location, which
 * then refines by its own steps) */
static int indicators_at(mdae_fmu *m, const double *x, double t, double *e)
{
    double dx[MDAE_NX];
    if (eval_at(m, x, t, dx, NULL, m->cgap)) return 1;
    mdae_fmu_indicators(m, m->cgap, e);
    return 0;
}

static int cs_events(void *ctx, const double **arg, double **res)
{
    mdae_fmu *m = (mdae_fmu *)ctx;
    double t = arg[1][0], dt = 1e-7 * (1.0 + fabs(t)), x2[MDAE_NX], dx[MDAE_NX];
    double e2[2 * MDAE_NC];
    int i;
    if (eval_at(m, arg[0], t, dx, NULL, m->cgap)) return 1;
    for (i = 0; i < MDAE_NX; ++i) x2[i] = arg[0][i] + dt * dx[i];
    if (indicators_at(m, x2, t + dt, e2) || indicators_at(m, arg[0], t, res[0])) return 1;
    for (i = 0; i < 2 * MDAE_NC; ++i) res[1][i] = (e2[i] - res[0][i]) / dt;
    return 0;
}
#endif

static int integrate(mdae_fmu *m, double t_end, int *terminate);

int mdae_fmu_do_step(mdae_fmu *m, double t, double h)
{
    int terminate = 0;
    return mdae_fmu_do_step_events(m, t, h, &terminate);
}

int mdae_fmu_do_step_events(mdae_fmu *m, double t, double h, int *terminate)
{
    if (!(h > 0) || !isfinite(h)) {
        mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                      "communication step size %g: give a positive, finite step", h);
        return MDAE_FMU_ERROR;
    }
    if (fabs(t - m->r[0]) > 1e-9 * (1.0 + fabs(t))) {
        mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                      "currentCommunicationPoint %.17g differs from the FMU's time %.17g",
                      t, m->r[0]);
        return MDAE_FMU_ERROR;
    }
    *terminate = 0;
    return integrate(m, t + h, terminate);
}

/* integrate to t_end; with contacts, phase by phase: each ends at t_end or at the first
 * event indicator crossing, where mdae_fmu_event applies the impact or the mode change */
static int integrate(mdae_fmu *m, double t_end, int *terminate)
{
    mdae_ode_system s;
    mdae_ode_options o;
    mdae_ode_info info;
    double xdot[MDAE_NX], h = t_end - m->r[0];
    int st, k;
#if MDAE_NC > 0
    double e[2 * MDAE_NC], edot[2 * MDAE_NC], shift[2 * MDAE_NC];
    int fired[2 * MDAE_NC], changed, a;
    for (a = 0; a < 2 * MDAE_NC; ++a) shift[a] = MDAE_GAP_TOL;
#endif
    s.nx = MDAE_NX; s.ne = 0; s.P = m->r + MDAE_VR_P;
    s.rhs = cs_rhs; s.rhs_ctx = m; s.ev = NULL; s.ev_ctx = NULL;
    mdae_ode_options_default(&o);
    o.method = MDAE_CS_METHOD;
    o.rtol = MDAE_CS_RTOL;
    o.atol = MDAE_CS_ATOL;
    o.window = o.window_max = h;
#if MDAE_NC > 0
    s.ne = 2 * MDAE_NC; s.ev = cs_events; s.ev_ctx = m;
    o.shift = shift;
    /* the inputs or parameters may have changed at the communication point: lift-offs,
     * impacts and re-arming there first (as an importer's event mode would) */
    st = mdae_fmu_event(m, &changed, terminate);
    if (st == MDAE_FMU_ERROR || *terminate) return st;
#endif
    for (k = 0; k < MDAE_CS_MAX_EVENTS; ++k) {
        /* first step: the last proposal, else the whole span (the error control shrinks
         * it; Hairer's starting guess fails from a state at rest at 0 with tight atol) */
        st = mdae_ode_run(&s, &o, m->r[0], m->r + MDAE_VR_X, xdot, t_end,
                          m->h_next > 0 && m->h_next < h ? m->h_next : h, NULL, 0, NULL,
                          NULL,
#if MDAE_NC > 0
                          e, edot, fired,
#else
                          NULL, NULL, NULL,
#endif
                          m->ode_work, &info);
        m->n_steps += info.n_steps;
        m->r[0] = info.t;
        m->dirty = 1;
        if (st != 0) {
            mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                          "the integrator stopped at t = %.17g (status %d: step size "
                          "underflow, non-finite derivatives or too many steps)", info.t, st);
            return MDAE_FMU_ERROR;
        }
        m->h_next = info.h;
        if (info.outcome != MDAE_ODE_EVENT) {
            m->r[0] = t_end;
            return mdae_fmu_eval(m);
        }
#if MDAE_NC > 0
        st = mdae_fmu_event(m, &changed, terminate);
        if (st == MDAE_FMU_ERROR || *terminate) return st;
#endif
    }
    mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError", "more than %d events in one "
                  "communication step ending at t = %.17g", MDAE_CS_MAX_EVENTS, t_end);
    return MDAE_FMU_ERROR;
}

#else
int mdae_fmu_do_step_events(mdae_fmu *m, double t, double h, int *terminate)
{
    *terminate = 0;
    return mdae_fmu_do_step(m, t, h);
}

int mdae_fmu_do_step(mdae_fmu *m, double t, double h)
{
    (void)t; (void)h;
    mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError", "this FMU was exported for Model Exchange only");
    return MDAE_FMU_ERROR;
}
#endif

size_t mdae_fmu_state_size(void) { return MDAE_NR + 1 + 5 * MDAE_NC; }

void mdae_fmu_state_save(const mdae_fmu *m, double *buf)
{
    memcpy(buf, m->r, sizeof m->r);
    buf[MDAE_NR] = m->h_next;
#if MDAE_NC > 0
    {
        int a;
        for (a = 0; a < MDAE_NC; ++a) {
            buf[MDAE_NR + 1 + a] = m->armed[a];
            buf[MDAE_NR + 1 + MDAE_NC + a] = m->closed[a];
            buf[MDAE_NR + 1 + 2 * MDAE_NC + a] = m->stick[a];
            buf[MDAE_NR + 1 + 3 * MDAE_NC + a] = m->cmu[a];
            buf[MDAE_NR + 1 + 4 * MDAE_NC + a] = m->slide[a];
        }
    }
#endif
}

void mdae_fmu_state_load(mdae_fmu *m, const double *buf)
{
    memcpy(m->r, buf, sizeof m->r);
    m->h_next = buf[MDAE_NR];
#if MDAE_NC > 0
    {
        int a;
        for (a = 0; a < MDAE_NC; ++a) {
            m->armed[a] = buf[MDAE_NR + 1 + a] != 0.0;
            m->closed[a] = buf[MDAE_NR + 1 + MDAE_NC + a] != 0.0;
            m->stick[a] = buf[MDAE_NR + 1 + 2 * MDAE_NC + a] != 0.0;
            m->cmu[a] = buf[MDAE_NR + 1 + 3 * MDAE_NC + a];
            m->slide[a] = (int)buf[MDAE_NR + 1 + 4 * MDAE_NC + a];
        }
        mdae_fmu_set_rows(m);
    }
#endif
    m->dirty = 1;
}
