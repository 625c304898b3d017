r"""The energy ledger of a run: where ``E = T + V`` went between the first and last output.

.. math::

    E(t_1) - E(t_0) = W_\text{impacts} + W_\text{friction} + W_\text{constraints}
                      + W_\text{forces} + \varepsilon

- ``impacts``: energy jumps at impacts (and accumulations, Painlevé impacts): the records
  of one impact of several contacts split its jump (each contact the work of its own
  impulse; the event engine's ``_book``), so their jumps add up to it; an
  ``energy_fallback`` note repeats its impact's and is not summed. Time stepping
  (``method="timestepping"``, and the stretches of ``"auto"``) books the work of the
  normal impulses of its impact steps, ``sum P_n w_n^T (u_k + u_k+1) / 2``, computed in
  the C loop (exact for the trapezoidal scheme with a constant mass matrix).
- ``friction``: work of the tangential contact forces on the system, ``int lambda_t
  w_t^T u dt`` (event engine: trapezoidal rule on the output grid), or of the tangential
  impulses (time stepping).
- ``constraints``: work of the reactions, ``int lambda^T C u dt`` of the bilateral
  constraints and ``int lambda_n w_n^T u dt`` of closed contacts (zero for fixed ideal
  constraints: the size of this term is their drift; moving surfaces and rheonomic
  constraints do work); the normal impulses of the time-stepping steps that are not
  impacts (sustained contact).
- ``forces``: work of the generalized forces declared in the model
  (``generalized_force``, forces on speeds and points), trapezoidal rule.
- ``projection``: energy changed by moving positions back onto closed contacts where
  ``"auto"`` leaves a time-stepping stretch (its ``O(dt)`` penetration).
- ``integration``: what is left. It is the integration error when everything else that
  changes ``E`` is booked (``complete``); otherwise it also holds what cannot be booked
  (inputs of general equations, energies depending on time) and ``label`` says so.
"""
import numpy as np

__all__ = ["energy_ledger", "watch", "conservative", "BALANCE_FACTOR"]

_TS_KEYS = ("work_impact", "work_contact", "work_friction")


def _trapz(y, t):
    y = np.asarray(y, float)
    if y.size < 2:
        return 0.0
    return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(t)))


def _event_jumps(events):
    """Sum of the energy jumps of the events of the event engine (each record carries its
    own share; ``energy_fallback`` notes repeat their impact's, time-stepping records of
    ``auto`` are booked by their stretch)."""
    total = 0.0
    for e in events:
        if e.energy_before is None or e.energy_after is None:
            continue
        if e.kind == "energy_fallback" or e.extra.get("method") == "timestepping":
            continue
        a, b = float(e.energy_before), float(e.energy_after)
        if np.isfinite(a) and np.isfinite(b):
            total += b - a
    return total


def _contact_work(res, sysm, P, Q, U, t):
    """(friction, normal) work of the recorded contact forces on the output grid."""
    cf = getattr(res, "contact_forces", None)
    if not cf or not sysm.contact_names:
        return 0.0, 0.0
    N = t.size
    W = np.array(sysm.functions["W"].map(N)(Q.T, t[None, :], P))
    nrow = W.shape[0]
    W = W.reshape(nrow, N, sysm.nu).transpose(1, 0, 2)          # (N, rows, nu)
    v = np.einsum("nij,nj->ni", W, U)                             # w^T u per row
    o, fr, nr = 0, np.zeros(N), np.zeros(N)
    for c in sysm.contacts:
        rows = 1 + c["n_tangent"]
        lam = cf.get(c["name"])
        if lam is not None:
            lam = np.nan_to_num(np.asarray(lam, float).reshape(N, -1))
            nr += lam[:, 0] * v[:, o]
            k = min(rows, lam.shape[1])
            if k > 1:
                fr += np.sum(lam[:, 1:k] * v[:, o + 1:o + k], axis=1)
        o += rows
    return _trapz(fr, t), _trapz(nr, t)


def _bilateral_work(res, sysm, P, Q, U, t):
    r = sysm.m + sysm.k
    if not r or not res.multipliers:
        return 0.0
    N = t.size
    lam = []
    for name, rows in sysm.holonomic + sysm.nonholonomic:
        val = res.multipliers.get(name)
        if val is None:
            return 0.0                  # not recorded by this method
        lam.append(np.asarray(val, float).reshape(N, rows))
    lam = np.hstack(lam)
    _, _, C, _ = sysm.functions["constraints"].map(N)(Q.T, U.T, t[None, :], P)
    C = np.array(C).reshape(r, N, sysm.nu).transpose(1, 0, 2)
    return _trapz(np.einsum("ni,nij,nj->n", lam, C, U), t)


