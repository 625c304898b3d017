/* mdae_status.h - status codes shared by every mechdae C kernel.
 *
 * Plain C99. Kernels never print and never exit: they return one of these codes and the
 * caller (the thin Cython layer) turns it into a result field or a Python exception.
 */
#ifndef MDAE_STATUS_H
#define MDAE_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    MDAE_OK = 0,              /* solved to the requested tolerance                       */
    MDAE_MAX_ITER = 1,        /* iteration / pivot limit reached before convergence      */
    MDAE_RAY = 2,             /* Lemke: ray termination (no solution found, maybe none)  */
    MDAE_INFEASIBLE = 3,      /* the problem provably has no solution                    */
    MDAE_BAD_INPUT = 4,       /* sizes, NaN/inf, null pointers: caller error             */
    MDAE_NUMERICAL = 5,       /* breakdown: singular pivot, loss of accuracy             */
    MDAE_NOT_CONVERGED = 6,   /* iterative method stalled above tolerance                */
    MDAE_AMBIGUOUS = 7,       /* several consistent solutions (impact / Painleve)        */
    MDAE_INCONSISTENT = 8,    /* no consistent solution (Painleve inconsistency)         */
    MDAE_ENERGY_GAIN = 9,     /* an impact law result would increase kinetic energy      */
    MDAE_WORKSPACE = 10,      /* caller-provided workspace too small                     */
    MDAE_INTERRUPTED = 11     /* the caller's interrupt callback asked to stop           */
} mdae_status;

/* Interrupt callback of the long-running loops (Lemke and Murty pivots, PGS and NSGS
 * sweeps, batch loops): polled about every MDAE_POLL_WORK floating-point operations of
 * work (a few milliseconds), never on the small-n fast paths; a nonzero return stops the
 * solve with MDAE_INTERRUPTED. NULL: never polled. The callback runs on the solver's
 * thread; it may e.g. read a volatile flag or ask its host language for pending signals. */
typedef int (*mdae_interrupt_fn)(void *ctx);
#define MDAE_POLL_WORK 4.0e6

/* A short, static, human-readable description of a status code. */
const char *mdae_status_str(int status);

#ifdef __cplusplus
}
#endif
#endif
