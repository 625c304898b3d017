/* mdae_step.c - Moreau-Jean time stepping (see mdae_step.h for the scheme). */
#include "mdae_step.h"
#include "mdae_contact.h"
#include "mdae_lcp.h"

#include <math.h>
#include <string.h>

#define CM(A, i, j, ld) (A)[(size_t)(i) + (size_t)(j) * (size_t)(ld)]

int mdae_casadi_eval(void *ctx, const double **arg, double **res)
{
    mdae_casadi_ctx *c = (mdae_casadi_ctx *)ctx;
    int i;
    for (i = 0; i < c->n_in; ++i) c->arg[i] = arg[i];
    for (i = 0; i < c->n_out; ++i) c->res[i] = res[i];
    return c->f(c->arg, c->res, c->iw, c->w, 0);
}

void mdae_step_options_default(mdae_step_options *o)
{
    o->dt = 1e-3;
    o->theta = 0.5;
    o->gamma = 0.5;
    o->projection = MDAE_STEP_PROJ_BILATERAL;
    o->proj_iter = 5;
    o->proj_tol = 1e-12;
    o->every = 1;
    o->impact_ratio = 2.0;
    o->nsgs_iter = 1000;
    o->nsgs_tol = 1e-10;
    o->lcp_friction = 1;
    o->interrupt = NULL;
    o->interrupt_ctx = NULL;
}

int mdae_step_n_out(int nsteps, int every)
{
    if (every < 1) every = 1;
    return nsteps / every + 1 + (nsteps % every != 0);
}

/* ---- dense LU with partial pivoting, column-major ---------------------------------- */
static int lu_factor(int n, double *A, int *piv)
{
    int i, j, k, p;
    for (k = 0; k < n; ++k) {
        double amax = fabs(CM(A, k, k, n));
        p = k;
        for (i = k + 1; i < n; ++i)
            if (fabs(CM(A, i, k, n)) > amax) { amax = fabs(CM(A, i, k, n)); p = i; }
        piv[k] = p;
        if (amax == 0.0 || !isfinite(amax)) return 1;
        if (p != k)
            for (j = 0; j < n; ++j) { double t = CM(A, k, j, n); CM(A, k, j, n) = CM(A, p, j, n); CM(A, p, j, n) = t; }
        {
            double inv = 1.0 / CM(A, k, k, n);
            for (i = k + 1; i < n; ++i) CM(A, i, k, n) *= inv;
        }
        for (j = k + 1; j < n; ++j) {
            double akj = CM(A, k, j, n);
            if (akj != 0.0)
                for (i = k + 1; i < n; ++i) CM(A, i, j, n) -= CM(A, i, k, n) * akj;
        }
    }
    return 0;
}

static void lu_solve(int n, const double *A, const int *piv, double *b)
{
    int i, j;
    for (i = 0; i < n; ++i) {
        if (piv[i] != i) { double t = b[i]; b[i] = b[piv[i]]; b[piv[i]] = t; }
    }
    for (j = 0; j < n; ++j) {
        double bj = b[j];
        if (bj != 0.0) for (i = j + 1; i < n; ++i) b[i] -= CM(A, i, j, n) * bj;
    }
    for (j = n - 1; j >= 0; --j) {
        b[j] /= CM(A, j, j, n);
        {
            double bj = b[j];
            if (bj != 0.0) for (i = 0; i < j; ++i) b[i] -= CM(A, i, j, n) * bj;
        }
    }
}

/* ---- workspace -------------------------------------------------------------------- */
typedef struct {
    double *M, *h, *Ku, *Kq, *W, *gap, *C, *cz, *N, *V, *wt, *wtd; /* terms outputs */
    double *phi, *Gq, *pgap, *Gg;                           /* proj outputs  */
    double *Wh, *uf, *uk, *tmp, *vk, *X, *S, *Y, *CY, *D, *c, *P, *vel, *Pprev, *Pacc;
    double *en, *et, *mua, *vfake, *cw, *lw, *fw, *J, *JJ, *res, *qk, *theta;
    int *piv, *pivS, *act, *ci, *li, *pivJ, *modes, *flags;
} ws_t;