def _force_work(res, sysm):
    """Work of the model's declared generalized forces, or None if one cannot be
    evaluated along the run."""
    m = sysm.parent
    terms = []
    rate = {c["name"]: c["rate"] for c in m.coords}
    speed = {s["name"]: s["sym"] for s in m.speeds_}
    for Q, name in m.forces:
        if name in rate:
            terms.append(Q * rate[name])
    for Q, name in m.speed_forces:
        if name in speed:
            terms.append(Q * speed[name])
    for F, vP in m.power_terms:
        import casadi as ca
        terms.append(ca.dot(ca.vec(F), ca.vec(vP)))
    if len(terms) != len(m.forces) + len(m.speed_forces) + len(m.power_terms):
        return None
    if not terms:
        return 0.0
    try:
        p = sum(np.asarray(res.evaluate(term), float).reshape(-1) for term in terms)
    except (RuntimeError, ValueError, TypeError, KeyError):
        return None
    return _trapz(p, np.asarray(res.t, float))


def _unbooked(sysm):
    """Reasons why T + V changes in ways the ledger cannot book."""
    import casadi as ca
    m, d = sysm.parent, sysm._d
    why = []
    if sysm.nv + sysm.nz or m.equations:
        why.append("general equations")
    if ca.depends_on(ca.vertcat(d.T, d.V), d.t):
        why.append("energies depending on time")
    return why


def energy_ledger(res):
    """The energy ledger of ``res`` (module docstring), or None without energies.

    Returns
    -------
    dict
        ``initial``, ``final``, ``impacts``, ``friction``, ``constraints``, ``forces``,
        ``projection``, ``integration`` (J); ``complete`` (bool: ``integration`` is the integration
        error alone), ``quadrature`` (bool: some term is a trapezoidal rule on the
        output grid), ``label`` (how to name ``integration``); and, for
        :meth:`Result.energy_balance`'s callers, ``events`` (= ``impacts``) and
        ``unexplained`` (= ``integration``).
    """
    if res.energy is None:
        return None
    E = np.asarray(res.energy, float)
    t = np.asarray(res.t, float)
    E0, E1 = float(E[0]), float(E[-1])
    sysm = res.system
    st = res.stats or {}
    ts_work = dict(st.get("timestepping_work") or {})
    if st.get("method") == "timestepping":
        ts_work = {k: float(st.get(k, 0.0)) for k in _TS_KEYS}
    # time stepping: its impact records span whole steps (gravity work included); the
    # C loop's impulse work is the exact booking
    impacts = (0.0 if st.get("method") == "timestepping" else _event_jumps(res.events)) \
        + ts_work.get("work_impact", 0.0)
    friction = ts_work.get("work_friction", 0.0)
    constraints = ts_work.get("work_contact", 0.0)
    forces = 0.0
    why, quad = [], False
    if sysm is None:
        why.append("a Result without its System: only events booked")
    else:
        P = np.asarray(res.params, float).reshape(-1, 1)
        Q, U = np.asarray(res.q, float), np.asarray(res.v, float)
        fr, nr = _contact_work(res, sysm, P, Q, U, t)
        bw = _bilateral_work(res, sysm, P, Q, U, t)
        fw = _force_work(res, sysm)
        if fw is None:
            why.append("forces that cannot be evaluated along the run")
            fw = 0.0
        scale = max(abs(E0), abs(E1), float(np.max(np.abs(res.kinetic)))
                    if res.kinetic is not None else 0.0, 1e-300)
        quad = any(abs(x) > 1e-9 * scale for x in (fr, nr, bw, fw))
        friction += fr
        constraints += nr + bw
        forces = fw
        why += _unbooked(sysm)
        if sysm.w_names and (sysm.nv + sysm.nz):
            why.append("inputs")
    projection = float(ts_work.get("projection", 0.0))
    rest = E1 - E0 - impacts - friction - constraints - forces - projection
    if why:
        label = f"not booked ({', '.join(why)}) and integration error"
    elif quad:
        label = f"integration error (booked work by the trapezoidal rule on {t.size} outputs)"
    else:
        label = "integration error"
    return dict(initial=E0, final=E1, impacts=impacts, friction=friction,
                constraints=constraints, forces=forces, projection=projection,
                integration=rest,
                complete=not why, quadrature=quad, label=label, events=impacts,
                unexplained=rest)


