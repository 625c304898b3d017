"""Contact problems in contact space: impacts with Coulomb friction, the Painlevé check
and the Siconos local friction-contact problem (kernels in csrc/mdae_contact.c)."""
from .kernels import (impact, impact_batch, contact_forces, solve_fc, fc_error,
                      ImpactSolution, ImpactBatchSolution, PainleveSolution,
                      ContactForceSolution, FCSolution, EnergyGainError, MODE_NAMES)

__all__ = ["impact", "impact_batch", "contact_forces", "solve_fc", "fc_error",
           "ImpactSolution", "ImpactBatchSolution", "PainleveSolution", "ContactForceSolution",
           "FCSolution", "EnergyGainError", "MODE_NAMES"]
