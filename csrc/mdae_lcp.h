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
} mdae_lcp_options;

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

#ifdef __cplusplus
}
#endif
#endif