#: a conservative run warns when ``|E(t) - E(t0)|`` exceeds ``BALANCE_FACTOR * rtol`` times
#: the energy scale (the integrators here hold the energy of the mechanisms of the tests
#: to 1e-7 relative at ``rtol = 1e-8``, i.e. 10 ``rtol``; the branch switch at a singular
#: position moved it by 1e-1 to 1e1 relative)
BALANCE_FACTOR = 1e4
#: a run starting with a constraint residual above this (``initialize=False`` on purpose)
#: is not watched: its stabilization changes ``T + V`` by design
START_RESIDUAL = 1e-8


def conservative(system):
    """Why ``system``'s ``T + V`` is not conserved by its equations (an empty list: it is):
    contacts, forces, inputs, general equations, energies or constraints depending on
    time."""
    import casadi as ca
    if system is None:
        return ["no System"]
    m, d = system.parent, system._d
    why = list(_unbooked(system))
    if system.contact_names:
        why.append("contacts")
    if m.forces or m.speed_forces or m.power_terms:
        why.append("forces")
    if system.w_names:
        why.append("inputs")
    if system.m and ca.depends_on(d.phi, d.t):
        why.append("constraints depending on time")
    if system.k:
        psi = getattr(d, "psi", None)
        if psi is None or ca.depends_on(psi, d.t):
            why.append("nonholonomic constraints depending on time")
    return why


def _bilateral_work_cumulative(res):
    """``int_0^t lam^T C u dt`` at the output times (trapezoidal rule); zeros when the
    multipliers were not recorded."""
    sysm = res.system
    t = np.asarray(res.t, float)
    r = sysm.m + sysm.k
    if not r or not res.multipliers:
        return np.zeros(t.size)
    N = t.size
    lam = []
    for name, rows in sysm.holonomic + sysm.nonholonomic:
        val = res.multipliers.get(name)
        if val is None:
            return np.zeros(N)
        lam.append(np.asarray(val, float).reshape(N, rows))
    lam = np.hstack(lam)
    Q, U = np.asarray(res.q, float), np.asarray(res.v, float)
    P = np.asarray(res.params, float).reshape(-1, 1)
    _, _, C, _ = sysm.functions["constraints"].map(N)(Q.T, U.T, t[None, :], P)
    C = np.array(C).reshape(r, N, sysm.nu).transpose(1, 0, 2)
    power = np.einsum("ni,nij,nj->n", lam, C, U)
    return np.concatenate([[0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(t))])


def watch(res, rtol):
    """Warn (:class:`mechdae.errors.EnergyBalanceWarning`) where the energy of a
    conservative run (:func:`conservative`) leaves ``E(t0)`` by more than
    ``BALANCE_FACTOR * rtol`` times its scale (the largest of ``|E(t0)|``, the kinetic
    energy and the swing of the potential energy), the work of the reactions booked (as
    in :func:`energy_ledger`); ``res.stats["energy_balance_break"]`` holds the first
    output time where it did. Returns that time or None. A run that starts off its
    constraints (residual above ``START_RESIDUAL``) is not watched.
    """
    import warnings
    from ..errors import EnergyBalanceWarning
    if res.energy is None or res.system is None or conservative(res.system):
        return None
    E = np.asarray(res.energy, float)
    if E.size < 2 or not np.all(np.isfinite(E)):
        return None
    r0 = [np.max(np.abs(np.asarray(v, float).reshape(E.size, -1)[0]))
          for v in res.residuals.values()]
    if r0 and max(r0) > START_RESIDUAL:
        return None          # started off the constraints (initialize=False): T + V moves
    # the work of the reactions on a state off the constraints (a perturbed start the
    # stabilization pulls back) is booked, as in the ledger
    dev = np.abs(E - E[0] - _bilateral_work_cumulative(res))
    parts = [abs(E[0])]
    if res.kinetic is not None:
        parts.append(float(np.max(np.abs(res.kinetic))))
    if res.potential is not None:
        parts.append(float(np.ptp(res.potential)))
    scale = max(max(parts), 1e-300)
    limit = BALANCE_FACTOR * float(rtol) * scale
    bad = np.flatnonzero(dev > limit)
    if not bad.size:
        return None
    k = int(bad[0])
    t = float(res.t[k])
    res.stats["energy_balance_break"] = t
    warnings.warn(
        f"{res.system.name}: the energy T + V of this conservative model moved by "
        f"{E[k] - E[0]:+.3g} J by t = {t:.6g} s (between t = {float(res.t[k - 1]):.6g} and "
        f"{t:.6g}), more than {BALANCE_FACTOR:g} x rtol ({float(rtol):g}) of its scale "
        f"{scale:.3g} J; the motion left the physics there (a singular position passed on "
        "the wrong branch, a too loose tolerance): check res.energy_ledger() and tighten "
        "rtol", EnergyBalanceWarning, stacklevel=3)
    return t
