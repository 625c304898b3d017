r"""The Painlevé cases met during a simulation: the ``painleve=`` rule of "event", "auto"
and "unified".

A contact that touches with zero normal velocity while it slides has the normal
acceleration ``a_n = U lam_n + F`` (seed 003, eq. 2.5; ``U = w_n^T M^-1 (w_n - mu s w_t)``,
``F`` the free normal acceleration). With ``U > 0`` the contact force is unique. With
``U <= 0`` (Painlevé):

- ``F < 0``, *inconsistent*: no contact force ``lam_n >= 0`` keeps the contact; the
  only resolution is an *impact without collision* (a tangential impact: an impulse at
  zero normal velocity that stops or reverses the sliding, Génot & Brogliato 1999);
- ``F > 0``, *indeterminate*: lift-off (``lam_n = 0``, ``a_n = F``), staying in contact
  and sliding on (``lam_n = -F/U``), and, often, the impact without collision are all
  consistent.

With several contacts the same two cases are "no" and "several" consistent mode
combinations of the contact problem. The rule a run follows is its ``painleve`` option:

============== =========================================== ==============================
value          indeterminate (several solutions)           inconsistent (no solution)
============== =========================================== ==============================
``None``       lift-off, with a RuntimeWarning (default)   raise :class:`PainleveError`
``"liftoff"``  the solution with the fewest closed         raise
               contacts, then the least normal force
``"stay"``     the most closed contacts, then the largest  raise
               normal force (slide on)
``"impact"``   the impact without collision                the impact without collision
``"raise"``    raise :class:`PainleveError`                raise
============== =========================================== ==============================

or a dict ``{"indeterminate": rule, "inconsistent": rule}`` (a key left out keeps its
default).

*Painlevé's jam*: ``U`` of a contact passes through 0 *during* a sliding phase (``U > 0 > F``
falling, or the ``"stay"`` branch ``U < 0 < F`` rising): the contact force ``-F/U`` grows
without bound there. "unified" and "event" watch ``U`` with an event function of the
sliding phase ("event": ``phase._jam_function``, firing at ``U / D_nn = 1e-10``, ``D_nn``
the frictionless compliance) and record the case as "unified" names it, ``"inconsistent"``
(past ``U = 0`` with ``F < 0`` no contact force exists) or ``"jam"`` (the ``"stay"``
branch), under the rule of the inconsistent case: ``"impact"`` (method "event": the impact
without collision, listed as the alternative) or raise. On Painlevé's rod the sliding
approaches ``U = F = 0`` together (Génot & Brogliato 1999): the angular speed grows and
``F = -g + th'^2 sin th`` tends to 0 with ``U``. Every case met is recorded as a ``"painleve"`` event with ``extra["case"]``,
``extra["rule"]``, ``extra["alternatives"]`` (each consistent solution: ``kind``
``"liftoff"``, ``"stay"``, ``"modes"`` or ``"impact"``, the contact modes, forces ``lam`` or
impulse ``P``), ``extra["chosen"]`` (index into the alternatives, None when raising) and
``U``, ``F`` of the sliding contact. A raised :class:`PainleveError` carries the same in
``err.case``, ``err.alternatives``, ``err.t``, ``err.contact``, ``err.U``, ``err.F``, and the
Result up to the event in ``err.partial``.
"""
import warnings

from ..errors import PainleveError

__all__ = ["painleve_rules", "INDETERMINATE_RULES", "INCONSISTENT_RULES", "pick", "label",
           "painleve_error", "warn_default", "describe"]

INDETERMINATE_RULES = ("liftoff", "stay", "impact", "raise")
INCONSISTENT_RULES = ("impact", "raise")
_DEFAULT = dict(indeterminate="liftoff", inconsistent="raise", warn=True)


