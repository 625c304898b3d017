"""Single impact problems: :func:`impact` (``System.impact``), its fast path through the
per-active-set Function and the bound C solver, the general path (closure cones, 'poisson'
laws, every solution, the energy-limited fallback) and :class:`ImpactResult`."""
import math
from dataclasses import dataclass

import numpy as np

from . import _contact, closure as _closure, kernels
from .kernels import EnergyGainError
from .assembly import COMPILE_AFTER, GAP_TOL, PIVOT_TOL, _ASM_KEY, _assembler
from .problem import _active_indices, _params, _state, contact_problem

__all__ = ["impact", "ImpactResult", "ImpactOutcome"]


# ------------------------------------------------------------------------------------ #
# impact
# ------------------------------------------------------------------------------------ #

@dataclass
class ImpactOutcome:
    """One consistent solution of an impact problem.

    Attributes
    ----------
    v_plus : dict
        Post-impact speeds by speed name.
    v_plus_array : ndarray (nu,)
        Post-impact speeds in System order.
    impulses : dict
        Per active contact ``(P_n, P_t[, P_t2])`` (N s).
    modes : dict
        Per active contact ``"separate"``, ``"stick"`` or ``"slide"``.
    contact_velocities : dict
        Per active contact post-impact ``(v_n, v_t[, v_t2])`` (m/s).
    energy_after : float
        Kinetic energy after the impact (J).
    """
    v_plus: dict
    v_plus_array: np.ndarray
    impulses: dict
    modes: dict
    contact_velocities: dict
    energy_after: float


class ImpactResult:
    """Result of :meth:`System.impact` (the first, or only, consistent solution on top).

    Attributes
    ----------
    v_plus, v_plus_array, impulses, modes, contact_velocities, energy_after
        As in :class:`ImpactOutcome`, for the first solution (NaN / empty when
        inconsistent).
    energy_before : float
        Kinetic energy before the impact (J).
    status : str
        ``"unique"``, ``"ambiguous"`` (several consistent solutions) or ``"inconsistent"``
        (none); ``"solved"`` from the iterative methods (uniqueness not examined).
    unique, ambiguous : bool
    solutions : list of ImpactOutcome
        Every consistent solution (``all_solutions=True``); otherwise ``[first]``.
    exhaustive : bool
        True when the search behind ``status`` and ``solutions`` was provably complete
        (see :attr:`mechdae.contact.kernels.ImpactSolution.exhaustive`): always for planar
        contacts with ``method="enum"``; in space, unless more than 4 contacts may slide
        at once, the sliding set is statically indeterminate, or the direction search ran
        out of its box budget. False
        from ``"lcp"``/``"nsgs"``. When False, ``"unique"`` / ``"inconsistent"`` mean one /
        no solution found, and others may exist.
    active : list of str
        Contacts that took part.
    delta_u : ndarray (nu,)
        Speed jump of the first solution.
    problem : ContactProblem
        The assembled problem.

    Results of the fast path (one solution, enumeration) keep the raw arrays and build
    the dictionaries, ``solutions``, ``delta_u`` and ``problem`` on first access.
    """
    __slots__ = ("v_plus_array", "energy_before", "energy_after", "status", "active",
                 "_v_plus", "_impulses", "_modes", "_cv", "_solutions", "_delta_u",
                 "_problem", "_lazy", "_fallback", "_exhaustive")

    @property
    def fallback(self):
        """None, or (``energy_gain="fallback"`` when Newton's law would gain energy) a dict
        ``scale`` (applied to e_n, e_t), ``dT_newton``, ``dT``: see
        :mod:`mechdae.contact.energetic`."""
        return getattr(self, "_fallback", None)

    @property
    def exhaustive(self):
        # fast-path results never set it: that path serves complete searches only
        return getattr(self, "_exhaustive", True)

    def __init__(self, v_plus, v_plus_array, impulses, modes, contact_velocities,
                 energy_before, energy_after, status, solutions, active, delta_u,
                 problem=None, exhaustive=True):
        self.v_plus_array = v_plus_array
        self.energy_before = energy_before
        self.energy_after = energy_after
        self.status = status
        self.active = active
        self._v_plus = v_plus
        self._impulses = impulses
        self._modes = modes
        self._cv = contact_velocities
        self._solutions = solutions
        self._delta_u = delta_u
        self._problem = problem
        self._lazy = None
        self._exhaustive = exhaustive

    # fast-path results (BoundImpact.solve_result): _lazy = (fs, names, raw, mode_key,
    # system, t, params, inputs) with raw = [P (n), v_plus (n), delta_u (nu), q (nq), u (nu)]

    def _per_contact(self, x):
        fs = self._lazy[0]
        xl = x.tolist()
        return {n: tuple([xl[j] for j in r]) for n, r in zip(fs.names, fs.rows)}

    def _raw(self, k):
        fs, raw = self._lazy[0], self._lazy[2]
        n, nu = fs.n, fs.nu
        a = (0, n, 2 * n, 2 * n + nu, 2 * n + nu + fs.nq, 2 * n + 2 * nu + fs.nq)
        return raw[a[k]:a[k + 1]]

    @property
    def v_plus(self):
        if self._v_plus is None:
            self._v_plus = dict(zip(self._lazy[0].u_names, self.v_plus_array.tolist()))
        return self._v_plus

    @property
    def impulses(self):
        if self._impulses is None:
            self._impulses = self._per_contact(self._raw(0))
        return self._impulses

    @property
    def modes(self):
        if self._modes is None:
            fs = self._lazy[0]
            self._modes = dict(zip(fs.names, _contact.mode_names(self._lazy[3],
                                                                 len(fs.names))))
        return self._modes

    @property
    def contact_velocities(self):
        if self._cv is None:
            self._cv = self._per_contact(self._raw(1))
        return self._cv

    @property
    def solutions(self):
        if self._solutions is None:
            self._solutions = [ImpactOutcome(self.v_plus, self.v_plus_array, self.impulses,
                                             self.modes, self.contact_velocities,
                                             self.energy_after)]
        return self._solutions

    @property
    def delta_u(self):
        if self._delta_u is None and self._lazy is not None:
            self._delta_u = self._raw(2)
        return self._delta_u

    @property
    def problem(self):
        if self._problem is None and self._lazy is not None:
            system, t, params, inputs = self._lazy[4:]
            self._problem = contact_problem(system, self._raw(3).copy(), self._raw(4).copy(),
                                            active=self.active, t=t, params=params,
                                            inputs=inputs)
        return self._problem

    @property
    def unique(self):
        return self.status in ("unique", "solved")

    @property
    def ambiguous(self):
        return self.status == "ambiguous"

    @property
    def energy_change(self):
        return self.energy_after - self.energy_before

    def __repr__(self):
        return (f"ImpactResult(status={self.status!r}, active={self.active!r}, "
                f"modes={self.modes!r}, v_plus={self.v_plus!r}, "
                f"energy_before={self.energy_before!r}, energy_after={self.energy_after!r})")


