"""Solutions of the OCPs through contact: the :class:`~mechdae.export.OCPSolution` fields
plus contact forces and impulses per contact, the mode of every contact on every interval,
and an event-driven re-simulation check.

``forces[name]`` and ``impulses[name]`` have columns ``(normal, tangential...)`` in the
contact's own directions (``system.contact_rows``).  ``modes[name]`` holds one of ``"open"``,
``"stick"``, ``"slide+"``, ``"slide-"``, ``"slide"`` (two tangent directions), ``"free"``
(closed, frictionless) per interval.
"""
import numpy as np

from .ocp import OCPSolution, SimulateCheck

__all__ = ["HybridSolution", "ContactImplicitSolution", "ContactCheck"]


class ContactCheck(SimulateCheck):
    """Event-driven re-simulation of a solution through contact.

    Attributes
    ----------
    defect : float
        Largest ``|x_sim - x_k|`` over nodes and states (pre- and post-impact nodes against
        the simulated states just before / after the matching impact).
    errors : dict
        That maximum per state name.
    result : Result
    impacts : list of (float, float or None)
        Planned impact time and the simulated one (None: no impact found near it).
    unplanned : list of float
        Times of simulated impacts that the solution does not have.
    """

    def __init__(self, defect, errors, result, impacts=(), unplanned=()):
        super().__init__(defect, errors, result)
        self.impacts = list(impacts)
        self.unplanned = list(unplanned)

    def __repr__(self):
        return (f"ContactCheck(defect={self.defect:.3g}, impacts={len(self.impacts)}, "
                f"unplanned={len(self.unplanned)})")


class _ContactSolution(OCPSolution):
    def _rows(self, name):
        return self.problem._rows[name]

    def _sim_inputs(self):
        inputs = dict(self.problem.inputs)
        for n in self.control_names:
            inputs[n] = self.control_signal(n)
        return inputs

    def _resimulate(self, t_sim, rtol, atol, method, planned, **options):
        """Simulate from the first node; compare every node (pre/post-impact nodes with the
        states around the simulated impact nearest the planned time)."""
        s = self.system
        q0 = np.concatenate([self.q[0], self.x[0]]) if s.nv else self.q[0]
        ts = np.unique(np.concatenate([self.t[self.t <= t_sim], [t_sim]]))
        res = s.simulate(t_sim, q0=q0, v0=self.v[0], params=self.params,
                         inputs=self._sim_inputs(), method=method, rtol=rtol, atol=atol,
                         output_times=ts, initialize=False, **options)
        Xs = np.concatenate([res.q, res.v, res.x], axis=1)
        Xo = np.concatenate([self.q, self.v, self.x], axis=1)
        sim_imp = sorted({e.t for e in res.events if e.kind == "impact"})
        tol_t = 1e-3 * max(self.T, 1e-9)
        pairs, used = [], set()
        node_state = {}
        for (tb, pre, post) in planned:
            cand = [te for te in sim_imp if abs(te - tb) <= tol_t and te not in used]
            te = min(cand, key=lambda a: abs(a - tb)) if cand else None
            pairs.append((tb, te))
            if te is None:
                i = int(np.argmin(np.abs(res.t - tb)))
                node_state[pre], node_state[post] = Xs[i], Xs[i]
                continue
            used.add(te)
            idx = np.flatnonzero(res.t == te)
            node_state[pre], node_state[post] = Xs[idx[0]], Xs[idx[-1]]
        err = np.zeros_like(Xo)
        for k, tk in enumerate(self.t):
            if k in node_state:
                xs = node_state[k]
            else:
                xs = Xs[int(np.argmin(np.abs(res.t - tk)))]
            err[k] = np.abs(xs - Xo[k])
        names = self.problem._state_names()
        unplanned = [te for te in sim_imp if te not in used]
        return ContactCheck(float(err.max()) if err.size else 0.0,
                            {n: float(err[:, i].max()) for i, n in enumerate(names)}, res,
                            pairs, unplanned)


