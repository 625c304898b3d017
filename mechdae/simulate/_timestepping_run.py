"""The chunk loop of ``method="timestepping"``: C-loop calls, failures, stored output.

A run (:class:`SteppingRun`) calls the Moreau–Jean C loop (csrc/mdae_step.c, through the
driver's ``c_loop``) for one chunk of steps at a time, sums its counters, turns a failed
or interrupted chunk into a SolverError / KeyboardInterrupt that carries the Result of the
steps before it (``err.partial``), and keeps each chunk's stored steps in memory or
appends them to an HDF5 file (``out=``); with ``output_times`` only the stored steps
nearest to them. Impacts stay arrays until ``res.events`` is read (:class:`ImpactEvents`).
"""
import time as _time

import numpy as np

from .. import _progress
from ..codegen import map_call
from ..errors import SolverError
from .inputs import input_values
from .partial import attach, finite_prefix, named, reraise_swallowed, sigint_count
from .result import Event
from .smooth import postprocess

__all__ = ["SteppingRun", "ImpactEvents", "impulse_rows"]


class SteppingRun:
    """One time-stepping run, chunk by chunk.

    Parameters
    ----------
    system : System
    c_loop : callable ``(w_steps, t0c, n, cap) -> dict``, ``n`` steps of the C loop from
        ``t0c`` (inputs ``w_steps`` per step or None, at most ``cap`` impact records)
    dim : int, rows per contact of the impulses
    pv : ndarray, parameter vector
    specs : the resolved inputs
    init_report : the initialization report
    nsteps : int, steps of the run
    t0, dt, theta : float, start, step, theta of the scheme
    every : int, store every ``every``-th step
    ot : ndarray or None, output times
    writer : stream Writer or None (in memory)
    steps_per_chunk : int, steps per call of the C loop
    max_events : int, impact records of the run at most
    is_compiled : bool, generated C (True) or CasADi Function calls
    """

    def __init__(self, system, c_loop, dim, pv, specs, init_report, nsteps, t0, dt, theta,
                 every, ot, writer, steps_per_chunk, max_events, is_compiled):
        self.system, self.c_loop, self.dim, self.pv = system, c_loop, dim, pv
        self.specs, self.init_report = specs, init_report
        self.nsteps, self.t0, self.dt, self.theta, self.every = nsteps, t0, dt, theta, every
        self.ot, self.writer, self.steps_per_chunk = ot, writer, steps_per_chunk
        self.max_events, self.is_compiled = max_events, is_compiled
        self.r = system.m + system.k
        self.half = 0.5 * dt * every
        self.kept = dict(T=[], Q=[], U=[], P=[], events=[])
        self.info = dict(solver_failures=0, max_active=0, n_impacts=0, max_proj_residual=0.0,
                         work_impact=0.0, work_contact=0.0, work_friction=0.0,
                         n_contact_steps=0)
        self.loop_time = 0.0
        self.done = 0                             # steps completed
        self.last_t = None                        # time of the last point kept / written
        self.n_written = 0

    # ------------------------------------------------------------------ the loop
    def run(self):
        """Every chunk to the end; the Result (in memory, or reading the file)."""
        system, writer = self.system, self.writer
        n_int = sigint_count()
        try:
            while self.done < self.nsteps:
                self.chunk(n_int)
        except (SolverError, KeyboardInterrupt) as exc:
            # (Ctrl-C between blocks: Python's bare KeyboardInterrupt, named here)
            err = named(exc, f"{system.name}: time stepping")
            if writer is not None:
                writer.finish(self.stats_now(self.done), error=err,
                              status="interrupted" if isinstance(err, KeyboardInterrupt)
                              else "failed")
                from .stream import open_result
                attach(err, lambda: open_result(writer.path, system))
            else:
                attach(err, lambda: _assemble(self.kept, self.chunk_result, self.ot,
                                              self.half, self.done))
            if err is exc:
                raise
            raise err from exc.__cause__
        except BaseException as exc:
            if writer is not None:
                writer.finish(self.stats_now(self.done), status="failed", error=exc)
            raise
        if writer is not None:
            writer.finish(self.stats_now(self.nsteps))
            from .stream import open_result
            return open_result(writer.path, system)
        return _assemble(self.kept, self.chunk_result, self.ot, self.half, self.nsteps)

    def chunk(self, n_int):
        """One call of the C loop: its counters, its stored steps, or its failure."""
        system, t0, dt, every, done = self.system, self.t0, self.dt, self.every, self.done
        reraise_swallowed(n_int, f"{system.name}: time stepping")
        n = min(self.steps_per_chunk, self.nsteps - done)
        t0c = t0 + done * dt if done else t0
        w_steps = None
        if len(system.w_names):                         # inputs: values per step
            ts_steps = t0 + dt * (done + np.arange(n))   # as in one call
            w_steps = np.ascontiguousarray(input_values(system, self.specs, ts_steps,
                                                        self.pv).T)
        cap = max(int(self.max_events) - self.info["n_impacts"], 0)
        loop0 = _time.perf_counter()
        o = self.c_loop(w_steps, t0c, n, cap)
        self.loop_time += _time.perf_counter() - loop0
        self.count(o)
        failed = _failure(system, o, done, t0c, dt)
        if failed is not None:
            # the rows stored before the failing step (row 0: the chunk's start)
            m = 1 + min(o["step"], n) // every
            m = min(m, finite_prefix(o["q"][:m], o["u"][:m]))
            Pc = o["P"][:m] if o["P"] is not None else None
            if m:
                self.keep(_times(o["t"], t0, dt, done, n, every)[:m], o["q"][:m],
                          o["u"][:m], Pc, self.chunk_events(o, t0c, done), True)
            self.done += o["step"]
            raise failed
        self.keep(_times(o["t"], t0, dt, done, n, every), o["q"], o["u"], o["P"],
                  self.chunk_events(o, t0c, done), done + n >= self.nsteps)
        self.done += n
        _progress.advance(t0 + self.done * dt)

    def count(self, o):
        """Add a chunk's counters (failures, active contacts, impacts, work) to the run's."""
        info = self.info
        info["solver_failures"] += o["solver_failures"]
        info["max_active"] = max(info["max_active"], o["max_active"])
        info["n_impacts"] += o["n_events"]
        info["n_contact_steps"] += o["n_contact_steps"]
        info["max_proj_residual"] = max(info["max_proj_residual"], o["max_proj_residual"])
        for k in ("work_impact", "work_contact", "work_friction"):
            info[k] += o[k]

    # ------------------------------------------------------------------ output
    def stats_now(self, steps):
        """``res.stats`` after ``steps`` steps."""
        loop_time = self.loop_time
        return dict(method="timestepping", steps=steps, dt=float(self.dt),
                    theta=float(self.theta), compiled=bool(self.is_compiled),
                    loop_time=loop_time,
                    steps_per_second=steps / loop_time if loop_time > 0 else float("inf"),
                    **self.info)

    def chunk_result(self, T, Q, U, P, events, steps):
        """The Result of stored steps ``T, Q, U`` (impulses ``P``, impacts ``events``)."""
        system, r = self.system, self.r
        X = np.vstack([Q.T, U.T, np.zeros((system.nv, T.size))])
        res = postprocess(system, T, X, self.pv, self.specs, np.zeros((r, system.m)),
                          np.zeros((r, r)), self.stats_now(steps), self.init_report,
                          solve_multipliers=False,
                          events=ImpactEvents(system, self.pv, events))
        res.multipliers = {}     # the smooth-phase formula does not hold at contact
        res.impulses = P
        res.impulse_rows = impulse_rows(system, self.dim)
        return res

    def keep(self, T, Q, U, P, events, final):
        """Points of a chunk (its first row: the previous chunk's last, dropped) to memory
        or to the file; with output_times only the stored steps nearest to them."""
        ot, last_t, kept, writer = self.ot, self.last_t, self.kept, self.writer
        if self.done > 0 and last_t is not None:
            T, Q, U = T[1:], Q[1:], U[1:]
            P = P[1:] if P is not None else None
        if ot is not None and T.size:
            # nearest stored step at or after ot - dt every / 2 (as for a single call)
            tgt = ot - self.half
            sel = (tgt <= T[-1]) if last_t is None else ((tgt > last_t) & (tgt <= T[-1]))
            if final:
                sel |= tgt > T[-1]
            idx = np.unique(np.clip(np.searchsorted(T, tgt[sel]), 0, T.size - 1))
            last_T = T[-1]
            T, Q, U = T[idx], Q[idx], U[idx]
            P = P[idx] if P is not None else None
        else:
            last_T = T[-1] if T.size else last_t
        if writer is None:
            kept["T"].append(T)
            kept["Q"].append(Q)
            kept["U"].append(U)
            if P is not None:
                kept["P"].append(P)
            kept["events"].append(events)
        else:
            if T.size:
                writer.append(self.chunk_result(T, Q, U, P, [], self.done))
                self.n_written += T.size
            writer.add_events(ImpactEvents(self.system, self.pv, [events])())
        self.last_t = last_T

    def chunk_events(self, o, t0c, step0):
        """The chunk's impacts as arrays (Event objects are built when read)."""
        st = step0 + np.asarray(o["ev_step"], dtype=np.int64)
        # t0 + step dt, as one call computes it (the block's t0c + k dt differs by round-off)
        return (self.t0 + self.dt * st, np.asarray(o["ev_contact"]), np.asarray(o["ev_P"]),
                np.asarray(o["ev_x"]), st, float(self.dt))