def painleve_rules(option):
    """``{"indeterminate": rule, "inconsistent": rule, "warn": bool}`` from ``painleve=``.

    ``warn`` is True when the indeterminate rule is the default one (not chosen).

    Raises
    ------
    ValueError
        An unknown value, naming the valid ones.
    """
    if option is None:
        return dict(_DEFAULT)
    if isinstance(option, str):
        if option not in INDETERMINATE_RULES:
            raise ValueError(f"painleve: must be one of {INDETERMINATE_RULES}, None (lift-off "
                             "with a warning where several solutions exist, an error where "
                             "none) or a dict {'indeterminate': rule, 'inconsistent': rule}; "
                             f"got {option!r}")
        return dict(indeterminate=option,
                    inconsistent=option if option in INCONSISTENT_RULES else "raise",
                    warn=False)
    if not isinstance(option, dict):
        raise ValueError(f"painleve: must be a str, None or a dict, got {type(option).__name__}")
    bad = set(option) - {"indeterminate", "inconsistent"}
    if bad:
        raise ValueError(f"painleve: unknown key(s) {sorted(bad)}; keys: 'indeterminate', "
                         "'inconsistent'")
    out = dict(_DEFAULT)
    for key, valid in (("indeterminate", INDETERMINATE_RULES),
                       ("inconsistent", INCONSISTENT_RULES)):
        if key in option:
            if option[key] not in valid:
                raise ValueError(f"painleve[{key!r}]: must be one of {valid}, got "
                                 f"{option[key]!r}")
            out[key] = option[key]
    out["warn"] = "indeterminate" not in option
    return out


def pick(alternatives, rule):
    """Index of the alternative the rule takes (None for ``"raise"`` or when the rule's
    alternative does not exist). ``alternatives``: dicts with ``kind``, ``closed`` (number
    of contacts kept closed) and ``normal`` (sum of the normal forces or impulses)."""
    forces = [a for a, alt in enumerate(alternatives) if alt["kind"] != "impact"]
    if rule == "impact":
        imp = [a for a, alt in enumerate(alternatives) if alt["kind"] == "impact"]
        return imp[0] if imp else None
    if rule == "liftoff" and forces:
        return min(forces, key=lambda a: (alternatives[a]["closed"], alternatives[a]["normal"]))
    if rule == "stay" and forces:
        return max(forces, key=lambda a: (alternatives[a]["closed"], alternatives[a]["normal"]))
    return None


def label(alternatives):
    """Name the force alternatives ``liftoff`` (fewest closed) / ``stay`` (most closed);
    others keep ``kind="modes"``."""
    forces = [a for a, alt in enumerate(alternatives) if alt["kind"] != "impact"]
    if len(forces) >= 2:
        lo, hi = pick(alternatives, "liftoff"), pick(alternatives, "stay")
        if lo != hi:
            alternatives[lo]["kind"] = "liftoff"
            alternatives[hi]["kind"] = "stay"
    return alternatives


def describe(alternatives):
    """One line per alternative, for messages."""
    out = []
    for alt in alternatives:
        modes = ", ".join(f"{k}: {v}" for k, v in alt["modes"].items())
        if alt["kind"] == "impact":
            out.append(f"impulsive (normal impulse {alt['normal']:.6g}; {modes})")
        else:
            out.append(f"{alt['kind']} (normal force {alt['normal']:.6g}; {modes})")
    return "; ".join(out) if out else "none"


def _where(method, t, contact, case, U, F):
    what = ("no consistent contact force" if case == "inconsistent"
            else "several consistent solutions")
    un = "" if U is None else f" with U = {U:.6g}, F = {F:.6g}"
    return (f"{method}: Painlevé {case} case at t = {t:.12g}: contact '{contact}' "
            f"sliding{un} ({what})")


def painleve_error(method, t, contact, case, U, F, alternatives, note="", hint=None):
    """The :class:`PainleveError` of a case the rule does not resolve (attributes set);
    ``hint`` replaces the default advice on the rule to pass."""
    msg = _where(method, t, contact, case, U, F)
    msg += f"; alternatives: {describe(alternatives)}"
    if note:
        msg += f"; {note}"
    if hint is None:
        hint = ("pass painleve='impact' to resolve it by an impact without collision"
                if case == "inconsistent" else
                "pass painleve='liftoff', 'stay' or 'impact' to choose one")
    if hint:
        msg += f"; {hint}"
    err = PainleveError(msg)
    err.t, err.contact, err.case, err.U, err.F = t, contact, case, U, F
    err.alternatives = alternatives
    return err


def warn_default(method, t, contact, U, F, alternatives, chosen, stacklevel=3,
                 rules="'liftoff', 'stay', 'impact' or 'raise'"):
    """RuntimeWarning of the default rule (lift-off) in an indeterminate case."""
    warnings.warn(_where(method, t, contact, "indeterminate", U, F)
                  + f": {describe(alternatives)}; took "
                  f"{alternatives[chosen]['kind'] if chosen is not None else 'none'} (the "
                  f"default); pass painleve={rules} to choose",
                  RuntimeWarning, stacklevel=stacklevel)