class HybridSolution(_ContactSolution):
    """Solution of a :class:`~mechdae.export.HybridOCP`.

    Attributes (besides those of :class:`~mechdae.export.OCPSolution`)
    ----------
    durations : array
        Duration of each smooth phase.
    phase : array (n_intervals,) of int
        Index (in the ``phases`` list) of the phase of every control interval.
    modes : dict name -> array of str (n_intervals,)
    forces : dict name -> array (n_nodes, 1 + n_t)
        Contact forces at the nodes (zero where the contact is open).
    impacts : list of dict
        ``t``, ``phase`` and ``impulses`` (dict name -> array) of every impact.
    impulses : dict name -> array (n_impacts of that contact, 1 + n_t)
    """

    def __init__(self, problem, sol, solve_time):
        super().__init__(problem, sol, solve_time)
        s, P = self.system, problem
        pv = s.param_vector(self.params)
        self.durations = np.array([float(sol.value(T)) for T in P.durations])
        Xo = np.concatenate([self.q, self.v, self.x], axis=1)
        rows = P._rows
        self.forces = {n: np.zeros((len(self.t), 1 + len(rows[n][2]))) for n in s.contact_names}
        self.modes = {n: [] for n in s.contact_names}
        self.phase = []
        self._starts = []
        for ph in P.phases:
            if ph["kind"] != "smooth":
                continue
            c0, Ni = ph["col"], ph["N"]
            tn = self.t[c0:c0 + Ni + 1]
            Cn = self.controls[ph["icol"]:ph["icol"] + Ni]
            Cn = np.vstack([Cn, Cn[-1:]]) if P.nc else np.zeros((Ni + 1, 0))
            W = np.array(P._w_fun.map(Ni + 1)(Cn.T, tn[None, :]))
            Fr = np.array(ph["f"].map(Ni + 1)(Xo[c0:c0 + Ni + 1].T, tn[None, :],
                                              np.tile(pv[:, None], Ni + 1), W)[1])
            for n in s.contact_names:
                _, rn, tr = rows[n]
                if n in ph["modes"]:
                    self.forces[n][c0:c0 + Ni + 1] = Fr[[rn] + tr].T
                self.modes[n].extend([ph["modes"].get(n, "open")] * Ni)
            self.phase.extend([ph["index"]] * Ni)
            self._starts.extend(tn[:-1])
        self.modes = {n: np.array(m) for n, m in self.modes.items()}
        self.phase = np.array(self.phase)
        self.impacts, self.impulses = [], {n: [] for n in s.contact_names}
        for ph in P.phases:
            if ph["kind"] != "impact":
                continue
            col = ph["col"]
            tb = float(self.t[col])
            _, Pimp = ph["F"](self.q[col], self.v[col], tb, pv)
            Pimp = np.array(Pimp).ravel()
            rec = {}
            for n in ph["all_modes"]:
                _, rn, tr = rows[n]
                rec[n] = Pimp[[rn] + tr]
                self.impulses[n].append(rec[n])
            self.impacts.append(dict(t=tb, phase=ph["index"], impulses=rec))
        self.impulses = {n: np.array(v).reshape(len(v), 1 + len(rows[n][2]))
                         for n, v in self.impulses.items()}

    def _interval_starts(self):
        return np.asarray(self._starts)

    def simulate_check(self, rtol=1e-10, atol=1e-12, method="event", **options):
        """Re-run the controls through ``System.simulate(method="event")`` from the first
        node and compare every node.

        Returns
        -------
        ContactCheck
            ``defect`` (largest state error), ``errors`` per state, ``impacts`` (planned
            and simulated impact times), ``unplanned`` impacts, ``result``.
        """
        P = self.problem
        planned = [(float(self.t[ph["col"]]), ph["col"], ph["col"] + 1)
                   for ph in P.phases if ph["kind"] == "impact"]
        t_sim = self.T
        if P.phases[-1]["kind"] == "impact":      # let the final impact happen in the run
            t_sim = self.T * (1 + 1e-7) + 1e-12
        return self._resimulate(t_sim, rtol, atol, method, planned, **options)

    def __repr__(self):
        return (f"HybridSolution({self.system.name!r}: {self.stats.get('return_status')}, "
                f"cost={self.cost:.6g}, durations={np.round(self.durations, 6).tolist()}, "
                f"iterations={self.stats.get('iter_count')})")


