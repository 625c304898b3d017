/* mdae_step.h - Moreau-Jean time stepping of a mechanical system with unilateral contacts,
 * plain C99.
 *
 * The model enters through two evaluation callbacks (CasADi-generated C, or any other
 * implementation with the same calling convention):
 *
 *   terms(q, u, t, p, w) -> M[nu*nu], h[nu], Ku[nu*nu], Kq[nu*nu], W[nrow*nu], gap[nc],
 *                           C[r*nu], cz[r], N[nq*nu], V[1] (, wt[nrow], wtd[nrow] when
 *                           rheonomic)
 *   proj(q, t, p)        -> phi[m], Gq[m*nq], gap[nc], Gg[nc*nq]
 *
 * every matrix dense and column-major (CasADi's layout). Ku = dh/du, Kq = dh/dq N; W
 * stacks per contact the normal row then dim-1 tangent rows, wt (rheonomic systems only:
 * moving surfaces) the part of the relative contact velocities v = W u + wt without
 * speeds and wtd its partial time derivative; C u + cz = 0 are the
 * bilateral constraints at velocity level (C = [G; A], cz = [phi_t; b]).
 *
 * One step from (q_k, u_k, t_k), with step dt and theta in [0.5, 1]:
 *
 *   What = M - theta dt Ku - theta^2 dt^2 Kq
 *   u_free = u_k + dt What^-1 h,  corrected so that C u_free + cz = 0,
 *   v_k = W u_k + wt, v_{k+1} = W u_{k+1} + wt + dt wtd (wt, wtd at (q_k, t_k); both
 *   zero unless rheonomic: the surface velocity at t_k and, to O(dt^2), at t_k + dt)
 *   active set  I = { a : gap_a + gamma dt (v_k)_n,a <= 0 }
 *   u_{k+1} = u_free + Y P,  Y = What_c^-1 W_I^T  (What_c^-1: inverse restricted to C u = 0)
 *   0 <= P_n _|_ (v_{k+1})_n + e_n (v_k)_n >= 0, Coulomb on the tangential target
 *   q_{k+1} = q_k + dt N(q_k) (theta u_{k+1} + (1 - theta) u_k),
 *
 * then quaternions are normalized and, optionally, q is projected (Gauss-Newton, minimum
 * norm) onto phi(q) = 0 (and onto gap = 0 for active contacts with a negative gap).
 *
 * Caller-owned memory; sizes from mdae_step_work_size; no allocation, printing or exit().
 */
#ifndef MDAE_STEP_H
#define MDAE_STEP_H

#include <stddef.h>
#include "mdae_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Evaluation callback: arg[i], res[i] point to the inputs / outputs listed above. */
typedef int (*mdae_eval_fn)(void *ctx, const double **arg, double **res);

/* Adapter for CasADi-generated functions (casadi_int = long long). */
typedef int (*mdae_casadi_fn)(const double **arg, double **res, long long *iw, double *w,
                              int mem);
typedef struct {
    mdae_casadi_fn f;
    int n_in, n_out;
    const double **arg;     /* sz_arg pointers */
    double **res;           /* sz_res pointers */
    long long *iw;
    double *w;
} mdae_casadi_ctx;
int mdae_casadi_eval(void *ctx, const double **arg, double **res);

enum { MDAE_STEP_PROJ_NONE = 0, MDAE_STEP_PROJ_BILATERAL = 1, MDAE_STEP_PROJ_GAPS = 2 };

typedef struct {
    int nq, nu, np, nw;
    int nc, dim;            /* contacts, rows per contact (1, 2 or 3)                      */
    int rheonomic;          /* 1: terms has the outputs wt, wtd (moving surfaces)          */
    int r, m;               /* velocity-level bilateral rows, holonomic rows (projection) */
    int nquat;              /* quaternions: quat[4*i..4*i+3] indices into q               */
    const int *quat;
    const double *e_n, *e_t, *mu;   /* per contact                                      */
    mdae_eval_fn terms; void *terms_ctx;
    mdae_eval_fn proj;  void *proj_ctx;   /* may be NULL when no projection is done     */
} mdae_step_system;

typedef struct {
    double dt, theta, gamma;    /* step, theta in [0.5, 1], index-set look-ahead (0.5)    */
    int projection;             /* MDAE_STEP_PROJ_*                                      */
    int proj_iter;              /* Gauss-Newton iterations (max)                         */
    double proj_tol;
    int every;                  /* store every this many steps                           */
    double impact_ratio;        /* impact event: P_n > ratio * smooth-contact impulse    */
    int nsgs_iter;              /* spatial friction with several contacts                */
    double nsgs_tol;
    int lcp_friction;           /* planar friction with several contacts: 1 LCP, 0 NSGS */
    mdae_interrupt_fn interrupt;    /* polled between steps about every MDAE_POLL_WORK flops
                                       (mdae_status.h); nonzero: the run stops before
                                       step info->step with MDAE_INTERRUPTED, q and u the
                                       state there, the rows stored so far kept; or NULL */
    void *interrupt_ctx;
} mdae_step_options;

typedef struct {
    int status;
    int step;               /* step at which a failure happened (or steps done)         */
    int solver_failures;    /* one-step problems not solved to tolerance                */
    int n_events;           /* events found (may exceed the capacity)                   */
    int max_active;
    double max_proj_residual;
    /* work of the contact impulses on the system, sum over steps of P . W(q_k) (u_k +
     * u_k+1) / 2 (the kinetic energy change they cause for theta = 1/2, W_hat = M):
     * normal impulses of impact steps (the events), normal impulses of the other steps
     * (sustained contact), tangential impulses (friction)                             */
    double work_impact, work_contact, work_friction;
    int n_contact_steps;    /* steps where a closed contact carries a normal impulse that
                             * is not an impact (sustained contact, not an event)       */
} mdae_step_info;

void mdae_step_options_default(mdae_step_options *o);
size_t mdae_step_work_size(const mdae_step_system *s);
size_t mdae_step_iwork_size(const mdae_step_system *s);

/* Run nsteps steps from (q, u) at t0 (q, u updated in place). w_steps: nw values per step
 * (nsteps*nw), or NULL for w_const (nw values). Outputs at steps 0, every, 2 every, ...
 * and the last one (nout rows, see mdae_step_n_out): T_out[nout], Q_out[nout*nq],
 * U_out[nout*nu], P_out[nout*nc*dim] (impulses summed since the previous output; may be
 * NULL). Events (impacts): ev_step, ev_contact, ev_P (normal impulse), ev_x (the states
 * (q_k, u_k, q_k+1, u_k+1) of the step, 2*(nq+nu) values per event), capacity ev_cap. */
int mdae_step_n_out(int nsteps, int every);
int mdae_step_run(const mdae_step_system *s, const mdae_step_options *o, const double *p,
                  const double *w_const, const double *w_steps, double t0, int nsteps,
                  double *q, double *u, double *T_out, double *Q_out, double *U_out,
                  double *P_out, int *ev_step, int *ev_contact, double *ev_P, double *ev_x,
                  int ev_cap, double *work, int *iwork, mdae_step_info *info);

#ifdef __cplusplus
}
#endif
#endif
