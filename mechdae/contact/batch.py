"""Vectorized impacts: :func:`impact_batch` (``System.impact_batch``), N problems of one
active set in one mapped CasADi call and one C call, and :class:`ImpactBatchResult`."""
from dataclasses import dataclass

import numpy as np

from . import _contact, assembly as _assembly, closure as _closure, kernels
from .kernels import EnergyGainError, MODE_NAMES
from .assembly import GAP_TOL, _assembler, _layout
from .impacts import _max_boxes
from .problem import _active_indices

__all__ = ["impact_batch", "ImpactBatchResult"]


# ------------------------------------------------------------------------------------ #
# vectorized impacts
# ------------------------------------------------------------------------------------ #

@dataclass
class ImpactBatchResult:
    """Result of :meth:`System.impact_batch` (first solution of each problem).

    Attributes
    ----------
    v_plus_array : ndarray (N, nu)
        Post-impact speeds (NaN where inconsistent).
    impulses : ndarray (N, n)
        Padded contact impulses, ``dim`` entries per active contact (normal first).
    contact_velocities : ndarray (N, n)
        Post-impact contact velocities (padded layout).
    v_minus : ndarray (N, n)
        Pre-impact contact velocities.
    modes : ndarray of int (N, nc)
        Index into ``MODE_NAMES`` (0 separate, 1 stick, 2 slide); ``MODE_NONE`` (-1,
        ``mode()`` gives ``"none"``) where the problem has no solution.
    status : ndarray of str (N,)
        ``"unique"``, ``"ambiguous"``, ``"inconsistent"`` (or a kernel failure).
    n_solutions : ndarray of int (N,)
    energy_before, energy_after : ndarray (N,)
    active : list of str
    dim : int
    exhaustive : ndarray of bool (N,)
        Per problem, whether the search behind ``status`` and ``n_solutions`` was provably
        complete (as :attr:`ImpactResult.exhaustive`): always with ``method="enum"`` for
        planar contacts; in space False where a search of sliding directions spent its
        ``max_boxes``, met more than 4 contacts sliding at once or a statically
        indeterminate sliding set; False from ``"lcp"``/``"nsgs"`` unless the problem is
        frictionless with a positive definite normal block (one solution).
    """
    v_plus_array: np.ndarray
    impulses: np.ndarray
    contact_velocities: np.ndarray
    v_minus: np.ndarray
    modes: np.ndarray
    status: np.ndarray
    n_solutions: np.ndarray
    energy_before: np.ndarray
    energy_after: np.ndarray
    active: list
    dim: int
    exhaustive: np.ndarray = None

    def impulse(self, contact, component=0):
        """Impulse component (0 normal, 1.. tangents) of ``contact`` for every problem."""
        a = self.active.index(contact)
        return self.impulses[:, a * self.dim + component]

    def velocity(self, contact, component=0):
        """Post-impact contact velocity component of ``contact`` for every problem."""
        a = self.active.index(contact)
        return self.contact_velocities[:, a * self.dim + component]

    def mode(self, contact):
        """Mode names of ``contact`` for every problem (ndarray of str)."""
        names = np.asarray(MODE_NAMES + ("none",), dtype=object)
        return names[self.modes[:, self.active.index(contact)]]


def _batch_states(system, qs, vs):
    def arr(x, names, n, what):
        if isinstance(x, dict):
            for k in x:
                if k not in names:
                    raise ValueError(f"{what}: unknown name {k!r}; names: {', '.join(names)}")
            N = max(np.size(val) for val in x.values()) if x else 1
            return None, N
        a = np.asarray(x, dtype=float)
        if a.ndim != 2 or a.shape[1] != n:
            raise ValueError(f"{what}: expected shape (N, {n}) in System order {names}, "
                             f"got {a.shape}")
        return a, a.shape[0]
    qa, Nq = arr(qs, system.q_names, system.nq, "qs")
    coord_speed = {c: s for s, c in system.speed_of.items()}
    if isinstance(vs, dict):
        vs = {(k if k in system.u_names else coord_speed.get(k, k)): val
              for k, val in vs.items()}
    ua, Nu = arr(vs, system.u_names, system.nu, "vs")
    N = max(Nq, Nu)
    if qa is None:
        qa = np.tile(system.q_defaults, (N, 1))
        for k, val in qs.items():
            qa[:, system.q_names.index(k)] = val
    if ua is None:
        ua = np.tile(system.u_defaults, (N, 1))
        for k, val in vs.items():
            ua[:, system.u_names.index(k)] = val
    if qa.shape[0] != N or ua.shape[0] != N:
        raise ValueError(f"qs, vs: different numbers of states ({qa.shape[0]}, {ua.shape[0]})")
    for a, names, what in ((qa, system.q_names, "qs"), (ua, system.u_names, "vs")):
        fin = np.isfinite(a)
        if not fin.all():
            i, j = np.argwhere(~fin)[0]
            raise ValueError(f"{what}: state {i}: {names[j]!r} is not finite")
    return np.ascontiguousarray(qa), np.ascontiguousarray(ua), N


