"""Pass 1b: the components' declared symbols as symbols of the Model, and rates.

Parameters become Model parameters ``"<path>.<name>"`` (an expression given as a parameter
is used as it is), general variables and declared speeds become the Model's; coordinates
are collected here and declared by :func:`declare_coordinates` once pass 4 knows which are
eliminated. :func:`derivatives` gives every ``der()`` placeholder that a resolved value
needs its rate (the accelerations: output-only symbols that results evaluate from the
equations of motion).
"""
import casadi as ca

from ..._symbols import _info, der, der_many
from ...errors import ModelError

__all__ = ["declare", "declare_coordinates", "derivatives", "comp_origin"]


def comp_origin(c):
    """``"component 'C' (Capacitor)"``: a flattened name's provenance."""
    return f"component '{c.path}' ({type(c).__name__})"


def declare(F):
    """Parameters, general variables and declared speeds into ``F.S``; ``F.coord_decl``
    (component, name, placeholder, defaults) and ``F.coord_phs`` (their hashes)."""
    model, S = F.model, F.S
    F.coord_phs = set()
    F.coord_decl = []
    for c in F.comps:
        path = c.path
        for ln, ph, val in c._params:
            S.set(ph, val if isinstance(val, ca.SX) else model.parameter(f"{path}.{ln}", val))
        for ln, ph, default, speed, speed_default in c._coords:
            F.coord_decl.append((c, ln, ph, default, speed, speed_default))
            F.coord_phs.add(ph.element_hash())
        for ln, ph, default in c._vars:
            v = model.variable(f"{path}.{ln}", default)
            F.origin[f"{path}.{ln}"] = comp_origin(c)
            F.general.append(v)
            S.set(ph, v)
        for ln, ph, default in c._speeds:
            S.set(ph, model.speeds(f"{path}.{ln}", default=default))


def declare_coordinates(F, E):
    """The coordinates that no constraint eliminates (``E``: :func:`.eliminate.
    choose_eliminations`) as Model coordinates, with their kinematics and accelerations;
    the eliminated ones take their solved values and become outputs
    (``F.elim_outputs``). Resolves ``F.S`` and sets ``F.acceleration``."""
    model, S = F.model, F.S
    any_elim = bool(E.keys)
    F.elim_outputs = []
    kin_of = {c_ph.element_hash(): e for c in F.comps for c_ph, e in c._kinematics}
    kin = []                             # (coordinate symbol, rate expression placeholders)
    for c, ln, ph, default, speed, speed_default in F.coord_decl:
        path = c.path
        sname = f"{path}.{speed}" if speed is not None else None
        if E.has(ph):
            S.set(ph, E.get(ph))
            F.elim_outputs.append((f"{path}.{ln}", ph))
            F.elim_outputs.append((sname or f"der({path}.{ln})", der(ph)))
            continue
        sym = model.coordinates(f"{path}.{ln}", default=default, speeds=sname,
                                speed_default=speed_default)
        S.set(ph, sym)
        if ph.element_hash() in kin_of:
            kin.append((sym, kin_of[ph.element_hash()]))
            continue
        d1 = _info(ph).deriv
        if any_elim or (d1 is not None and _info(d1).deriv is not None):
            # accelerations (outputs only): evaluated by results from the equations of motion
            S.set(der(der(ph)), model.acceleration(sname or f"der({path}.{ln})"))
    for ph, val in zip(E.keys, E.vals):
        S.set(der(der(ph)), der(der(val)))
    S.resolve(F.where)
    if kin:
        model.kinematics(dict(zip([k for k, _ in kin], S.apply([e for _, e in kin]))))
    kin_rate = {_info(sym).deriv.element_hash(): e for sym, e in
                zip([k for k, _ in kin], S.apply([e for _, e in kin]))}

    def acceleration(s):
        """Rate of a speed (an output-only acceleration symbol); the rate of a coordinate's
        rate under declared kinematics is ``d/dt (N(q) u)``."""
        e = kin_rate.get(s.element_hash())
        if e is not None:
            return der_many([e], acceleration=acceleration)[0]
        return model.acceleration(s)

    F.acceleration = acceleration


def derivatives(F):
    """Give the ``der()`` placeholders of resolved values (needed by flows, equations,
    energies) their rates, to a fixpoint; ``F.S`` stays resolved."""
    S = F.S
    while True:
        todo, idx = [], []
        index = S.index
        for i, info in enumerate(S.infos):
            if info is not None and info.deriv is not None and \
                    info.deriv.element_hash() not in index:
                todo.append(info)
                idx.append(i)
        if not todo:
            return
        todo = list(zip(todo, S.values(idx)))
        try:
            # rates of velocities (a body's inertial force in its flows) are the
            # accelerations, which only outputs may use
            rates = der_many([v for _, v in todo], acceleration=F.acceleration)
        except ValueError:
            for info, val in todo:
                try:
                    der(val)
                except ValueError as exc:
                    raise ModelError(f"{F.where}: der({info.name}): {exc}") from None
            raise
        for (info, _), r in zip(todo, rates):
            S.set(info.deriv, r)
        S.resolve(F.where)