/* Assign the workspace (w, iw may be NULL to count); *nd, *ni: doubles and ints used. */
static void layout(const mdae_step_system *s, double *w, int *iw, ws_t *W, size_t *nd,
                   size_t *ni)
{
    size_t o = 0, io = 0;
    int nq = s->nq, nu = s->nu, nc = s->nc, d = s->dim, r = s->r, m = s->m;
    int nrow = nc * d, npj = m + nc;
    size_t cws = nc > 0 ? mdae_contact_work_size(nc, d < 2 ? 2 : d, 4) : 0;
    size_t lws = mdae_lcp_work_size(nc);
    size_t fws = nc > 0 ? mdae_fc_work_size(nc, d < 2 ? 2 : d) : 0;
#define TAKE(ptr, sz) do { W->ptr = w ? w + o : NULL; o += (size_t)(sz); } while (0)
#define ITAKE(ptr, sz) do { W->ptr = iw ? iw + io : NULL; io += (size_t)(sz); } while (0)
    TAKE(M, nu * nu); TAKE(h, nu); TAKE(Ku, nu * nu); TAKE(Kq, nu * nu); TAKE(W, nrow * nu);
    TAKE(gap, nc); TAKE(C, r * nu); TAKE(cz, r); TAKE(N, nq * nu); TAKE(V, 1);
    TAKE(wt, s->rheonomic ? nrow : 0); TAKE(wtd, s->rheonomic ? nrow : 0);
    TAKE(phi, m); TAKE(Gq, m * nq); TAKE(pgap, nc); TAKE(Gg, nc * nq);
    TAKE(Wh, nu * nu); TAKE(uf, nu); TAKE(uk, nu); TAKE(tmp, nu + npj); TAKE(vk, nrow);
    TAKE(X, nu * r); TAKE(S, r * r); TAKE(Y, nu * nrow); TAKE(CY, r * nrow);
    TAKE(D, nrow * nrow); TAKE(c, nrow); TAKE(P, nrow); TAKE(vel, nrow); TAKE(Pprev, nrow);
    TAKE(Pacc, nrow); TAKE(en, nc); TAKE(et, nc); TAKE(mua, nc); TAKE(vfake, nrow);
    TAKE(cw, cws); TAKE(lw, lws); TAKE(fw, fws + nrow); TAKE(J, npj * nq); TAKE(JJ, npj * npj);
    TAKE(res, npj); TAKE(qk, nq); TAKE(theta, nc);
    ITAKE(piv, nu); ITAKE(pivS, r); ITAKE(act, nc);
    ITAKE(ci, nc > 0 ? mdae_contact_iwork_size(nc, d < 2 ? 2 : d, 4) : 0);
    ITAKE(li, mdae_lcp_iwork_size(nc)); ITAKE(pivJ, npj); ITAKE(modes, nc); ITAKE(flags, nc);
#undef TAKE
#undef ITAKE
    *nd = o;
    *ni = io;
}

size_t mdae_step_work_size(const mdae_step_system *s)
{
    ws_t W;
    size_t nd, ni;
    layout(s, NULL, NULL, &W, &nd, &ni);
    return nd + 8;
}

size_t mdae_step_iwork_size(const mdae_step_system *s)
{
    ws_t W;
    size_t nd, ni;
    layout(s, NULL, NULL, &W, &nd, &ni);
    return ni + 8;
}

static void normalize_quats(const mdae_step_system *s, double *q)
{
    int i, j;
    for (i = 0; i < s->nquat; ++i) {
        const int *ix = s->quat + 4 * i;
        double n2 = 0.0;
        for (j = 0; j < 4; ++j) n2 += q[ix[j]] * q[ix[j]];
        if (n2 > 0.0) {
            double inv = 1.0 / sqrt(n2);
            for (j = 0; j < 4; ++j) q[ix[j]] *= inv;
        }
    }
}