def impact_batch(system, qs, vs, active=None, params=None, t=0.0, method="enum", tol=1e-9,
                 gap_tol=GAP_TOL, energy="raise", max_boxes=None):
    r"""Solve N impact problems of ``system`` (one active set) in one vectorized pass.

    The CasADi assembly graph is mapped over the N states in one call
    (``Function.map``); the N contact-space problems are solved in one C call
    (:func:`mechdae.contact.impact_batch`); ``u+ = u- + B P`` is applied with numpy.

    Parameters
    ----------
    system : System
    qs : array (N, nq) in System order, or dict name -> scalar or array (N,)
    vs : array (N, nu), or dict name -> scalar or array (N,)
    active : list of str, optional
        Default: the contacts closed (``gap <= gap_tol``) in every state; the default
        must be the same for all states.
    params : dict, optional
        name -> scalar or array (N,) (sweeps over parameters, contact laws included).
    t : float
    method : {"enum", "lcp", "nsgs"}
    tol, gap_tol : float
    energy : {"raise", "report"}
        On an energy gain with ``e <= 1``: raise EnergyGainError naming the problems and
        contacts, or return with ``status == "energy_gain"``.
    max_boxes : int, optional
        Box budget of each search of sliding directions in space (as in :func:`impact`);
        ``out.exhaustive`` is False for the problems whose search spent it.

    Returns
    -------
    ImpactBatchResult

    Examples
    --------
    >>> out = sys.impact_batch(qs, vs, params={"f": 0.5})          # doctest: +SKIP
    >>> out.mode("B")                                                # doctest: +SKIP
    """
    kernels.check_options(tol=tol, gap_tol=gap_tol)
    max_boxes = _max_boxes(max_boxes)
    asm = _assembler(system)
    Q, U, N = _batch_states(system, qs, vs)
    P, VX, Wv = _batch_parameters(system, params, t, N)
    out = asm.evaluate_batch(Q.T, U.T, VX, t, P, Wv)
    gap = out["gap"][:, :, 0]                      # (N, ncont)
    idx = _batch_active(asm, active, gap, gap_tol, N)
    dim, src, dst, rows = _layout(asm, idx)
    nc = len(idx)
    n = nc * dim
    sel = np.array(idx, dtype=int)
    M = out["M"]                                   # symmetric: the buffer is C-ordered M
    T0 = out["T"][:, 0, 0]
    if nc == 0:
        return ImpactBatchResult(U.copy(), np.zeros((N, 0)), np.zeros((N, 0)),
                                 np.zeros((N, 0)), np.zeros((N, 0), int),
                                 np.full(N, "unique", dtype=object), np.ones(N, int), T0,
                                 T0.copy(), [], dim, np.ones(N, bool))
    laws = {asm.laws[i] for i in idx}
    if laws != {"newton"}:
        raise NotImplementedError("impact_batch: only the 'newton' law is vectorized; use "
                                  "System.impact for 'poisson' contacts")
    D, vm, Btp = _padded_problems(system, asm, out, src, dst, n, N)
    L = out["laws"][:, :, 0]                       # (N, 3 ncont): (e_n, e_t, mu) per contact
    e_n, e_t, mu = (np.ascontiguousarray(L[:, 3 * sel + j]) for j in range(3))
    superelastic = bool((e_n > 1).any() or (e_t > 1).any())
    s = _solve_problems(asm, idx, sel, D, vm, e_n, e_t, mu, dim, N, method, tol, max_boxes,
                        superelastic)
    # u+ = u + B P, T+ in C; problems without a solution have NaN impulses (kernel
    # contract): NaN u+ and T1
    up, T1 = _contact.impact_apply(np.ascontiguousarray(Btp), s.P, U,
                                   np.ascontiguousarray(M.transpose(0, 2, 1)))
    status = _energy_status(system, asm, idx, s, T0, T1, superelastic, energy)
    return ImpactBatchResult(up, s.P, s.v_plus, vm, s.modes, status, s.n_solutions, T0, T1,
                             [asm.names[i] for i in idx], dim, s.exhaustive)


def _batch_parameters(system, params, t, N):
    """Parameters of every problem (defaults, overridden by ``params``: a scalar or an
    array (N,) per name), and the extra states and inputs at their defaults at ``t``.

    Returns
    -------
    (ndarray (np, N), ndarray (nv, N), ndarray (nw, N))
    """
    P = np.tile(np.asarray(system.p_defaults, dtype=float)[:, None], (1, N))
    for k, val in (params or {}).items():
        if k not in system.p_names:
            raise ValueError(f"params: unknown parameter {k!r} for model '{system.name}'; "
                             f"parameters: {', '.join(system.p_names) or 'none'}")
        P[system.p_names.index(k)] = val
    if system.nv or system.w_names:
        VX = np.tile(system.v_defaults[:, None], (1, N))
        Wv = np.zeros((len(system.w_names), N))
        if system.w_names:
            from ..simulate.inputs import input_values
            Wv[:] = input_values(system, None, np.atleast_1d(float(t)),
                                 system.p_defaults)[:, :1]
    else:
        VX, Wv = np.zeros((0, N)), np.zeros((0, N))
    return P, VX, Wv


