"""Initial values given by named outputs (a connector potential such as
``"spring.flange_b.s"`` or ``"C.p.v"``): solved for the states they depend on.

Gauss-Newton, minimum-norm steps, on ``y_k(q, v) = value_k`` over the coordinates and
general states that were not given by name; the values found are then held (weighted as
given) by the consistent initialization that follows.
"""
import numpy as np

__all__ = ["split_output_values", "solve_output_values"]


def split_output_values(system, q0, speeds=False):
    """``(q0 without output names, {output name: value})`` (``speeds=True``: for v0)."""
    if not isinstance(q0, dict):
        return q0, {}
    idx = getattr(system, "_output_index", {})
    states = set(system.q_names) | set(system.v_names) if not speeds else \
        set(system.u_names) | set(system.q_names) | set(system.v_names)
    rest, outs = {}, {}
    for k, val in q0.items():
        if k not in states and k in idx:
            outs[k] = float(val)
        else:
            rest[k] = val
    return rest, outs


def _evaluator(system, rows, ua, t0, pv):
    """``y(q, v, u)`` of the selected outputs, with ``hd, z`` solved from the general
    equations (``J (hd, z) + F0 = 0``) at each evaluation."""
    F = system.functions
    f = F["outputs"]
    nhd, nz = getattr(system, "nhd", 0), system.nz
    w = np.zeros(len(system.w_names))
    lam = np.zeros(system.m + system.k)

    def y(q, v, u=None):
        ua_ = ua if u is None else u
        hd, z = np.zeros(nhd), np.zeros(nz)
        if nhd + nz:
            J, F0 = F["extras"](q, ua_, v, t0, pv, w)
            sol = np.linalg.solve(np.array(J), -np.array(F0).ravel())
            hd, z = sol[:nhd], sol[nhd:]
        out = np.array(f(q, ua_, v, hd, z, t0, pv, w, lam, np.zeros(system.nu))).ravel()
        return out[rows]
    return y


def solve_output_values(system, outs, qa, ua, va, gq, gv, t0, pv, tol=1e-11, max_iter=30):
    """Move free coordinates / general states so that the named outputs take ``outs``.

    Returns ``(qa, va, gq, gv, report)``; raises ValueError naming the outputs when an
    output depends on no free state or no solution is found.
    """
    rows = [system._output_index[n] for n in outs]
    y = _evaluator(system, rows, ua, t0, pv)
    free = np.flatnonzero(np.concatenate([~gq, ~gv]))
    target = np.array(list(outs.values()))
    nq = system.nq
    xk = np.concatenate([qa, va])

    def jac(x):
        J = np.zeros((len(rows), free.size))
        for c, j in enumerate(free):
            h = 1e-6 * (1.0 + abs(x[j]))
            xp, xm = x.copy(), x.copy()
            xp[j] += h
            xm[j] -= h
            J[:, c] = (y(xp[:nq], xp[nq:]) - y(xm[:nq], xm[nq:])) / (2 * h)
        return J

    J = jac(xk)
    bad = [n for k, n in enumerate(outs) if not np.any(np.abs(J[k]) > 1e-9)]
    if bad:
        raise ValueError(f"{system.name}: initial value of {', '.join(repr(b) for b in bad)} "
                         "fixes no state left free (it depends on no coordinate or state, or "
                         "only on ones given by name too); give the state itself")
    res = np.inf
    for it in range(max_iter):
        r = y(xk[:nq], xk[nq:]) - target
        res = float(np.max(np.abs(r)))
        if res <= tol * max(1.0, float(np.max(np.abs(target)))):
            break
        if it:
            J = jac(xk)
        xk[free] -= np.linalg.pinv(J, rcond=1e-10) @ r
    else:
        raise ValueError(f"{system.name}: could not give {', '.join(repr(n) for n in outs)} "
                         f"the initial values {list(outs.values())} (residual {res:.3g}); "
                         "give the coordinates or states instead")
    report = {}
    names = system.q_names + system.v_names
    old = np.concatenate([qa, va])
    for j in np.flatnonzero(np.abs(xk - old) > 1e-12 * (1 + np.abs(old))):
        report[names[j]] = (float(old[j]), float(xk[j]))
    gq = gq | (np.abs(xk[:nq] - qa) > 0)
    gv = gv | (np.abs(xk[nq:] - va) > 0)
    return xk[:nq], xk[nq:], gq, gv, report


def solve_output_speeds(system, outs, qa, ua, va, gu, t0, pv):
    """Speeds left free set so that the named velocity outputs (``"load.w"`` of a
    coordinate eliminated by a gear) take ``outs`` (linear in the speeds: one solve).

    Returns ``(ua, gu, report)``.
    """
    rows = [system._output_index[n] for n in outs]
    y = _evaluator(system, rows, ua, t0, pv)
    free = np.flatnonzero(~gu)
    target = np.array(list(outs.values()))
    J = np.zeros((len(rows), free.size))
    base = y(qa, va, ua)
    for c, j in enumerate(free):
        u1 = ua.copy()
        u1[j] += 1.0
        J[:, c] = y(qa, va, u1) - base
    bad = [n for k, n in enumerate(outs) if not np.any(np.abs(J[k]) > 1e-12)]
    if bad:
        raise ValueError(f"{system.name}: initial value of {', '.join(repr(b) for b in bad)} "
                         "fixes no speed left free; give the speed itself")
    u = ua.copy()
    u[free] -= np.linalg.pinv(J, rcond=1e-10) @ (base - target)
    r = y(qa, va, u) - target
    if np.max(np.abs(r)) > 1e-9 * max(1.0, float(np.max(np.abs(target)))):
        raise ValueError(f"{system.name}: could not give {', '.join(repr(n) for n in outs)} "
                         f"the initial values {list(outs.values())} (residual "
                         f"{np.max(np.abs(r)):.3g}); give the speeds instead")
    report = {system.u_names[j]: (float(ua[j]), float(u[j])) for j in free
              if abs(u[j] - ua[j]) > 1e-14 * (1 + abs(ua[j]))}
    return u, gu | (np.abs(u - ua) > 0), report