def _poisson_solutions(prob, method, all_solutions, tol, max_boxes=None):
    """Two-phase (Poisson) impact: compression to zero normal approach speed, then a
    restitution impulse ``E P_c`` (normal ``e_n``, tangential ``e_t``); a final
    inelastic correction if the restitution phase leaves a contact approaching."""
    fin = np.isfinite(prob.mu) & (prob.mu > 0)
    if fin.any():
        bad = [c for c, f in zip(prob.contacts, fin) if f]
        raise NotImplementedError(
            f"impact: law 'poisson' is implemented for frictionless (mu = 0) and "
            f"no-slip (mu = inf) contacts; contact{'s' if len(bad) > 1 else ''} "
            f"{', '.join(map(repr, bad))} ha{'ve' if len(bad) > 1 else 's'} finite friction: "
            "use law='newton'")
    k, dim = prob.nc, prob.dim
    zero = np.zeros(k)
    mb = kernels.MAX_BOXES if max_boxes is None else max_boxes
    s1 = kernels.impact(prob.D, prob.v_minus, zero, zero, prob.mu, dim, method=method,
                        all_solutions=all_solutions, tol=tol, energy="report", max_boxes=mb)
    E = np.repeat(prob.e_t, dim)
    E[::dim] = prob.e_n
    scale = max(1.0, float(np.max(np.abs(prob.v_minus))) if prob.v_minus.size else 1.0)
    out = []
    for s in (s1.solutions if all_solutions else [s1]) or []:
        if not np.isfinite(s.P).all():
            continue
        P = s.P + E * s.P
        v = prob.v_minus + prob.D @ P
        if (v[::dim] < -tol * scale).any():
            s3 = kernels.impact(prob.D, v, zero, zero, prob.mu, dim, method=method, tol=tol,
                                energy="report", max_boxes=mb)
            P = P + s3.P
            v = s3.v_plus
        out.append((P, v, s.modes))
    return s1.status, out, s1.exhaustive


