/* mdae_fmu_contact.c - impacts inside a mechdae FMU (Model Exchange), plain C99.
 *
 * The gaps g_a(q, t) of the System's contacts are the FMU's event indicators. At an event
 * (fmi3UpdateDiscreteStates / fmi2NewDiscreteStates) the contacts with g_a <= MDAE_GAP_TOL
 * form the active set; when one of them approaches (normal velocity v_n < 0) the impact
 * problem of the active set in contact space,
 *
 *     v+ = v- + D P,   D = W M_c^-1 W^T,   u+ = u- + B P,   B = M_c^-1 W^T
 *
 * (M_c: the mass matrix with the bilateral constraints enforced; D, v- = W u (+ w_t), B and
 * the laws e_n, e_t, mu from the generated mdae_fmu_impact), is solved by mdae_impact_solve
 * (csrc/mdae_contact.c, the kernel of mechdae's event engine: Newton's law with Coulomb
 * friction, every contact mode combination enumerated up to 8 contacts, nonsmooth
 * Gauss-Seidel beyond), and the speeds jump. Several consistent solutions, none, or a
 * failure: an error through the logger naming the contacts.
 *
 * Event indicators, two per contact: a contact's gap while it is armed; after an impact
 * that separates it, its normal velocity (positive while it lifts off) until the apex,
 * where it is armed again (a bounce smaller than the importer's event location never goes
 * unseen); its normal force while closed. The second: the friction margin while it sticks,
 * 1 otherwise.
 *
 * Persistent contact: a contact that arrives slower than MDAE_REST_VEL (a plastic impact),
 * lifts off by no more than MDAE_GAP_TOL before its apex, does not separate after its
 * impact (e_n = 0) or touches at rest comes to rest: it is closed, held by its normal row
 * and, with friction and no tangential motion, by its tangential rows (sticking;
 * mdae_fmu_mode, stabilized as in the event engine), or sliding along its one tangent with
 * Coulomb's force lam_n (w_n - mu s w_t)^T. Its event indicators are then its normal force
 * (lift-off where it turns negative) and its friction margin mu lam_n - |lam_t| (sticking:
 * it starts to slide, opposite to its friction force) or s v_t (sliding: it stops, and
 * sticks where its friction holds it, else slides back). Spatial sliding (two tangents)
 * is not in the FMU (yet): reported through the logger, the importer asked to terminate;
 * so is a mode sequence that does not settle (a Painleve case).
 */
#include "mdae_fmu.h"

#if MDAE_NC > 0
#include "mdae_contact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mdae_fmu_contact_init(mdae_fmu *m)
{
    m->cwork = (double *)calloc(mdae_contact_work_size(MDAE_NC, 3, 8) + 1, sizeof(double));
    m->ciwork = (int *)calloc(mdae_contact_iwork_size(MDAE_NC, 3, 8) + 1, sizeof(int));
    return m->cwork && m->ciwork ? 0 : 1;
}

void mdae_fmu_contact_free(mdae_fmu *m)
{
    free(m->cwork);
    free(m->ciwork);
}

/* the impact terms at the instance's state: Wu[NROWS], D (col-major), B (nu x NROWS,
 * col-major), laws (e_n, e_t, mu per contact) */
static int impact_terms(mdae_fmu *m)
{
    double t = m->r[0];
    m->arg[0] = m->r + MDAE_VR_X; m->arg[1] = &t; m->arg[2] = m->r + MDAE_VR_P;
    m->arg[3] = m->r + MDAE_VR_W;
    m->res[0] = m->cWu; m->res[1] = m->cD; m->res[2] = m->cB; m->res[3] = m->claws;
    return mdae_fmu_impact(m->arg, m->res, m->iw, m->w, 0);
}

static const char *status_text(int st)
{
    switch (st) {
    case MDAE_AMBIGUOUS: return "several consistent post-impact states (an indeterminate "
                                "impact: change the laws or the geometry)";
    case MDAE_INCONSISTENT: return "no consistent post-impact state";
    case MDAE_ENERGY_GAIN: return "the impact law would raise the kinetic energy";
    default: return mdae_status_str(st);
    }
}

