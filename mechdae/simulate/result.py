"""Simulation results: arrays by name, multipliers, residuals, energy, events, I/O."""
from __future__ import annotations

import json

import casadi as ca
import numpy as np

from .._typing import Any, Expr, Optional, PathLike, Sequence
from .._symbols import _as_sx

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
        Solver statistics, ``wall_time``, ``n_rhs``, ``rank_drops``, ``method``;
        smooth runs: ``compiled`` (generated C or CasADi Function objects) and ``lmm``
        (``"adams"``, or ``"adams+bdf"`` when BDF took over a stiff stretch; absent when
        an explicit scheme or idas ran);
        ``rank_drop_constraints``: the dependent constraints by name (see
        :attr:`redundant_constraints`).
    events : list of Event
    init_report : dict
        What consistent initialization changed: name -> (given, used).
    status, error : str
        ``"done"``, or ``"failed"`` for a Result read back from a file written by a run
        that failed (``error``: the message; ``err.partial`` itself says so in
        ``stats["failed"]``).
    """

    status = "done"
    error = None

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

    def keys(self) -> list:
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

    @property
    def redundant_constraints(self):
        """Where the constraint rank dropped, by name: a list of
        :class:`~mechdae.simulate.redundancy.RankDrop` (``t_start``, ``t_end``, ``rank``,
        ``rows``, ``dependent`` names, ``relations`` ``{name: a_i}`` with ``sum a_i C_i = 0``),
        one per interval of output times with the same dependent set (first 100)."""
        from .redundancy import records
        return records(self.stats)

    def __contains__(self, name):
        return name in self.keys()

    @property
    def events(self):
        """list of :class:`Event`; a method that records its events as arrays (time
        stepping) hands over a builder called on the first read."""
        ev = self.__dict__.get("_events")
        if ev is None:
            return []
        if callable(ev):
            ev = self.__dict__["_events"] = list(ev())
        return ev

    @events.setter
    def events(self, value):
        self.__dict__["_events"] = [] if value is None else value

    def _repr_html_(self):
        """A table for Jupyter (:mod:`mechdae._display`)."""
        from .._display import result_html
        return result_html(self)

    def __repr__(self):
        return (f"Result({self.name!r}: {self.t.size} points on [{self.t[0]:.4g}, {self.t[-1]:.4g}], "
                f"{len(self.events)} events)")

    # ------------------------------------------------------------------ derived
    def evaluate(self, expr: Expr) -> np.ndarray:
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

    def max_drift(self) -> float:
        """Largest absolute constraint residual over the run (0 without constraints)."""
        vals = [np.max(np.abs(r)) for r in self.residuals.values() if np.size(r)]
        return float(max(vals)) if vals else 0.0

    def energy_error(self) -> Optional[float]:
        """``max |E(t) - E(0)| / max(|E(0)|, max|T|)`` or None where energy is undefined."""
        if self.energy is None:
            return None
        E = self.energy
        scale = max(abs(E[0]), np.max(np.abs(self.kinetic)) if self.kinetic is not None else 0, 1e-300)
        return float(np.max(np.abs(E - E[0])) / scale)

    def energy_balance(self) -> Optional[dict]:
        """The energy ledger of the run (see :mod:`mechdae.simulate.ledger`), or None
        where energy is undefined.

        Returns
        -------
        dict
            ``initial``, ``final`` (T + V at the first and last output), ``impacts``,
            ``friction``, ``constraints``, ``forces`` (work booked by kind), and
            ``integration``, what is left: the integration error when ``complete``
            (``label`` names it); ``events`` and ``unexplained`` repeat ``impacts`` and
            ``integration``.
        """
        from .ledger import energy_ledger
        return energy_ledger(self)

    @property
    def units(self):
        """Units by name: the SI units of component variables and parameters (stated by
        each component class, :mod:`mechdae.components.units`), the model's declarations
        (``Model.coordinates(..., unit=)``, ``parameter(unit=)``), or those stored in the
        file a Result was loaded from."""
        model = getattr(self.system, "parent", None)
        out = {}
        if getattr(model, "components", None):
            # the SI units each component class states (mechdae.components.units)
            cached = self.__dict__.get("_component_units")
            if cached is None:
                from ..components.units import component_units
                names = self.keys() + list(getattr(self.system, "p_names", []))
                cached = self.__dict__["_component_units"] = component_units(model, names)
            out.update(cached)
        out.update(getattr(model, "units", None) or {})
        out.update(self.__dict__.get("_units") or {})
        return out

    # ------------------------------------------------------------------ output
    def to_dataframe(self, table: str = "series") -> Any:
        """One table of the run as a pandas DataFrame.

        Parameters
        ----------
        table : {"series", "events", "contact_forces", "modes", "impulses"}
            ``"series"`` (default): indexed by t, a column per named series, multiplier
            and the energy; ``"events"``: one row per event (t, contact, kind, energies,
            impulse, extra); ``"contact_forces"``: indexed by t, ``<contact>.n`` and
            ``<contact>.t`` (event-driven runs); ``"modes"``: the mode string per output
            point; ``"impulses"``: time-stepping impulses per stored step. A table the
            run does not have raises ValueError; :meth:`to_dataframes` gives them all.

        Raises
        ------
        ImportError
            When pandas is missing (``pip install mechdae[io]``).
        """
        frames = self.to_dataframes()
        if table not in frames:
            raise ValueError(f"to_dataframe: table {table!r}; choose one of "
                             f"{', '.join(frames)}")
        if frames[table] is None:
            raise ValueError(f"to_dataframe: the run of '{self.name}' "
                             f"(method {self.stats.get('method', '?')!r}) has no {table}")
        return frames[table]

    def to_dataframes(self) -> dict:
        """Every table of the run: dict ``series``, ``events``, ``contact_forces``,
        ``modes``, ``impulses`` (None where the run has none)."""
        from .files import to_dataframes
        return to_dataframes(self)

    def save(self, path: PathLike, status: Optional[str] = None,
             error: Optional[str] = None) -> str:
        """Save to ``.npz``, HDF5 (``.h5``/``.hdf5``) or Parquet (``.parquet``), by
        extension, with events, contact forces, modes, units and metadata; read back
        with :meth:`load` (:mod:`mechdae.simulate.files`). Returns the path.
        ``status``/``error``: the run's status in the file (default ``"failed"`` for a
        partial Result, ``err.partial``, else ``"done"``). The folder is checked first
        (ValueError); the file is written under a temporary name and renamed, so a save
        killed midway leaves the previous file intact."""
        from .files import save
        return save(self, path, status=status, error=error)

    @classmethod
    def open(cls, path: PathLike, system: Optional["System"] = None) -> Any:
        """Open an HDF5 Result written by ``simulate(out=path)`` or :meth:`save`; arrays
        are h5py datasets read on access (see :mod:`mechdae.simulate.stream`), their
        checksums verified when the run is loaded whole (``.load()``), not per access."""
        from .stream import open_result
        return open_result(path, system=system)

    @classmethod
    def load(cls, path: PathLike, system: Optional["System"] = None) -> "Result":
        """Load a Result saved by :meth:`save` (any format) into memory; ``system``
        attaches the System that ``evaluate`` and named outputs need. A damaged array
        (its stored checksum differs) raises :class:`~mechdae.simulate.files.DamagedFileError`
        naming it; a file mechdae did not write raises a ValueError saying what is missing."""
        from .files import load
        return load(path, system=system)

    def plot(self, path: Optional[PathLike] = None, names: Optional[Sequence[str]] = None,
             show: bool = False) -> Any:
        """Plot series against time (matplotlib, ``plot`` extra); write a PNG if ``path``.

        Axis labels carry the units the model declares; events are marked by kind
        (impact, lift-off, stick, slide, switch, accumulation: one colour and legend
        entry each, drawn in one call per kind), accumulation points named with their
        time. See :mod:`mechdae.simulate.plot`.

        Parameters
        ----------
        path : str, optional
        names : list of str, optional
            Series to plot (default: coordinates, at most 8).
        show : bool
            Open a window (``plt.show()``).

        Returns
        -------
        matplotlib.figure.Figure
            ``fig.event_counts``: events marked per kind.
        """
        from .plot import plot_result
        return plot_result(self, path=path, names=names, show=show)

    def animate(self, path: Optional[PathLike] = None, fps: float = 25, speed: float = 1.0,
                show: bool = False, tol: float = 1e-6) -> Any:
        """Animate the run: every component and rigid body draws itself (bodies, joints,
        springs, dampers, contacts and their planes; 1-D components as a schematic), with
        what the model adds by :meth:`mechdae.Model.draw` (see
        :mod:`mechdae.simulate.scene`).

        Parameters
        ----------
        path : str, optional
            ``.gif`` (Pillow) or ``.mp4`` (ffmpeg): drawn with matplotlib (``plot`` extra),
            planar and 1-D models in the plane, spatial ones in an oblique view;
            ``.html``: a self-contained 3-D page (meshcat's viewer, ``view`` extra) that
            plays the motion, with a time slider (:mod:`mechdae.simulate.view3d`).
        fps : float
            Frames per second of the animation.
        speed : float
            Simulated seconds per second of animation.
        show : bool
            Open an interactive window.
        tol : float
            A contact point is drawn closed (red) while its gap is at most ``tol``.

        Returns
        -------
        matplotlib.animation.FuncAnimation or mechdae.simulate.view3d.Page
            ``anim.frame_times``: the output time each frame shows; for ``.html`` the
            written page (``page.path``; Jupyter shows it inline).
        """
        from .animate import animate_result
        return animate_result(self, path=path, fps=fps, speed=speed, show=show, tol=tol)


def _jsonable(v):
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False
