/* mdae_cycle.h - the event cycle of a flight phase in C: smooth phase, impact, next phase,
 * plain C99.
 *
 * In a mode where every contact is open, the phase (mdae_ode_run) ends at the first gap
 * event. When that event is a *simple impact* the cycle resolves it here and starts the
 * next phase, without returning to the caller; otherwise it returns at the located event
 * with the state untouched, and the caller's own logic takes over (the same decision it
 * would have taken: the cycle only does what the caller would have done). A simple impact:
 *
 *   - exactly one gap function fired, of contact i, and no other contact touches
 *     (gap_j > gap_tol for j != i);
 *   - contact i approaches: v_n^- < -vel_tol;
 *   - the accumulation rule would not end contact i's series of impacts here, nor snap it
 *     to rest: |v_n^-| >= v_res (rest_velocity, or 2 sqrt(2 max(|b_n|, 1e-3 |b|_inf)
 *     gap_tol) from the free contact acceleration b), and, unless another contact
 *     impacted since contact i's previous impact, neither the last flight nor the flights
 *     predicted by the measured ratio of the last three (their ratios agreeing within
 *     ratio_tol, below r_max) are shorter than event_tol max(1, |t|); with the early rule,
 *     neither n_ratio flight ratios agree nor is the last flight below min_flight;
 *   - the impact problem (mdae_impact_solve, enumeration, one contact) has one solution,
 *     its search complete, and the contact separates after it: v_n^+ > vel_tol.
 *
 * The impact is Newton's law with Coulomb friction in contact space: W_c the contact's
 * rows of W (padded to dim), MW = M^-1 W_c^T (from the terms' MiX = M^-1 [h, W^T]; models
 * without bilateral constraints), D = W_c MW (symmetrized), v^- = W_c u + w_t, and
 * u^+ = u^- + MW P. Every resolved impact is logged (time, contact, P, v^-, v^+, energies
 * before and after, mode) and its states before and after are written as sample rows
 * between the phases' output rows, in time order.
 *
 * Callbacks (CasADi-generated, mdae_casadi_eval convention), P the runtime parameters
 * (P[0] is set to the start time of each phase and to the impact time for the terms):
 *
 *   terms(x, t, P)  -> M, h, C, rc, W, Wt, Wdot_u, gap, E, MiX   (dense, column-major)
 *   energy(x, t, P) -> E
 *
 * Caller-owned memory; no allocation, printing or exit().
 */
#ifndef MDAE_CYCLE_H
#define MDAE_CYCLE_H

#include <stddef.h>
#include "mdae_contact.h"
#include "mdae_ode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int nq, nu;             /* x[nq .. nq+nu) are the speeds u                            */
    int nc, dim, nW;        /* contacts, padded rows per contact, rows of W               */
    const int *offs, *nt;   /* per contact: its first row in W, its tangential rows       */
    const double *e_n, *e_t, *mu;   /* per contact                                         */
    mdae_eval_fn terms; void *terms_ctx;
    mdae_eval_fn energy; void *energy_ctx;
} mdae_cycle_model;

typedef struct {
    const int *gap_of;      /* ne: the contact whose gap event function k is, else -1     */
    double gap_tol, vel_tol;
    double rest_velocity;   /* v_res (< 0: from the free normal acceleration)             */
    int zeno;               /* 1: the accumulation rule's checks apply                    */
    int early;              /* 1: zeno="early": a series ends once n_ratio flight ratios
                               agree, or at a flight below min_flight max(1, |t|)         */
    int n_ratio;            /* flight ratios that must agree (early; <= MDAE_CYCLE_HIST - 1) */
    double min_flight;
    double ratio_tol, r_max;
    double h_min, h_max;    /* the next window after an impact: min(max(dt, 64 h_min), h_max) */
    int max_impacts;        /* resolve at most this many impacts, then return             */
    mdae_impact_options impact;
} mdae_cycle_options;

typedef struct {
    int outcome;            /* of the last phase: MDAE_ODE_DONE, _EVENT (returned at a
                               located event that is not a simple impact) or _STIFF        */
    int n_impacts;          /* impacts resolved                                           */
    int n_rows;             /* sample rows written                                        */
    int n_out;              /* of them, output rows (the others: 2 per impact)            */
    double last_event;      /* time of the last impact (t0 when none)                     */
    double window;          /* the window to continue with                                */
    long n_phases, n_steps, n_shoots;
    mdae_ode_info ode;      /* of the last phase                                          */
} mdae_cycle_info;

/* Impact times kept per contact (the accumulation rule reads the last ones). */
#define MDAE_CYCLE_HIST 8

/* Doubles of the log per impact: t, contact, E0, E1, mode, then P, v^-, v^+ (dim each). */
#define MDAE_CYCLE_LOG(dim) (5 + 3 * (dim))

size_t mdae_cycle_work_size(const mdae_cycle_model *m, const mdae_cycle_options *c, int nx,
                             int ne);
size_t mdae_cycle_iwork_size(const mdae_cycle_model *m, const mdae_cycle_options *c);

/* Integrate from (t0, x) to t_end through simple impacts.
 *
 * x, xdot      in: x(t0); out: the state at info->ode.t and f there
 * window, h0   the first phase's window and first step (<= 0: automatic)
 * P            runtime parameters (P[0] overwritten)
 * hist, nhist  per contact its last (up to MDAE_CYCLE_HIST) impact times, oldest first
 *              (hist[MDAE_CYCLE_HIST i ..]), and their count (updated)
 * t_out        n_out output times
 * T_rows, X_rows   out: sample rows (capacity n_out + 2 max_impacts; X row-major, nx)
 * e, edot, fired   out: as mdae_ode_run's, of the last phase
 * log          out: MDAE_CYCLE_LOG(dim) doubles per impact
 * Returns MDAE_OK or the failing phase's status (MDAE_NUMERICAL, MDAE_MAX_ITER, ...;
 * x is then the state where it failed). */
int mdae_cycle_run(const mdae_ode_system *s, const mdae_ode_options *o,
                   const mdae_cycle_model *m, const mdae_cycle_options *c, double t0,
                   double *x, double *xdot, double t_end, double window, double h0,
                   double *P, double *hist, int *nhist, const double *t_out, int n_out,
                   double *T_rows, double *X_rows, double *e, double *edot, int *fired,
                   double *log, double *work, int *iwork, mdae_cycle_info *info);

#ifdef __cplusplus
}
#endif

#endif