def _closure_solutions(prob, method, all_solutions, tol, max_boxes=None):
    """Impact with closed friction cones: the reduced inelastic problem (Schur complement
    of the closure contacts' tangent rows, :mod:`mechdae.contact.closure`) solved by the
    kernels, then every solution expanded to the full impulses and velocities."""
    dim, cl = prob.dim, prob.closure
    Dr, _, cr, K = _closure.reduce(prob.D, prob.v_minus, prob.e_n, prob.e_t, cl, dim,
                                   prob.contacts)
    mu = np.where(cl, 0.0, prob.mu)
    zero = np.zeros(prob.nc)
    s = kernels.impact(Dr, cr, zero, zero, mu, dim, method=method,
                       all_solutions=all_solutions, tol=tol, energy="report",
                       max_boxes=kernels.MAX_BOXES if max_boxes is None else max_boxes)
    sols = s.solutions if all_solutions else ([s] if np.isfinite(s.P).all() else [])
    raw = []
    for x in sols or []:
        P, vp = _closure.expand(prob.D, prob.v_minus, x.P, K)
        raw.append((P, vp, _closure.modes(P, cl, dim, x.modes)))
    return s.status, raw, s.exhaustive


def _outcome(system, prob, P, vplus_c, modes):
    du = prob.B @ P
    up = prob.u + du
    names = system.u_names
    return ImpactOutcome(
        v_plus=dict(zip(names, up.tolist())), v_plus_array=up,
        impulses=prob.per_contact(P), modes=dict(zip(prob.contacts, modes)),
        contact_velocities=prob.per_contact(vplus_c),
        energy_after=prob.kinetic_energy(up)), du


def _energy_error(prob, gains, where="impact"):
    names = ", ".join(repr(c) for c in prob.contacts)
    return (f"{where}: the impact law at contact{'s' if prob.nc > 1 else ''} {names} "
            f"would increase the kinetic energy by {max(gains):.6g} J although e_n, e_t <= 1 "
            f"(e_n = {prob.e_n.tolist()}, e_t = {prob.e_t.tolist()}, mu = {prob.mu.tolist()})")


def impact(system, q, v, active=None, all_solutions=False, params=None, t=0.0,
           method="auto", tol=1e-9, gap_tol=GAP_TOL, inputs=None, energy_gain="raise",
           max_boxes=None):
    r"""Solve the impact problem of ``system`` at ``(q, v)``.

    ``M (u+ - u-) = W^T P + C^T Lam``, ``C (u+ - u-) = 0``, with per contact the impact law
    (``"newton"``: ``0 <= P_n _|_ v_n+ + e_n v_n- >= 0`` and Coulomb's law on
    ``v_t+ + e_t v_t-``; ``"poisson"``: compression then restitution impulse
    ``e P_compression``, see :func:`_poisson_solutions`).

    Parameters
    ----------
    system : System
    q, v : dict by name or array in System order
        Coordinates and pre-impact speeds.
    active : list of str, optional
        Contacts taking part; default the closed ones (``gap <= gap_tol``).
    all_solutions : bool
        Report every consistent solution in ``solutions``.
    params : dict, optional
        Parameter values (no recompilation).
    t : float
    method : {"auto", "enum", "lcp", "nsgs"}
        Kernel method (see :func:`mechdae.contact.impact`); ``"auto"`` enumerates.
    tol : float
        Relative tolerance of the consistency checks.
    gap_tol : float
    energy_gain : {"raise", "fallback"}
        When Newton's law (with friction: Kane's paradox) would increase the kinetic
        energy: raise :class:`EnergyGainError` (default), or solve with the energy-limited
        law (restitution scaled to the largest value that does not gain energy, see
        :mod:`mechdae.contact.energetic`); ``out.fallback`` then records the scale and
        both energy changes.
    max_boxes : int, optional
        Box budget (default :data:`mechdae.contact.kernels.MAX_BOXES`) of each search of
        the sliding directions of contacts sliding in space (the interval
        branch-and-bound of the enumeration, one search per mode combination); a search
        that spends it leaves ``out.exhaustive`` False. Larger: slower, complete on harder
        problems; smaller: bounded time.

    Returns
    -------
    ImpactResult

    Raises
    ------
    ValueError
        Bad state, unknown contact.
    EnergyGainError
        An energy gain with ``e_n, e_t <= 1``; the message names the contacts.

    Examples
    --------
    >>> out = sys.impact({"y": 0.0}, {"y": -2.0})                  # doctest: +SKIP
    >>> out.v_plus["der(y)"], out.modes["A"]                         # doctest: +SKIP
    (1.0, 'stick')
    """
    if tol != 1e-9 or gap_tol != GAP_TOL:       # NaN compares unequal: checked too
        kernels.check_options(tol=tol, gap_tol=gap_tol)
    if energy_gain != "raise":
        from .energetic import check_rule
        check_rule(energy_gain)
    max_boxes = _max_boxes(max_boxes)
    if not all_solutions and (method == "auto" or method == "enum"):
        out = _impact_fast(system, q, v, active, params, t, tol, gap_tol, inputs, max_boxes)
        if out is not None:
            return out
    return _impact_general(system, q, v, active, all_solutions, params, t, method, tol,
                           gap_tol, inputs, energy_gain, max_boxes)


