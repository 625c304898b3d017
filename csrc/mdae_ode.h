/* mdae_ode.h - explicit Runge-Kutta integration of one smooth phase with event location,
 * plain C99.
 *
 * The phase x' = f(x, t) of one contact mode is integrated with a Dormand-Prince pair
 * (mdae_rk.c): 8(5,3) (Hairer's DOP853: 7th-order continuous extension) or 5(4) (DOPRI5:
 * Lund-stabilized step control, 4th-order continuous extension), each FSAL with Hairer's
 * stiffness test, from (t0, x0) until t_end or the first root of the mode's event
 * functions e(x, t) (positive while the mode holds), whichever comes first.
 *
 * Callbacks (CasADi-generated C through mdae_casadi_eval, or anything with that calling
 * convention), P the phase's runtime parameter vector:
 *
 *   rhs(x, t, P) -> xdot[nx]
 *   ev(x, t, P)  -> e[ne], edot[ne]        (edot: de/dt along the motion)
 *
 * Error control: a step is accepted when the RMS of err_i / (atol + rtol max(|z_i|,
 * |z_i^+|)) is <= 1, with z = x - x_ref the excursion from the state at the start of the
 * current *window* (windows of length `window`, growing 4x each up to `window_max`): the
 * relative tolerance applies to the motion, not to the coordinates' magnitude (a bounce of
 * 1e-8 m at y = 0.1 m keeps its relative accuracy). Steps never exceed `window_max`.
 *
 * Event detection: e is evaluated at every step end and at sub-samples of the continuous
 * extension spaced window / nsub. A function that starts non-positive (a contact that just
 * closed or opened at a tangency) is shifted to start at +shift[k]: it fires only when it
 * drops by more than shift[k], until it exceeds 1e-3 shift[k] at a sample, from where it
 * is armed unshifted. In the first sample interval where a function is <= 0 the earliest
 * root is located by Newton steps seeded by the root of the cubic Hermite interpolant of
 * (e, e') at the interval ends, each Newton iterate a single Runge-Kutta step from the
 * accepted step's start to the trial time (the "shoot"), with Illinois regula falsi as
 * the fallback; the returned time lies past the root by at most tol = event_tol
 * max(1, |t|), with e <= 0 there.
 *
 * Output: the states at the caller's output times are written from the continuous
 * extension as they are passed (up to the event time, or up to t_end where an output
 * time within 1e-15 of t_end gets the end state itself).
 *
 * Caller-owned memory (mdae_ode_work_size doubles); no allocation, printing or exit().
 */
#ifndef MDAE_ODE_H
#define MDAE_ODE_H

#include <stddef.h>
#include "mdae_status.h"
#include "mdae_step.h"       /* mdae_eval_fn, mdae_casadi_ctx, mdae_casadi_eval */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int nx;                 /* states                                                   */
    int ne;                 /* event functions (0: none watched)                        */
    const double *P;        /* runtime parameters handed to both callbacks              */
    mdae_eval_fn rhs; void *rhs_ctx;
    mdae_eval_fn ev; void *ev_ctx;
} mdae_ode_system;

enum { MDAE_ODE_DOPRI5 = 0, MDAE_ODE_DOP853 = 1 };

typedef struct {
    int method;             /* MDAE_ODE_DOPRI5 or MDAE_ODE_DOP853                       */
    double rtol, atol;
    double window;          /* first window (s): reference of the tolerance, sampling   */
    double window_max;      /* largest window and largest step (s)                      */
    int nsub;               /* event samples per window                                 */
    double event_tol;       /* relative time tolerance of event location                */
    const double *shift;    /* ne: shift of the functions that start non-positive       */
    double stiff_h;         /* report MDAE_ODE_STIFF when the stiffness test holds 15
                               steps in a row with steps below this, or after 500 step
                               attempts below it in one run (0: never)                  */
    double h_stab;          /* largest step kept for stability (0: none): inside the region
                               where the known fast modes (a closed contact's Baumgarte
                               stabilization) decay; at its boundary the error control
                               lets tolerance-level noise persist                       */
    long max_steps;
    mdae_interrupt_fn interrupt;    /* polled between steps about every MDAE_POLL_WORK flops
                                       (mdae_status.h): nonzero stops the run with
                                       MDAE_INTERRUPTED (x, info->t: the last step); or NULL */
    void *interrupt_ctx;
} mdae_ode_options;

enum { MDAE_ODE_DONE = 0, MDAE_ODE_EVENT = 1, MDAE_ODE_STIFF = 2 };

typedef struct {
    int outcome;            /* MDAE_ODE_DONE, _EVENT or _STIFF                          */
    double t;               /* time reached (t_end, the event time, or where stiffness
                               was declared)                                            */
    double h;               /* the step size proposed for a continuation                */
    int n_out;              /* output rows written                                      */
    long n_steps, n_rejected, n_rhs, n_ev, n_shoots;
} mdae_ode_info;

void mdae_ode_options_default(mdae_ode_options *o);
size_t mdae_ode_work_size(int nx, int ne);

/* Integrate from (t0, x) towards t_end.
 *
 * x        in: x(t0); out: the state at info->t
 * xdot     out: f(x, info->t)
 * h0       first step (<= 0: chosen from the problem)
 * t_out    n_out output times (increasing; those <= t0 are skipped by the caller)
 * T_out, X_out   out: times and states (row-major, nx per row) of the outputs written
 * e, edot  out: event values and rates at info->t (unshifted; ne each)
 * fired    out (ne): 1 for each function that fired at the event (armed, non-positive)
 * work     mdae_ode_work_size(nx, ne) doubles
 *
 * Returns MDAE_OK, MDAE_BAD_INPUT, MDAE_NUMERICAL (step size underflow, a callback
 * failed or returned non-finite values), MDAE_MAX_ITER (max_steps).
 */
int mdae_ode_run(const mdae_ode_system *s, const mdae_ode_options *o, double t0, double *x,
                 double *xdot, double t_end, double h0, const double *t_out, int n_out,
                 double *T_out, double *X_out, double *e, double *edot, int *fired,
                 double *work, mdae_ode_info *info);

/* One step of `method` from (t, x) of size h (x' at the start given as k1): the state at
 * t + h in y; work: 13 nx doubles. */
int mdae_ode_step(int method, const mdae_ode_system *s, double t, const double *x,
                  const double *k1, double h, double *y, double *work);

/* |R(re + i im)|: the growth factor of one step of `method` on y' = lambda y, z = h lambda
 * (its stability function, from the tableau). */
double mdae_ode_growth(int method, double re, double im);

#ifdef __cplusplus
}
#endif

#endif
