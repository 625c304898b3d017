/* mdae_contact.h - impact and contact problems with Coulomb friction, plain C99.
 *
 * Contact-space notation (DESIGN.md "Contacts"). nc contacts of dimension d (2: normal +
 * one tangent; 3: normal + two tangents); vectors are stacked contact by contact, normal
 * first: v = [v_n, v_t1 (, v_t2)]_a, n = nc*d. The Delassus matrix D = W M^-1 W^T (n x n,
 * symmetric positive semidefinite, row-major) maps impulses to velocity jumps:
 *
 *     v+ = v- + D P.
 *
 * IMPACT (Newton law, velocity level). With the target velocity
 *     w = v+ + E v- = D P + c,   c = (I + E) v-,   E = diag(e_n, e_t (, e_t)) per contact,
 * each contact a obeys
 *     0 <= P_n  _|_  w_n >= 0                                   (normal restitution)
 *     |P_t| <= mu P_n;  w_t != 0  =>  P_t = -mu P_n w_t / |w_t|  (Coulomb on the target)
 * so a contact is "separate" (P = 0, w_n >= 0), "stick" (w = 0, |P_t| <= mu P_n) or
 * "slide" (w_n = 0, P_t = -mu P_n s, w_t = |w_t| s). mu = inf: no sliding; a contact
 * either separates (P = 0) or sticks with w_t = 0 exactly (P_t free).
 *
 * LOCAL FRICTION-CONTACT PROBLEM (Siconos). u = W r + q, r_a in K_a = {|r_T| <= mu_a r_N},
 *     u^_a = u_a + mu_a |u_T,a| e_N in K_a*,   r_a _|_ u^_a.
 * This is exactly Coulomb's law above (De Saxce): the impact problem is the FC problem
 * with W = D, q = c, r = P, u = w. Error measure (Siconos fc3d/fc2d_compute_error):
 *     err = sqrt(sum_a |r_a - P_K(r_a - u^_a)|^2) / max(|q|, |r|, |u|)  (not divided when
 *     that maximum is below machine epsilon, as in Siconos).
 * Projection on K: x = (x_N, x_T), t = |x_T|: t <= mu x_N -> x; mu t <= -x_N -> 0;
 * else (x_N + mu t)/(1 + mu^2) * (1, mu x_T / t).
 *
 * ACCELERATION LEVEL (Painleve). a = D lam + b. A contact with sliding velocity v_t != 0
 * has lam_t = -mu lam_n v_t/|v_t| and either separates (lam = 0, a_n >= 0) or stays in
 * contact (a_n = 0, lam_n >= 0, a_t free). A contact with v_t = 0 obeys the impact law
 * above with (P, w) -> (lam, a): separate, stick (a = 0) or start sliding (a_t opposite
 * to lam_t). One sliding contact reduces to a_n = U lam_n + F: U > 0 unique; U < 0,
 * F < 0 inconsistent; U < 0, F > 0 indeterminate (lam_n = 0 and lam_n = -F/U).
 *
 * ENERGY. dT = P^T (v- + v+)/2. With e_n, e_t <= 1 an impact must not increase the
 * kinetic energy: dT > tol * scale is reported as MDAE_ENERGY_GAIN (the solution is still
 * written so the caller can inspect it).
 *
 * Methods:
 *  - enumeration (MDAE_CONTACT_ENUM): every combination of per-contact modes (2D: separate,
 *    stick, slide+, slide-; 3D: separate, stick, slide with the directions of the sliding
 *    contacts from the complete interval branch-and-bound search of mdae_slide.h on the
 *    problem reduced to them, over one angle when one contact slides), each a linear
 *    system reduced to its free impulse components (d per sticking contact, 1 per
 *    sliding one); consistent solutions are kept and de-duplicated by w. A combination whose direction search cannot be proven complete
 *    (more than MDAE_SLIDE_KMAX sliding at once, box budget max_boxes spent (one sliding
 *    contact: at least MDAE_SLIDE_MAX_BOXES), an undecided box) is counted in info->incomplete and searched further by fixed-point iteration;
 *    info->incomplete == 0 means the solutions are all the consistent solutions (up to
 *    the tolerance tol). Limited to nc <= MDAE_CONTACT_ENUM_MAX.
 *  - LCP (MDAE_CONTACT_LCP): friction cone with m tangent directions (2D: m = 2, exact;
 *    3D: m facets, inscribed polygon) + slack, solved by mdae_lcp_lemke.
 *  - NSGS (MDAE_CONTACT_NSGS): nonsmooth Gauss-Seidel over contacts with an exact local
 *    solver (separate / stick / slide with the sliding angle from a bracketed root search).
 *
 * Caller-owned memory everywhere; workspace sizes from the *_work_size functions; no
 * allocation, printing or exit(). Status codes from mdae_status.h.
 */
#ifndef MDAE_CONTACT_H
#define MDAE_CONTACT_H

#include <stddef.h>
#include "mdae_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MDAE_CONTACT_ENUM_MAX 8      /* enumeration: at most this many contacts          */
#define MDAE_CONTACT_MAX_FACETS 256  /* LCP in 3D: at most this many tangent directions  */
#define MDAE_CONTACT_MAX_SOLUTIONS 65536   /* enumeration: solution capacity (4^8)     */

