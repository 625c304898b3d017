"""FMI export: a compiled System as a Functional Mock-up Unit (FMI 3.0 or 2.0).

The FMU carries the System's stabilized index-1 ODE

    x = (q, u, v),   x' = f(x, t, p, w)   (q' = N(q) u,  M u' = h + C^T Lambda with the
    compiled stabilization of the constraints,  v' from the general equations)

as generated C compiled at export (no Python at run time), its named outputs
``y = g(x, t, p, w)``, parameters as tunable parameters and inputs as continuous inputs.
Model Exchange FMUs hand ``f`` to the importer's integrator; Co-Simulation FMUs step with
mechdae's Runge-Kutta integrator (Dormand-Prince 8(5,3), csrc/mdae_ode.c) compiled in,
inputs held over each communication step.

Contacts (Model Exchange): the gaps are the FMU's event indicators; at an event the FMU
solves the impact problem of the touching contacts with the contact kernel of mechdae's
event engine compiled in (``mdae_impact_solve``: Newton's law, Coulomb friction, several
contacts at once) and the speeds jump. A contact that comes to rest (impacts
accumulating: an approach slower than ``rest_velocity``, a bounce below the gap tolerance,
no separation after the impact, touching at the start) is closed: its normal row holds it,
and with friction its tangential rows too while it sticks, or Coulomb's force acts while it
slides along its tangent (the event engine's stabilization); its normal force and friction
margin ``mu lam_n - |lam_t|`` (sticking) or sliding velocity (sliding) are its event
indicators: it lifts off where the force vanishes, starts to slide at the cone's edge,
sticks or slides back where it stops. Spatial sliding (two tangents) is not in the FMU
yet: reported through the FMI logger, it ends the run.
Co-Simulation FMUs of such models locate the same events inside each communication step
(the integrator's event location on the indicators) and apply the same event update.
"""
import datetime
import os
import tempfile
import uuid

import numpy as np

from ..._version import __version__
from ._build import (CONTACT_SOURCES, CS_SOURCES, compile_fmu, compiler, contact_functions, dependencies, mode_function,
                     model_functions, platform_dirs, start_vector, write_fmu, write_sources)
from ._description import model_description
from ._variables import legal_name, variable_table

__all__ = ["export_fmu", "legal_name"]

KINDS = ("model-exchange", "co-simulation")
GAP_TOL = 1e-8
"""A contact with gap <= GAP_TOL at an event is touching (as mechdae.contact.assembly)."""
CONTACT_GAINS = (20.0, 100.0, 20.0)
"""``(alpha, beta, gamma)`` of a closed contact's rows, ``w_n u' = -2 alpha v_n - beta^2 g -
dot w_n u`` and, sticking, ``w_t u' = -gamma v_t - dot w_t u`` (the event engine's default
``contact_stabilization``)."""


def export_fmu(system, path, kind="model-exchange", fmi_version=3, q0=None, v0=None,
               params=None, inputs=None, stop_time=1.0, rtol=1e-10, atol=1e-12,
               rest_velocity=1e-6):
    """Write ``system`` as an FMU (FMI 3.0 or 2.0, Model Exchange or Co-Simulation).

    Parameters
    ----------
    system : System
        A compiled model (contacts: without general equations).
    path : str or os.PathLike
        The ``.fmu`` file to write (its folder must exist); replaced if present.
    kind : {"model-exchange", "co-simulation"}
    fmi_version : {3, 2}
    q0, v0 : dict by name or array, optional
        Initial coordinates / speeds as for :meth:`System.simulate`; the FMU's start values
        are the consistent state ``simulate`` would start from.
    params : dict, optional
        Start values of parameters (default: the compiled defaults); every parameter stays
        tunable in the FMU.
    inputs : dict, optional
        ``{name: number}``: start values of inputs (default: the declared constants).
        The importer drives the inputs; signals (functions of time, samples) are not
        compiled into an FMU.
    stop_time : float
        The DefaultExperiment's stop time (s).
    rtol, atol : float
        Tolerances of the Co-Simulation integrator (ignored for Model Exchange).
    rest_velocity : float
        Contacts: a contact approaching slower than this (normal speed) comes to rest: a
        plastic impact, then the contact is closed (frictionless, sticking or sliding).

    Returns
    -------
    str
        The FMU's path.

    Raises
    ------
    ValueError
        A bad kind or version, contacts with general equations, an input signal that is not a
        number, a path not ending in ``.fmu``.
    FileNotFoundError
        The folder of ``path`` does not exist.
    OSError
        No C compiler (set ``CC`` or install gcc / clang), or an unsupported platform.
    RuntimeError
        The compiler failed on the generated code.

    Examples
    --------
    >>> sys.export_fmu("plant.fmu")                                   # doctest: +SKIP
    >>> fmpy.simulate_fmu("plant.fmu", stop_time=2.0)                 # doctest: +SKIP
    """
    path = os.fspath(path)
    _check_call(system, path, kind, fmi_version, rtol, atol, stop_time, rest_velocity)
    x0, p0, w0 = _start_values(system, q0, v0, params, inputs)
    ode, out, out_of_state = model_functions(system)
    funcs = [ode] + ([out] if out is not None else [])
    if system.contact_names:
        funcs += list(contact_functions(system)) + [mode_function(system, CONTACT_GAINS)]
    ny = len(getattr(system, "output_names", []))
    sparsity = dict(ode=dependencies(ode, ode.size1_out(0)),
                    out=dependencies(out_of_state, ny))
    units = _units(system)
    V, layout = variable_table(system, x0, p0, w0, units, sparsity)
    cmd = compiler()
    bin_dir, suffix = platform_dirs(fmi_version)
    identifier = _identifier(system.name)
    token = "{" + str(uuid.uuid4()) + "}"
    method = "dop853"
    info = dict(model_name=system.name, identifier=identifier, token=token,
                description=_describe(system, kind, method, rtol, atol),
                tool=f"mechdae {__version__}",
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                kind=kind, stop_time=stop_time)
    with tempfile.TemporaryDirectory(prefix="mdae_fmu_") as tmp:
        src = os.path.join(tmp, "sources")
        os.mkdir(src)
        sources = write_sources(src, layout, funcs, token, kind, fmi_version,
                                start_vector(layout, x0, p0, w0),
                                dict(method=method, rtol=float(rtol), atol=float(atol),
                                     gap_tol=GAP_TOL, rest_velocity=float(rest_velocity)),
                                system)
        info["sources"] = sources
        lib = os.path.join(tmp, identifier + suffix)
        compile_fmu(cmd, src, sources, lib, kernels=set(CS_SOURCES) | set(CONTACT_SOURCES))
        write_fmu(path, model_description(info, V, layout, fmi_version), src, lib, bin_dir,
                  identifier, suffix, fmi_version, sources)
    return path


