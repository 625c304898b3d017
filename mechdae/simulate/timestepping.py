r"""Moreau–Jean time stepping (``method="timestepping"``).

A fixed step ``dt``; per step one evaluation of the model terms and one velocity-level
impulse problem; the loop runs in C (csrc/mdae_step.c) on CasADi-generated C compiled at
run time, or on CasADi Function objects when no C compiler is available.

The scheme, from ``(q_k, u_k, t_k)`` (theta in [0.5, 1]):

.. math::

    \hat W (u_{k+1} - u_k) = \Delta t\, h(q_k, u_k, t_k) + G^T \Lambda + W_I^T P,
    \qquad \hat W = M - \theta \Delta t\, \partial_u h
                      - \theta^2 \Delta t^2\, \partial_q h\, N,

    C u_{k+1} + c_z = 0 \quad (\text{bilateral: } C = [G; A],\ c_z = [\phi_t; b]),

    I = \{a : g_a(q_k, t_k) + \gamma \Delta t\, v_{n,a}(u_k) \le 0\}
    \quad (\gamma = 1/2, \text{ the index-set rule of Siconos}),

    0 \le P_{n,a} \perp v_{n,a}(u_{k+1}) + e_{n,a} v_{n,a}(u_k) \ge 0, \quad
    \text{Coulomb on } v_{t,a}(u_{k+1}) + e_{t,a} v_{t,a}(u_k), \quad a \in I,

    q_{k+1} = q_k + \Delta t\, N(q_k) \big(\theta u_{k+1} + (1 - \theta) u_k\big).

with the relative contact velocities ``v_{n,a}(u_k) = W u_k + w`` and
``v(u_{k+1}) = W u_{k+1} + w + \Delta t\, \partial_t w`` (``W, w`` at ``(q_k, t_k)``; ``w``:
moving surfaces, ``System.Wt``, so the target is the surface velocity at ``t_{k+1}`` to
``O(dt^2)``; zero and skipped for scleronomic contacts).

The one-step problem is solved in contact space with the Delassus matrix
``D = W_I \hat W_C^{-1} W_I^T`` (``\hat W_C^{-1}``: inverse restricted to ``C u = 0``):
frictionless contacts by the closed form (one contact) or Lemke; friction by the exact
local solver (one contact), the exact planar LCP (several planar contacts) or nonsmooth
Gauss–Seidel (several spatial contacts), all from mechdae's C kernels.

Position drift: quaternions are renormalized every step; with ``projection="bilateral"``
(default) ``q_{k+1}`` is moved by Gauss–Newton steps ``dq = -J^T (J J^T)^{-1} r`` onto
``phi(q) = 0``; ``projection="gaps"`` also puts active contacts with a negative gap back on
``g = 0`` (the unilateral constraints are otherwise satisfied at velocity level only, with
an ``O(dt)`` penetration, as in Siconos); ``"none"`` leaves the drift.
"""
import time as _time

import casadi as ca
import numpy as np

from .._threads import LOCK as _LOCK
from ..codegen import once
from ._laws import contact_laws
from ._timestepping_run import SteppingRun
from .init import initial_state
from .inputs import resolve_inputs
from .partial import counting_sigints

__all__ = ["simulate_timestepping", "step_functions"]

_PROJ = {"none": 0, "bilateral": 1, "gaps": 2}


# ---------------------------------------------------------------------- model functions
def step_functions(system):
    """The CasADi Functions the stepping loop evaluates (built once per System).

    Returns
    -------
    dict
        ``terms(q, u, t, p, w) -> (M, h, Ku, Kq, W, gap, C, cz, N, V[, wt, wtd])`` with
        ``Ku = dh/du``, ``Kq = dh/dq N``, ``W`` padded to ``dim`` rows per contact, ``wt``
        (rheonomic systems only) the padded speed-free part of the contact velocities
        ``W u + wt`` and ``wtd = d wt/dt``, every output dense;
        ``proj(q, t, p) -> (phi, Gq, gap, Gg)``; ``dim``; ``sizes``.
    """
    cache = system.__dict__.setdefault("_timestepping", {})
    if "functions" in cache:
        return cache["functions"]
    with _LOCK:
        if "functions" not in cache:
            cache["functions"] = _step_functions(system)
    return cache["functions"]


