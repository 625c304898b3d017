"""Rich display in Jupyter: ``_repr_html_`` of Model, System and Result (small tables).

Each function returns an HTML fragment: a caption with the object's name and a table of
what a reader looks for first (sizes, names, parameters with their values and units,
events by kind, the final values of the first series). Names are escaped; long lists are
cut with a count of what is left out.
"""
import collections
import html

import numpy as np

__all__ = ["model_html", "system_html", "result_html"]

_SHOW = 12


def _names(names, units=None):
    names = list(names)
    units = units or {}
    shown = [html.escape(n + (f" ({units[n]})" if units.get(n) else "")) for n in names[:_SHOW]]
    more = f", ... ({len(names) - _SHOW} more)" if len(names) > _SHOW else ""
    return ", ".join(shown) + more if names else "&mdash;"


def _table(caption, rows):
    body = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
                   f"<td style='text-align:left'>{v}</td></tr>" for k, v in rows)
    return (f"<table><caption style='text-align:left'><b>{html.escape(caption)}</b>"
            f"</caption>{body}</table>")


def model_html(model):
    """The Model: coordinates, parameters (defaults, units), constraints, contacts,
    components."""
    units = getattr(model, "units", {}) or {}
    params = [f"{html.escape(p['name'])} = {p['default']!r}" +
              (f" {html.escape(units[p['name']])}" if units.get(p["name"]) else "")
              for p in model.params[:_SHOW]]
    if len(model.params) > _SHOW:
        params.append(f"... ({len(model.params) - _SHOW} more)")
    comps = collections.Counter(type(c).__name__ for c in model.components)
    rows = [("coordinates", _names([c["name"] for c in model.coords], units)),
            ("parameters", ", ".join(params) or "&mdash;"),
            ("inputs", _names([i["name"] for i in model.inputs])),
            ("holonomic", _names([n for n, _ in model.holonomic_])),
            ("nonholonomic", _names([n for n, _ in model.nonholonomic_])),
            ("contacts", _names([c.name for c in model.contacts])),
            ("components", ", ".join(f"{html.escape(k)} &times; {v}" for k, v in
                                     sorted(comps.items())) or "&mdash;")]
    return _table(f"Model {model.name!r}", rows)


def system_html(system):
    """The compiled System: sizes, names, contacts and stabilization."""
    rows = [("sizes", f"n_q = {system.nq}, n_u = {system.nu}, m = {system.m} holonomic, "
                      f"k = {system.k} nonholonomic"),
            ("q", _names(system.q_names)),
            ("u", _names(system.u_names)),
            ("parameters", _names(system.p_names)),
            ("inputs", _names(system.w_names)),
            ("contacts", _names(system.contact_names)),
            ("stabilization", html.escape(repr(system.stabilization)))]
    return _table(f"System {system.name!r}", rows)


def result_html(res):
    """The Result: time span, method, events by kind, final values of the coordinates."""
    t = np.asarray(res.t)
    kinds = collections.Counter(e.kind for e in res.events)
    units = res.units if res.system is not None else {}
    q = list(res.names.get("q", []))[:_SHOW]
    finals = ", ".join(f"{html.escape(n)} = {float(res[n][-1]):.6g}" +
                       (f" {html.escape(units[n])}" if units.get(n) else "") for n in q)
    rows = [("time span", f"[{t[0]:.6g}, {t[-1]:.6g}] s, {t.size} points"),
            ("method", html.escape(str(res.stats.get("method", "?")))),
            ("status", html.escape(str(res.status))),
            ("events", ", ".join(f"{html.escape(k)} {v}" for k, v in kinds.most_common())
             or "none"),
            ("final", finals or "&mdash;"),
            ("series", _names(res.keys()[1:], units))]
    return _table(f"Result {res.name!r}", rows)