/* Per-contact modes of a solution; MDAE_MODE_NONE marks the outputs of a problem without
 * a stored solution (inconsistent, bad input, solver failure): its impulses, velocities
 * and energy change are NaN. */
enum { MDAE_MODE_NONE = -1, MDAE_MODE_SEPARATE = 0, MDAE_MODE_STICK = 1, MDAE_MODE_SLIDE = 2 };
enum { MDAE_CONTACT_ENUM = 0, MDAE_CONTACT_LCP = 1, MDAE_CONTACT_NSGS = 2 };

/* Which argument was bad when MDAE_BAD_INPUT is returned (info->bad_input). */
enum {
    MDAE_BAD_NONE = 0, MDAE_BAD_SIZE = 1, MDAE_BAD_D_FINITE = 2, MDAE_BAD_D_SYMMETRIC = 3,
    MDAE_BAD_V_FINITE = 4, MDAE_BAD_E_N = 5, MDAE_BAD_E_T = 6, MDAE_BAD_MU = 7,
    MDAE_BAD_METHOD = 8, MDAE_BAD_MU_INF_LCP = 9, MDAE_BAD_FACETS = 10,
    MDAE_BAD_SLIDING_MU_INF = 11, MDAE_BAD_Q_FINITE = 12,
    MDAE_BAD_TOL = 13,          /* tol outside (0, 1) (FC: [0, 1)), energy_tol outside [0, 1) */
    MDAE_BAD_MAX_SOLUTIONS = 14, /* max_solutions outside [1, MDAE_CONTACT_MAX_SOLUTIONS]  */
    MDAE_BAD_MAX_ITER = 15,     /* max_iter < 1 (NSGS), error_every < 1                   */
    MDAE_BAD_SLIDE_TOL = 16,    /* slide_tol not finite and >= 0                          */
    MDAE_BAD_SPARSE = 17,       /* CSR structure: indptr not monotone or index out of range */
    MDAE_BAD_MAX_BOXES = 18     /* max_boxes < 1                                         */
};

typedef struct {
    int nc;                 /* number of contacts                                        */
    int dim;                /* 2 or 3                                                    */
    const double *D;        /* n*n row-major Delassus matrix, n = nc*dim                  */
    const double *v_minus;  /* n: pre-impact contact velocities                          */
    const double *e_n;      /* nc normal restitution                                     */
    const double *e_t;      /* nc tangential restitution                                 */
    const double *mu;       /* nc friction coefficients, >= 0, INFINITY = no sliding     */
} mdae_impact_problem;

typedef struct {
    int method;             /* MDAE_CONTACT_ENUM / _LCP / _NSGS                           */
    int facets;             /* LCP in 3D: number of tangent directions (>= 3)             */
    int max_solutions;      /* enumeration: capacity of the solution arrays (>= 1)        */
    int max_boxes;          /* enumeration in 3D: box budget of one search of the sliding
                               directions of several contacts (mdae_slide.h), >= 1; one
                               sliding contact: at least MDAE_SLIDE_MAX_BOXES            */
    int max_iter;           /* NSGS sweeps                                               */
    double tol;             /* relative tolerance of the consistency checks / NSGS error */
    double energy_tol;      /* relative tolerance of the energy check                    */
    int allow_energy_gain;  /* nonzero: e > 1 allowed, energy not checked                */
    int check_input;        /* nonzero: check finiteness, symmetry, ranges               */
    mdae_interrupt_fn interrupt;  /* polled by LCP pivots, NSGS sweeps, batch loops and the
                                     enumeration (mode combinations, sliding searches), or NULL */
    void *interrupt_ctx;
} mdae_impact_options;

typedef struct {
    int status;             /* mdae_status                                               */
    int nsol;               /* enumeration: number of distinct consistent solutions found
                               (may exceed max_solutions; only the first ones are stored;
                               counted exactly up to max(max_solutions, 16))             */
    int iterations;         /* pivots (LCP) or sweeps (NSGS)                             */
    double residual;        /* FC error of the first solution (Siconos measure)          */
    int bad_input;          /* MDAE_BAD_* when status == MDAE_BAD_INPUT                  */
    int bad_index;          /* contact (or entry) concerned                              */
    int incomplete;         /* enumeration: mode combinations whose search of the sliding
                               directions is not proven complete (0: nsol counts every
                               consistent solution)                                      */
} mdae_impact_info;

void mdae_impact_options_default(mdae_impact_options *opt);

/* Workspace sizes (doubles / ints) for mdae_impact_solve and mdae_painleve_solve. */
size_t mdae_contact_work_size(int nc, int dim, int facets);
size_t mdae_contact_iwork_size(int nc, int dim, int facets);

/* Solve an impact problem. Outputs (caller-owned, capacity max_solutions for enumeration,
 * 1 otherwise): P[max_sol*n], v_plus[max_sol*n], modes[max_sol*nc], dT[max_sol]. The
 * first solution is the one at index 0. Returns info->status. With enumeration:
 * MDAE_OK (one), MDAE_AMBIGUOUS (several), MDAE_INCONSISTENT (none). The first slot is
 * always written: without a solution (inconsistent, bad input, solver failure) P, v_plus
 * and dT are NaN and the modes MDAE_MODE_NONE. */