/* Gauss-Newton projection: q <- q - J^T (J J^T + eps)^-1 res, J rows: phi and gaps < 0 of
 * contacts active in this step (flag act). Returns the final residual norm (inf-norm). */
static double project(const mdae_step_system *s, const mdae_step_options *o, const double *p,
                      double t, double *q, const int *act, ws_t *W)
{
    int nq = s->nq, m = s->m, nc = s->nc, it, i, j, k, nr;
    double rmax = 0.0;
    for (it = 0; it <= o->proj_iter; ++it) {
        const double *arg[3];
        double *res[4];
        arg[0] = q; arg[1] = &t; arg[2] = p;
        res[0] = W->phi; res[1] = W->Gq; res[2] = W->pgap; res[3] = W->Gg;
        s->proj(s->proj_ctx, arg, res);
        nr = 0;
        rmax = 0.0;
        for (i = 0; i < m; ++i) {
            W->res[nr] = W->phi[i];
            for (j = 0; j < nq; ++j) CM(W->J, nr, j, m + nc) = CM(W->Gq, i, j, m);
            if (fabs(W->phi[i]) > rmax) rmax = fabs(W->phi[i]);
            ++nr;
        }
        if (o->projection == MDAE_STEP_PROJ_GAPS)
            for (i = 0; i < nc; ++i) {
                if (!act[i] || W->pgap[i] >= 0.0) continue;
                W->res[nr] = W->pgap[i];
                for (j = 0; j < nq; ++j) CM(W->J, nr, j, m + nc) = CM(W->Gg, i, j, nc);
                if (-W->pgap[i] > rmax) rmax = -W->pgap[i];
                ++nr;
            }
        if (nr == 0 || rmax <= o->proj_tol || it == o->proj_iter) break;
        {
            double tr = 0.0, eps;
            for (i = 0; i < nr; ++i)
                for (k = 0; k < nr; ++k) {
                    double sum = 0.0;
                    for (j = 0; j < nq; ++j) sum += CM(W->J, i, j, m + nc) * CM(W->J, k, j, m + nc);
                    CM(W->JJ, i, k, nr) = sum;
                }
            for (i = 0; i < nr; ++i) tr += CM(W->JJ, i, i, nr);
            eps = 1e-14 * tr / nr + 1e-300;
            for (i = 0; i < nr; ++i) CM(W->JJ, i, i, nr) += eps;
            if (lu_factor(nr, W->JJ, W->pivJ)) break;
            for (i = 0; i < nr; ++i) W->tmp[i] = W->res[i];
            lu_solve(nr, W->JJ, W->pivJ, W->tmp);
            for (j = 0; j < nq; ++j) {
                double sum = 0.0;
                for (i = 0; i < nr; ++i) sum += CM(W->J, i, j, m + nc) * W->tmp[i];
                q[j] -= sum;
            }
            normalize_quats(s, q);
        }
    }
    return rmax;
}

