/* mdae_lcp.h - linear complementarity problems, plain C99.
 *
 *   find z >= 0 such that w = M z + q >= 0 and z^T w = 0,   M dense n x n.
 *
 * Conventions shared by every solver here:
 *  - the problem struct only borrows pointers; M is row-major, M[i*n + j];
 *  - the caller owns z, w (length n) and the workspace (sizes from mdae_lcp_*_work_size);
 *  - no allocation, no printing, no exit(): a status code (mdae_status.h) is returned and
 *    also stored in info->status; info->residual is always mdae_lcp_residual() of the
 *    returned z, and w always holds M z + q for that z.
 */
#ifndef MDAE_LCP_H
#define MDAE_LCP_H

#include <stddef.h>
#include "mdae_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n;              /* problem size, n >= 0                                    */
    const double *M;    /* n*n, row-major                                          */
    const double *q;    /* n                                                       */
} mdae_lcp_problem;

typedef struct {
    double tol;         /* residual tolerance (see mdae_lcp_residual), default 1e-10  */
    int max_iter;       /* pivots (Lemke, Murty) or sweeps (PGS), default by method    */
    int warm_start;     /* nonzero: z on entry is the starting point (iterative methods) */
    double omega;       /* PGS relaxation factor in (0, 2), default 1                  */
    double pivot_tol;   /* pivoting: entries with |a| <= pivot_tol count as zero       */
    mdae_interrupt_fn interrupt;  /* polled between pivots / sweeps (mdae_status.h), or NULL */
    void *interrupt_ctx;          /* its argument                                          */
} mdae_lcp_options;

/* Largest problem size accepted (n*n and the workspace indices fit in an int). */
#define MDAE_LCP_MAX_N 46340

typedef struct {
    int status;         /* mdae_status                                             */
    int iterations;     /* pivots or sweeps performed                              */
    double residual;    /* mdae_lcp_residual of the returned z                     */
} mdae_lcp_info;

void mdae_lcp_options_default(mdae_lcp_options *opt);

/* Residual used by every solver and every test:
 *   ||z - max(0, z - w)||_2 / max(||q||_2, 1),   w = M z + q  (written to w).        */
double mdae_lcp_residual(const mdae_lcp_problem *p, const double *z, double *w);

/* Workspace sizes (number of doubles / ints) for a problem of size n. */
size_t mdae_lcp_work_size(int n);
size_t mdae_lcp_iwork_size(int n);

/* Lemke's complementary pivoting, covering vector d = 1, lexicographic anti-cycling. */
int mdae_lcp_lemke(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   double *z, double *w, double *work, int *iwork, mdae_lcp_info *info);

/* Projected Gauss-Seidel with relaxation (symmetric PSD M with positive diagonal). */
int mdae_lcp_pgs(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                 double *z, double *w, double *work, int *iwork, mdae_lcp_info *info);

/* ---- additions (issue 2): a third method, one dispatcher, a batch loop ----------------- */

/* Methods for mdae_lcp_solve / mdae_lcp_solve_batch. */
typedef enum {
    MDAE_LCP_LEMKE = 0,
    MDAE_LCP_PGS = 1,
    MDAE_LCP_MURTY = 2
} mdae_lcp_method;

/* Murty's least-index principal pivoting method (Murty 1974): complementary bases
 * z_J = -M_JJ^{-1} q_J, flipping the least index with z_i < 0 (i in J) or w_i < 0 (i not
 * in J). Finite for P-matrices (all principal minors > 0); outside that domain it may
 * meet a singular M_JJ (MDAE_NUMERICAL) or cycle (MDAE_MAX_ITER). O(|J|^3) per pivot. */
int mdae_lcp_murty(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   double *z, double *w, double *work, int *iwork, mdae_lcp_info *info);

/* Checks pointers, 0 <= n <= MDAE_LCP_MAX_N, options (tol finite and >= 0, pivot_tol
 * finite and >= 0, max_iter >= 0, omega in (0, 2)) and finiteness of M and q (and of z when
 * opt->warm_start): MDAE_OK or MDAE_BAD_INPUT. Every solver calls it first. */
int mdae_lcp_check(const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   const double *z);

/* Dispatch on method (mdae_lcp_method); unknown method -> MDAE_BAD_INPUT. */
int mdae_lcp_solve(int method, const mdae_lcp_problem *p, const mdae_lcp_options *opt,
                   double *z, double *w, double *work, int *iwork, mdae_lcp_info *info);

/* Solve nbatch problems of equal size n with one workspace (sizes for n):
 * problem k has M = Ms + k*n*n (row-major), q = qs + k*n and writes zs + k*n, ws + k*n,
 * status[k], iterations[k], residual[k] (any of the last three may be NULL). With
 * opt->warm_start, zs holds the starting points on entry. Returns MDAE_OK when every
 * problem had valid input, else MDAE_BAD_INPUT (the other problems are still solved). */
int mdae_lcp_solve_batch(int method, int nbatch, int n, const double *Ms, const double *qs,
                         const mdae_lcp_options *opt, double *zs, double *ws,
                         double *work, int *iwork,
                         int *status, int *iterations, double *residual);

#ifdef __cplusplus
}
#endif
#endif
