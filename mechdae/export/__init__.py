"""Export a compiled System to CasADi: DAE dicts for ``casadi.integrator`` and Functions.

ODE form (``form="ode"``): ``x = (q, u, v)``, ``p = (params, vec H, vec K, w_const)``,
``ode = f(x, t, p)`` -- the stabilized index-1 right-hand side of :mod:`mechdae.symbolic`.

DAE form (``form="dae"``, for idas): algebraic unknowns ``z = (u', Lambda)`` with

    alg = [ M u' - h - C^T Lambda ;  C u' + c - H y - K z_c ],   ode = (N u, u', v').
"""
import casadi as ca
import numpy as np

from ..simulate.inputs import resolve_inputs, input_mx, constant_vector

__all__ = ["to_casadi", "ocp", "OCP", "OCPSolution", "HybridOCP", "ContactImplicitOCP",
           "HybridSolution", "ContactImplicitSolution", "contact"]


def to_casadi(system, form="ode", inputs=None):
    """The stabilized model as a dict usable by ``casadi.integrator``.

    Parameters
    ----------
    system : System
    form : {"ode", "dae"}
    inputs : dict, optional
        Input signals (constants stay entries of ``p``).

    Returns
    -------
    dict
        ``x, t, p, ode`` (and ``z, alg`` for ``form="dae"``); ``p0`` (default parameter
        vector, compiled stabilization gains and constant inputs), ``x_names``, ``p_layout``,
        and ``functions`` (the System's named Functions: M, h, phi, G, psi, A, constraints,
        kinematics, energy, gap, W, Wdot_u, ...).

    Examples
    --------
    >>> dae = sys.to_casadi()                                          # doctest: +SKIP
    >>> F = casadi.integrator("F", "cvodes", {k: dae[k] for k in ("x", "t", "p", "ode")}, 0, 1)
    >>> F(x0=x0, p=dae["p0"])                                         # doctest: +SKIP
    """
    specs = resolve_inputs(system, inputs)
    nx = system.nq + system.nu + system.nv
    r, m = system.m + system.k, system.m
    npar, nw = len(system.p_names), len(system.w_names)
    x = ca.MX.sym("x", nx)
    t = ca.MX.sym("t")
    P = ca.MX.sym("p", npar + r * m + r * r + nw)
    p = P[:npar]
    H = ca.reshape(P[npar:npar + r * m], r, m)
    K = ca.reshape(P[npar + r * m:npar + r * m + r * r], r, r)
    w = input_mx(system, specs, t, P[npar + r * m + r * r:])
    p0 = np.concatenate([system.p_defaults, np.asarray(system.H).ravel(order="F"),
                         np.asarray(system.K).ravel(order="F"), constant_vector(specs)])
    out = dict(t=t, p=p, x=x)
    out["p"] = P
    if form == "ode":
        xdot, lam, z = system.rhs_mx(x, t, p, w, H, K)
        out["ode"] = xdot
    elif form == "dae":
        F = system.functions
        nq, nu = system.nq, system.nu
        q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
        za = ca.MX.sym("z", nu + r)
        ud, Lam = za[:nu], za[nu:]
        vd, zx = system.extras_mx(q, u, v, t, p, w)
        M = F["M"](q, p)
        h = F["h"](q, u, v, zx, t, p, w)
        y, zc, C, c = F["constraints"](q, u, t, p)
        alg = [ca.mtimes(M, ud) - h - (ca.mtimes(C.T, Lam) if r else 0)]
        if r:
            alg.append(ca.mtimes(C, ud) + c - ca.mtimes(H, y) - ca.mtimes(K, zc))
        out.update(z=za, alg=ca.vertcat(*alg),
                   ode=ca.vertcat(F["kinematics"](q, u, p), ud, vd))
    else:
        raise ValueError(f"form must be 'ode' or 'dae', got {form!r}")
    out["p0"] = p0
    out["x_names"] = system.q_names + system.u_names + system.v_names
    out["p_layout"] = dict(params=system.p_names, H=(r, m), K=(r, r), inputs=system.w_names)
    out["functions"] = dict(system.functions)
    return out


from .ocp import ocp, OCP, OCPSolution  # noqa: E402
from . import contact  # noqa: E402
from .hybrid import HybridOCP  # noqa: E402
from .complementarity import ContactImplicitOCP  # noqa: E402
from .contact_solution import HybridSolution, ContactImplicitSolution  # noqa: E402
