r"""Ivanov's general impact law (seed 003, eq. 3.9) for ``method="unified"``.

``simulate(method="unified", impact_map={"restitution": kappa*, "tangential": r})``:

.. math::

    \dot g^+ = -\kappa^* \dot g^-, \qquad u^+ = u^- + \dot g^- H, \qquad
    H = -(1 + \kappa^*)\, b, \qquad
    b = \frac{M^{-1}(w_n + W_t^T r)}{w_n^T M^{-1}(w_n + W_t^T r)},

``kappa*(q)`` an expression of the coordinates and parameters, ``r(q, u)`` the tangential
impulse per unit normal impulse (``n_tangent`` expressions, evaluated at the continuous
speeds ``ut`` of (3.10), ``P = -H/(1 + kappa*) = b``). Coulomb sliding is ``r = -mu sigma``
(the default, with the contact's restitution). The change of variables (3.10) needs
``ut -> ut + b(q, ut) gdot`` invertible along the motion (``det(I + gdot db/dut) > 0``; for
``r(u_t)`` in one tangent direction ``1 + gdot r' > 0``).
"""
import casadi as ca

from .._symbols import _as_sx

__all__ = ["impact_map_law"]


def impact_map_law(system, impact_map):
    """``(kappa*, r)`` SX of the compiled symbols from ``impact_map=`` (None: the contact's
    Newton-Coulomb law). ``kappa*`` may depend on coordinates and parameters, the
    tangential impulse ratio ``r`` (n_tangent entries) also on the speeds (evaluated at
    the continuous speeds ``ut``)."""
    if impact_map is None:
        return None
    if not isinstance(impact_map, dict) or set(impact_map) - {"restitution", "tangential"}:
        raise ValueError(f"{system.name}: impact_map must be a dict with keys 'restitution' "
                         "(kappa*, an expression of coordinates and parameters) and/or "
                         "'tangential' (the tangential impulse per unit normal impulse, "
                         "n_tangent expressions of coordinates, speeds and parameters)")
    d, c = system._d, system.contacts[0]
    nt = c["n_tangent"]
    par = system.parent
    rates = [co["rate"] for co in par.coords if co["name"] in par.kinematics_]

    def conv(e, what, allowed):
        e = _as_sx(e, f"impact_map[{what!r}]")
        if rates:
            e = ca.substitute(e, ca.vertcat(*rates), ca.vertcat(
                *[par.kinematics_[co["name"]] for co in par.coords
                  if co["name"] in par.kinematics_]))
        ok = {x.element_hash() for x in ca.symvar(allowed)}
        bad = [str(x) for x in ca.symvar(e) if x.element_hash() not in ok]
        if bad:
            raise ValueError(f"{system.name}: impact_map[{what!r}] uses {bad}; it may depend "
                             f"on {'coordinates and parameters' if what == 'restitution' else 'coordinates, speeds and parameters'} only")
        return e
    kap = impact_map.get("restitution", c["restitution"])
    kap = conv(kap if isinstance(kap, ca.SX) else ca.SX(float(kap)), "restitution",
               ca.vertcat(d.q, d.p))
    if "tangential" in impact_map:
        r = impact_map["tangential"]
        r = [r] if not isinstance(r, (list, tuple)) else list(r)
        if len(r) != nt:
            raise ValueError(f"{system.name}: impact_map['tangential'] needs {nt} expression(s) "
                             f"(contact '{c['name']}' has {nt} tangent direction(s))")
        r = ca.vertcat(*[conv(e, "tangential", ca.vertcat(d.q, d.u, d.p)) for e in r])
    else:
        r = None
    return kap, r
