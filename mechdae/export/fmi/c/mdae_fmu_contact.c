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
 * Event indicators: a contact's gap while it is armed; after an impact that separates it,
 * its normal velocity (positive while it lifts off) until the apex, where it is armed
 * again: a bounce smaller than the importer's event location never goes unseen.
 *
 * Accumulation of impacts: an approaching contact slower than MDAE_REST_VEL, a contact
 * that lifted off by no more than MDAE_GAP_TOL at its apex, or one that stays closed after
 * its impact (e_n = 0) would need a persistent-contact mode; the FMU does not switch into
 * one (yet): it reports the accumulation through the logger and asks the importer to
 * terminate.
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
        m->cmu[a] = m->claws[3 * act[a] + 2];
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

int mdae_fmu_event(mdae_fmu *m, int *changed, int *terminate)
{
    int act[MDAE_NC], na = 0, approach = 0, dim = 2, a, st;
    double g[MDAE_NC], vmin = 0.0;
    mdae_impact_problem p;
    mdae_impact_options o;
    mdae_impact_info info;
    *changed = 0;
    *terminate = 0;
    if (mdae_fmu_eval(m) != MDAE_FMU_OK) return MDAE_FMU_ERROR;
    memcpy(g, m->r + MDAE_VR_G, sizeof g);
    if (impact_terms(m)) return MDAE_FMU_ERROR;
    for (a = 0; a < MDAE_NC; ++a) {      /* lifting contacts past their apex: re-armed */
        if (m->armed[a] || m->cvel[MDAE_CSTART[a]] > 0.0) continue;
        if (!(g[a] > MDAE_GAP_TOL)) {
            mdae_fmu_logf(m, MDAE_FMU_WARNING, "logEvents",
                          "impacts accumulate at t = %.17g: contact '%s' lifted off by %g only "
                          "after %ld impacts; the FMU has no persistent-contact mode: "
                          "terminating", m->r[0], MDAE_CNAME[a], g[a], m->n_impacts);
            *terminate = 1;
            return MDAE_FMU_WARNING;
        }
        m->armed[a] = 1;
    }
    for (a = 0; a < MDAE_NC; ++a) {
        if (!(g[a] <= MDAE_GAP_TOL)) continue;
        act[na++] = a;
        if (MDAE_CROWS[a] > 2) dim = 3;
        if (m->cWu[MDAE_CSTART[a]] < 0.0) {
            if (!approach || m->cWu[MDAE_CSTART[a]] < vmin) vmin = m->cWu[MDAE_CSTART[a]];
            approach = 1;
        }
    }
    if (!approach) return MDAE_FMU_OK;
    if (-vmin < MDAE_REST_VEL) {
        mdae_fmu_logf(m, MDAE_FMU_WARNING, "logEvents",
                      "impacts accumulate at t = %.17g: contact '%s' approaches at %g < "
                      "rest_velocity = %g after %ld impacts; the FMU has no persistent-contact "
                      "mode: terminating", m->r[0], MDAE_CNAME[act[0]], -vmin,
                      (double)MDAE_REST_VEL, m->n_impacts);
        *terminate = 1;
        return MDAE_FMU_WARNING;
    }
    pad_problem(m, act, na, dim);
    p.nc = na; p.dim = dim; p.D = m->cDp; p.v_minus = m->cvp;
    p.e_n = m->ce_n; p.e_t = m->ce_t; p.mu = m->cmu;
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
    if (mdae_fmu_eval(m) != MDAE_FMU_OK) return MDAE_FMU_ERROR;
    for (a = 0; a < na; ++a) {          /* separating after the impact: watch the apex */
        int c = act[a];
        if (m->cvel[MDAE_CSTART[c]] > 0.0) m->armed[c] = 0;
        else if (m->cWu[MDAE_CSTART[c]] < 0.0) {
            mdae_fmu_logf(m, MDAE_FMU_WARNING, "logEvents",
                          "contact '%s' stays closed after the impact at t = %.17g (normal "
                          "velocity %g); the FMU has no persistent-contact mode: terminating",
                          MDAE_CNAME[c], m->r[0], m->cvel[MDAE_CSTART[c]]);
            *terminate = 1;
        }
    }
    *changed = 1;
    mdae_fmu_logf(m, MDAE_FMU_OK, "logEvents", "impact %ld at t = %.17g: %d contact(s), "
                  "first '%s', v_n- = %g", m->n_impacts, m->r[0], na, MDAE_CNAME[act[0]], vmin);
    return MDAE_FMU_OK;
}
#endif