def _batch_active(asm, active, gap, gap_tol, N):
    """Indices of the active contacts: ``active`` by name, or the contacts closed
    (``gap <= gap_tol``) in every state (a ValueError when the states differ)."""
    if active is None:
        closed = gap <= gap_tol
        if N and not (closed == closed[0]).all():
            i = int(np.argmax((closed != closed[0]).any(axis=1)))
            raise ValueError(f"active: the closed contacts differ between states 0 and {i} "
                             f"({[n for n, c in zip(asm.names, closed[0]) if c]} vs "
                             f"{[n for n, c in zip(asm.names, closed[i]) if c]}); pass active=")
        return _active_indices(asm, None, closed[0] if N else np.zeros(len(asm.names), bool))
    return _active_indices(asm, active, None)


def _padded_problems(system, asm, out, src, dst, n, N):
    """The contact-space problems of the active contacts in the padded layout (``dim``
    rows per contact; rows a contact lacks get a unit-scale dummy diagonal).

    Returns
    -------
    (ndarray (N, n, n), ndarray (N, n), ndarray (N, n, nu))
        Delassus matrices ``D``, pre-impact contact velocities ``v_minus`` and ``B^T``.
    """
    # D symmetric; B^T in C order is the raw buffer of out["B"]
    Df, Wu, Bt = out["D"], out["Wu"][:, :, 0], out["B"].transpose(0, 2, 1)
    if n == asm.nr and (src == dst).all() and (src == np.arange(n)).all():
        return Df, Wu, Bt                          # every contact, no padding: no copy
    D = np.zeros((N, n, n))
    D[:, dst[:, None], dst[None, :]] = Df[:, src[:, None], src[None, :]]
    if len(dst) < n:
        dummy = np.setdiff1d(np.arange(n), dst)
        d = np.mean(Df[:, src, src], axis=1)
        d = np.where(d > 0, d, 1.0)
        D[:, dummy, dummy] = d[:, None]
    vm = np.zeros((N, n))
    vm[:, dst] = Wu[:, src]
    Btp = np.zeros((N, n, system.nu))
    Btp[:, dst, :] = Bt[:, src, :]
    return D, vm, Btp


def _solve_problems(asm, idx, sel, D, vm, e_n, e_t, mu, dim, N, method, tol, max_boxes,
                    superelastic):
    """The N problems in one C call (:func:`mechdae.contact.kernels.impact_batch`); with
    closed friction cones, the reduced inelastic problems, then expanded (those contacts
    stick or separate). Returns the kernel's batch solution."""
    cl = asm.closure[sel]
    if cl.any():        # closed friction cones: reduced inelastic problems, then expand
        Dr, _, cr, K = _closure.reduce(D, vm, e_n, e_t, cl, dim, [asm.names[i] for i in idx])
        zero = np.zeros_like(e_n)
        s = kernels.impact_batch(np.ascontiguousarray(Dr), np.ascontiguousarray(cr), zero,
                                 zero, np.where(cl, 0.0, mu), dim, method=method, tol=tol,
                                 energy="report", threads=_assembly.BATCH_THREADS if N >= 256 else 1,
                                 max_boxes=max_boxes)
        s.P, s.v_plus = _closure.expand(D, vm, s.P, K)
        ok = np.isfinite(s.P).all(axis=1)
        for a in np.flatnonzero(cl):
            s.modes[ok, a] = np.where(s.P[ok, a * dim] > 0, 1, 0)   # stick / separate
    else:
        s = kernels.impact_batch(D, vm, e_n, e_t, mu, dim, method=method, tol=tol,
                                 energy="report", allow_superelastic=superelastic,
                                 threads=_assembly.BATCH_THREADS if N >= 256 else 1,
                                 max_boxes=max_boxes)
    return s


def _energy_status(system, asm, idx, s, T0, T1, superelastic, energy):
    """The status of every problem, ``"energy_gain"`` where the kinetic energy grows
    although ``e_n, e_t <= 1`` (scleronomic systems; an EnergyGainError with
    ``energy="raise"``)."""
    status = s.status.copy()
    if not superelastic:
        if not system.rheonomic:     # moving surfaces may do work: kernel check only
            gain = T1 - T0 > 1e-9 * np.maximum(T0, 1e-300) + 1e-14
            status[gain] = "energy_gain"
        if energy == "raise" and (status == "energy_gain").any():
            ii = np.flatnonzero(status == "energy_gain")
            names = ", ".join(repr(asm.names[i]) for i in idx)
            raise EnergyGainError(
                f"impact_batch: the impact law at contacts {names} would increase the "
                f"kinetic energy in problems {ii[:10].tolist()}"
                f"{'...' if len(ii) > 10 else ''} although e_n, e_t <= 1", s)
    return status
