"""Compile a Model into a System: derivation, validation and named CasADi Functions.

The compiled, stabilized index-1 form (DESIGN.md conventions):

    q' = N(q) u
    M(q) u' = h(q, u, t) + C^T Lambda,          C = [G; A],  Lambda = (lam, mu)
    C u' + c = H y + K z,                       y = phi,  z = (G u + phi_t, psi)

solved at run time for ``u'`` and ``Lambda`` with factorizations inside the graph
(``M`` by LDL^T, the constraint system ``C M^-1 C^T Lambda = s - c - C M^-1 h`` by a
Tikhonov-regularized LDL^T so that redundant constraints stay solvable).
"""
import time as _time

from ..errors import ModelError
from .derive import derive
from .outputs import derive_outputs, attach_outputs
from .system import System

__all__ = ["compile_model", "System"]


def compile_model(model, stabilization="default", evaluate=None):
    """Derive the equations of ``model`` and return a frozen :class:`System`.

    Parameters
    ----------
    model : mechdae.Model
    stabilization, evaluate : see :meth:`mechdae.Model.compile`

    Raises
    ------
    ModelError
        With every problem found (unknown symbols, non-linear nonholonomic constraints,
        energies depending on inputs, coordinates without inertia, too many constraints,
        gaps depending on speeds or inputs, duplicate names, non-finite defaults, ...).
    """
    from ..stabilization import resolve
    t0 = _time.perf_counter()
    # the Model folds the evaluated parameters itself (mechdae.dsl.evaluate): this layer
    # does not import the DSL
    model, evaluated = model._evaluated(evaluate)
    problems = []
    try:
        rule, proj = resolve(stabilization)
    except ValueError as exc:
        rule, proj = None, None
        problems.append(str(exc))
    d, P = derive(model)
    problems = P + problems
    out_expr, out_lam, out_names, P2 = derive_outputs(model, d)
    if not problems:         # otherwise an output's problem is a consequence of those
        problems += P2
    HK = None
    if not problems:
        from ..stabilization import _Zero
        try:
            HK = (rule if rule is not None and d.m + d.k else _Zero()).matrices(d.m, d.k)
        except ValueError as exc:
            problems.append(str(exc))
        _general_gains(d, rule, problems)
    if problems:
        seen, uniq = set(), []
        for p in problems:
            if p not in seen:
                seen.add(p)
                uniq.append(p)
        raise ModelError([f"model '{model.name}': {p}" if not p.startswith("model '") else p
                          for p in uniq])
    sys = System(model, d, rule, proj, HK)
    # the general equations' Jacobian singular at every state (conflicting or dependent
    # equations the structural analysis cannot see): refused, naming the blocks
    from .singular import check_generic
    P3 = check_generic(sys)
    if P3:
        raise ModelError([f"model '{model.name}': {p}" for p in P3])
    sys.evaluated = evaluated
    attach_outputs(sys, d, out_expr, out_lam, out_names)
    sys.compile_time = _time.perf_counter() - t0
    # seconds per stage: flattening (with alias elimination) happened in Model.flatten
    sys.compile_stats = dict(getattr(model, "flatten_stats", {}),
                             index_reduction=getattr(d, "t_index_reduction", 0.0),
                             derivation=sys.compile_time)
    sys._compiled_keys = tuple(sys.__dict__) + ("_compiled_keys",)   # what pickling keeps
    return sys


def _general_gains(d, rule, problems):
    """Stabilize the hidden constraints of the general equations with ``rule``."""
    from ..stabilization import _Zero
    from .reduction import stabilize_general
    mg, kg = getattr(d, "m_g", 0), getattr(d, "k_g", 0)
    if not mg + kg:
        return
    try:
        Hg, Kg = (rule or _Zero()).matrices(mg, kg)
    except ValueError as exc:
        problems.append(
            f"stabilization of the general equations: {exc}. The same stabilization object "
            f"applies to the mechanical constraints ({d.m} holonomic, {d.k} nonholonomic rows) "
            f"and to the hidden constraints of the general equations ({mg} holonomic-like rows "
            f"(differentiated twice: {', '.join(repr(n) for n in d.general_constraints[:mg]) or '-'}) "
            f"and {kg} nonholonomic-like rows (differentiated once: "
            f"{', '.join(repr(n) for n in d.general_constraints[mg:]) or '-'})); give "
            f"Mukharlyamov matrices H ({mg + kg}, {mg}) and K ({mg + kg}, {mg + kg}) for "
            "these, or use Baumgarte, which fits any number of rows")
        return
    stabilize_general(d, Hg, Kg, problems)

