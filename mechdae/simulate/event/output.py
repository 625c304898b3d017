r"""Result building of the event engine: the recorded samples, events and contact forces.

The engine records states at the output times and before/after each event
(``samples_t``, ``samples_x``, ``samples_mode``); the Result gets the usual
post-processing (:func:`mechdae.simulate.smooth.postprocess`), the events in time order,
the contact forces ``[lambda_n, lambda_t...]`` of the mode in force at each sample
(the mode's generated C, else :meth:`.phase.ModeSet.forces`, one cached map per mode)
and the modes. The energies ``T, V`` at the samples come from generated C as well
(:func:`energy_columns`: one C call per sample, 20 us for 500 samples instead of 90 for
CasADi's evaluation of the same instructions).
"""
import time as _time

import casadi as ca
import numpy as np

from ...codegen import library, once
from ..smooth import has_energies, postprocess
from .phase import OPEN, SLIDE_2D

__all__ = ["build_result", "contact_force_arrays", "energy_columns"]


def _groups(modes):
    """``{mode: sample indices}`` (ascending) of the recorded modes (one pass over the
    samples only when there are several modes)."""
    distinct = set(modes)
    if len(distinct) == 1:
        return {m: np.arange(len(modes)) for m in distinct}
    code = {m: i for i, m in enumerate(distinct)}
    c = np.fromiter(map(code.__getitem__, modes), np.intp, len(modes))
    return {m: np.flatnonzero(c == i) for m, i in code.items()}


def contact_force_arrays(engine, X_all=None, t_all=None, groups=None):
    """Contact forces ``[lambda_n, lambda_t...]`` per contact at every recorded sample
    (``X_all``: the samples' states as rows, ``t_all`` their times, ``groups`` the
    samples of each mode, when already at hand)."""
    eng = engine
    N = len(eng.samples_t)
    out = {n: np.zeros((N, 1 + nt)) for n, nt in zip(eng.names, eng.nt)}
    groups = _groups(eng.samples_mode) if groups is None else groups
    if all(m is not None and all(mo == OPEN for mo in m) for m in groups):
        return out                               # no contact closed anywhere: zero forces
    log = eng.dref_log
    starts = np.array([k for k, _ in log], int)
    # the reference directions (spatial sliding) in force at each sample: log entry seg[k]
    seg = (np.searchsorted(starts, np.arange(N), side="right") - 1 if starts.size
           else np.full(N, -1))
    by_mode = {}
    for m, ks in groups.items():
        if m is not None and SLIDE_2D in m and starts.size:
            for j in np.unique(seg[ks]):
                by_mode[(m, int(j))] = ks[seg[ks] == j]
        else:
            by_mode[(m, -1)] = ks
    X_all = _rows(eng.samples_x, N, eng.system) if X_all is None else X_all
    t_all = np.asarray(eng.samples_t, float) if t_all is None else t_all
    for (m, j), ks in by_mode.items():
        if m is None:
            for n in eng.names:
                out[n][ks] = np.nan
            continue
        if all(mo == OPEN for mo in m):
            continue                             # no contact closed: zero forces
        P0 = eng.P(0.0, 0.0)
        if eng.nc:
            # spatial sliding: the reference directions in force at these samples
            P0[-2 * eng.nc:] = log[j][1] if j >= 0 else 0.0
        ph = eng.phase(m)
        if ph is not None:           # generated C, one call per sample
            lam = ph[3].columns(X_all[ks].T, t_all[ks], P0)
        else:
            lam = eng.modeset(m).forces(X_all[ks].T, t_all[ks], P0)
        for i, n in enumerate(eng.names):
            o = eng.offs[i]
            out[n][ks] = lam[o:o + 1 + eng.nt[i]].T
    return out


def _rows(xs, N, system):
    """The ``N`` recorded states ``x = (q, u, v)`` as the rows of one array: ``xs``
    holds 1-D states or 2-D blocks of states as rows (one concatenation; ``np.array`` of
    a list of 500 small arrays costs 1.5x as much, and an engine that records a phase's
    samples as one block saves the per-row cost on both sides)."""
    nx = system.nq + system.nu + system.nv
    try:
        flat = np.concatenate(xs)
    except ValueError:                         # rows and blocks mixed
        flat = np.concatenate([np.reshape(x, (-1, nx)) for x in xs])
    if flat.size != N * nx:
        raise ValueError(f"event engine: {flat.size} recorded values for {N} sample times "
                         f"of {nx} states")
    return flat.astype(float, copy=False).reshape(N, nx)


def _energy_library(system):
    """``(lib, (CFunction, address, sizes, in_sizes, out_shapes))`` of
    ``energy_tv(x, t, p) -> (T, V)`` as generated C (cached on the System), ``(None,
    None)`` without a compiler or an energy."""
    def build():
        f = system.functions["energy"]
        if not has_energies(system):
            return None, None
        sym = ca.SX.sym if f.is_a("SXFunction") else ca.MX.sym
        nq, nu = system.nq, system.nu
        x, t, p = sym("x", nq + nu + system.nv), sym("t"), sym("p", f.nnz_in(3))
        T, V = f(x[:nq], x[nq:nq + nu], t, p)
        fe = ca.Function("energy_tv", [x, t, p], [ca.densify(ca.vertcat(T, V))])
        lib = library([fe], compiled="auto", what=f"the energies of {system.name}")
        if lib is None:
            return None, None
        from .. import _ode
        addr, sizes, _, _ = lib.symbol("energy_tv")
        return lib, (_ode.CFunction, addr, sizes, [x.numel(), 1, p.numel()], [(2, 1)])
    return once(system._integrators, "event-energy-c", build)


def energy_columns(system, XT, ts, pv):
    """Kinetic and potential energy at the samples (``XT``: states as rows, ``ts``: times)
    through generated C, or None (no compiler, no energy: the caller evaluates the
    Function)."""
    lib, sig = _energy_library(system)
    if lib is None:
        return None
    E = sig[0](*sig[1:], keep=lib).columns(XT.T, ts, np.asarray(pv, float))
    return np.ascontiguousarray(E[0]), np.ascontiguousarray(E[1])


def build_result(engine, system, specs, pv, H, K, stats, init_report, wall0):
    """Result from an engine's samples (events included, contact forces attached)."""
    ts = np.fromiter(engine.samples_t, float, len(engine.samples_t))
    XT = _rows(engine.samples_x, ts.size, system)
    X = XT.T
    groups = _groups(engine.samples_mode)
    stats = dict(stats)
    stats.update(n_windows=engine.n_windows, n_shoots=engine.n_shoots,
                 n_rk_phases=engine.n_rk, n_rk_steps=engine.n_steps,
                 n_c_impacts=engine.n_c_impacts,
                 modes=sorted(m for m in groups if m is not None))
    res = postprocess(system, ts, X, pv, specs, H, K, stats, init_report,
                      events=sorted(engine.events, key=lambda e: e.t),
                      energies=energy_columns(system, XT, ts, pv))
    res.contact_forces = contact_force_arrays(engine, XT, ts, groups)
    res.modes = list(engine.samples_mode)
    res.stats["wall_time"] = _time.perf_counter() - wall0
    return res