def _max_boxes(max_boxes):
    if max_boxes is None:
        return kernels.MAX_BOXES
    return kernels.check_count(max_boxes, "max_boxes", 1, kernels.MAX_ITER,
                               " (box budget of the sliding-direction search)")


def _impact_general(system, q, v, active=None, all_solutions=False, params=None, t=0.0,
                    method="auto", tol=1e-9, gap_tol=GAP_TOL, inputs=None,
                    energy_gain="raise", max_boxes=None):
    """:func:`impact` past the fast path (options checked by the caller)."""
    prob = contact_problem(system, q, v, active=active, t=t, params=params, inputs=inputs,
                           gap_tol=gap_tol)
    return _impact_prob(system, prob, all_solutions, method, tol, energy_gain,
                        kernels.MAX_BOXES if max_boxes is None else max_boxes)


def _impact_fast(system, q, v, active=None, params=None, t=0.0, tol=1e-9, gap_tol=GAP_TOL,
                 inputs=None, max_boxes=None):
    """One consistent solution by enumeration through the per-active-set Function and the
    bound C solver; None whenever the general path must decide (inconsistent, energy
    gain, superelastic laws, bad input, 'poisson', no or more than 6 contacts, an
    incomplete search): that path then recomputes and produces the result or the error
    message. States and parameters as arrays or dicts of floats by name are written into
    this thread's input buffers by one C call each (name -> index maps built once per
    System); anything else goes through :meth:`System.state_arrays` /
    :meth:`System.param_vector`."""
    asm = system.__dict__.get(_ASM_KEY)
    if asm is None:
        asm = _assembler(system)
    if asm.has_closure:                 # closed friction cones: the general path
        return None
    try:
        ws = asm._tls.ws                # this thread's buffers
    except AttributeError:
        ws = asm.workspace()
    ins = ws._in
    if asm.nv or not _contact.load_state(ins[0], q, ins[1], v, asm.q_index, asm.u_index,
                                         asm.q_default, asm.u_default):
        qa, ua, va = _state(system, q, v)
        ins[0][:] = qa
        ins[1][:] = ua
        if va is not None and ins[2].size:
            ins[2][:] = va
    if t != ws.t_last:                  # (a numpy store costs ~0.3 us)
        ins[3][0] = t
        ws.t_last = t
    if asm.has_w:
        pv, wv = _params(system, params, inputs, t)
        ins[4][:] = pv
        ins[5][:] = wv
        ws.p_is_default = False
    elif params:
        ws.p_is_default = False
        if not (type(params) is dict and _contact.load_params(ins[4], params, asm.p_index,
                                                              asm.p_default)):
            ins[4][:] = system.param_vector(params)
    elif not ws.p_is_default:
        ins[4][:] = asm.p_default
        ws.p_is_default = True
    ws.gap_eval()
    if active is None:
        idx = _contact.active_set(ws.gap_out, ws.chk_out, gap_tol)
        if idx is None:
            return None
    else:
        if not math.isfinite(ws.chk_out[0]):
            return None
        idx = tuple(_active_indices(asm, active, None))
    fs = ws._fast.get(idx, False)
    if fs is False:
        fs = ws.fast_solver(idx)
    if fs is None:
        return None
    ff = fs.ff
    if fs.src is not ff.current:          # the compiled Function has arrived
        fs.bind(ff.current)
    elif ff.calls < COMPILE_AFTER:
        ff.calls += 1
        if ff.calls == COMPILE_AFTER:
            ff.start_compile()
    fs.eval()
    # moving surfaces (rheonomic contacts) may raise the kinetic energy: only the kernel's
    # contact-space check (work of P on the relative velocities) applies there
    r = fs.kernel.solve_result(ImpactResult, tol, system.rheonomic, PIVOT_TOL, fs.lazy_head,
                               (system, t, params, inputs),
                               kernels.MAX_BOXES if max_boxes is None else max_boxes)
    if r is None:
        piv = float(fs.piv[0])
        if not piv > PIVOT_TOL:
            asm.check_pivot(piv, ins[0], ins[4])
        return None                     # inconsistent, energy gain, bad input, ...
    return r