def _step_functions(system):
    d = system._d
    if system.nv + system.nz:
        raise ValueError(f"{system.name}: method 'timestepping' does not handle extra "
                         f"variables ({', '.join(system.v_names + system.z_names)}) of "
                         "m.equation(); use method='event' or 'smooth'")
    q, u, t, p, w = d.q, d.u, d.t, d.p, d.w
    nu = system.nu
    v0, z0 = ca.SX(0, 1), ca.SX(0, 1)
    h = ca.substitute(d.h, ca.vertcat(d.v, d.z), ca.vertcat(v0, z0)) if (d.v.numel()
                                                                        + d.z.numel()) else d.h
    ntan = [c["n_tangent"] for c in system.contacts]
    dim = 1 + max(ntan) if ntan else 1
    rows, wrows, o = [], [], 0
    for nt in ntan:
        rows.append(d.W[o:o + 1 + nt, :])
        wrows.append(d.Wt[o:o + 1 + nt])
        if 1 + nt < dim:
            rows.append(ca.SX.zeros(dim - 1 - nt, nu))
            wrows.append(ca.SX.zeros(dim - 1 - nt, 1))
        o += 1 + nt
    Wp = ca.vertcat(*rows) if rows else ca.SX(0, nu)
    Ku = ca.jacobian(h, u)
    Kq = ca.mtimes(ca.jacobian(h, q), d.N)
    cz = ca.vertcat(d.phi_t, d.b) if system.m + system.k else ca.SX(0, 1)
    V = d.V if d.V.numel() else ca.SX(1, 1)
    dn = ca.densify
    outs = [dn(d.M), dn(h), dn(Ku), dn(Kq), dn(Wp), dn(d.gap), dn(d.C), dn(cz), dn(d.N), dn(V)]
    if system.rheonomic:
        # moving surfaces: the relative contact velocities are W u + wt (scleronomic
        # systems keep the 10 outputs, and the C loop skips the term); its time derivative
        # gives the target velocity at the end of the step
        wt = ca.vertcat(*wrows)
        outs += [dn(wt), dn(ca.jacobian(wt, t))]
    terms = ca.Function("terms", [q, u, t, p, w], outs)
    gap = d.gap if d.gap.numel() else ca.SX(0, 1)
    proj = ca.Function("proj", [q, t, p],
                       [dn(d.phi), dn(d.Gq), dn(gap), dn(ca.jacobian(gap, q))])
    sizes = dict(nq=system.nq, nu=nu, np=len(system.p_names), nw=len(system.w_names),
                 nc=len(system.contact_names), dim=dim, r=system.m + system.k, m=system.m,
                 rheonomic=bool(system.rheonomic))
    return dict(terms=terms, proj=proj, dim=dim, sizes=sizes)


class _PyFunction:
    """Fallback evaluator: a CasADi Function called from the C loop through Python."""

    def __init__(self, f):
        self.f = f
        self.in_sizes = [f.numel_in(i) for i in range(f.n_in())]
        self.out_sizes = [f.numel_out(i) for i in range(f.n_out())]
        self.error = None

    def __call__(self, *args):
        outs = self.f.call([ca.DM(a) for a in args])
        return [np.array(o, dtype=float).ravel(order="F") for o in outs]


def _evaluators(system, compiled="auto"):
    """``(terms, proj, compiled_flag)`` evaluators for the C loop.

    The compiled library and its symbol addresses are looked up once per System (under
    a lock); the evaluators themselves are new for every call: each holds the work
    arrays of the generated code (and the fallback its error slot), so runs in several
    threads do not share them."""
    from . import _step
    cache = system.__dict__.setdefault("_timestepping", {})
    fs = step_functions(system)
    # keyed by the option itself: after an "auto" run fell back to Python (no compiler, or
    # a source past the size limit), compiled=True must still compile or say why not
    key = compiled if compiled in ("auto", True, False) else bool(compiled)
    spec = once(cache, ("eval", key), lambda: _evaluator_spec(system, fs, compiled))
    if spec[0] == "compiled":
        lib, specs = spec[1], spec[2]
        evs = [_step._Evaluator(address=addr, sizes=sizes, n_in=n_in, n_out=n_out, keep=lib)
               for addr, sizes, n_in, n_out in specs]
        return evs[0], evs[1], True
    return (_step._Evaluator(py=_PyFunction(fs["terms"])),
            _step._Evaluator(py=_PyFunction(fs["proj"])), False)


def _evaluator_spec(system, fs, compiled):
    """``("compiled", lib, [(address, sizes, n_in, n_out)] for terms, proj)`` or
    ``("python",)`` when no compiler works (:mod:`mechdae.codegen` warns once) or
    ``compiled`` is False."""
    from ..codegen import library
    lib = library([fs["terms"], fs["proj"]], compiled=compiled,
                  what=f"time stepping of '{system.name}'")
    if lib is None:
        return ("python",)
    return ("compiled", lib.cdll, [lib.symbol(n) for n in ("terms", "proj")])


