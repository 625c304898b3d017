/* mdae_fmu.h - the FMI-version-neutral core of a mechdae FMU, plain C99.
 *
 * One instance holds every real variable in one array r[] indexed by value reference:
 *
 *   r[0]                      time
 *   r[MDAE_VR_X  + i]         continuous states x = (q, u, v)            i < MDAE_NX
 *   r[MDAE_VR_DX + i]         their derivatives x' = f(x, t, p, w)
 *   r[MDAE_VR_P  + i]         parameters p (tunable)                     i < MDAE_NP
 *   r[MDAE_VR_W  + i]         inputs w                                   i < MDAE_NW
 *   r[MDAE_VR_Y  + i]         outputs y = g(x, t, p, w)                  i < MDAE_NY
 *   r[MDAE_VR_G  + i]         contact gaps                               i < MDAE_NC
 *   r[MDAE_VR_E  + i]         event indicators, two per contact          i < 2 MDAE_NC
 *
 * x' and y come from the CasADi-generated C of the System's stabilized index-1 right-hand
 * side (mdae_fmu_model.c, written at export with the sizes and start values in
 * mdae_fmu_model.h); they are evaluated when read after a change ("dirty"). Co-Simulation
 * steps integrate x' = f with mdae_ode_run (csrc/mdae_ode.c, the explicit Runge-Kutta
 * integrator of mechdae's event engine), inputs held over the communication step.
 *
 * No printing, no exit(): every failure is a status and a message through the importer's
 * logger.
 */
#ifndef MDAE_FMU_H
#define MDAE_FMU_H

#include <stddef.h>
#include "mdae_fmu_model.h"

#ifndef MDAE_CS_MAX_EVENTS
#define MDAE_CS_MAX_EVENTS 100000   /* events within one communication step */
#endif

enum { MDAE_FMU_OK = 0, MDAE_FMU_WARNING = 1, MDAE_FMU_DISCARD = 2, MDAE_FMU_ERROR = 3,
       MDAE_FMU_FATAL = 4 };

/* the importer's logger, wrapped by the FMI 2 / FMI 3 layer */
typedef void (*mdae_fmu_log_fn)(void *env, const char *instance, int status,
                                const char *category, const char *message);

typedef struct {
    double r[MDAE_NR];
    int dirty;                  /* x' and y are stale                                     */
    int cs;                     /* instantiated for Co-Simulation                          */
    int logging;
    int initializing;           /* before ExitInitializationMode: start values settable  */
    char name[128];
    mdae_fmu_log_fn log; void *env;
    const double *arg[MDAE_SZ_ARG + 1];
    double *res[MDAE_SZ_RES + 1];
    long long iw[MDAE_SZ_IW + 1];
    double w[MDAE_SZ_W + 1];
    double *ode_work;           /* Co-Simulation: the integrator's workspace              */
    double h_next;              /* Co-Simulation: the step size proposed for the next call */
    long n_steps, n_rhs;        /* Co-Simulation: integrator statistics                   */
    long n_impacts;
    int terminated;             /* Co-Simulation: the FMU asked to end the run             */
    double lam[MDAE_NLAM + 1];  /* multipliers of the bilateral constraints (last eval)    */
#if MDAE_NC > 0
    int closed[MDAE_NC];        /* 1: the contact is closed (persistent contact mode)      */
    int stick[MDAE_NC];         /* 1: a closed contact with friction sticks (its tangential
                                   rows held too)                                        */
    int slide[MDAE_NC];         /* +1 / -1: a closed contact sliding along its tangent     */
    double rows_d[MDAE_NROWS];  /* 1.0 for each contact row held (mdae_fmu_mode's input)   */
    double slide_d[MDAE_NC];    /* mu s of each sliding contact (mdae_fmu_mode's input)    */
    double clam[MDAE_NROWS];    /* the held rows' multipliers (last eval)                  */
    double cmu[MDAE_NC];        /* friction coefficients (at the last event)               */
    int any_closed;
    double cgap[MDAE_NC];       /* Co-Simulation: gaps at the integrator's trial states     */
    /* contacts (mdae_fmu_contact.c): impact terms, the padded problem, its solution */
    double cWu[MDAE_NROWS], cD[MDAE_NROWS * MDAE_NROWS], cB[MDAE_NU * MDAE_NROWS + 1];
    double claws[3 * MDAE_NC];
    double cDp[9 * MDAE_NC * MDAE_NC], cvp[3 * MDAE_NC], cP[3 * MDAE_NC],
           cvplus[3 * MDAE_NC], cdT[1];
    double ce_n[MDAE_NC], ce_t[MDAE_NC], cmu_a[MDAE_NC];
    int cmodes[MDAE_NC];
    double cvel[MDAE_NROWS];    /* contact velocities W u (+ w_t), evaluated with the gaps  */
    int armed[MDAE_NC];         /* 1: the contact's event indicator is its gap; 0: it lifts
                                   off after an impact, the indicator is its normal velocity
                                   (re-armed at the apex, where it crosses zero)          */
    double *cwork;
    int *ciwork;
#endif
} mdae_fmu;

mdae_fmu *mdae_fmu_new(const char *name, const char *token, int cs, mdae_fmu_log_fn log,
                       void *env, int logging);
void mdae_fmu_free(mdae_fmu *m);
void mdae_fmu_reset(mdae_fmu *m);
void mdae_fmu_logf(mdae_fmu *m, int status, const char *category, const char *fmt, ...);
int mdae_fmu_eval(mdae_fmu *m);
int mdae_fmu_get(mdae_fmu *m, const unsigned int *vr, size_t n, double *values);
int mdae_fmu_set(mdae_fmu *m, const unsigned int *vr, size_t n, const double *values,
                 int initializing);
int mdae_fmu_set_states(mdae_fmu *m, const double *x, size_t n);
int mdae_fmu_get_states(mdae_fmu *m, double *x, size_t n);
int mdae_fmu_get_derivatives(mdae_fmu *m, double *dx, size_t n);
int mdae_fmu_get_nominals(mdae_fmu *m, double *nominal, size_t n);
int mdae_fmu_get_indicators(mdae_fmu *m, double *g, size_t n);
int mdae_fmu_do_step(mdae_fmu *m, double t, double h);
/* the same, *terminate set when the FMU asks to end the run (contacts) */
int mdae_fmu_do_step_events(mdae_fmu *m, double t, double h, int *terminate);
#if MDAE_NC > 0
int mdae_fmu_contact_init(mdae_fmu *m);
/* rows_d and any_closed from closed / stick */
void mdae_fmu_set_rows(mdae_fmu *m);
/* the event indicators (2 per contact) from the last evaluation at gaps g */
void mdae_fmu_indicators(const mdae_fmu *m, const double *g, double *e);
void mdae_fmu_contact_free(mdae_fmu *m);
/* event update: impacts of the touching, approaching contacts (see mdae_fmu_contact.c) */
int mdae_fmu_event(mdae_fmu *m, int *changed, int *terminate);
#endif
/* whole-state copies (get/set FMU state) */
size_t mdae_fmu_state_size(void);
void mdae_fmu_state_save(const mdae_fmu *m, double *buf);
void mdae_fmu_state_load(mdae_fmu *m, const double *buf);

#endif
