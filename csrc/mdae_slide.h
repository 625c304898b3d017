/* mdae_slide.h - every tuple of sliding directions of k contacts sliding at once in space
 * (plain C99, no allocation).
 *
 * The problem (the contacts that do not slide already eliminated by the caller): k
 * contacts of dimension 3, local impulses r_j = rho_j g_j with
 *     g_j(th_j) = (1, -mu_j cos th_j, -mu_j sin th_j),   s_j = (cos th_j, sin th_j),
 * velocities w = A r + c (A 3k x 3k row-major, c 3k, normal component first per contact).
 * Every contact slides: w_{j,n} = 0 and w_{j,t} parallel to s_j. With the k x k matrix
 *     N_jl(th) = A[3j, 3l:3l+3] . g_l,      rho = -N^-1 c_n,
 * Cramer's rule z_l = det(N with column l replaced by c_n) = (adj(N) c_n)_l and
 *     V_j = det(N) c_{j,t} - sum_l A[3j+1:3j+3, 3l:3l+3] g_l z_l   (= det(N) w_{j,t}),
 * every sliding solution is a root of the trigonometric polynomial system
 *     G_j(th) = V_j1 sin th_j - V_j2 cos th_j = 0,   j = 1..k,
 * also where N is singular (a solvable N rho = -c_n forces adj(N) c_n = 0). The final
 * solve and the consistency checks are the caller's.
 *
 * Search: branch and bound over the torus [th0, th0 + 2 pi)^k in interval arithmetic with
 * outward rounding (every operation widened by one ulp each side). A box is discarded when
 * the enclosure of some G_j excludes 0 or the Krawczyk operator
 *     K(X) = m - Y G(m) + (I - Y G'(X)) (X - m),   Y = G'(m)^-1,
 * misses X, or when the signs prove every point of X unphysical (det N of one sign and
 * rho_j = -z_j / det N < 0, or V_j . s_j of the sign opposite to det N: sliding against
 * the impulse); it holds exactly one root when K(X) lies inside X, and that root is
 * found by Newton's method. A box that shrinks below the minimum width undecided is retried around
 * the Newton root (epsilon inflation); if that fails too, the root is still reported and
 * the search is flagged incomplete. The roots returned are then every root of G with
 * rho >= 0 and w_t . s_j >= 0, proven (plus unphysical ones the signs could not exclude),
 * unless *complete == 0 (box budget spent, more than max_roots roots, an undecided box:
 * a multiple root or a curve of roots, e.g. a degenerate N). k <= MDAE_SLIDE_KMAX.
 */
#ifndef MDAE_SLIDE_H
#define MDAE_SLIDE_H

#ifdef __cplusplus
extern "C" {
#endif

#define MDAE_SLIDE_KMAX 4             /* most contacts sliding at once the search handles */
#define MDAE_SLIDE_MAX_BOXES 5000     /* default box budget per search (~40 us a box, k=3) */

/* Roots th[nroots * k] (each in [th0, th0 + 2 pi), up to round-off), at most max_roots.
 * Returns the number of roots stored; *complete = 1 when they are provably all.
 * a_scale: the size of the unreduced matrix (max |D|). Degenerate problems are not
 * searched: A ~ 0 (|A| <= 1e-12 a_scale: the sliding contacts locked by the others; no
 * root, complete, unless some c_n vanishes) and det N ~ 0 at eight sample directions (N
 * singular for every direction: a statically indeterminate set; incomplete). */
int mdae_slide_search(int k, const double *A, const double *c, const double *mu,
                      double a_scale, int max_boxes, int max_roots, double *th,
                      int *complete);

/* One contact (k = 1) in closed form: G(th) = V_1 sin th - V_2 cos th is a trigonometric
 * polynomial of degree 2, so with t = tan((th - th0) / 2) its roots are the real roots of
 * the quartic (1 + t^2)^2 G (th0 chosen so that th0 + pi is far from a root: the leading
 * coefficient is G(th0 + pi)). The four roots come from the Durand-Kerner iteration and
 * are certified by the inclusion disks of Braess and Hadeler (every zero lies in the union
 * of the disks |t - t_i| <= 4 |W_i|, W_i = p(t_i) / (a_4 prod_{j != i} (t_i - t_j)),
 * widened by a bound on the rounding of the coefficients and of p; a component of m disks
 * holds m zeros): an isolated disk centred on the real axis holds one real root, an
 * isolated disk off the axis none. Every real root of G is returned (th[0..3], in
 * [th0, th0 + 2 pi) up to round-off, polished by Newton's method on G), physical or not
 * (the caller checks rho >= 0 and w_t . s >= 0); *complete = 0 when the disks do not
 * separate (a double root, a cluster, G ~ 0 identically): the caller then searches by
 * mdae_slide_search. About 3,000 flops. */
int mdae_slide_search1(const double *A, const double *c, double mu, double *th,
                       int *complete);

#ifdef __cplusplus
}
#endif
#endif