/* padded contact-space problem of the active contacts act[0..na) (dim 2 or 3) */
static int pad_problem(mdae_fmu *m, const int *act, int na, int dim)
{
    int n = na * dim, a, b, i, j;
    double mean = 0.0;
    int nmean = 0;
    memset(m->cDp, 0, sizeof(double) * (size_t)n * (size_t)n);
    memset(m->cvp, 0, sizeof(double) * (size_t)n);
    for (a = 0; a < na; ++a) {
        int sa = MDAE_CSTART[act[a]], ra = MDAE_CROWS[act[a]];
        for (i = 0; i < ra; ++i) {
            m->cvp[a * dim + i] = m->cWu[sa + i];
            for (b = 0; b < na; ++b) {
                int sb = MDAE_CSTART[act[b]], rb = MDAE_CROWS[act[b]];
                for (j = 0; j < rb; ++j)
                    m->cDp[(a * dim + i) * n + b * dim + j] =
                        m->cD[(sa + i) + (size_t)MDAE_NROWS * (sb + j)];
            }
            mean += m->cD[(sa + i) * (MDAE_NROWS + 1)];
            nmean++;
        }
        m->ce_n[a] = m->claws[3 * act[a]];
        m->ce_t[a] = m->claws[3 * act[a] + 1];
        m->cmu_a[a] = m->claws[3 * act[a] + 2];
    }
    mean = nmean && mean > 0 ? mean / nmean : 1.0;
    for (a = 0; a < na; ++a)            /* rows a contact does not have: decoupled dummies */
        for (i = MDAE_CROWS[act[a]]; i < dim; ++i)
            m->cDp[(a * dim + i) * (n + 1)] = mean;
    return n;
}

/* apply the impulses: u += B P (real rows of the padded P only) */
static void jump(mdae_fmu *m, const int *act, int na, int dim)
{
    double *u = m->r + MDAE_VR_X + MDAE_NQ;
    int a, i, k;
    for (a = 0; a < na; ++a) {
        int sa = MDAE_CSTART[act[a]];
        for (i = 0; i < MDAE_CROWS[act[a]]; ++i) {
            double P = m->cP[a * dim + i];
            for (k = 0; k < MDAE_NU; ++k)
                u[k] += m->cB[k + (size_t)MDAE_NU * (sa + i)] * P;
        }
    }
}

void mdae_fmu_set_rows(mdae_fmu *m)
{
    int a, i;
    m->any_closed = 0;
    for (a = 0; a < MDAE_NC; ++a) {
        if (m->closed[a]) m->any_closed = 1;
        for (i = 0; i < MDAE_CROWS[a]; ++i)
            m->rows_d[MDAE_CSTART[a] + i] = m->closed[a] && (i == 0 || m->stick[a]) ? 1.0 : 0.0;
        m->slide_d[a] = m->closed[a] && m->slide[a] ? m->cmu[a] * m->slide[a] : 0.0;
    }
    m->dirty = 1;
}

static double margin(const mdae_fmu *m, int a)
{
    double t2 = 0.0;
    int i, s0 = MDAE_CSTART[a];
    for (i = 1; i < MDAE_CROWS[a]; ++i) t2 += m->clam[s0 + i] * m->clam[s0 + i];
    return m->cmu[a] * m->clam[s0] - sqrt(t2);
}

void mdae_fmu_indicators(const mdae_fmu *m, const double *g, double *e)
{
    int a;
    for (a = 0; a < MDAE_NC; ++a) {
        int s0 = MDAE_CSTART[a];
        e[2 * a] = m->closed[a] ? m->clam[s0] : m->armed[a] ? g[a] : m->cvel[s0];
        e[2 * a + 1] = m->closed[a] && m->stick[a] ? margin(m, a)
                       : m->closed[a] && m->slide[a] ? m->slide[a] * m->cvel[s0 + 1] : 1.0;
    }
}

static double tangential_speed(const mdae_fmu *m, int a)
{
    double t2 = 0.0;
    int i;
    for (i = 1; i < MDAE_CROWS[a]; ++i)
        t2 += m->cvel[MDAE_CSTART[a] + i] * m->cvel[MDAE_CSTART[a] + i];
    return sqrt(t2);
}

static void open_contact(mdae_fmu *m, int a, int armed)
{
    m->closed[a] = m->stick[a] = m->slide[a] = 0;
    m->armed[a] = armed;
    mdae_fmu_set_rows(m);
}

static int no_spatial_sliding(mdae_fmu *m, int a, const char *why, int *terminate)
{
    mdae_fmu_logf(m, MDAE_FMU_WARNING, "logEvents",
                  "t = %.17g: closed contact '%s' %s along its two tangents: the FMU has no "
                  "spatial sliding mode: terminating", m->r[0], MDAE_CNAME[a], why);
    *terminate = 1;
    return 1;
}

/* the tangential mode of closed contact a from its motion: frictionless, sticking (no
 * tangential motion), or sliding along its one tangent in the direction of motion */
