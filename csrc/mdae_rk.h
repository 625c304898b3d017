/* mdae_rk.h - the explicit Runge-Kutta pairs of mdae_ode.c (internal), plain C99.
 *
 * Dormand-Prince 5(4) (DOPRI5) and 8(5,3) (DOP853): tableaux, one step's stages, the error
 * estimate, the continuous extension and the starting step. The step control, the event
 * location and the outputs are in mdae_ode.c; mdae_ode.h has the public API.
 */
#ifndef MDAE_RK_H
#define MDAE_RK_H

#include "mdae_ode.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int ns;                 /* stages of the step (the FSAL stage is stage ns)            */
    int nk;                 /* stages stored (with the dense output's extra stages)       */
    int lda;                /* row length of a                                            */
    const double *c, *a, *b;
    double expo, beta, lo, hi, stiff;   /* step control (h_new / h in [lo, hi]) and the
                                           stiffness test's bound of |h lambda|        */
} mdae_rk_tableau;

/* MDAE_RK_TAB[MDAE_ODE_DOPRI5], MDAE_RK_TAB[MDAE_ODE_DOP853] */
extern const mdae_rk_tableau MDAE_RK_TAB[2];

/* 1 when every v[i] is finite */
int mdae_rk_finite(const double *v, int n);

/* out = f(x, t) (counted in info when not NULL) */
int mdae_rk_rhs(const mdae_ode_system *s, const double *x, double t, double *out,
                mdae_ode_info *info);

/* RMS of v / (atol + rtol max(|a - r|, |b - r|)) */
double mdae_rk_err_norm(const double *v, const double *a, const double *b, const double *r,
                        int n, double rtol, double atol);

/* stages 1..ns of a step of size h from (t, x) with k[0] = f(t, x): the solution y, ysti
 * the argument of stage ns - 1 (c = 1, for the stiffness test; may be NULL), k[ns] =
 * f(t + h, y) */
int mdae_rk_stages(const mdae_rk_tableau *T, const mdae_ode_system *s, double t,
                   const double *x, double h, double **k, double *yt, double *y, double *ysti,
                   mdae_ode_info *info);

/* scaled error of the step (tmp: nx doubles) */
double mdae_rk_error(int method, double **k, double h, const double *y0, const double *y1,
                     const double *xref, int n, double rtol, double atol, double *tmp);

/* coefficients rc of the accepted step's continuous extension (DOP853: its 3 extra stages
 * k[13..15] are evaluated here) */
int mdae_rk_dense_prep(int method, const mdae_ode_system *s, double t, double h,
                       const double *y0, const double *y1, double **k, double **rc,
                       double *yt, mdae_ode_info *info);

/* state at theta of the accepted step from its continuous extension */
void mdae_rk_dense(int method, const double *const *rc, const double *y0, int n, double th,
                   double *out);

/* Hairer's starting step for a method of the given order */
int mdae_rk_initial_step(const mdae_ode_system *s, const mdae_ode_options *o, int order,
                         double t, const double *x, const double *f0, double hmax, double *yt,
                         double *f1, double *h_out, mdae_ode_info *info);

#ifdef __cplusplus
}
#endif

#endif
