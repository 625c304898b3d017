"""Hybrid trajectory optimization through a fixed sequence of contact modes.

The user gives the phases, e.g. ``[{"stance": ["B"]}, {"impact": ["D"]}, {"stance": ["D"]}]``
(``"flight"`` is ``{"stance": []}``; a dict maps a contact to its mode, ``{"stance": {"B":
"slide+"}}``; a phase may carry ``"N"`` intervals and a duration ``"T"``, a number or
``"free"``, the default).  Each smooth phase ``i`` is transcribed by direct multiple
shooting (RK4, piecewise-constant controls) on its own grid ``h_i = T_i / N_i`` with the
dynamics of :func:`mechdae.export.contact.phase_dynamics` (its closed contacts held closed,
Baumgarte-stabilized), and

- path constraints at its nodes: normal forces ``lambda_n >= 0``, the friction cone
  ``|lambda_t| <= mu lambda_n`` for sticking contacts, ``s v_t >= 0`` for sliding ones, and
  gaps ``g >= 0`` of its open contacts (no penetration inside a flight);
- at its first node, for contacts closing without an impact (and every closed contact of
  the first phase unless :meth:`HybridOCP.periodic` closes the cycle): ``g = 0``,
  ``v_n = 0`` (and ``v_t = 0`` when sticking);
- an impact phase between smooth phases (or at the end): the striking contacts' gaps
  vanish at the end of the phase before (the guard) with ``v_n <= 0``; the next state is the
  exact image of the pre-impact one through :func:`~mechdae.export.contact.impact_map`
  (contacts closed on both sides take part plastically); impulses ``P_n >= 0`` (and in the
  cone); contacts that were closed and open afterwards separate (``v_n+ >= 0``).

``ocp.T`` is the total duration ``sum T_i`` (fixed by ``t_final`` or free), ``ocp.durations``
the phase durations.  The node states ``ocp.x`` run through all phases (an end node and the
next phase's start node at each boundary; one more node after a final impact).
"""
import numbers
import time as _time

import casadi as ca
import numpy as np

from ._ocp_base import OCPBase
from .contact import phase_dynamics, guard_function, contact_modes, row_index, numeric_mu
from ._hybrid_constraints import PhaseConstraints
from .contact_solution import HybridSolution

__all__ = ["HybridOCP", "parse_phases"]


def parse_phases(system, phases, N, params=None):
    """Validated phase list: dicts with ``kind`` ("smooth" | "impact"), ``modes``
    (contact -> mode), ``label``, and for smooth phases ``N``, ``T``."""
    if isinstance(phases, (str, dict)) or not phases:
        raise ValueError("ocp: phases must be a non-empty list such as "
                         "[{'stance': ['B']}, {'impact': ['D']}]")
    out = []
    for k, ph in enumerate(phases):
        if ph == "flight":
            ph = {"stance": []}
        if not isinstance(ph, dict):
            raise ValueError(f"ocp: phase {k}: expected a dict such as {{'stance': ['B']}}, "
                             f"{{'impact': ['D']}} or 'flight', got {ph!r}")
        kinds = [key for key in ("stance", "flight", "impact") if key in ph]
        extra = set(ph) - {"stance", "flight", "impact", "N", "T"}
        if len(kinds) != 1 or extra:
            raise ValueError(f"ocp: phase {k}: give exactly one of 'stance', 'flight', 'impact' "
                             f"(and optionally 'N', 'T'); got keys {sorted(ph)}")
        kind = kinds[0]
        where = f"phase {k} ({kind})"
        if kind == "impact":
            if "N" in ph or "T" in ph:
                raise ValueError(f"ocp: {where}: an impact is instantaneous (no 'N' or 'T')")
            modes = contact_modes(system, ph["impact"], where, params)
            if not modes:
                raise ValueError(f"ocp: {where}: name the contacts that strike")
            if not out or out[-1]["kind"] == "impact":
                raise ValueError(f"ocp: {where}: an impact must follow a smooth phase "
                                 "(stance or flight)")
            out.append(dict(kind="impact", modes=modes, index=k,
                            label="impact " + ", ".join(modes)))
            continue
        modes = contact_modes(system, ph[kind] if kind == "stance" else [], where, params)
        Ni = ph.get("N", N)
        if isinstance(Ni, bool) or not isinstance(Ni, numbers.Integral) or Ni < 1:
            raise ValueError(f"ocp: {where}: N (number of intervals) must be an integer >= 1, "
                             f"got {Ni!r}")
        label = ("stance " + ", ".join(modes)) if modes else "flight"
        out.append(dict(kind="smooth", modes=modes, index=k, N=int(Ni), T=ph.get("T", "free"),
                        label=label))
    return out


