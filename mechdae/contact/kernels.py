r"""Contact-space kernels: impacts with restitution and Coulomb friction, the
acceleration-level contact problem with its Painlevé classification, and the Siconos local
friction-contact problem. Everything here works on Delassus matrices; ``System.impact`` /
``System.painleve`` assemble them from a compiled model.

Notation (DESIGN.md, "Contacts"): ``k`` contacts of dimension ``dim`` (2: normal + one
tangent, 3: normal + two tangents); contact-space vectors are stacked contact by contact,
normal first, ``n = k * dim``. The Delassus matrix ``D = W M^-1 W^T`` (n x n, symmetric
positive semidefinite) maps impulses to velocity jumps, ``v+ = v- + D P``.

Impact law (Newton, velocity level), with the target velocity
``w = v+ + E v-`` (``E = diag(e_n, e_t[, e_t])`` per contact):

.. math::

    0 \le P_n \perp w_n \ge 0, \qquad |P_t| \le \mu P_n, \qquad
    w_t \ne 0 \Rightarrow P_t = -\mu P_n \, w_t / |w_t| .

Each contact "separates" (P = 0), "sticks" (w = 0) or "slides" (w_n = 0, P_t on the cone
boundary opposite to w_t). ``mu = inf`` means no sliding: a contact separates or sticks
with ``w_t = 0`` exactly. The kinetic energy change is ``dT = P^T (v- + v+) / 2``; with
``e_n, e_t <= 1`` a gain is an error of the law and raises :class:`EnergyGainError`.

The computations run in C (csrc/mdae_contact.c).
"""
# Split by concern (a pure move): _kernel_inputs (constants, option checks, input
# converters), _kernel_impact (impact, impact_batch and their results), _kernel_forces
# (contact_forces, solve_fc, fc_error and their results). Every name stays importable
# from here; callers (and monkeypatching tests) use ``kernels.impact``.
from . import _contact  # noqa: F401  (kernels._contact is used by tests)
from ._kernel_inputs import (  # noqa: F401
    ENUM_MAX, MAX_BOXES, MAX_FACETS, MAX_ITER, MAX_N, MAX_SOLUTIONS, MODE_NAMES, MODE_NONE,
    _AMBIG, _BAD, _BATCH_STATUS, _F64, _GAIN, _INCONS, _INFEASIBLE, _MAX_ITER, _METHODS,
    _NOT_CONV, _NUMERICAL, _OK, _RAY, _array, _bad_input, _check_mu_e, _impact_options,
    _per_contact, _short, _sizes, check_count, check_options, check_tol)
from ._kernel_impact import (  # noqa: F401
    EnergyGainError, ImpactBatchSolution, ImpactSolution, _check_lcp_size, _choose_method,
    _enum_result, frictionless_unique, frictionless_unique_batch, impact, impact_batch)
from ._kernel_forces import (  # noqa: F401
    ContactForceSolution, FCSolution, PainleveSolution, _fc_inputs, _fc_matrix,
    _painleve_result, contact_forces, fc_error, solve_fc)

__all__ = ["impact", "impact_batch", "contact_forces", "solve_fc", "fc_error",
           "ImpactSolution", "ImpactBatchSolution", "PainleveSolution", "ContactForceSolution",
           "FCSolution", "EnergyGainError", "MODE_NAMES", "MODE_NONE"]