def _failure(system, o, done, t0c, dt):
    """The exception a chunk's output ``o`` ends the run with (Ctrl-C, a model evaluation
    error, a solver status), or None."""
    failed = None
    if o.get("interrupt") is not None:      # Ctrl-C, polled between steps
        failed = KeyboardInterrupt(f"{system.name}: time stepping interrupted (Ctrl-C) "
                                   f"at step {done + o['step']} "
                                   f"(t = {t0c + o['step'] * dt:.6g})")
    for e in (o["terms_error"], o["proj_error"]):
        if e is not None and failed is None and isinstance(e, KeyboardInterrupt):
            failed = e                      # Ctrl-C in a Python-evaluated term
        elif e is not None and failed is None:
            failed = SolverError(f"{system.name}: model evaluation failed in time "
                                 f"stepping: {e}")
            failed.__cause__ = e
            break
    if failed is None and o["status"] != 0:
        failed = SolverError(f"{system.name}: time stepping stopped at step "
                             f"{done + o['step']} (t = {t0c + o['step'] * dt:.6g}): "
                             f"{o['status_str']}")
    return failed


def _times(T, t0, dt, done, n, every):
    """A block's stored times as one call of the C loop computes them,
    ``t0 + step * dt`` (its own start ``t0 + done dt`` plus ``k dt`` differs by round-off):
    row ``j`` is step ``done + min(j every, n)``."""
    if not done:
        return T
    steps = np.minimum(np.arange(T.size, dtype=np.int64) * every, n) + done
    return t0 + steps.astype(float) * dt