def _impact_prob(system, prob, all_solutions, method, tol, energy_gain="raise",
                 max_boxes=None):
    T0 = prob.energy
    if prob.nc == 0:
        u = prob.u.copy()
        o = ImpactOutcome(dict(zip(system.u_names, u.tolist())), u, {}, {}, {}, T0)
        return ImpactResult(o.v_plus, u, {}, {}, {}, T0, T0, "unique", [o], [],
                            np.zeros_like(u), prob)
    superelastic = bool((prob.e_n > 1).any() or (prob.e_t > 1).any())
    laws = set(prob.law)
    if prob.closure is not None and prob.closure.any():
        if laws != {"newton"}:
            raise NotImplementedError("impact: friction_cone='closure' is implemented for the "
                                      "'newton' law; contacts "
                                      f"{dict(zip(prob.contacts, prob.law))}")
        status, raw, exhaustive = _closure_solutions(prob, method, all_solutions, tol,
                                                     max_boxes)
    elif laws <= {"newton"}:
        s = kernels.impact(prob.D, prob.v_minus, prob.e_n, prob.e_t, prob.mu, prob.dim,
                           method=method, all_solutions=all_solutions, tol=tol,
                           energy="report", allow_superelastic=superelastic,
                           max_boxes=kernels.MAX_BOXES if max_boxes is None else max_boxes)
        status, exhaustive = s.status, s.exhaustive
        sols = s.solutions if all_solutions else ([s] if np.isfinite(s.P).all() else [])
        raw = [(x.P, x.v_plus, x.modes) for x in (sols or [])]
    elif laws <= {"poisson"}:
        status, raw, exhaustive = _poisson_solutions(prob, method, all_solutions, tol,
                                                     max_boxes)
    else:
        raise NotImplementedError("impact: active contacts mix the 'newton' and 'poisson' "
                                  f"laws ({dict(zip(prob.contacts, prob.law))}); use one law")
    outs, dus = [], []
    for P, vc, modes in raw:
        o, du = _outcome(system, prob, P, vc, modes)
        outs.append(o)
        dus.append(du)
    if not superelastic and outs:
        scale = max(T0, 1e-300)
        gains = [o.energy_after - T0 for o in outs]
        # a moving surface may do work on the system: with rheonomic contacts only the
        # relative (contact-space) energy check of the kernel applies
        absolute = not system.rheonomic
        if status == "energy_gain" or (absolute and max(gains) > 1e-9 * scale + 1e-14):
            if energy_gain != "fallback" or laws != {"newton"}:
                raise EnergyGainError(_energy_error(prob, gains), outs)
            return _impact_fallback(system, prob, method, tol, T0, gains, max_boxes)
    if status == "energy_gain":   # superelastic allowed: kernel flags, we don't
        status = "unique" if len(outs) == 1 else "ambiguous"
    if not outs:
        nan = np.full(system.nu, np.nan)
        return ImpactResult(dict(zip(system.u_names, nan.tolist())), nan, {}, {}, {}, T0,
                            math.nan, "inconsistent", [], prob.contacts, nan, prob,
                            exhaustive)
    f = outs[0]
    return ImpactResult(f.v_plus, f.v_plus_array, f.impulses, f.modes, f.contact_velocities,
                        T0, f.energy_after, status, outs, prob.contacts, dus[0], prob,
                        exhaustive)


def _impact_fallback(system, prob, method, tol, T0, gains, max_boxes=None):
    """Newton's law would gain energy: the energy-limited law (contact/energetic.py)."""
    from .energetic import impact_no_gain
    kw = {} if method == "auto" else dict(method=method)
    if max_boxes is not None:
        kw["max_boxes"] = max_boxes
    sol, scale = impact_no_gain(prob.D, prob.v_minus, prob.e_n, prob.e_t, prob.mu, prob.dim,
                                tol=tol, **kw)
    o, du = _outcome(system, prob, sol.P, sol.v_plus, sol.modes)
    r = ImpactResult(o.v_plus, o.v_plus_array, o.impulses, o.modes, o.contact_velocities,
                     T0, o.energy_after, "unique" if sol.status == "unique" else sol.status,
                     [o], prob.contacts, du, prob)
    r._fallback = dict(law="energy-limited", scale=float(scale), dT_newton=float(max(gains)),
                       dT=float(o.energy_after - T0))
    return r
