"""modelDescription.xml of a mechdae FMU, FMI 3.0 or FMI 2.0.

The variables (:mod:`._variables`) in value-reference order; the model structure lists
every output and every state derivative (in state order: the order of the continuous state
vector) with the states and inputs it depends on (the sparsity of the generated
functions), and the initial unknowns (derivatives and outputs, computed at initialization).
"""
from xml.sax.saxutils import quoteattr

__all__ = ["model_description"]


def _num(x):
    return repr(float(x))


def _attrs(**kw):
    return "".join(f" {k}={quoteattr(str(v))}" for k, v in kw.items() if v is not None)


def model_description(info, V, layout, fmi_version):
    """The XML text.

    Parameters
    ----------
    info : dict
        ``model_name, identifier, token, description, tool, date, kind ("model-exchange"
        or "co-simulation"), sources (list of file names), stop_time``.
    V : list of Variable
    layout : dict
        From :func:`._variables.variable_table`.
    fmi_version : {2, 3}
    """
    units = sorted({v.unit for v in V if v.unit})
    return (_xml3 if fmi_version == 3 else _xml2)(info, V, layout, units)


def _head(info, version, token_key, n_events=0):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<fmiModelDescription'
            + _attrs(fmiVersion=version, modelName=info["model_name"],
                     **{token_key: info["token"]}, description=info["description"],
                     generationTool=info["tool"], generationDateAndTime=info["date"],
                     variableNamingConvention="structured")
            + (_attrs(numberOfEventIndicators=n_events) if version == "2.0" else "") + ">\n")


def _units(units):
    if not units:
        return ""
    return ("  <UnitDefinitions>\n"
            + "".join(f"    <Unit{_attrs(name=u)}/>\n" for u in units)
            + "  </UnitDefinitions>\n")


def _experiment(info):
    return f"  <DefaultExperiment{_attrs(startTime='0.0', stopTime=_num(info['stop_time']))}/>\n"


def _xml3(info, V, layout, units):
    ident = info["identifier"]
    common = dict(modelIdentifier=ident, canGetAndSetFMUState="true",
                  canSerializeFMUState="true")
    if info["kind"] == "model-exchange":
        iface = f"  <ModelExchange{_attrs(**common)}/>\n"
    else:
        iface = (f"  <CoSimulation{_attrs(**common, canHandleVariableCommunicationStepSize='true')}"
                 "/>\n")
    out = [_head(info, "3.0", "instantiationToken"), iface, _units(units), _experiment(info),
           "  <ModelVariables>\n"]
    for v in V:
        a = dict(name=v.name, valueReference=v.vr, description=v.original,
                 causality=v.causality, variability=v.variability, initial=v.initial)
        if v.causality == "input":
            a["initial"] = None
        if v.kind == "time":
            a.pop("description")
        out.append(f"    <Float64{_attrs(**a)}"
                   + _attrs(start=None if v.start is None else _num(v.start), unit=v.unit,
                            derivative=v.derivative_of) + "/>\n")
    out.append("  </ModelVariables>\n  <ModelStructure>\n")
    by_vr = {v.vr: v for v in V}
    for v in V:
        if v.kind == "output":
            out.append(f"    <Output{_attrs(valueReference=v.vr, dependencies=_dep3(v))}/>\n")
    for d in layout["der_vr"]:
        out.append("    <ContinuousStateDerivative"
                   f"{_attrs(valueReference=d, dependencies=_dep3(by_vr[d]))}/>\n")
    for vr in _initial_unknowns(V, layout):
        out.append(f"    <InitialUnknown{_attrs(valueReference=vr)}/>\n")
    for v in V:
        if v.kind == "event":
            out.append(f"    <EventIndicator{_attrs(valueReference=v.vr)}/>\n")
    out.append("  </ModelStructure>\n</fmiModelDescription>\n")
    return "".join(out)


def _dep3(v):
    return " ".join(str(d) for d in v.depends)


def _initial_unknowns(V, layout):
    """Outputs and the derivative variables (initial calculated), by value reference."""
    out = {v.vr for v in V if v.kind == "output"}
    by_vr = {v.vr: v for v in V}
    out |= {d for d in layout["der_vr"] if by_vr[d].initial == "calculated"}
    return sorted(out)


def _xml2(info, V, layout, units):
    ident = info["identifier"]
    files = "".join(f"      <File{_attrs(name=f)}/>\n" for f in info["sources"])
    common = dict(modelIdentifier=ident, canGetAndSetFMUstate="true",
                  canSerializeFMUstate="true", canNotUseMemoryManagementFunctions="true")
    if info["kind"] == "model-exchange":
        iface = (f"  <ModelExchange{_attrs(**common)}>\n    <SourceFiles>\n{files}"
                 "    </SourceFiles>\n  </ModelExchange>\n")
    else:
        iface = (f"  <CoSimulation{_attrs(**common, canHandleVariableCommunicationStepSize='true')}"
                 f">\n    <SourceFiles>\n{files}    </SourceFiles>\n  </CoSimulation>\n")
    out = [_head(info, "2.0", "guid", sum(v.kind == "event" for v in V)), iface, _units(units), _experiment(info),
           "  <ModelVariables>\n"]
    index = {v.vr: k + 1 for k, v in enumerate(V)}        # FMI 2: 1-based position
    for v in V:
        a = dict(name=v.name, valueReference=v.vr, description=v.original,
                 causality=v.causality, variability=v.variability, initial=v.initial)
        if v.causality == "input":
            a["initial"] = None
        if v.kind == "time":
            a.pop("description")
        real = _attrs(start=None if v.start is None else _num(v.start), unit=v.unit,
                      derivative=None if v.derivative_of is None else index[v.derivative_of])
        out.append(f"    <ScalarVariable{_attrs(**a)}>\n      <Real{real}/>\n"
                   "    </ScalarVariable>\n")
    out.append("  </ModelVariables>\n  <ModelStructure>\n")
    by_vr = {v.vr: v for v in V}
    outs = [v for v in V if v.kind == "output"]
    if outs:
        out.append("    <Outputs>\n")
        for v in outs:
            out.append(f"      <Unknown{_attrs(index=index[v.vr], dependencies=_dep2(v, index))}"
                       "/>\n")
        out.append("    </Outputs>\n")
    out.append("    <Derivatives>\n")
    for d in layout["der_vr"]:
        v = by_vr[d]
        out.append(f"      <Unknown{_attrs(index=index[d], dependencies=_dep2(v, index))}/>\n")
    out.append("    </Derivatives>\n")
    init = sorted(index[vr] for vr in _initial_unknowns(V, layout))
    if init:
        out.append("    <InitialUnknowns>\n")
        out.extend(f"      <Unknown{_attrs(index=k)}/>\n" for k in init)
        out.append("    </InitialUnknowns>\n")
    out.append("  </ModelStructure>\n</fmiModelDescription>\n")
    return "".join(out)


def _dep2(v, index):
    return " ".join(str(index[d]) for d in v.depends)