#: steps per call of the C loop when only the steps nearest to ``output_times`` are kept
#: (the rest of a block is dropped after it): memory ~ one block, not the whole run
BLOCK_STEPS = 200_000



def _check_options(system, method, ignored, theta, dt, projection):
    """Refuse options a time-stepping run cannot take (ValueError), before any work."""
    from . import check_options
    # a direct call (auto's stretches, with timestepping_options) is checked here too;
    # rtol, atol, stabilization (common to every method) have no use in a fixed step
    check_options(method, ignored)
    if "painleve" in ignored:
        raise ValueError(
            f"{system.name}: method 'timestepping' has no painleve rule: each Moreau-Jean "
            "step solves a velocity-level impulse problem, which always has a solution "
            "(Anitescu & Potra 1997), so a Painlevé configuration (sliding with U <= 0) is "
            "passed by impulses within a step — the impact without collision where no "
            "contact force exists, whichever solution the solver reaches where several do — "
            "and is not reported; use method='event' or 'unified' to see and choose it")
    if not (0.5 <= theta <= 1.0):
        raise ValueError(f"theta must be in [0.5, 1], got {theta}")
    if not dt > 0:
        raise ValueError(f"dt must be > 0, got {dt}")
    if projection not in _PROJ:
        raise ValueError(f"projection must be one of {sorted(_PROJ)}, got {projection!r}")