def _check_call(system, path, kind, fmi_version, rtol, atol, stop_time, rest_velocity):
    where = f"export_fmu({path!r})"
    if kind not in KINDS:
        raise ValueError(f"{where}: kind={kind!r}; give 'model-exchange' or 'co-simulation'")
    if fmi_version not in (2, 3):
        raise ValueError(f"{where}: fmi_version={fmi_version!r}; give 3 (FMI 3.0) or 2 "
                         "(FMI 2.0)")
    if len(system.contact_names) and system.nv:
        raise ValueError(f"{where}: '{system.name}' has contacts and general equations "
                         f"({', '.join(system.v_names)}); their impacts are not exported yet")
    if not system.nq + system.nu + system.nv:
        raise ValueError(f"{where}: '{system.name}' has no states; an FMU of it would "
                         "integrate nothing")
    if not path.endswith(".fmu"):
        raise ValueError(f"{where}: give a file name ending in '.fmu'")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{where}: the folder {folder!r} does not exist; create it "
                                "first (os.makedirs) or write the FMU elsewhere")
    for name, val in (("rtol", rtol), ("atol", atol), ("stop_time", stop_time),
                      ("rest_velocity", rest_velocity)):
        if not (np.isfinite(val) and val > 0):
            raise ValueError(f"{where}: {name}={val!r}; give a positive, finite number")


def _start_values(system, q0, v0, params, inputs):
    """Consistent ``x0`` (as :meth:`System.simulate` starts), parameters, input constants."""
    from ...simulate.init import initial_state
    pv = system.param_vector(params) if params else np.asarray(system.p_defaults, float)
    w0 = []
    given = dict(inputs or {})
    unknown = [k for k in given if k not in system.w_names]
    if unknown:
        raise ValueError(f"export_fmu: unknown input(s) {unknown} of '{system.name}'; "
                         f"inputs: {', '.join(system.w_names) or 'none'}")
    for name, default in zip(system.w_names, system.w_defaults):
        val = given.get(name, default)
        if callable(val) or not np.ndim(val) == 0 or not _is_number(val):
            raise ValueError(
                f"export_fmu: input '{name}' of '{system.name}' is a signal ({type(val).__name__}"
                "), not a number; an FMU's inputs are driven by the importer, so a function "
                "of time cannot be compiled in: pass a start value, export_fmu(..., "
                f"inputs={{'{name}': 0.0}}), and feed the signal from the importing tool "
                "(or write it into the model as an expression of md.time instead of an input)")
        w0.append(float(val))
    q, u, v, _ = initial_state(system, q0, v0, 0.0, pv)
    return np.concatenate([q, u, v]), pv, np.array(w0)


def _is_number(val):
    try:
        return np.isfinite(float(val))
    except (TypeError, ValueError):
        return False


def _units(system):
    units = dict(getattr(system.parent, "units", None) or {})
    return {k: v for k, v in units.items() if v}


def _identifier(name):
    """A C identifier for the binary's file name (FMI: the modelIdentifier)."""
    s = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "model"
    return s if not s[0].isdigit() else "_" + s


def _describe(system, kind, method, rtol, atol):
    text = (f"{system.name}: exported by mechdae; the stabilized index-1 ODE of the System "
            f"({system.nq} coordinates, {system.nu} speeds, {system.nv} extra states, "
            f"{system.m + system.k} constraint rows stabilized with the compiled gains) "
            "as CasADi-generated C")
    if system.contact_names:
        text += (f"; contacts {', '.join(system.contact_names)}: gaps are event indicators, "
                 "impacts solved at events by mechdae's mdae_impact_solve (Newton's law, "
                 "Coulomb friction) compiled in; a contact coming to rest is closed "
                 "(frictionless, sticking or sliding along one tangent) and lifts off where "
                 "its normal force vanishes")
    if kind == "co-simulation":
        text += (f"; Co-Simulation steps: mechdae's {method.upper()} Runge-Kutta integrator "
                 f"(adaptive, rtol={rtol:g}, atol={atol:g}) compiled in, inputs held "
                 "constant over each communication step")
    return text
