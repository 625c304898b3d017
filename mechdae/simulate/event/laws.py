r"""Multiple-impact laws: how an impact involving several contacts at once is resolved.

``"simultaneous"`` (the default): one impact problem on every contact that touches,
Newton's law per contact with complementarity (:func:`mechdae.contact.kernels.impact`).
For a three-ball Newton's cradle with ``e = 1`` it gives ``(-1/3, 2/3, 2/3) v0``, which
conserves energy and momentum but is not what a cradle does.

``"sequential"``: the impact is a sequence of single impacts in a stated order. The
contacts are grouped in *units* — every contact under the sequential law alone, the
contacts under the simultaneous law together — and, while some unit approaches
(a normal velocity ``v_n < -vel_tol``), the unit with the most negative ``v_n`` is resolved
by itself (ties within 1e-9 relative: the unit of the first contact in the model's
order), the others held as if open; the contact velocities are updated by ``D P`` and
the next unit is chosen. A three-ball cradle with ``e = 1`` gives ``(0, 0, v0)``; with
``e < 1`` the binary impacts 1-2, 2-3, 1-2, ... (``e = 1/2``: three impacts, ``(13/64,
15/64, 9/16) v0``). Each single impact conserves momentum and, for ``e <= 1``, loses
energy; the sequence stops after ``max_steps`` (10,000) single impacts with a
:class:`mechdae.SolverError` (``e = 1`` in a closed set, as a ball held between two
walls, never ends).

The option ``impact_law`` of ``simulate(method="event"/"auto")`` takes ``"simultaneous"``,
``"sequential"`` (every contact) or a dict ``{contact name: law}`` (contacts left out:
simultaneous).
"""
import numpy as np

from ...errors import SolverError

__all__ = ["LAWS", "contact_laws_option", "units", "sequential_impact"]

LAWS = ("simultaneous", "sequential")


def contact_laws_option(option, names):
    """Per-contact law (list of str in the order of ``names``) from ``impact_law=``."""
    if isinstance(option, str):
        if option not in LAWS:
            raise ValueError(f"impact_law: must be one of {LAWS} or a dict {{contact: law}}, "
                             f"got {option!r}")
        return [option] * len(names)
    if not isinstance(option, dict):
        raise ValueError(f"impact_law: must be one of {LAWS} or a dict {{contact: law}}, "
                         f"got {type(option).__name__}")
    out = ["simultaneous"] * len(names)
    for name, law in option.items():
        if name not in names:
            raise ValueError(f"impact_law: no contact named {name!r}; contacts: "
                             f"{', '.join(names)}")
        if law not in LAWS:
            raise ValueError(f"impact_law[{name!r}]: must be one of {LAWS}, got {law!r}")
        out[names.index(name)] = law
    return out


def units(idx, laws):
    """Positions in ``idx`` grouped into units: each sequential contact alone, the
    simultaneous ones together (in the order of their first contact)."""
    simul = [a for a, i in enumerate(idx) if laws[i] != "sequential"]
    out = [[a] for a, i in enumerate(idx) if laws[i] == "sequential"]
    if simul:
        out.append(simul)
    return sorted(out, key=lambda u: u[0])


def sequential_impact(D, vm, e_n, e_t, mu, dim, unit_list, vel_tol, solve_unit,
                      max_steps=10000):
    """Resolve an impact as a sequence of single impacts of units (module docstring).

    Parameters
    ----------
    D : (k dim, k dim) array
        Delassus matrix of the contacts (padded rows).
    vm : (k dim,) array
        Pre-impact contact velocities.
    e_n, e_t, mu : (k,) arrays
    unit_list : list of lists of int
        Units of contact positions (:func:`units`).
    vel_tol : float
        A unit approaches when one of its normal velocities is below ``-vel_tol``.
    solve_unit : callable
        ``solve_unit(D_u, v_u, e_n_u, e_t_u, mu_u, unit) -> (solution, note)``: the
        impact solution of one unit (an object with ``P``, ``modes``, ``status``) and a
        note (dict or None) of how it was solved.

    Returns
    -------
    P : (k dim,) array
        Total impulses.
    v : (k dim,) array
        Post-impact contact velocities.
    steps : list of dict
        Per single impact: ``unit``, ``rows``, ``P``, ``v_minus``, ``v_plus`` (all rows
        of the contacts), ``solution``, ``note``.
    """
    v = np.array(vm, float)
    P = np.zeros_like(v)
    steps = []
    rows_of = [[a * dim + j for a in u for j in range(dim)] for u in unit_list]
    while True:
        vmin = [min(v[a * dim] for a in u) for u in unit_list]
        best = min(vmin)
        if not best < -vel_tol:
            break
        pick = next(n for n, x in enumerate(vmin) if x <= best + 1e-9 * abs(best))
        u, rows = unit_list[pick], rows_of[pick]
        sol, note = solve_unit(D[np.ix_(rows, rows)], v[rows], e_n[u], e_t[u], mu[u], u)
        dv = D[:, rows] @ sol.P
        steps.append(dict(unit=u, rows=rows, P=np.asarray(sol.P, float).copy(),
                          v_minus=v.copy(), v_plus=v + dv, solution=sol, note=note))
        v = v + dv
        P[rows] += sol.P
        if len(steps) >= max_steps:
            raise SolverError(f"sequential impact law: {max_steps} single impacts without "
                              "an end (restitution 1 in a closed set of contacts?); use "
                              "impact_law='simultaneous' for these contacts")
    return P, v, steps