def _chunking(out, chunk, nsteps, every, ot):
    """``(writer, steps_per_chunk)``: the file a run streams to (or None) and the steps
    of one call of the C loop (a multiple of ``every``)."""
    from .. import _progress
    writer = None
    if out is not None:
        from .stream import Writer, DEFAULT_CHUNK
        per = int(chunk or DEFAULT_CHUNK)
        if per < 1:
            raise ValueError(f"chunk must be >= 1 output point, got {chunk}")
        steps_per_chunk = per * every        # a multiple of every: the same stored steps
        writer = Writer(out)
    elif _progress.shown():
        steps_per_chunk = max(nsteps // 100, 2000) * every  # a bar on screen: <= 100 calls
    elif ot is not None:
        # only the steps nearest to output_times are kept: run in blocks, so that memory
        # holds one block (not every step: +155 MB for 2e6 steps of the ball before)
        steps_per_chunk = max(1, BLOCK_STEPS // every) * every
    else:
        steps_per_chunk = nsteps             # one call of the C loop
    return writer, steps_per_chunk


# ---------------------------------------------------------------------- driver
# ---------------------------------------------------------------------- driver
@counting_sigints
def simulate_timestepping(system, t_final, q0=None, v0=None, params=None, inputs=None,
                          method="timestepping", dt=1e-3, theta=0.5, gamma=0.5,
                          projection="bilateral", every=1, output_times=None,
                          initialize=True, store_impulses=False, compiled="auto",
                          impact_ratio=2.0, nsgs_tol=1e-10, nsgs_iter=1000, lcp_friction=True,
                          proj_iter=5, proj_tol=1e-12, max_events=100000, t0=0.0,
                          out=None, chunk=None, **ignored):
    r"""Moreau–Jean time stepping; see the module docstring for the scheme.

    Parameters
    ----------
    system : System
    t_final : float
        End time (s); ``round((t_final - t0) / dt)`` steps are taken.
    q0, v0, params, inputs : as in :meth:`System.simulate`
    dt : float
        Step (s).
    theta : float in [0.5, 1]
        0.5: trapezoidal, energy-conserving for linear forces; 1: backward Euler.
    gamma : float
        Index-set look-ahead: contact ``a`` is in the step problem when
        ``g_a + gamma dt v_n,a <= 0``.
    projection : {"bilateral", "gaps", "none"}
        Position drift treatment (module docstring).
    every : int
        Store every ``every``-th step (and the last).
    output_times : array, optional
        Keep only the stored steps nearest to these times.
    initialize : bool
        Project the initial state onto the bilateral constraints, and a start inside a
        contact (gap < 0) onto the admissible set (:mod:`mechdae.simulate.init_contacts`;
        ``False``: such a start is a ValueError).
    store_impulses : bool
        Keep the impulses per stored step (summed since the previous stored step) in
        ``res.impulses`` (rows named ``res.impulse_rows``).
    compiled : "auto", True or False
        Generated C (compiled once per model and cached in ``~/.cache/mechdae``); "auto"
        falls back to CasADi Function calls with a warning when no compiler works.
    impact_ratio : float
        A step records an ``"impact"`` event for contact ``a`` when ``w_n^T u_k < 0`` and
        ``P_n > impact_ratio * P_smooth``, ``P_smooth`` being the impulse that would only
        hold the contact against the free acceleration over the step.
    out : str, optional
        HDF5 file to stream the run to (:mod:`mechdae.simulate.stream`): the C loop runs
        ``chunk`` stored points (default 100,000) at a time, each chunk is appended to
        the file and dropped; the Result returned reads the file lazily.

    Returns
    -------
    Result
        ``res.stats["steps"]``, ``"dt"``, ``"compiled"``, ``"solver_failures"``,
        ``"max_active"``, ``"steps_per_second"``, ``"work_impact"``, ``"work_contact"``,
        ``"work_friction"`` (work of the impulses of impact steps, normal and tangential,
        as the event method books an impact's whole velocity jump; of the normal impulses
        of the other steps; of their tangential impulses: ``sum P . W (u_k + u_k+1) / 2``,
        the energy ledger's terms); ``"n_impacts"`` and ``"n_contact_steps"`` (the steps
        where a closed contact carries a normal impulse that is no impact), side by side;
        ``res.events`` (kind ``"impact"``: a step whose normal impulse stops an approach,
        not one that holds a closed contact).

    Raises
    ------
    ValueError
        Bad options, or a model with extra variables; ``painleve=`` (Painlevé cases are
        passed by the step's impulses, not detected: methods "event", "unified").
    SolverError
        Non-finite state or a singular iteration matrix; ``err.partial`` is the Result of
        the steps stored before the failure.
    """
    from . import _step
    wall0 = _time.perf_counter()
    _check_options(system, method, ignored, theta, dt, projection)
    fs = step_functions(system)
    sizes = fs["sizes"]
    nsteps = int(round((float(t_final) - t0) / dt))
    if nsteps < 1:
        raise ValueError(f"t_final={t_final} gives no step of dt={dt}")
    pv = system.param_vector(params)
    specs = resolve_inputs(system, inputs)
    qa, ua, va, init_report = initial_state(system, q0, v0, t0, pv, initialize)
    e_n, e_t, mu = contact_laws(system, pv)
    mu = np.where([c["n_tangent"] > 0 for c in system.contacts], mu, 0.0) if mu.size else mu
    quat = np.array([i for qi in system.quaternions for i in qi], dtype=np.intc)
    nw = sizes["nw"]
    w_const = np.zeros(max(nw, 0))
    terms, proj, is_compiled = _evaluators(system, compiled)
    use_proj = proj if (projection != "none" and (system.m or projection == "gaps")) else None
    opts = dict(dt=float(dt), theta=float(theta), gamma=float(gamma),
                projection=_PROJ[projection], proj_iter=int(proj_iter),
                proj_tol=float(proj_tol), every=max(1, int(every)),
                impact_ratio=float(impact_ratio), nsgs_iter=int(nsgs_iter),
                nsgs_tol=float(nsgs_tol), lcp_friction=int(bool(lcp_friction)))
    every = opts["every"]
    q = np.ascontiguousarray(qa, float).copy()
    u = np.ascontiguousarray(ua, float).copy()
    ot = None if output_times is None else np.asarray(output_times, float).ravel()
    writer, steps_per_chunk = _chunking(out, chunk, nsteps, every, ot)

    def c_loop(w_steps, t0c, n, cap):
        """``n`` steps of the C loop from ``t0c`` (``q``, ``u`` advanced in place)."""
        return _step.run(terms, use_proj, sizes, e_n, e_t, mu, quat,
                         np.ascontiguousarray(pv, float), w_const, w_steps, float(t0c), n, q,
                         u, opts, bool(store_impulses), cap)

    run = SteppingRun(system, c_loop, fs["dim"], pv, specs, init_report, nsteps, t0, dt,
                      theta, every, ot, writer, steps_per_chunk, max_events, is_compiled)
    res = run.run()
    res.stats["wall_time"] = _time.perf_counter() - wall0
    return res


def _register():
    from . import register_method
    # painleve: read from **ignored, to refuse it with the reason
    register_method("timestepping", simulate_timestepping, options={"painleve"})
    register_method("moreau", simulate_timestepping, options={"painleve"})


_register()