static int tangential_mode(mdae_fmu *m, int a, int *terminate)
{
    int frictionless = MDAE_CROWS[a] == 1 || m->cmu[a] == 0.0;
    double vt = tangential_speed(m, a);
    m->stick[a] = m->slide[a] = 0;
    if (!frictionless && vt <= MDAE_REST_VEL) m->stick[a] = 1;
    else if (!frictionless && MDAE_CROWS[a] == 2)
        m->slide[a] = m->cvel[MDAE_CSTART[a] + 1] > 0 ? 1 : -1;
    else if (!frictionless) return no_spatial_sliding(m, a, "slides", terminate);
    mdae_fmu_set_rows(m);
    return 0;
}

/* contact a comes to rest (normally): closed, with its tangential mode */
static int come_to_rest(mdae_fmu *m, int a, const char *why, int *terminate)
{
    m->closed[a] = 1;
    m->armed[a] = 1;
    if (tangential_mode(m, a, terminate)) return 1;
    mdae_fmu_logf(m, MDAE_FMU_OK, "logEvents", "t = %.17g: contact '%s' %s after %ld impacts: "
                  "closed%s", m->r[0], MDAE_CNAME[a], why, m->n_impacts,
                  m->stick[a] ? ", sticking" : m->slide[a] ? ", sliding" : "");
    return 0;
}

/* the closed contacts' mode changes at the current state, until none applies: lift-off
 * where a normal force is negative (the most negative first); a sticking contact at the
 * edge of its friction cone starts to slide (opposite to its friction force); a sliding
 * contact that stopped sticks if its friction can hold it, else slides back */
static int mode_checks(mdae_fmu *m, int *changed, int *terminate)
{
    int k, a, fresh[MDAE_NC];          /* slides started here (v_t = 0 where they start) */
    for (a = 0; a < MDAE_NC; ++a) fresh[a] = 0;
    for (k = 0; k < 4 * MDAE_NC + 4; ++k) {
        int worst = -1, acted = 0;
        if (mdae_fmu_eval(m) != MDAE_FMU_OK) return MDAE_FMU_ERROR;
        for (a = 0; a < MDAE_NC; ++a)
            if (m->closed[a] && m->clam[MDAE_CSTART[a]] <= 0.0
                && (worst < 0 || m->clam[MDAE_CSTART[a]] < m->clam[MDAE_CSTART[worst]]))
                worst = a;
        if (worst >= 0) {
            mdae_fmu_logf(m, MDAE_FMU_OK, "logEvents", "t = %.17g: contact '%s' lifts off "
                          "(normal force %g)", m->r[0], MDAE_CNAME[worst],
                          m->clam[MDAE_CSTART[worst]]);
            open_contact(m, worst, 1);
            *changed = 1;
            continue;
        }
        for (a = 0; a < MDAE_NC && !acted; ++a) {
            double lt = m->clam[MDAE_CSTART[a] + (MDAE_CROWS[a] > 1 ? 1 : 0)];
            if (m->closed[a] && m->stick[a] && !(margin(m, a) > 0.0)) {
                if (MDAE_CROWS[a] != 2)
                    return no_spatial_sliding(m, a, "starts to slip", terminate)
                           ? MDAE_FMU_WARNING : MDAE_FMU_OK;
                m->stick[a] = 0;
                m->slide[a] = lt > 0 ? -1 : 1;
                fresh[a] = acted = 1;
            } else if (m->closed[a] && m->slide[a] && !fresh[a]
                       && !(m->slide[a] * m->cvel[MDAE_CSTART[a] + 1] > 0.0)) {
                m->slide[a] = 0;                /* stopped: stick if the friction holds */
                m->stick[a] = 1;
                mdae_fmu_set_rows(m);
                if (mdae_fmu_eval(m) != MDAE_FMU_OK) return MDAE_FMU_ERROR;
                if (!(margin(m, a) > 0.0)) {
                    m->stick[a] = 0;
                    m->slide[a] = m->clam[MDAE_CSTART[a] + 1] > 0 ? -1 : 1;
                    fresh[a] = 1;
                }
                acted = 1;
            }
            if (acted) {
                mdae_fmu_logf(m, MDAE_FMU_OK, "logEvents", "t = %.17g: contact '%s' %s",
                              m->r[0], MDAE_CNAME[a], m->stick[a] ? "sticks" : "slides");
                mdae_fmu_set_rows(m);
                *changed = 1;
            }
        }
        if (!acted) return MDAE_FMU_OK;
    }
    mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError", "t = %.17g: no consistent contact "
                  "mode found (a Painleve case?)", m->r[0]);
    return MDAE_FMU_ERROR;
}

/* the impact of the touching contacts act[0..na); rest[a]: contact a arrives slower than
 * rest_velocity (a plastic impact, then closed) */