int mdae_impact_solve(const mdae_impact_problem *p, const mdae_impact_options *opt,
                      double *P, double *v_plus, int *modes, double *dT,
                      double *work, int *iwork, mdae_impact_info *info);

/* nprob problems of equal (nc, dim), stored one after another: D[nprob*n*n],
 * v_minus[nprob*n], e_n, e_t, mu[nprob*nc]. First solution of each into P, v_plus
 * [nprob*n], modes[nprob*nc], dT[nprob]; per-problem status, solution count and (unless
 * NULL) incomplete[nprob], info->incomplete of each problem (0: its enumeration was
 * provably complete).
 * Every output of every problem is written (NaN / MDAE_MODE_NONE without a solution).
 * Returns MDAE_OK when every problem has a status in {OK, AMBIGUOUS, INCONSISTENT},
 * otherwise the first other status met; on bad input info->bad_index is the first bad
 * problem and info->bad_input its MDAE_BAD_* code. */
int mdae_impact_batch(int nprob, int nc, int dim, const double *D, const double *v_minus,
                      const double *e_n, const double *e_t, const double *mu,
                      const mdae_impact_options *opt, double *P, double *v_plus,
                      int *modes, double *dT, int *status, int *nsol, int *incomplete,
                      double *work, int *iwork, mdae_impact_info *info);

/* Speeds after impulses, nprob problems one after another: u_plus = u + B P and
 * T_plus = u_plus^T M u_plus / 2, with B (nu x n) given transposed, Bt[nprob*n*nu]
 * (row j of Bt: the speed jump per unit impulse j), P[nprob*n], u[nprob*nu],
 * M[nprob*nu*nu] (symmetric). NaN impulses give NaN speeds and energies. */
void mdae_impact_apply(int nprob, int n, int nu, const double *Bt, const double *P,
                       const double *u, const double *M, double *u_plus, double *T_plus);

/* Acceleration-level contact problem a = D lam + b with the sliding velocities v_t
 * [nc*(dim-1)] (|v_t| <= slide_tol: sticking contact). Enumerates every consistent mode
 * combination: MDAE_OK (unique), MDAE_AMBIGUOUS (indeterminate), MDAE_INCONSISTENT.
 * Outputs lam[max_sol*n], acc[max_sol*n], modes[max_sol*nc]; info->nsol. */
int mdae_painleve_solve(int nc, int dim, const double *D, const double *b,
                        const double *v_t, const double *mu, double slide_tol,
                        const mdae_impact_options *opt, double *lam, double *acc,
                        int *modes, double *work, int *iwork, mdae_impact_info *info);

/* --- Siconos local friction-contact problems ------------------------------------- */

/* W either dense row-major (indptr == NULL) or CSR (indptr[n+1], indices, data). */
typedef struct {
    int dim, nc;            /* n = dim*nc                                                */
    const double *W;        /* dense n*n (when indptr == NULL)                           */
    const int *indptr;      /* CSR row pointers or NULL                                  */
    const int *indices;     /* CSR column indices                                        */
    const double *data;     /* CSR values                                                */
    const double *q;        /* n                                                         */
    const double *mu;       /* nc                                                        */
} mdae_fc_problem;

typedef struct {
    double tol;             /* target Siconos error, default 1e-5                        */
    int max_iter;           /* sweeps, default 10000                                     */
    int warm_start;         /* nonzero: r on entry is the initial guess                  */
    int error_every;        /* compute the error every this many sweeps (>= 1)           */
    mdae_interrupt_fn interrupt;  /* polled between sweeps (mdae_status.h), or NULL       */
    void *interrupt_ctx;
} mdae_fc_options;

typedef struct {
    int status;
    int iterations;
    double error;
    int bad_input;
    int bad_index;
} mdae_fc_info;

void mdae_fc_options_default(mdae_fc_options *opt);
size_t mdae_fc_work_size(int nc, int dim);

/* Siconos error of r; writes u = W r + q. */
double mdae_fc_error(const mdae_fc_problem *p, const double *r, double *u);

/* Nonsmooth Gauss-Seidel with the exact local solver. r, u: n (caller-owned). */
int mdae_fc_nsgs(const mdae_fc_problem *p, const mdae_fc_options *opt, double *r,
                 double *u, double *work, mdae_fc_info *info);

/* Exact single-contact solver: u = A r + q, A dim x dim row-major (positive definite
 * for the stick case; any sign structure otherwise), Coulomb/De Saxce law. theta: in/out
 * sliding angle hint (3D), may be NULL. Returns MDAE_OK, or MDAE_INCONSISTENT when no
 * candidate (separate / stick / slide) is consistent. mu may be INFINITY. */
int mdae_fc_local_solve(int dim, const double *A, const double *q, double mu,
                        double *r, double *u, double *theta);

#ifdef __cplusplus
}
#endif
#endif
