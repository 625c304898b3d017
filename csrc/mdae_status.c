/* mdae_status.c - names of the shared status codes (see mdae_status.h). */
#include "mdae_status.h"

const char *mdae_status_str(int status)
{
    switch (status) {
    case MDAE_OK: return "solved";
    case MDAE_MAX_ITER: return "max_iter";
    case MDAE_RAY: return "ray_termination";
    case MDAE_INFEASIBLE: return "infeasible";
    case MDAE_BAD_INPUT: return "bad_input";
    case MDAE_NUMERICAL: return "numerical_failure";
    case MDAE_NOT_CONVERGED: return "not_converged";
    case MDAE_AMBIGUOUS: return "ambiguous";
    case MDAE_INCONSISTENT: return "inconsistent";
    case MDAE_ENERGY_GAIN: return "energy_gain";
    case MDAE_WORKSPACE: return "workspace_too_small";
    case MDAE_INTERRUPTED: return "interrupted";
    default: return "unknown_status";
    }
}
