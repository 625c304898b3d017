"""Simulation results: arrays by name, multipliers, residuals, energy, events, I/O."""
import json

import casadi as ca
import numpy as np

__all__ = ["Result", "Event"]


class Event:
    """One event of a hybrid run (impact, liftoff, stick, slide, accumulation, ...).

    Attributes
    ----------
    t : float
    contact : str or None
    kind : str
    impulse : array or None
    energy_before, energy_after : float or None
    """

    def __init__(self, t, contact, kind, impulse=None, energy_before=None, energy_after=None,
                 **extra):
        self.t = float(t)
        self.contact = contact
        self.kind = kind
        self.impulse = impulse
        self.energy_before = energy_before
        self.energy_after = energy_after
        self.extra = extra

    def as_dict(self):
        d = dict(t=self.t, contact=self.contact, kind=self.kind,
                 impulse=None if self.impulse is None else np.asarray(self.impulse).tolist(),
                 energy_before=self.energy_before, energy_after=self.energy_after)
        return d

    def __repr__(self):
        return f"Event(t={self.t:.6g}, contact={self.contact!r}, kind={self.kind!r})"


class Result:
    """The outcome of ``System.simulate``.

    Attributes
    ----------
    t : array (N,)
    q : array (N, n_q)       coordinates in System order (``q_names``)
    v : array (N, n_u)       speeds in System order (``u_names``)
    x : array (N, n_v)       extra differential variables; ``zalg`` (N, n_z) algebraic ones
    multipliers : dict name -> array (N,) or (N, rows)
        Constraint multipliers ``lam`` (holonomic) and ``mu`` (nonholonomic), minimum-norm.
    residuals : dict name -> array
        ``phi`` (holonomic) and ``psi`` (nonholonomic) along the run.
    energy, kinetic, potential : array (N,) or None
        ``T + V`` where the model defines energies.
    stats : dict
        Solver statistics, ``wall_time``, ``n_rhs``, ``rank_drops``, ``method``.
    events : list of Event
    init_report : dict
        What consistent initialization changed: name -> (given, used).
    """

    def __init__(self, t, q, v, names, x=None, zalg=None, multipliers=None, residuals=None,
                 energy=None, kinetic=None, potential=None, stats=None, events=None,
                 init_report=None, system=None, params=None, w=None, name=""):
        self.t = np.asarray(t, dtype=float)
        self.q = np.asarray(q, dtype=float)
        self.v = np.asarray(v, dtype=float)
        self.names = names        # dict with q, u, v, z lists
        N = self.t.size
        self.x = np.zeros((N, len(names.get("v", [])))) if x is None else np.asarray(x)
        self.zalg = np.zeros((N, len(names.get("z", [])))) if zalg is None else np.asarray(zalg)
        self.multipliers = multipliers or {}
        self.residuals = residuals or {}
        self.energy, self.kinetic, self.potential = energy, kinetic, potential
        self.stats = stats or {}
        self.events = events or []
        self.init_report = init_report or {}
        self.system = system
        self.params = params
        self.w = w
        self.name = name or (system.name if system is not None else "")

    # ------------------------------------------------------------------ access
    def __getitem__(self, name):
        n = self.names
        if name == "t":
            return self.t
        if name in n["q"]:
            return self.q[:, n["q"].index(name)]
        if name in n["u"]:
            return self.v[:, n["u"].index(name)]
        if name in n.get("v", []):
            return self.x[:, n["v"].index(name)]
        if name in n.get("z", []):
            return self.zalg[:, n["z"].index(name)]
        idx = getattr(self.system, "_output_index", {}).get(name)
        if idx is not None:
            return self._output(idx, name)
        why = getattr(getattr(self.system, "parent", None), "_unavailable_outputs", {}).get(name)
        if why:
            raise KeyError(f"'{name}' of '{self.name}' is not offered: {why}")
        raise KeyError(f"result of '{self.name}' has no series '{name}'; available: "
                       f"{', '.join(self.keys())}")

    def keys(self):
        n = self.names
        return ["t"] + list(n["q"]) + list(n["u"]) + list(n.get("v", [])) + list(n.get("z", [])) \
            + list(getattr(self.system, "output_names", []))

    def _output(self, idx, name):
        """Named output ``idx`` of the System along the run (all evaluated once, cached)."""
        cache = self.__dict__.get("_out_cache")
        sysm = self.system
        if cache is None:
            N = self.t.size
            rows = []
            missing = []
            for cname, nrows in sysm.holonomic + sysm.nonholonomic:
                lam = self.multipliers.get(cname)
                if lam is None:
                    missing.append(cname)
                    lam = np.zeros((N, nrows))
                lam = np.asarray(lam, float).reshape(N, nrows)
                rows.append(lam)
            L = np.hstack(rows).T if rows else np.zeros((0, N))
            f = sysm.functions["outputs"]
            P = np.asarray(self.params, float).reshape(-1, 1)
            W = self.w if self.w is not None else np.zeros((0, N))
            nhd = getattr(sysm, "nhd", 0)
            HD = np.zeros((nhd, N))
            if nhd:
                # highest derivatives of the general variables: J (hd, z) + F0 = 0
                n = nhd + sysm.nz
                J, F0 = sysm.functions["extras"].map(N)(self.q.T, self.v.T, self.x.T,
                                                        self.t[None, :], P, W)
                J = np.array(J).reshape(n, N, n).transpose(1, 0, 2)
                sol = np.linalg.solve(J, -np.array(F0).T[:, :, None])[:, :, 0]
                HD = sol[:, :nhd].T
            UD = np.zeros((sysm.nu, N))
            if any(sysm._output_uses_ud):
                if sysm.contact_names:
                    missing = missing + ["accelerations"]
                else:
                    X = np.vstack([self.q.T, self.v.T, self.x.T])
                    UD = np.array(sysm.xdot_function().map(N)(X, self.t[None, :], P, W))[
                        sysm.nq:sysm.nq + sysm.nu]
            Y = np.array(f.map(N)(self.q.T, self.v.T, self.x.T, HD, self.zalg.T,
                                  self.t[None, :], P, W, L, UD))
            cache = self._out_cache = (Y, missing)
        Y, missing = cache
        if "accelerations" in missing and sysm._output_uses_ud[idx]:
            raise KeyError(f"'{name}' of '{self.name}' needs the accelerations (a force through "
                           "a rigid connection whose coordinate was eliminated), which are not "
                           "recorded for models with contacts (they jump at impacts)")
        missing = [m_ for m_ in missing if m_ != "accelerations"]
        if missing and sysm._output_uses_lam[idx]:
            raise KeyError(f"'{name}' of '{self.name}' is a constraint force (it uses the "
                           f"multipliers of {', '.join(repr(m) for m in missing)}), which the "
                           f"method '{self.stats.get('method', '?')}' does not record; simulate "
                           "with a smooth method (method='cvodes') to read it")
        return Y[idx]

    def __contains__(self, name):
        return name in self.keys()

    def __repr__(self):
        return (f"Result({self.name!r}: {self.t.size} points on [{self.t[0]:.4g}, {self.t[-1]:.4g}], "
                f"{len(self.events)} events)")

    # ------------------------------------------------------------------ derived
    def evaluate(self, expr):
        """Evaluate an expression of the model's symbols at every output point.

        Parameters
        ----------
        expr : SX (scalar, vector or matrix)
            Built from the model's coordinates, ``der(q)``, speeds, variables, parameters,
            inputs and ``m.time``.

        Returns
        -------
        array (N,) for a scalar, else (N, rows) / (N, rows, cols)
        """
        if self.system is None:
            raise ValueError("this Result was loaded from a file; evaluate() needs the System "
                             "(simulate again)")
        from ..dsl.model import _as_sx
        sysm = self.system
        d = sysm._d
        e = _as_sx(expr, "evaluate()")
        sub_from = [c["rate"] for c in sysm.parent.coords if c["name"] in sysm.parent.kinematics_]
        if sub_from:
            sub_to = [sysm.parent.kinematics_[c["name"]] for c in sysm.parent.coords
                      if c["name"] in sysm.parent.kinematics_]
            e = ca.substitute(e, ca.vertcat(*sub_from), ca.vertcat(*sub_to))
        f = ca.Function("eval", [d.q, d.u, d.v, d.z, d.t, d.p, d.w], [ca.vec(e)])
        N = self.t.size
        out = f.map(N)(self.q.T, self.v.T, self.x.T, self.zalg.T, self.t[None, :],
                       np.asarray(self.params, float).reshape(-1, 1),
                       self.w if self.w is not None else np.zeros((0, N)))
        arr = np.array(out).T
        if e.numel() == 1:
            return arr[:, 0]
        if e.shape[1] == 1:
            return arr
        return arr.reshape(N, e.shape[1], e.shape[0]).transpose(0, 2, 1)

    def max_drift(self):
        """Largest absolute constraint residual over the run (0 without constraints)."""
        vals = [np.max(np.abs(r)) for r in self.residuals.values() if np.size(r)]
        return float(max(vals)) if vals else 0.0

    def energy_error(self):
        """``max |E(t) - E(0)| / max(|E(0)|, max|T|)`` or None where energy is undefined."""
        if self.energy is None:
            return None
        E = self.energy
        scale = max(abs(E[0]), np.max(np.abs(self.kinetic)) if self.kinetic is not None else 0, 1e-300)
        return float(np.max(np.abs(E - E[0])) / scale)

    def energy_balance(self):
        """Energy bookkeeping of a run with events, or None where energy is undefined.

        Returns
        -------
        dict
            ``initial``, ``final`` (T + V at the first and last output), ``events`` (the sum
            of ``energy_after - energy_before`` over the recorded events: impacts,
            accumulations) and ``unexplained = final - initial - events``, which collects
            integration error, stabilization, and the work of sliding friction.
        """
        if self.energy is None:
            return None
        jumps = sum(float(e.energy_after) - float(e.energy_before) for e in self.events
                    if e.energy_before is not None and e.energy_after is not None
                    and np.isfinite(e.energy_before) and np.isfinite(e.energy_after))
        E0, E1 = float(self.energy[0]), float(self.energy[-1])
        return dict(initial=E0, final=E1, events=jumps, unexplained=E1 - E0 - jumps)

    # ------------------------------------------------------------------ output
    def to_dataframe(self):
        """A pandas DataFrame indexed by t (columns: every named series).

        Raises
        ------
        ImportError
            When pandas is missing (``pip install mechdae[io]``).
        """
        try:
            import pandas as pd
        except ImportError as exc:
            raise ImportError("Result.to_dataframe() needs pandas: pip install 'mechdae[io]'") \
                from exc
        cols = {k: self[k] for k in self.keys() if k != "t"}
        for k, val in self.multipliers.items():
            val = np.asarray(val)
            if val.ndim == 1:
                cols[f"lambda[{k}]"] = val
            else:
                for j in range(val.shape[1]):
                    cols[f"lambda[{k}][{j}]"] = val[:, j]
        if self.energy is not None:
            cols["energy"] = self.energy
        return pd.DataFrame(cols, index=pd.Index(self.t, name="t"))

    def save(self, path):
        """Save to a ``.npz`` file (arrays, names, stats, events; see :meth:`load`), or to
        HDF5 when ``path`` ends in ``.h5`` / ``.hdf5`` (see :meth:`open`)."""
        if str(path).lower().endswith((".h5", ".hdf5")):
            from .stream import write_result
            write_result(self, path)        # HDF5 (h5py): read back with Result.open
            return
        arrays = dict(t=self.t, q=self.q, v=self.v, x=self.x, zalg=self.zalg)
        for k, val in self.multipliers.items():
            arrays[f"mult::{k}"] = np.asarray(val)
        for k, val in self.residuals.items():
            arrays[f"res::{k}"] = np.asarray(val)
        for k in ("energy", "kinetic", "potential"):
            if getattr(self, k) is not None:
                arrays[k] = getattr(self, k)
        if self.params is not None:
            arrays["params"] = np.asarray(self.params)
        if self.w is not None:
            arrays["w"] = np.asarray(self.w)
        meta = dict(name=self.name, names={k: list(v) if not isinstance(v, dict) else v
                                           for k, v in self.names.items()},
                    stats={k: v for k, v in self.stats.items() if _jsonable(v)},
                    events=[e.as_dict() for e in self.events],
                    init_report={k: list(v) for k, v in self.init_report.items()})
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez(path, **arrays)

    @classmethod
    def open(cls, path, system=None):
        """Open an HDF5 Result written by ``simulate(out=path)`` or :meth:`save`; arrays
        are h5py datasets read on access (see :mod:`mechdae.simulate.stream`)."""
        from .stream import open_result
        return open_result(path, system=system)

    @classmethod
    def load(cls, path):
        """Load a Result saved by :meth:`save` (``evaluate`` then needs a System)."""
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["meta"]))
            mult = {k[6:]: f[k] for k in f.files if k.startswith("mult::")}
            res = {k[5:]: f[k] for k in f.files if k.startswith("res::")}
            get = (lambda k: f[k] if k in f.files else None)
            out = cls(f["t"], f["q"], f["v"], meta["names"], x=f["x"], zalg=f["zalg"],
                      multipliers=mult, residuals=res, energy=get("energy"),
                      kinetic=get("kinetic"), potential=get("potential"), stats=meta["stats"],
                      events=[Event(**e) for e in meta["events"]],
                      init_report={k: tuple(v) for k, v in meta["init_report"].items()},
                      params=get("params"), w=get("w"), name=meta["name"])
        return out

    def plot(self, path=None, names=None, show=False):
        """Plot series against time (matplotlib, ``plot`` extra); write a PNG if ``path``.

        Parameters
        ----------
        path : str, optional
        names : list of str, optional
            Series to plot (default: coordinates, at most 8).

        Returns
        -------
        matplotlib.figure.Figure
        """
        try:
            import matplotlib
            if path is not None and not show:
                matplotlib.use("Agg", force=False)
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError("Result.plot() needs matplotlib: pip install 'mechdae[plot]'") \
                from exc
        names = list(names) if names else list(self.names["q"])[:8]
        panels = 1 + bool(self.residuals) + (self.energy is not None)
        fig, axes = plt.subplots(panels, 1, figsize=(8, 2.6 * panels), sharex=True, squeeze=False)
        axes = axes[:, 0]
        for n in names:
            axes[0].plot(self.t, self[n], label=n)
        axes[0].legend(loc="best", fontsize="small")
        axes[0].set_title(self.name)
        i = 1
        if self.residuals:
            for k, r in self.residuals.items():
                r = np.asarray(r)
                # floor at machine precision so an exact zero does not stretch the axis
                axes[i].semilogy(self.t, np.maximum(np.abs(r.reshape(r.shape[0], -1)).max(axis=1),
                                                    1e-16), label=f"|{k}|")
            axes[i].set_ylabel("constraint residual")
            axes[i].legend(loc="best", fontsize="small")
            i += 1
        if self.energy is not None:
            axes[i].plot(self.t, self.energy - self.energy[0])
            axes[i].set_ylabel("E(t) - E(0)")
        for e in self.events:
            for ax in axes:
                ax.axvline(e.t, color="0.8", lw=0.5)
        axes[-1].set_xlabel("t")
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=100)
        if not show:
            plt.close(fig)
        return fig


def _jsonable(v):
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False
