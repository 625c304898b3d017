"""Numbers at one state of a compiled System: parameter and state vectors from names, and
the compiled Functions evaluated there (a mixin of :class:`mechdae.symbolic.system.System`)."""
from __future__ import annotations

import math

import numpy as np
from .._typing import Any, Optional, Values

__all__ = ["SystemValues"]


def _number(val, where, name, model):
    """``float(val)``, or a ValueError naming the entry (``params={"L": "abc"}``)."""
    try:
        return float(val)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: value of '{name}' for model '{model}' is {val!r}, not a "
                         f"number; give a float ({where}={{{name!r}: 1.0}})") from None


class SystemValues:
    """Values of a System at one state, by name or in System order.

    Turns the user's dicts (or arrays) of parameters, coordinates, speeds and inputs into
    arrays in the System's order (defaults filled, unknown names and non-finite values
    refused with the valid names), and evaluates the compiled Functions there
    (:meth:`dynamics_terms`, :meth:`contact_terms`, :meth:`constraint_rank`). Needs the
    attributes set by :class:`~mechdae.symbolic.system.System` (names, defaults,
    ``functions``).
    """

    def param_vector(self, params: Optional[Values] = None) -> np.ndarray:
        """Parameter vector in System order from a dict (names left out: defaults)."""
        pv = self.p_defaults.copy()
        if params:
            index = self._name_index()["p"]
            for k, val in params.items():
                i = index.get(k)
                if i is None:
                    raise ValueError(self.unknown_parameter(k))
                pv[i] = val if type(val) is float else _number(val, "params", k, self.name)
        # inf is meaningful for some parameters (friction = inf: no sliding); NaN never is
        s2 = pv @ pv                       # NaN iff some entry is NaN (squares: no inf - inf)
        bad = [n for n, x in zip(self.p_names, pv) if np.isnan(x)] if s2 != s2 else ()
        if bad:
            raise ValueError(f"params: value of {', '.join(repr(b) for b in bad)} is NaN "
                             f"for model '{self.name}'; give a number")
        return pv

    def unknown_parameter(self, name: str) -> str:
        """The message for ``params={name: ...}`` naming no parameter of this System (an
        evaluated one says so, with its value and the fix)."""
        ev = getattr(self, "evaluated", {})
        if name in ev:
            return (f"parameter '{name}' of model '{self.name}' was evaluated at compile "
                    f"(compile(evaluate=...)): its value {ev[name]!r} is part of the "
                    "equations; compile without evaluating it to vary it")
        return (f"unknown parameter '{name}' for model '{self.name}'; "
                f"parameters: {', '.join(self.p_names) or 'none'}")

    def state_arrays(self, q: Optional[Values] = None, v: Optional[Values] = None,
                     given_v: bool = False) -> tuple:
        """``(q, u, v_extra, given_q, given_u)`` arrays from dicts/arrays (defaults filled).

        ``q`` dict keys: coordinate names or names of states of the general equations
        (``"x"``, ``"der(x)"``, ...); ``v`` keys: speed names, coordinate names for
        coordinates whose speed is ``der(x)``, or a variable ``x`` of derivative order >= 2
        (meaning ``der(x)``).  With ``given_v=True`` a sixth array flags the general states
        that were given.
        """
        qa, ua, va = self.q_defaults.copy(), self.u_defaults.copy(), self.v_defaults.copy()
        gq = np.zeros(self.nq, bool)
        gu = np.zeros(self.nu, bool)
        gv = np.zeros(self.nv, bool)
        index = self._name_index()
        if q is not None:
            if isinstance(q, dict):
                for k, val in q.items():
                    i = index["q"].get(k)
                    if i is not None:
                        qa[i] = val if type(val) is float else _number(val, "q0", k, self.name)
                        gq[i] = True
                    elif k in index["v"]:
                        i = index["v"][k]
                        va[i] = _number(val, "q0", k, self.name)
                        gv[i] = True
                    else:
                        raise ValueError(f"q0: unknown coordinate '{k}' for model '{self.name}'; "
                                         f"coordinates: {', '.join(self.q_names + self.v_names)}")
            else:
                arr = np.asarray(q, dtype=float).ravel()
                if arr.size not in (self.nq, self.nq + self.nv):
                    raise ValueError(f"q0: expected {self.nq} values (System order "
                                     f"{self.q_names}), got {arr.size}")
                qa[:] = arr[:self.nq]
                if arr.size > self.nq:
                    va[:] = arr[self.nq:]
                    gv[:] = True
                gq[:] = True
        if v is not None:
            if isinstance(v, dict):
                coord_speed = index["coord_speed"]
                for k, val in v.items():
                    i = index["u"].get(k)
                    if i is not None:
                        ua[i] = val if type(val) is float else _number(val, "v0", k, self.name)
                        gu[i] = True
                        continue
                    name = coord_speed.get(k)
                    if name is None and self.v_order.get(k, 0) >= 2:
                        i = self.v_names.index(f"der({k})")
                        va[i] = _number(val, "v0", k, self.name)
                        gv[i] = True
                        continue
                    if name is None:
                        raise ValueError(f"v0: unknown speed '{k}' for model '{self.name}'; "
                                         f"speeds: {', '.join(self.u_names)}")
                    i = index["u"][name]
                    ua[i] = _number(val, "v0", k, self.name)
                    gu[i] = True
            else:
                arr = np.asarray(v, dtype=float).ravel()
                if arr.size != self.nu:
                    raise ValueError(f"v0: expected {self.nu} values (System order "
                                     f"{self.u_names}), got {arr.size}")
                ua[:] = arr
                gu[:] = True
        for label, names, arr in (("q0", self.q_names, qa), ("v0", self.u_names, ua),
                                  ("q0", self.v_names, va)):
            if math.isfinite(arr @ arr):   # every entry finite (an overflow: checked below)
                continue
            bad = [n for n, x in zip(names, arr) if not np.isfinite(x)]
            if bad:
                raise ValueError(f"{label}: {', '.join(repr(b) for b in bad)} not finite for "
                                 f"model '{self.name}'; give finite values")
        if given_v:
            return qa, ua, va, gq, gu, gv
        return qa, ua, va, gq, gu

    def _name_index(self):
        """Name -> position dicts of q, u, v and p, and coordinate -> speed name (built
        once: the dict-by-name calls of impact() and simulate() look names up here)."""
        idx = self.__dict__.get("_names_idx")
        if idx is None:
            idx = self._names_idx = dict(
                q={n: i for i, n in enumerate(self.q_names)},
                u={n: i for i, n in enumerate(self.u_names)},
                v={n: i for i, n in enumerate(self.v_names)},
                p={n: i for i, n in enumerate(self.p_names)},
                coord_speed={c: s for s, c in self.speed_of.items()})
        return idx

    def _pw(self, params, inputs, t=0.0):
        pv = self.param_vector(params)
        from ..simulate.inputs import input_values
        wv = input_values(self, inputs, np.atleast_1d(float(t)), pv)[:, 0] if self.w_names \
            else np.zeros(0)
        return pv, wv

    def dynamics_terms(self, q: Values, v: Values, t: float = 0.0, params: Optional[Values] = None,
                       inputs: Optional[Values] = None) -> dict:
        """Numerical ``M, h, G, A, b, phi, psi, W, Wt, Wdot_u, gap`` at one state.

        Parameters
        ----------
        q, v : dict by name or array in System order
        t : float
        params, inputs : dict, optional

        Returns
        -------
        dict of numpy arrays
        """
        qa, ua, va, _, _ = self.state_arrays(q, v)
        pv, wv = self._pw(params, inputs, t)
        F = self.functions
        z = np.zeros(self.nz)
        if self.nv + self.nz:
            z = np.array(F["extras_solve"](qa, ua, va, t, pv, wv)[1]).ravel()
        A, b = F["A"](qa, t, pv)
        y, zc, C, c = F["constraints"](qa, ua, t, pv)
        return dict(M=np.array(F["M"](qa, pv)), h=np.array(F["h"](qa, ua, va, z, t, pv, wv)).ravel(),
                    G=np.array(F["G"](qa, t, pv)), A=np.array(A), b=np.array(b).ravel(),
                    phi=np.array(y).ravel(), psi=np.array(F["psi"](qa, ua, t, pv)).ravel(),
                    C=np.array(C), c=np.array(c).ravel(),
                    W=np.array(F["W"](qa, t, pv)), Wt=np.array(F["Wt"](qa, t, pv)).ravel(),
                    Wdot_u=np.array(F["Wdot_u"](qa, ua, t, pv)).ravel(),
                    gap=np.array(F["gap"](qa, t, pv)).ravel())

    def contact_terms(self, q: Values, v: Values, t: float = 0.0, params: Optional[Values] = None,
                      inputs: Optional[Values] = None) -> dict:
        """D-level contact ingredients ``M, h, W, Wt, Wdot_u, gap`` (plus ``G``, ``A``, ``c``).

        ``W`` stacks, per contact in :attr:`contact_names` order, the normal row ``w_n^T``
        then the tangential rows ``w_t^T`` (see :attr:`contact_rows`); the contact
        velocities are ``v_c = W u + Wt`` (``Wt``: the rheonomic part, zero for contacts
        that do not move with time) and their rates ``W u' + Wdot_u``.
        """
        return self.dynamics_terms(q, v, t, params, inputs)

    def contact_law(self, name: str) -> dict:
        """Restitution, friction, tangential restitution and law of contact ``name``."""
        for c in self.contacts:
            if c["name"] == name:
                return dict(c)
        raise KeyError(f"model '{self.name}' has no contact '{name}'")

    def constraint_rank(self, q: Values, t: float = 0.0, params: Optional[Values] = None,
                        tol: float = 1e-9) -> Any:
        """Numerical rank of the holonomic Jacobian ``G(q)`` (relative tolerance ``tol``)."""
        qa, _, _, _, _ = self.state_arrays(q, None)
        G = np.array(self.functions["G"](qa, t, self.param_vector(params)))
        if G.size == 0:
            return 0
        s = np.linalg.svd(G, compute_uv=False)
        return int(np.sum(s > tol * max(s[0], 1e-300)))
