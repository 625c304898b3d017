r"""The Painlevé cases of ``method="unified"`` (seed 003: "U <= 0 leads to paradoxical
situations, which are not considered here", after (3.6)).

The unified form of a sliding contact has ``\ddot g = U N + F`` (2.5) with
``U = w_n^T M^{-1} (w_n - \mu W_t^T \sigma)``, which friction can make ``<= 0``. A run meets
it in three places, each recorded as a ``"painleve"`` event (:mod:`._painleve`):

- on the support (``s = v = 0``) sliding with ``U <= 0``: from the initial state, after an
  accumulation of impacts, or where ``U`` crosses zero during sliding (an event function
  of its own: the contact force ``-F/U`` grows without bound there, Painlevé's jam).
  ``F < 0``: inconsistent, :class:`PainleveError`. ``F > 0``: indeterminate — lift-off
  (the rule (2.9) ``\dot v = \max\{0, F\}``), or ``"stay"``: sliding on with
  ``N = -F/U`` (``\dot v = 0`` while ``F > 0``; where ``F`` falls to 0 the case becomes
  inconsistent, where ``U`` rises to 0 the force ``-F/U`` is unbounded: both raise);
- at an impact while sliding with ``U <= 0``: the sliding impact law (3.9), ``P_n =
  (\dot g^+ - \dot g^-)/U``, would need a negative normal impulse — no solution; the
  Newton–Coulomb impact kernel's solutions (a sticking impact) are listed as the
  alternatives and :class:`PainleveError` is raised (method "event" resolves such an
  impact with the kernel).

The impact without collision (``painleve="impact"``) is a rule of "event" and "auto" only:
the unified state ``(q, \tilde u, s, v)`` has no sticking-impact branch, so "unified"
rejects that rule before it starts.
"""
import numpy as np

from ..errors import SolverError
from ._painleve import label, painleve_error, painleve_rules, pick, warn_default
from .result import Event

__all__ = ["unified_rules", "UnifiedPainleve"]

_HINT = dict(inconsistent="method='event' (painleve='impact') resolves it by an impact "
             "without collision", indeterminate="pass painleve='liftoff' or 'stay' to choose")


def unified_rules(system, option):
    """Parsed ``painleve=`` of a unified run; ``"impact"`` is refused (ValueError)."""
    rules = painleve_rules(option)
    if "impact" in (rules["indeterminate"], rules["inconsistent"]):
        raise ValueError(f"{system.name}: painleve='impact' (an impact without collision) is a "
                         "rule of method='event' and 'auto'; method 'unified' follows "
                         "'liftoff', 'stay' or 'raise' (None: lift-off with a warning)")
    return rules


def _impulsive(system, q, u, params, cname, t):
    """Solutions of the Newton–Coulomb impact problem at ``(q, u)`` with a positive normal
    impulse, as alternatives (``kind="impact"``)."""
    try:
        out = system.impact(q, u, active=[cname], all_solutions=True, params=params, t=t,
                            energy_gain="fallback")
    except (SolverError, ValueError):      # no impact solution to list (the kernel says why)
        return []
    alts = []
    for sol in out.solutions:
        P = np.asarray(sol.impulses[cname], float)
        if P[0] > 0:
            alts.append(dict(kind="impact", modes=dict(sol.modes), P={cname: P}, closed=1,
                             normal=float(P[0]), v_plus=np.array(sol.v_plus_array)))
    return alts


class UnifiedPainleve:
    """The Painlevé logic of one unified run (rules, events, warnings, errors)."""

    def __init__(self, system, option, params, events, energy):
        self.system, self.params, self.events, self.energy = system, params, events, energy
        self.rules = unified_rules(system, option)
        self.cname = system.contact_names[0]

    def _record(self, t, case, rule, alts, k, U, F, E):
        self.events.append(Event(t, self.cname, "painleve", None, E, E, case=case, rule=rule,
                                 alternatives=alts, chosen=k, U=U, F=F))

    def on_support(self, t, q, u, F, U, mu, sigma, nt):
        """Sliding on the support with ``U <= 0``: ``"liftoff"`` or ``"stay"`` (the rule's
        choice, recorded), or PainleveError."""
        c = self.cname
        E = self.energy(q, u, t)
        lam = -F / U if U != 0 else np.inf
        alts = []
        if F >= 0:
            alts.append(dict(kind="modes", modes={c: "separate"}, lam={c: np.zeros(1 + nt)},
                             closed=0, normal=0.0))
            if np.isfinite(lam):
                alts.append(dict(kind="modes", modes={c: "slide"},
                                 lam={c: np.concatenate([[lam], -mu * lam * np.asarray(sigma)])},
                                 closed=1, normal=float(lam)))
            label(alts)
        alts += _impulsive(self.system, q, u, self.params, c, t)
        case = "indeterminate" if F > 0 and np.isfinite(lam) else "inconsistent"
        rule = self.rules[case]
        k = pick(alts, rule)
        self._record(t, case, rule, alts, k, U, F, E)
        if k is None:
            raise painleve_error("unified", t, c, case, U, F, alts, hint=_HINT[case])
        if case == "indeterminate" and self.rules["warn"]:
            warn_default("unified", t, c, U, F, alts, k, stacklevel=5,
                         rules="'liftoff', 'stay' or 'raise'")
        return alts[k]["kind"]

    def jam(self, t, q, u, F, U):
        """The ``"stay"`` branch reaches ``U = 0`` with ``F > 0``: ``N = -F/U`` unbounded."""
        E = self.energy(q, u, t)
        self._record(t, "jam", "stay", [], None, U, F, E)
        err = painleve_error("unified", t, self.cname, "inconsistent", U, F, [],
                             hint=_HINT["inconsistent"], note="the sliding branch chosen by painleve='stay' reaches U = 0 "
                             "where its contact force -F/U grows without bound (a jam)")
        err.case = "jam"
        return err

    def at_impact(self, t, q, um, gm, U):
        """An impact while sliding with ``U <= 0``: the sliding law (3.9) has no solution."""
        alts = _impulsive(self.system, q, um, self.params, self.cname, t)
        E = self.energy(q, um, t)
        self._record(t, "inconsistent", "raise", alts, None, U, None, E)
        return painleve_error("unified", t, self.cname, "inconsistent", U, float("nan"), alts,
                              hint="", note=f"an impact (normal velocity {gm:.6g}) with the sliding "
                              "impact law of the unified form needs the normal impulse "
                              "(gdot+ - gdot-)/U < 0; method='event' resolves it with the "
                              "Newton-Coulomb impact kernel (the listed alternatives)")
