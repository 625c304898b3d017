"""Named outputs: expressions of the model's symbols and constraint multipliers.

``Model.output(name, expr)`` declares them; compile() turns them into one Function
``outputs(q, u, v, z, t, p, w, lam) -> y`` (``lam``: every constraint multiplier row, in
the System's constraint order), evaluated along a run by :class:`mechdae.Result`. The
acausal layer uses them for every connector potential and flow (a flow through a rigid
connection is a multiplier, the cut force).
"""
import casadi as ca

__all__ = ["derive_outputs", "attach_outputs"]


def derive_outputs(model, d):
    """``(expr (n_out x 1), lam symbols (m + k), names, problems)`` for ``model``'s outputs."""
    P = []
    names = [n for n, _ in model.outputs]
    lam = []
    known = {}
    for cname, rows in list(d.hol) + list(d.nonhol):
        for r in range(rows):
            s = model._multipliers.get((cname, r))
            if s is None:
                s = ca.SX.sym(f"lambda({cname})[{r}]")
            known[(cname, r)] = s
            lam.append(s)
    for (cname, r), s in model._multipliers.items():
        if (cname, r) not in known:
            P.append(f"multiplier of '{cname}' row {r}: the model has no such constraint row "
                     f"(constraints: {', '.join(n for n, _ in d.hol + d.nonhol) or 'none'})")
    lam = ca.vertcat(*lam) if lam else ca.SX(0, 1)
    acc = [model._accelerations.get(n) for n in d.u_names]
    for n in model._accelerations:
        if n not in d.u_names:
            P.append(f"acceleration of '{n}': the model has no such speed")
    d.ud_out = ca.vertcat(*[a if a is not None else ca.SX.sym(f"der({n})")
                            for a, n in zip(acc, d.u_names)]) if d.u_names else ca.SX(0, 1)
    if not names:
        return ca.SX(0, 1), lam, names, P
    expr = ca.vertcat(*[e for _, e in model.outputs])
    sub_from = [c["rate"] for c in model.coords if c["name"] in model.kinematics_]
    if sub_from:
        sub_to = [model.kinematics_[c["name"]] for c in model.coords
                  if c["name"] in model.kinematics_]
        expr = ca.substitute(expr, ca.vertcat(*sub_from), ca.vertcat(*sub_to))
    allowed = ca.vertcat(d.q, d.u, d.v, _hd(d), d.z, d.t, d.p, d.w, lam, d.ud_out)
    free = set(s.element_hash() for s in ca.symvar(expr)) - \
        set(s.element_hash() for s in ca.symvar(allowed)) if allowed.numel() else \
        set(s.element_hash() for s in ca.symvar(expr))
    if free:
        bad = [str(s) for s in ca.symvar(expr) if s.element_hash() in free]
        owners = []
        for i, (n, e) in enumerate(model.outputs):
            if any(str(s) in bad for s in ca.symvar(e)):
                owners.append(n)
                if len(owners) >= 5:
                    break
        P.append(f"outputs {', '.join(repr(o) for o in owners)}: use symbol(s) "
                 f"{', '.join(repr(b) for b in bad[:8])} that are not states, parameters, inputs "
                 "or multipliers of the compiled model (an output may not use the highest "
                 "derivative of a variable or an acceleration)")
    return expr, lam, names, P


def _hd(d):
    """Highest derivatives of the general variables (solved with the algebraic ones)."""
    hd = getattr(d, "hd", None)
    return hd if hd is not None else ca.SX(0, 1)


def attach_outputs(system, d, expr, lam, names):
    """Add the ``outputs`` Function and ``output_names`` to a compiled System."""
    system.output_names = list(names)
    system._output_expr = expr
    system._output_index = {n: i for i, n in enumerate(names)}
    ud = getattr(d, "ud_out", ca.SX(0, 1))
    f = ca.Function("outputs", [d.q, d.u, d.v, _hd(d), d.z, d.t, d.p, d.w, lam, ud], [expr],
                    ["q", "u", "v", "hd", "z", "t", "p", "w", "lam", "ud"], ["y"])
    system.functions["outputs"] = f

    def uses(x):
        # which outputs need the multipliers / accelerations (the others are evaluated for
        # every method)
        if not (x.numel() and expr.numel()):
            return [False] * len(names)
        # the sparsity alone (building the Jacobian expression costs as much as the
        # derivation of a long chain's equations)
        rows = set(ca.jacobian_sparsity(expr, x).row())
        return [i in rows for i in range(len(names))]

    system._output_uses_lam = uses(lam)
    system._output_uses_ud = uses(ud)
