"""The driver facades of a compiled System: each hands the System to the module that does
the work (simulation, export, contact problems, sweeps, optimal control), imported on first
use (a mixin of :class:`mechdae.symbolic.system.System`)."""
from __future__ import annotations

from .._typing import Any, Optional, PathLike, Sequence, Values

__all__ = ["SystemDrivers"]

_ASSEMBLY = None


def _contact_assembly():
    """``mechdae.contact.assembly`` (imported on first use: contacts are optional)."""
    global _ASSEMBLY
    from ..contact import assembly
    _ASSEMBLY = assembly
    return assembly


class SystemDrivers:
    """The calls users make on a System (``simulate``, ``impact``, ``painleve``, ``sweep``,
    ``ocp``, ...), each a thin facade over the driver that implements it; the drivers
    take the System as their first argument and read its compiled Functions."""

    # ------------------------------------------------------------------ simulation, export
    def simulate(self, t_final: float, q0: Optional[Values] = None, v0: Optional[Values] = None,
                 params: Optional[Values] = None, inputs: Optional[Values] = None,
                 method: str = "auto", rtol: Optional[float] = None,
                 atol: Optional[float] = None, output_times: Optional[Sequence[float]] = None,
                 initialize: bool = True, stabilization: Any = "compiled",
                 **options: Any) -> "Result":
        """Simulate from ``t = 0`` (or ``output_times[0]``) to ``t_final``.

        Parameters
        ----------
        t_final : float
            End time (s).
        q0, v0 : dict by name or array in System order, optional
            Initial coordinates / speeds; names left out take their defaults.
        params : dict, optional
            Parameter values (no recompilation).
        inputs : dict, optional
            ``{name: constant | (k, 2) samples | f(t)}``.
        method : str
            ``"auto"``/``"smooth"``/``"cvodes"`` (ODE form), ``"idas"`` (DAE form); hybrid
            methods register themselves in :data:`mechdae.simulate.METHODS`.
        rtol, atol : float, optional
            Integrator tolerances; ``None`` (default) lets the method choose: 1e-8 / 1e-10
            for the smooth methods (and ``"auto"`` without contacts), 1e-10 / 1e-12 for
            ``"event"`` and ``"auto"`` with contacts (event times inherit the integration
            error); fixed-step methods ignore them.
        output_times : array, optional
            Output grid (default 501 points on ``[0, t_final]``): finite, increasing, not
            past ``t_final`` (``t_final=None``: the last output time). The run starts at
            ``output_times[0]``: ``q0`` and ``v0`` are the state there (the stepping
            methods "timestepping", "moreau" and "unified" start at 0 only, and refuse a
            later first output time).
        initialize : bool
            Move the initial state to the nearest consistent one (report in
            ``Result.init_report``); ``False`` keeps it as given. A start inside a contact
            (gap < 0) is projected onto the gaps >= 0 without adding kinetic energy
            (``True``) or refused with a ValueError (``False``); see
            :mod:`mechdae.simulate.init_contacts`.
        stabilization : Baumgarte, Mukharlyamov, Projection, list, None, optional
            Override of the compiled stabilization (gains are parameters of the graph).
        **options
            The method's own options (:data:`mechdae.simulate.OPTIONS`), and
            ``sensitivities=[names]``: forward sensitivities of the states to those
            parameters or initial values through impacts, as
            ``res.sensitivity[state][name]`` (``res.sensitivity.event_times[name]``: of the
            impact times); see :func:`mechdae.analysis.sensitivity.sensitivities`.

        Returns
        -------
        Result

        Raises
        ------
        TypeError
            An option the method does not take (named, with a close match and the valid
            ones).
        ValueError
            A non-finite or empty horizon; ``"smooth"``, ``"cvodes"`` or ``"idas"`` on a
            model with contacts (which they would ignore); see
            :func:`mechdae.simulate.check_call`.
        """
        from ..simulate import simulate
        sens = options.pop("sensitivities", None)
        res = simulate(self, t_final, q0=q0, v0=v0, params=params, inputs=inputs, method=method,
                       rtol=rtol, atol=atol, output_times=output_times, initialize=initialize,
                       stabilization=stabilization, **options)
        if sens:
            from ..analysis.sensitivity import sensitivities
            res.sensitivity = sensitivities(self, res, list(sens), params, inputs)
        return res

    def to_casadi(self, form: str = "ode", inputs: Optional[Any] = None) -> Any:
        """Export the stabilized DAE (see :func:`mechdae.export.to_casadi`)."""
        from ..export import to_casadi
        return to_casadi(self, form=form, inputs=inputs)

    def export_fmu(self, path: PathLike, kind: str = "model-exchange", fmi_version: int = 3,
                   **options: Any) -> Any:
        """Write the System as an FMU (FMI 3.0 or 2.0, ``kind="model-exchange"`` or
        ``"co-simulation"``): generated C compiled at export, FMPy-valid names, tunable
        parameters, inputs and outputs. Options ``q0, v0, params, inputs, stop_time, rtol,
        atol``; see :func:`mechdae.export.fmi.export_fmu`. Returns the path."""
        from ..export.fmi import export_fmu
        return export_fmu(self, path, kind=kind, fmi_version=fmi_version, **options)

    # ------------------------------------------------------------------ contacts
    def impact(self, q: Values, v: Values, active: Optional[Sequence[str]] = None,
               all_solutions: bool = False, params: Optional[Values] = None, t: float = 0.0,
               method: str = "auto", **options: Any) -> Any:
        """Impact at ``(q, v)``: post-impact speeds, impulses, modes, all solutions.

        Options: ``tol``, ``gap_tol``, ``inputs``, ``energy_gain``, ``max_boxes`` (the box
        budget of each search of sliding directions in space; ``out.exhaustive`` says
        whether the search was complete). See :func:`mechdae.contact.assembly.impact`
        (returns an ``ImpactResult``).
        """
        # the assembly module is looked up once (an import statement per call costs ~1 us
        # on a ~6 us fast path); states and parameters as arrays or dicts of floats by name
        # go straight into the fast path's buffers
        asm = _ASSEMBLY or _contact_assembly()
        if not options and not all_solutions and (method == "auto" or method == "enum"):
            out = asm._impact_fast(self, q, v, active, params, t)
            if out is not None:
                return out
            return asm._impact_general(self, q, v, active, False, params, t, method)
        return asm.impact(self, q, v, active, all_solutions, params, t, method, **options)

    def impact_batch(self, qs: Any, vs: Any, active: Optional[Sequence[str]] = None,
                     params: Optional[Values] = None, t: float = 0.0, method: str = "enum",
                     **options: Any) -> Any:
        """Many impact problems in one vectorized pass (see
        :func:`mechdae.contact.assembly.impact_batch`; options ``tol``, ``gap_tol``,
        ``energy``, ``max_boxes``; ``out.exhaustive`` per problem)."""
        from ..contact.assembly import impact_batch
        return impact_batch(self, qs, vs, active=active, params=params, t=t, method=method,
                            **options)

    def sweep(self, params: Optional[Any] = None, q0: Optional[Any] = None,
              v0: Optional[Any] = None, **options: Any) -> Any:
        """Simulations over a grid or table of parameters and initial values: a pandas
        DataFrame, one row per run, serially or on threads, processes or a Dask cluster
        (see :func:`mechdae.sweep.sweep`)."""
        from ..sweep import sweep
        return sweep(self, params, q0, v0, **options)

    def impact_sweep(self, q: Optional[Any] = None, v: Optional[Any] = None,
                     params: Optional[Any] = None, **options: Any) -> Any:
        """Impact problems over a grid or table of states and parameters: a pandas
        DataFrame, one row per problem (see :func:`mechdae.sweep.impact_sweep`)."""
        from ..sweep import impact_sweep
        return impact_sweep(self, q, v, params, **options)

    def painleve(self, q: Values, v: Values, active: Optional[Sequence[str]] = None,
                 params: Optional[Values] = None, t: float = 0.0, **options: Any) -> Any:
        """Painlevé classification (unique | inconsistent | indeterminate) of the contact
        problem at ``(q, v)`` (see :func:`mechdae.contact.assembly.painleve`)."""
        from ..contact.assembly import painleve
        return painleve(self, q, v, active=active, params=params, t=t, **options)

    def contact_forces(self, q: Values, v: Values, active: Optional[Sequence[str]] = None,
                       params: Optional[Values] = None, t: float = 0.0,
                       **options: Any) -> Any:
        """Acceleration-level contact problem: forces, lift-off/stick/slide modes, ``u'``
        for every consistent solution (see :func:`mechdae.contact.assembly.contact_forces`)."""
        from ..contact.assembly import contact_forces
        return contact_forces(self, q, v, active=active, params=params, t=t, **options)

    def contact_problem(self, q: Values, v: Values, active: Optional[Sequence[str]] = None,
                        t: float = 0.0, params: Optional[Values] = None,
                        **options: Any) -> Any:
        """Contact-space problem (``D``, ``v_minus``, ``b``, ``B``, laws) at ``(q, v)``
        (see :func:`mechdae.contact.assembly.contact_problem`)."""
        from ..contact.assembly import contact_problem
        return contact_problem(self, q, v, active=active, t=t, params=params, **options)

    def ocp(self, N: int = 50, t_final: float = 1.0, method: str = "multiple_shooting",
            controls: Optional[Any] = None, **options: Any) -> Any:
        """Optimal control problem with the model's inputs as controls (direct multiple
        shooting or collocation on ``casadi.Opti``, :class:`mechdae.export.OCP`; through
        contact: ``phases=[...]`` a fixed mode sequence, :class:`mechdae.export.HybridOCP`,
        or ``method="complementarity"``, :class:`mechdae.export.ContactImplicitOCP`)."""
        from ..export.ocp import ocp
        return ocp(self, N=N, t_final=t_final, method=method, controls=controls, **options)

    # ------------------------------------------------------------------ analysis
    def linearize(self, q: Optional[Values] = None, v: Optional[Values] = None,
                  inputs: Optional[Values] = None, outputs: Sequence[str] = (),
                  params: Optional[Values] = None, **options: Any) -> Any:
        """Linear model ``A, B, C, D`` at ``(q, v, inputs)`` in minimal coordinates on the
        constraint manifold (closed contacts as constraints; no stabilization modes); see
        :func:`mechdae.analysis.linearize` (options ``t``, ``contacts``, ``basis``, ``tol``)."""
        from ..analysis.linearize import linearize
        return linearize(self, q=q, v=v, inputs=inputs, outputs=outputs, params=params,
                         **options)

    def trim(self, q: Optional[Values] = None, v: Optional[Values] = None,
             inputs: Optional[Values] = None, free: Sequence[str] = (),
             params: Optional[Values] = None, **options: Any) -> Any:
        """Equilibrium or steady motion solving for the ``free`` coordinates, speeds and
        inputs, with the residual reported; see :func:`mechdae.analysis.trim`."""
        from ..analysis.trim import trim
        return trim(self, q=q, v=v, inputs=inputs, free=free, params=params, **options)

    def periodic_orbit(self, q: Optional[Values] = None, v: Optional[Values] = None,
                       period: Optional[float] = None, method: str = "event",
                       section: Optional[Any] = None, **options: Any) -> Any:
        """Periodic hybrid orbit by Newton shooting on its Poincaré map through impacts:
        fixed point, period, monodromy (saltation matrices at the impacts), Floquet
        multipliers; see :func:`mechdae.analysis.periodic_orbit` (options ``shift``,
        ``cyclic``, ``params``, ``inputs``, ``impacts``, ``tol``, ``max_iter``, ``rtol``)."""
        from ..analysis.orbits import periodic_orbit
        return periodic_orbit(self, q=q, v=v, period=period, method=method, section=section,
                              **options)