static int impact(mdae_fmu *m, const int *act, int na, int dim, const int *rest)
{
    mdae_impact_problem p;
    mdae_impact_options o;
    mdae_impact_info info;
    int a, st;
    pad_problem(m, act, na, dim);
    for (a = 0; a < na; ++a)
        if (rest[act[a]] || m->closed[act[a]]) m->ce_n[a] = 0.0;
    p.nc = na; p.dim = dim; p.D = m->cDp; p.v_minus = m->cvp;
    p.e_n = m->ce_n; p.e_t = m->ce_t; p.mu = m->cmu_a;
    mdae_impact_options_default(&o);
    o.method = na <= MDAE_CONTACT_ENUM_MAX ? MDAE_CONTACT_ENUM : MDAE_CONTACT_NSGS;
    st = mdae_impact_solve(&p, &o, m->cP, m->cvplus, m->cmodes, m->cdT, m->cwork, m->ciwork,
                           &info);
    if (st != MDAE_OK) {
        mdae_fmu_logf(m, MDAE_FMU_ERROR, "logStatusError",
                      "impact at t = %.17g of %d contact(s) (first '%s'): %s", m->r[0], na,
                      MDAE_CNAME[act[0]], status_text(st));
        return MDAE_FMU_ERROR;
    }
    jump(m, act, na, dim);
    m->n_impacts++;
    m->dirty = 1;
    return MDAE_FMU_OK;
}

int mdae_fmu_event(mdae_fmu *m, int *changed, int *terminate)
{
    int act[MDAE_NC], rest[MDAE_NC], na = 0, approach = 0, dim = 2, a, st;
    double g[MDAE_NC];
    *changed = 0;
    *terminate = 0;
    if (mdae_fmu_eval(m) != MDAE_FMU_OK || impact_terms(m)) return MDAE_FMU_ERROR;
    for (a = 0; a < MDAE_NC; ++a) m->cmu[a] = m->claws[3 * a + 2];
    st = mode_checks(m, changed, terminate);
    if (st != MDAE_FMU_OK || *terminate) return st;
    memcpy(g, m->r + MDAE_VR_G, sizeof g);
    for (a = 0; a < MDAE_NC; ++a) {
        double vn = m->cvel[MDAE_CSTART[a]];
        rest[a] = 0;
        if (m->closed[a]) continue;
        if (!m->armed[a]) {                 /* lifting: re-armed at the apex */
            if (vn > 0.0) continue;
            m->armed[a] = 1;
            if (g[a] > MDAE_GAP_TOL) continue;
            *changed = 1;
            if (come_to_rest(m, a, "lifted off by less than the gap tolerance", terminate))
                return MDAE_FMU_WARNING;
        } else if (g[a] <= MDAE_GAP_TOL && fabs(vn) <= MDAE_REST_VEL) {
            *changed = 1;                   /* touching at rest (a start on the ground) */
            if (come_to_rest(m, a, "touches at rest", terminate)) return MDAE_FMU_WARNING;
        }
    }
    if (impact_terms(m)) return MDAE_FMU_ERROR;
    for (a = 0; a < MDAE_NC; ++a) {
        double vn = m->cWu[MDAE_CSTART[a]];
        if (!(g[a] <= MDAE_GAP_TOL) && !m->closed[a]) continue;
        act[na++] = a;
        if (MDAE_CROWS[a] > 2) dim = 3;
        if (!m->closed[a] && vn < 0.0) {
            approach = 1;
            rest[a] = -vn < MDAE_REST_VEL;
        }
    }
    if (!approach) return mode_checks(m, changed, terminate);
    if (impact(m, act, na, dim, rest) != MDAE_FMU_OK) return MDAE_FMU_ERROR;
    *changed = 1;
    if (mdae_fmu_eval(m) != MDAE_FMU_OK) return MDAE_FMU_ERROR;
    for (a = 0; a < na; ++a) {          /* after the impact: lifting, or at rest */
        int c = act[a];
        double vn = m->cvel[MDAE_CSTART[c]];
        if (vn > MDAE_REST_VEL && !rest[c]) {
            if (m->closed[c]) open_contact(m, c, 0);
            else if (g[c] <= MDAE_GAP_TOL) m->armed[c] = 0;
        } else if (!m->closed[c]) {
            if (come_to_rest(m, c, rest[c] ? "arrives slower than rest_velocity"
                                           : "does not separate", terminate))
                return MDAE_FMU_WARNING;
        } else if (tangential_mode(m, c, terminate)) {
            return MDAE_FMU_WARNING;           /* closed, its tangential mode anew */
        }
    }
    mdae_fmu_logf(m, MDAE_FMU_OK, "logEvents", "impact %ld at t = %.17g: %d contact(s), "
                  "first '%s'", m->n_impacts, m->r[0], na, MDAE_CNAME[act[0]]);
    return mode_checks(m, changed, terminate);
}
#endif