int mdae_step_run(const mdae_step_system *s, const mdae_step_options *o, const double *p,
                  const double *w_const, const double *w_steps, double t0, int nsteps,
                  double *q, double *u, double *T_out, double *Q_out, double *U_out,
                  double *P_out, int *ev_step, int *ev_contact, double *ev_P, double *ev_x,
                  int ev_cap, double *work, int *iwork, mdae_step_info *info)
{
    ws_t Wk;
    ws_t *W = &Wk;
    int nq = s->nq, nu = s->nu, nc = s->nc, d = s->dim, r = s->r, nrow = nc * d;
    int every = o->every < 1 ? 1 : o->every, k, i, j, a, b, out = 0;
    double dt = o->dt, th = o->theta, pw = 0.0;
    {
        size_t nd, ni;
        layout(s, work, iwork, W, &nd, &ni);
    }
    info->status = MDAE_OK;
    info->step = 0;
    info->solver_failures = 0;
    info->n_events = 0;
    info->max_active = 0;
    info->max_proj_residual = 0.0;
    info->work_impact = info->work_contact = info->work_friction = 0.0;
    info->n_contact_steps = 0;
    if (nq < 0 || nu < 0 || nc < 0 || d < 1 || d > 3 || !(dt > 0.0) || th < 0.0 || th > 1.0)
        return info->status = MDAE_BAD_INPUT;
    /* options: finite tolerances and step, positive counts (a NaN would make every
     * comparison fail silently) */
    if (!(dt - dt == 0.0) || !(o->gamma - o->gamma == 0.0) ||
        o->nsgs_iter < 1 || !(o->nsgs_tol >= 0.0 && o->nsgs_tol < 1.0) ||
        o->proj_iter < 0 || !(o->proj_tol >= 0.0 && o->proj_tol - o->proj_tol == 0.0) ||
        !(o->impact_ratio == o->impact_ratio) || nsteps < 0)
        return info->status = MDAE_BAD_INPUT;
    for (i = 0; i < nrow; ++i) { W->Pprev[i] = 0.0; W->Pacc[i] = 0.0; }
    for (i = 0; i < nc; ++i) W->theta[i] = 0.0;
    /* output row 0 */
    T_out[0] = t0;
    memcpy(Q_out, q, sizeof(double) * (size_t)nq);
    memcpy(U_out, u, sizeof(double) * (size_t)nu);
    if (P_out) for (i = 0; i < nrow; ++i) P_out[i] = 0.0;
    out = 1;

    for (k = 0; k < nsteps; ++k) {
        double t = t0 + k * dt;
        const double *wk = w_steps ? w_steps + (size_t)k * (size_t)s->nw : w_const;
        int na = 0, kd, frictionless = 1, st;
        info->step = k;
        /* Ctrl-C: a poll about every MDAE_POLL_WORK flops of steps (a step: the model's
         * terms, an nu x nu factorization, the contact problem) */
        if (o->interrupt) {
            pw += 64.0 + 16.0 * (nq + nu) + (double)nu * nu * nu + (double)nrow * nrow * nrow;
            if (pw >= MDAE_POLL_WORK) {
                pw = 0.0;
                if (o->interrupt(o->interrupt_ctx)) return info->status = MDAE_INTERRUPTED;
            }
        }
        {
            const double *arg[5];
            double *res[12];
            arg[0] = q; arg[1] = u; arg[2] = &t; arg[3] = p; arg[4] = wk;
            res[0] = W->M; res[1] = W->h; res[2] = W->Ku; res[3] = W->Kq; res[4] = W->W;
            res[5] = W->gap; res[6] = W->C; res[7] = W->cz; res[8] = W->N; res[9] = W->V;
            res[10] = W->wt;        /* read only by rheonomic terms (12 outputs) */
            res[11] = W->wtd;
            if (s->terms(s->terms_ctx, arg, res)) return info->status = MDAE_NUMERICAL;
        }
        memcpy(W->uk, u, sizeof(double) * (size_t)nu);
        memcpy(W->qk, q, sizeof(double) * (size_t)nq);
        /* What = M - theta dt Ku - theta^2 dt^2 Kq */
        for (i = 0; i < nu * nu; ++i)
            W->Wh[i] = W->M[i] - th * dt * W->Ku[i] - th * th * dt * dt * W->Kq[i];
        if (lu_factor(nu, W->Wh, W->piv)) return info->status = MDAE_NUMERICAL;
        for (i = 0; i < nu; ++i) W->uf[i] = dt * W->h[i];
        lu_solve(nu, W->Wh, W->piv, W->uf);
        for (i = 0; i < nu; ++i) W->uf[i] += u[i];
        /* bilateral constraints at velocity level */
        if (r > 0) {
            double tr = 0.0, eps;
            for (j = 0; j < r; ++j) {
                double *x = W->X + (size_t)j * nu;
                for (i = 0; i < nu; ++i) x[i] = CM(W->C, j, i, r);
                lu_solve(nu, W->Wh, W->piv, x);
            }
            for (i = 0; i < r; ++i)
                for (j = 0; j < r; ++j) {
                    double sum = 0.0;
                    for (b = 0; b < nu; ++b) sum += CM(W->C, i, b, r) * CM(W->X, b, j, nu);
                    CM(W->S, i, j, r) = sum;
                }
            for (i = 0; i < r; ++i) tr += fabs(CM(W->S, i, i, r));
            eps = 1e-12 * tr / r + 1e-300;
            for (i = 0; i < r; ++i) CM(W->S, i, i, r) += eps;
            if (lu_factor(r, W->S, W->pivS)) return info->status = MDAE_NUMERICAL;
            for (i = 0; i < r; ++i) {
                double sum = W->cz[i];
                for (b = 0; b < nu; ++b) sum += CM(W->C, i, b, r) * W->uf[b];
                W->tmp[i] = -sum;
            }
            lu_solve(r, W->S, W->pivS, W->tmp);
            for (b = 0; b < nu; ++b) {
                double sum = 0.0;
                for (i = 0; i < r; ++i) sum += CM(W->X, b, i, nu) * W->tmp[i];
                W->uf[b] += sum;
            }
        }
        /* relative contact velocities W u_k + wt at the start of the step, active set */
        for (i = 0; i < nrow; ++i) {
            double sum = s->rheonomic ? W->wt[i] : 0.0;
            for (b = 0; b < nu; ++b) sum += CM(W->W, i, b, nrow) * u[b];
            W->vk[i] = sum;
        }
        for (a = 0; a < nc; ++a) {
            if (W->gap[a] + o->gamma * dt * W->vk[a * d] <= 0.0) {
                W->act[na++] = a;
                if (d > 1 && s->mu[a] != 0.0) frictionless = 0;
            }
        }
        if (na > info->max_active) info->max_active = na;
        kd = frictionless ? 1 : d;
        memcpy(u, W->uf, sizeof(double) * (size_t)nu);
        if (na > 0) {
            int n = na * kd;
            /* Y = What^-1 W_I^T (constrained), D = W_I Y, c = W_I u_free + E W_I u_k */
            for (j = 0; j < n; ++j) {
                int g = W->act[j / kd] * d + j % kd;
                double *y = W->Y + (size_t)j * nu;
                for (b = 0; b < nu; ++b) y[b] = CM(W->W, g, b, nrow);
                lu_solve(nu, W->Wh, W->piv, y);
                if (r > 0) {
                    for (i = 0; i < r; ++i) {
                        double sum = 0.0;
                        for (b = 0; b < nu; ++b) sum += CM(W->C, i, b, r) * y[b];
                        W->tmp[i] = sum;
                    }
                    lu_solve(r, W->S, W->pivS, W->tmp);
                    for (b = 0; b < nu; ++b) {
                        double sum = 0.0;
                        for (i = 0; i < r; ++i) sum += CM(W->X, b, i, nu) * W->tmp[i];
                        y[b] -= sum;
                    }
                }
            }
            for (i = 0; i < n; ++i) {
                int g = W->act[i / kd] * d + i % kd;
                int ca = W->act[i / kd];
                double e = (i % kd == 0) ? s->e_n[ca] : s->e_t[ca];
                /* target: relative velocity at t_k + dt, wt(t_k + dt) ~ wt + dt dwt/dt */
                double vf = s->rheonomic ? W->wt[g] + dt * W->wtd[g] : 0.0;
                for (b = 0; b < nu; ++b) vf += CM(W->W, g, b, nrow) * W->uf[b];
                W->c[i] = vf + e * W->vk[g];
                for (j = 0; j < n; ++j) {
                    double sum = 0.0;
                    const double *y = W->Y + (size_t)j * nu;
                    for (b = 0; b < nu; ++b) sum += CM(W->W, g, b, nrow) * y[b];
                    W->D[i * n + j] = sum;      /* row-major for the kernels */
                }
            }
            for (i = 0; i < na; ++i) {
                a = W->act[i];
                W->en[i] = s->e_n[a]; W->et[i] = s->e_t[a]; W->mua[i] = s->mu[a];
            }
            /* solve the one-step problem */
            st = MDAE_OK;
            if (kd == 1) {
                if (na == 1) {
                    W->P[0] = (W->c[0] < 0.0 && W->D[0] > 0.0) ? -W->c[0] / W->D[0] : 0.0;
                    if (W->c[0] < 0.0 && !(W->D[0] > 0.0)) st = MDAE_INCONSISTENT;
                } else {
                    mdae_lcp_problem lp;
                    mdae_lcp_options lo;
                    mdae_lcp_info li;
                    lp.n = na; lp.M = W->D; lp.q = W->c;
                    mdae_lcp_options_default(&lo);
                    st = mdae_lcp_lemke(&lp, &lo, W->P, W->vel, W->lw, W->li, &li);
                }
            } else if (na == 1) {
                st = mdae_fc_local_solve(kd, W->D, W->c, W->mua[0], W->P, W->vel, &W->theta[W->act[0]]);
            } else {
                int use_lcp = (kd == 2 && o->lcp_friction);
                for (i = 0; i < na && use_lcp; ++i)
                    if (isinf(W->mua[i]) || W->et[i] <= -1.0) use_lcp = 0;
                if (use_lcp) {
                    mdae_impact_problem ip;
                    mdae_impact_options io;
                    mdae_impact_info ii;
                    double dT;
                    int *mp = W->modes;
                    for (i = 0; i < n; ++i) {
                        double e = (i % kd == 0) ? W->en[i / kd] : W->et[i / kd];
                        W->vfake[i] = W->c[i] / (1.0 + e);
                    }
                    ip.nc = na; ip.dim = kd; ip.D = W->D; ip.v_minus = W->vfake;
                    ip.e_n = W->en; ip.e_t = W->et; ip.mu = W->mua;
                    mdae_impact_options_default(&io);
                    io.method = MDAE_CONTACT_LCP;
                    io.check_input = 0;
                    io.allow_energy_gain = 1;
                    io.max_solutions = 1;
                    st = mdae_impact_solve(&ip, &io, W->P, W->vel, mp, &dT, W->cw, W->ci, &ii);
                    if (st != MDAE_OK && st != MDAE_AMBIGUOUS) use_lcp = 0;
                    for (i = 0; i < n && use_lcp; ++i)
                        if (!isfinite(W->P[i])) use_lcp = 0;
                    /* no LCP solution (degenerate pivoting at rest): fall back to NSGS */
                }
                if (!use_lcp) {
                    mdae_fc_problem fp;
                    mdae_fc_options fo;
                    mdae_fc_info fi;
                    fp.dim = kd; fp.nc = na; fp.W = W->D; fp.indptr = NULL; fp.indices = NULL;
                    fp.data = NULL; fp.q = W->c; fp.mu = W->mua;
                    mdae_fc_options_default(&fo);
                    fo.tol = o->nsgs_tol; fo.max_iter = o->nsgs_iter; fo.warm_start = 1;
                    for (i = 0; i < na; ++i)
                        for (j = 0; j < kd; ++j) W->P[i * kd + j] = W->Pprev[W->act[i] * d + j];
                    st = mdae_fc_nsgs(&fp, &fo, W->P, W->vel, W->fw, &fi);
                }
            }
            if (st != MDAE_OK && st != MDAE_AMBIGUOUS) ++info->solver_failures;
            for (i = 0; i < n; ++i) if (!isfinite(W->P[i])) return info->status = MDAE_NUMERICAL;
            /* u_{k+1} = u_free + Y P */
            for (j = 0; j < n; ++j) {
                const double *y = W->Y + (size_t)j * nu;
                double pj = W->P[j];
                if (pj != 0.0) for (b = 0; b < nu; ++b) u[b] += y[b] * pj;
            }
            for (i = 0; i < nrow; ++i) W->Pprev[i] = 0.0;
            for (i = 0; i < na; ++i)
                for (j = 0; j < kd; ++j) {
                    W->Pprev[W->act[i] * d + j] = W->P[i * kd + j];
                    W->Pacc[W->act[i] * d + j] += W->P[i * kd + j];
                }
        }
        /* q_{k+1} = q_k + dt N (theta u_{k+1} + (1 - theta) u_k) */
        for (b = 0; b < nu; ++b) W->tmp[b] = th * u[b] + (1.0 - th) * W->uk[b];
        for (j = 0; j < nu; ++j) {
            double tj = dt * W->tmp[j];
            if (tj != 0.0) for (i = 0; i < nq; ++i) q[i] += CM(W->N, i, j, nq) * tj;
        }
        normalize_quats(s, q);
        {
            /* act flags for the projection: reuse S-free int space (pivJ is separate) */
            if (s->proj && ((o->projection == MDAE_STEP_PROJ_BILATERAL && s->m > 0)
                            || o->projection == MDAE_STEP_PROJ_GAPS)) {
                int *fl = W->flags;
                {
                    for (a = 0; a < nc; ++a) fl[a] = 0;
                    for (i = 0; i < na; ++i) fl[W->act[i]] = 1;
                    {
                        double rm = project(s, o, p, t + dt, q, fl, W);
                        if (rm > info->max_proj_residual) info->max_proj_residual = rm;
                    }
                }
            }
        }
        /* impact events; work of the impulses P . W (u_k + u_k+1) / 2: an impact's
         * tangential work is booked with the impact (as the event method books the whole
         * velocity jump), a closed contact's with friction */
        if (na > 0) {
            int held = 0;           /* a closed contact holds in this step (no impact) */
            for (i = 0; i < na; ++i) {
                double Pn = W->P[i * kd], vn = W->vk[W->act[i] * d], af = 0.0, hold, wn = 0.0;
                double wt = 0.0;
                int g = W->act[i] * d, impact;
                for (j = 0; j < kd; ++j) {
                    double vbar = 0.0;
                    for (b = 0; b < nu; ++b)
                        vbar += CM(W->W, g + j, b, nrow) * 0.5 * (W->uk[b] + u[b]);
                    if (j == 0) wn = Pn * vbar;
                    else wt += W->P[i * kd + j] * vbar;
                }
                impact = (vn < 0.0) && (Pn > 0.0);
                if (impact) {
                    for (b = 0; b < nu; ++b) af += CM(W->W, g, b, nrow) * (W->uf[b] - W->uk[b]);
                    hold = (af < 0.0 && W->D[(i * kd) * (na * kd) + i * kd] > 0.0)
                           ? -af / W->D[(i * kd) * (na * kd) + i * kd] : 0.0;
                    impact = Pn > o->impact_ratio * hold;
                }
                if (impact) info->work_impact += wn + wt;
                else {
                    info->work_contact += wn;
                    info->work_friction += wt;
                    if (Pn > 0.0) held = 1;
                }
                if (impact) {
                    int e = info->n_events++;
                    if (e < ev_cap) {
                        double *x = ev_x + (size_t)e * 2 * (size_t)(nq + nu);
                        ev_step[e] = k;
                        ev_contact[e] = W->act[i];
                        ev_P[e] = Pn;
                        memcpy(x, W->qk, sizeof(double) * (size_t)nq);
                        memcpy(x + nq, W->uk, sizeof(double) * (size_t)nu);
                        memcpy(x + nq + nu, q, sizeof(double) * (size_t)nq);
                        memcpy(x + 2 * nq + nu, u, sizeof(double) * (size_t)nu);
                    }
                }
            }
            if (held) ++info->n_contact_steps;
        }
        for (i = 0; i < nu; ++i) if (!isfinite(u[i])) return info->status = MDAE_NUMERICAL;
        if ((k + 1) % every == 0 || k + 1 == nsteps) {
            T_out[out] = t0 + (k + 1) * dt;
            memcpy(Q_out + (size_t)out * nq, q, sizeof(double) * (size_t)nq);
            memcpy(U_out + (size_t)out * nu, u, sizeof(double) * (size_t)nu);
            if (P_out) {
                memcpy(P_out + (size_t)out * nrow, W->Pacc, sizeof(double) * (size_t)nrow);
            }
            for (i = 0; i < nrow; ++i) W->Pacc[i] = 0.0;
            ++out;
        }
    }
    info->step = nsteps;
    (void)w_const;
    return info->status;
}