class HybridOCP(PhaseConstraints, OCPBase):
    """Optimal control through a fixed contact-mode sequence (see module doc).

    Built by ``system.ocp(phases=[...], ...)``.  Same conditions, bounds, costs and solve as
    :class:`~mechdae.export.OCP`, plus :meth:`periodic` and per-phase durations.

    Parameters
    ----------
    system : System
    phases : list
        Phase specifications (module doc).
    N : int
        Default number of intervals per smooth phase.
    t_final : float or "free"
        Total duration (sum of the phases').
    controls, params, inputs : as for :class:`~mechdae.export.OCP`
    substeps : int
        RK4 steps per interval.
    stabilization : (alpha, beta)
        Baumgarte gains of the closed contacts in the phase dynamics.

    Attributes
    ----------
    functions : dict of casadi.Function
        ``"phase k"`` dynamics, ``"impact k"`` maps, ``"guards"`` (see
        :mod:`mechdae.export.contact`) -- to build your own OCP with them.
    durations : list of MX
        Phase durations (smooth phases, in order).
    """

    def __init__(self, system, phases, N=20, t_final="free", controls=None, params=None,
                 inputs=None, substeps=1, stabilization=(10.0, 10.0), **unused):
        if unused:
            raise ValueError(f"ocp with phases: unsupported option(s) {sorted(unused)}; the "
                             "phases are transcribed by multiple shooting with RK4 "
                             "(options: N, t_final, controls, params, inputs, substeps, "
                             "stabilization)")
        if not system.contact_names:
            raise ValueError(f"ocp: model '{system.name}' has no contacts; phases= needs "
                             "contacts (declare them with m.contact)")
        if isinstance(substeps, bool) or not isinstance(substeps, numbers.Integral) or substeps < 1:
            raise ValueError(f"ocp: substeps must be an integer >= 1, got {substeps!r}")
        self._setup_common(system, controls, inputs)
        self.control = "constant"
        self.substeps = int(substeps)
        self.phases = parse_phases(system, phases, N, params)
        self.smooth = [ph for ph in self.phases if ph["kind"] == "smooth"]
        self._rows = row_index(system)
        self._mu = numeric_mu(system, params)
        opti = ca.Opti()
        self.opti = opti
        self._P = opti.parameter(len(system.p_names))
        self.params = dict(params or {})
        opti.set_value(self._P, system.param_vector(self.params))
        total_free, T_total, T_total_guess = self._horizon(t_final, "t_final")
        self.free_time = total_free
        self._layout()
        self.durations, self._dur_guess = [], []
        for ph in self.smooth:
            free, Ti, Tg = self._horizon(ph["T"], f"T of phase {ph['index']}")
            if free:
                self._subject(Ti >= 0, f"duration of phase {ph['index']} ({ph['label']}) >= 0")
                Tg = T_total_guess / len(self.smooth)
            ph["T_mx"] = Ti
            self.durations.append(Ti)
            self._dur_guess.append([free, Tg])
        self.T = sum(self.durations[1:], self.durations[0])
        if not total_free:
            self._subject(self.T == T_total, "total duration == t_final")
        self._T_guess = None
        self.x = opti.variable(self.nx, self._n_nodes)
        self.c = opti.variable(self.nc, self._n_intervals)
        self.functions = {"guards": guard_function(system)}
        self._guards = self.functions["guards"]
        self._start_invariants = []
        self._periodic = False
        self._invariants_added = False
        self._transcribe(stabilization)

    # ------------------------------------------------------------------ layout
    def _layout(self):
        """Node columns and interval columns of each phase."""
        col, icol = 0, 0
        for k, ph in enumerate(self.phases):
            if ph["kind"] == "smooth":
                ph["col"], ph["icol"] = col, icol
                col += ph["N"] + 1
                icol += ph["N"]
            else:
                ph["col"] = col - 1                 # the pre-impact node
                if k == len(self.phases) - 1:
                    col += 1                        # the post-impact node at the end
        self._n_nodes, self._n_intervals = col, icol

    @property
    def t(self):
        """Node times (1 x n_nodes MX)."""
        parts, t0 = [], 0
        for ph in self.phases:
            if ph["kind"] == "smooth":
                parts.append(t0 + ph["T_mx"] / ph["N"] * ca.DM(np.arange(ph["N"] + 1)).T)
                t0 = t0 + ph["T_mx"]
        if self.phases[-1]["kind"] == "impact":
            parts.append(t0)
        return ca.horzcat(*parts)

    def _phase_starts(self):
        out, t0 = [], 0
        for ph in self.smooth:
            out.append(t0)
            t0 = t0 + ph["T_mx"]
        return out

    def _node_controls(self):
        cols = []
        for ph in self.phases:
            if ph["kind"] == "smooth":
                i0 = ph["icol"]
                idx = list(range(i0, i0 + ph["N"])) + [i0 + ph["N"] - 1]
                cols.extend(idx)
        if self.phases[-1]["kind"] == "impact":
            cols.append(cols[-1])
        return self.c[:, cols] if self.nc else ca.MX(0, len(cols))

    # ------------------------------------------------------------------ transcription
    def _step_fun(self, f, L=None):
        """``Phi(x0, c, t0, h, p) -> (xf, int L)``: ``substeps`` RK4 steps."""
        x0, c = ca.MX.sym("x0", self.nx), ca.MX.sym("c", self.nc)
        t0, h = ca.MX.sym("t0"), ca.MX.sym("h")
        p = ca.MX.sym("p", len(self.system.p_names))

        def rhs(x, t):
            return f(x, t, p, self._w_fun(c, t))[0]

        M = self.substeps
        dt = h / M
        x, q = x0, 0
        for j in range(M):
            ta, tb, tc = t0 + j * dt, t0 + (j + 0.5) * dt, t0 + (j + 1) * dt
            k1 = rhs(x, ta)
            k2 = rhs(x + dt / 2 * k1, tb)
            k3 = rhs(x + dt / 2 * k2, tb)
            k4 = rhs(x + dt * k3, tc)
            if L is not None:
                q = q + dt / 6 * (L(x, c, ta, p) + 2 * L(x + dt / 2 * k1, c, tb, p)
                                  + 2 * L(x + dt / 2 * k2, c, tb, p) + L(x + dt * k3, c, tc, p))
            x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return ca.Function("Phi", [x0, c, t0, h, p], [x, q if L is not None else ca.MX(0)])

    def _phase_cols(self, ph):
        X = self.x[:, ph["col"]:ph["col"] + ph["N"] + 1]
        C = self.c[:, ph["icol"]:ph["icol"] + ph["N"]] if self.nc else ca.MX(0, ph["N"])
        return X, C

    def _tk(self, ph, t0):
        return t0 + ph["T_mx"] / ph["N"] * ca.DM(np.arange(ph["N"])).T

    def _qu(self, col):
        x = self.x[:, col]
        return x[:self.nq], x[self.nq:self.nq + self.nu]

    def _transcribe(self, stabilization):
        s = self.system
        P = self._P
        starts = self._phase_starts()
        si = 0
        for k, ph in enumerate(self.phases):
            if ph["kind"] != "smooth":
                continue
            f = phase_dynamics(s, ph["modes"], stabilization, name=f"phase_{ph['index']}")
            self.functions[f"phase {ph['index']}"] = f
            ph["f"] = f
            X, C = self._phase_cols(ph)
            Ni, t0 = ph["N"], starts[si]
            h = ph["T_mx"] / Ni
            Phi = self._step_fun(f).map(Ni)
            xf, _ = Phi(X[:, :-1], C, self._tk(ph, t0), ca.repmat(h, 1, Ni), ca.repmat(P, 1, Ni))
            self._subject(ca.vec(X[:, 1:] - xf) == 0,
                          f"phase {ph['index']} ({ph['label']}): shooting continuity")
            tn = t0 + h * ca.DM(np.arange(Ni + 1)).T
            Cn = ca.horzcat(C, C[:, -1]) if self.nc else ca.MX(0, Ni + 1)
            self._path_constraints(ph, X, Cn, tn)
            prev = self.phases[k - 1] if k else None
            if prev is None:
                self._start_invariants.append((ph, list(ph["modes"]), t0))
            elif prev["kind"] == "smooth":
                self._subject(self.x[:, ph["col"]] == self.x[:, prev["col"] + prev["N"]],
                              f"continuity at the start of phase {ph['index']}")
                new = [n for n in ph["modes"] if n not in prev["modes"]]
                self._invariants(ph, new, t0)
            si += 1
        for k, ph in enumerate(self.phases):
            if ph["kind"] == "impact":
                nxt = self.phases[k + 1] if k + 1 < len(self.phases) else None
                self._impact(ph, self.phases[k - 1], nxt, starts)

    # ------------------------------------------------------------------ periodicity
    def periodic(self, swap=(), offset=None, free=()):
        """Close a gait cycle: the state after the last phase, relabelled, equals the first.

        ``x_end[pi(i)] - x_start[i] = offset_i`` for every state ``i`` not in ``free``,
        where ``pi`` swaps the coordinate pairs in ``swap`` (their speeds too).  The first
        phase's closing conditions are then implied (the relabelled post-impact state
        satisfies them) and are not imposed twice.

        Parameters
        ----------
        swap : list of (name, name)
            Coordinates exchanged by the relabelling (legs ``("th1", "th2")``).
        offset : dict, optional
            ``{name: value}`` advance of a coordinate over one cycle (a step length).
        free : iterable of str
            Coordinates / speeds left out (e.g. a horizontal position).
        """
        names = self._state_names()
        perm = list(range(self.nx))
        for a, b in swap:
            ia, ib = self._qi(a), self._qi(b)
            perm[ia], perm[ib] = ib, ia
            ja, jb = self._speed_of(a), self._speed_of(b)
            if ja is not None and jb is not None:
                perm[ja], perm[jb] = jb, ja
        off = np.zeros(self.nx)
        for k, val in (offset or {}).items():
            off[self._qi(k) if self._is_coord(k) else self._vi(k)] = float(val)
        skip = set()
        for k in free:
            skip.add(self._qi(k) if self._is_coord(k) else self._vi(k))
        for i in range(self.nx):
            if i in skip:
                continue
            self._subject(self.x[perm[i], -1] - self.x[i, 0] == off[i],
                          f"periodicity of {names[i]}")
        self._periodic = True

    def _is_coord(self, name):
        try:
            self._qi(name)
            return True
        except ValueError:
            return False

    def _speed_of(self, coord):
        try:
            return self._vi(coord)
        except ValueError:
            return None

    # ------------------------------------------------------------------ costs
    def integral(self, expr):
        """``int expr dt`` over all smooth phases (RK4 quadrature on the shooting steps);
        model expression or callable ``(q, u, controls, t)``."""
        L = self._model_fun(expr, "L")
        if L.size1_out(0) * L.size2_out(0) != 1:
            raise ValueError("ocp: a running cost / integral must be a scalar expression")
        total = 0
        for ph, t0 in zip(self.smooth, self._phase_starts()):
            X, C = self._phase_cols(ph)
            Ni = ph["N"]
            Phi = self._step_fun(ph["f"], L).map(Ni)
            _, qf = Phi(X[:, :-1], C, self._tk(ph, t0), ca.repmat(ph["T_mx"] / Ni, 1, Ni),
                        ca.repmat(self._P, 1, Ni))
            total = total + ca.sum2(qf)
        return total

    # ------------------------------------------------------------------ guess, solve
    def guess(self, q=None, v=None, controls=None, t_final=None, durations=None):
        """As :meth:`OCP.guess` (node arrays span all nodes, ``ocp.x.shape[1]``), plus
        ``durations``: one number per smooth phase."""
        super().guess(q=q, v=v, controls=controls)
        if durations is not None:
            if len(durations) != len(self.smooth):
                raise ValueError(f"ocp.guess: {len(self.smooth)} durations expected (one per "
                                 f"smooth phase), got {len(durations)}")
            for d, g in zip(self._dur_guess, durations):
                d[1] = float(g)

    def solve(self, solver="ipopt", options=None, solver_options=None, verbose=False):
        """Solve the NLP; returns a :class:`~mechdae.export.contact_solution.HybridSolution`.

        Raises
        ------
        RuntimeError
            The solver failed: status, iterations and the most violated constraints by name.
        """
        if not self._invariants_added:
            self._invariants_added = True
            if not self._periodic:
                for ph, names, t0 in self._start_invariants:
                    self._invariants(ph, names, t0)
        if not self._objective_terms:
            self.opti.minimize(0)
        X, Cg = self._guess_arrays()
        self.opti.set_initial(self.x, X)
        self.opti.set_initial(self.c, Cg)
        for ph, (free, Tg) in zip(self.smooth, self._dur_guess):
            if free:
                self.opti.set_initial(ph["T_mx"], Tg)
        t0 = _time.perf_counter()
        sol = self._run_solver(solver, options, solver_options, verbose)
        return HybridSolution(self, sol, _time.perf_counter() - t0)