def _assemble(kept, chunk_result, ot, half, steps):
    """The in-memory Result of the kept chunks (``output_times``: nearest stored steps)."""
    T = np.concatenate(kept["T"]) if kept["T"] else np.zeros(0)
    Q = np.concatenate(kept["Q"]) if kept["Q"] else np.zeros((0, 0))
    U = np.concatenate(kept["U"]) if kept["U"] else np.zeros((0, 0))
    P = np.concatenate(kept["P"]) if kept["P"] else None
    if ot is not None and T.size:
        idx = np.unique(np.clip(np.searchsorted(T, ot - half), 0, T.size - 1))
        T, Q, U = T[idx], Q[idx], U[idx]
        P = P[idx] if P is not None else None
    return chunk_result(T, Q, U, P, kept["events"], steps)


class ImpactEvents:
    """The impacts of a run, kept as arrays per chunk (start of the step, contact index,
    normal impulse, states before and after, step, dt): :class:`Event` objects with their energies (one
    mapped call for all) are built when ``res.events`` is first read."""

    def __init__(self, system, pv, parts):
        self.system, self.pv = system, pv
        self.parts = [p for p in parts if p[0].size]

    def __len__(self):
        return sum(p[0].size for p in self.parts)

    def __call__(self):
        if not self.parts:
            return []
        system = self.system
        nq, nu = system.nq, system.nu
        tk = np.concatenate([p[0] for p in self.parts])      # the step's start
        who = np.concatenate([p[1] for p in self.parts])
        P = np.concatenate([p[2] for p in self.parts])
        X = np.concatenate([p[3] for p in self.parts])
        step = np.concatenate([p[4] for p in self.parts])
        dt = self.parts[0][5]
        ne = tk.size
        # before: (q_k, u_k, t_k); after: (q_k+1, u_k+1, t_k+1), side by side
        Qb = np.concatenate([X[:, :nq], X[:, nq + nu:2 * nq + nu]]).T
        Ub = np.concatenate([X[:, nq:nq + nu], X[:, 2 * nq + nu:]]).T
        tt = np.concatenate([tk, tk + dt])[None, :]
        Tk, Vp = map_call(system.functions["energy"], 2 * ne, [Qb, Ub, tt, self.pv], (3,))
        E = (Tk + Vp).ravel()
        names = system.contact_names
        return [Event(tk[i] + dt, names[who[i]], "impact", impulse=np.array([P[i]]),
                      energy_before=float(E[i]), energy_after=float(E[ne + i]),
                      step=int(step[i])) for i in range(ne)]


def impulse_rows(system, dim):
    """Names of the rows of ``res.impulses``: ``"<contact>.n"``, ``"<contact>.t<i>"``."""
    names = []
    for c in system.contacts:
        names.append(f"{c['name']}.n")
        names.extend(f"{c['name']}.t{i}" for i in range(dim - 1))
    return names