class ContactImplicitSolution(_ContactSolution):
    """Solution of a :class:`~mechdae.export.ContactImplicitOCP`.

    Attributes (besides those of :class:`~mechdae.export.OCPSolution`)
    ----------
    impulses : dict name -> array (N, 1 + n_t)
        Impulses of every step.
    forces : dict name -> array (N, 1 + n_t)
        Mean forces of every step (impulse / h).
    modes : dict name -> array of str (N,)
        Mode found on every step.
    complementarity : float
        Residual reached, ``max_i min(a_i, b_i)`` over all complementarity pairs.
    complementarity_product : float
        ``max_i a_i b_i``.
    homotopy : list of (eps, iterations, return_status, residual)
    iterations : int
        Ipopt iterations summed over the homotopy.
    """

    def __init__(self, problem, sol, solve_time, records, iterations):
        super().__init__(problem, sol, solve_time)
        P, s = problem, self.system
        self.homotopy = records
        self.iterations = iterations
        self.complementarity, self.complementarity_product = P.residual(sol)
        h = self.T / P.N
        Pn = np.array(sol.value(P.Pn)).reshape(len(s.contact_names), P.N)
        bp = np.array(sol.value(P.beta_p)).reshape(len(P._trows), P.N)
        bm = np.array(sol.value(P.beta_m)).reshape(len(P._trows), P.N)
        pv = s.param_vector(self.params)
        vp = np.array(P._step.map(P.N)(self.q[:-1].T, self.v[:-1].T, self.v[1:].T,
                                       self.controls.T if P.nc else np.zeros((0, P.N)),
                                       self.t[None, :-1], np.full((1, P.N), h),
                                       np.tile(pv[:, None], P.N), Pn, bp, bm,
                                       np.array(sol.value(P.gamma)).reshape(-1, P.N),
                                       np.array(sol.value(P.Lam)).reshape(-1, P.N))[6])
        scale_p = max(float(np.max(np.abs(Pn))) if Pn.size else 0.0, 1e-300)
        scale_v = max(float(np.max(np.abs(self.v))) if self.v.size else 0.0, 1e-12)
        self.impulses, self.modes = {}, {}
        k0 = 0
        for i, n in enumerate(s.contact_names):
            _, rn, tr = P._rows[n]
            imp = np.zeros((P.N, 1 + len(tr)))
            imp[:, 0] = Pn[i]
            fric = n in P._fric
            if fric:
                imp[:, 1:] = (bp[k0:k0 + len(tr)] - bm[k0:k0 + len(tr)]).T
                k0 += len(tr)
            self.impulses[n] = imp
            modes = []
            for k in range(P.N):
                if Pn[i, k] <= 1e-6 * scale_p:
                    modes.append("open")
                elif not fric:
                    modes.append("free")
                else:
                    vt = vp[tr, k]
                    if np.max(np.abs(vt)) <= 1e-6 * scale_v:
                        modes.append("stick")
                    elif len(tr) == 1:
                        modes.append("slide+" if vt[0] > 0 else "slide-")
                    else:
                        modes.append("slide")
            self.modes[n] = np.array(modes)
        self.forces = {n: v / h for n, v in self.impulses.items()}

    def simulate_check(self, rtol=1e-10, atol=1e-12, method="event", **options):
        """Re-run the controls through ``System.simulate(method="event")`` and compare the
        nodes (the time-stepping transcription is first order in ``h`` at impacts and
        contact changes inside a step; exact for piecewise-constant forces between them
        with ``theta = 1/2``).  Returns a :class:`ContactCheck`."""
        return self._resimulate(self.T, rtol, atol, method, [], **options)

    def __repr__(self):
        return (f"ContactImplicitSolution({self.system.name!r}: cost={self.cost:.6g}, "
                f"complementarity={self.complementarity:.2g}, iterations={self.iterations})")
