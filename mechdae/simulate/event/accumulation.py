r"""Accumulations of impacts (Zeno points) and the velocity resolution.

A ball with restitution ``e`` under a constant normal acceleration ``a`` bounces with flight
times ``dt_{k+1} = e dt_k``: infinitely many impacts before the accumulation time

.. math::

    t_\infty = t_k + dt_k \frac{r}{1 - r}, \qquad r = dt_k / dt_{k-1} .

The engine resolves these impacts one by one as long as they are resolvable, and closes
the contact (a plastic impact, sustained contact from there) only when the series falls
below the resolution of the method:

- the pre-impact normal speed is below the velocity resolution ``v_res`` (option
  ``rest_velocity``; default ``2 sqrt(2 a_n gap_tol)``, the speed of a drop through a few
  ``gap_tol``: the bounce left is lower than ``4 gap_tol``), or
- the predicted remaining time ``dt_k r / (1 - r)`` (from the measured ratio ``r`` of the
  last flights) is below the event time resolution ``event_tol max(1, |t|)``.

An ``"accumulation"`` event is then recorded at the extrapolated ``t_inf`` (measured ratio;
the restitution when fewer than three impacts were seen). Its energy change is zero: the
energy of the remaining bounces is the plastic impact's, booked once, by that impact.

``zeno="early"`` (or ``zeno=dict(early=True, min_impacts=5, ratio_tol=0.05)``) keeps the
former early jump: after ``min_impacts`` impacts whose flight-time ratios agree the contact
is closed at once. It saves the remaining impacts (about ``log(v_res / v_k) / log(e)`` of
them) and trades the trajectory until ``t_inf`` (the body rests while the true one still
bounces) and every per-impact quantity of the remaining bounces.

Several contacts impacting in turn (a rocking block settling on its corners) have no
per-contact geometric series: once ``rest_impacts`` successive impacts come with pre-impact
speeds below the velocity resolution, the set of contacts involved is snapped to rest
(plastic impact on all of them, gaps and normal speeds projected to zero).
"""
import math

import numpy as np

from ..result import Event
from .phase import OPEN, CLOSED, STICK, SLIDING

__all__ = ["AccumulationLogic", "measured_ratio", "extrapolate", "zeno_options"]

ZENO_DEFAULTS = dict(early=False, min_impacts=5, ratio_tol=0.05, min_flight=1e-9, r_max=0.98)


def zeno_options(zeno):
    """Options of the accumulation rule from the ``zeno=`` argument (True, False, "early",
    or a dict of ``ZENO_DEFAULTS`` keys); None when off."""
    if zeno is False or zeno is None:
        return None
    out = dict(ZENO_DEFAULTS)
    if zeno == "early":
        out["early"] = True
    elif isinstance(zeno, dict):
        unknown = set(zeno) - set(out)
        if unknown:
            raise ValueError(f"zeno: unknown key(s) {sorted(unknown)}; keys: "
                             f"{', '.join(sorted(out))}")
        out.update(zeno)
    elif zeno is not True:
        raise ValueError(f"zeno: must be True, False, 'early' or a dict, got {zeno!r}")
    return out


def measured_ratio(times, n, tol, r_max=0.98):
    """Ratio ``r`` of the last flights when the last ``n`` flight-time ratios agree within
    ``tol`` (relative) and lie in ``(0, r_max)``; None otherwise.

    >>> measured_ratio([0.0, 1.0, 1.5, 1.75], 2, 1e-9)
    0.5
    """
    if len(times) < n + 2:
        return None
    t = times[-(n + 2):]
    dt = [b - a for a, b in zip(t, t[1:])]
    if not min(dt) > 0:
        return None
    r = [b / a for a, b in zip(dt, dt[1:])]
    lo, hi = min(r), max(r)
    if 0 < lo and hi < r_max and hi - lo <= tol * sum(r) / len(r):
        return float(r[-1])
    return None


def extrapolate(times, r):
    """Accumulation time ``t_k + dt_k r / (1 - r)`` of a geometric series of impacts.

    >>> extrapolate([0.0, 1.0, 1.5], 0.5)
    2.0
    """
    return times[-1] + (times[-1] - times[-2]) * r / (1.0 - r)


def _floats(a):
    """The values of a small vector as a list of floats (the same doubles, faster to index
    one by one than numpy scalars)."""
    return a if type(a) is list else np.asarray(a, float).tolist()


class AccumulationLogic:
    """Accumulation rule and rest snapping of the event engine (a part of ``EventEngine``)."""

    def accumulations(self, t, idx, approaching, vm, b, e_n):
        """Log this impact and decide which approaching contacts close (``e_n`` set to 0).

        Returns
        -------
        closing : dict
            Position in ``idx`` -> ``(t_inf, r, reason)`` of each contact whose series of
            impacts is resolved out here.
        snap : bool
            Whether the contacts snap to rest (all ``e_n`` set to 0).
        """
        d = self.dim
        vm, b = _floats(vm), _floats(b)        # a few values: plain floats are faster
        vr = self._rest_velocity(b, idx)
        if self.rest_impacts > 0 and all(abs(vm[a * d]) < vr[a] for a in approaching):
            self.rest_streak.append({idx[a] for a in approaching})
        else:
            self.rest_streak.clear()
        snap = self.rest_impacts > 0 and len(self.rest_streak) >= self.rest_impacts
        closing = {}
        for a in approaching:
            i = idx[a]
            self.impact_log[i].append(t)
            if snap or self.zeno_opts is None or not e_n[a] > 0 or closing:
                continue
            z = self._series_end(i, t, abs(vm[a * d]), vr[a], abs(b[a * d]), float(e_n[a]))
            if z is None:
                continue
            if self.zeno_action == "report":
                self.zeno_detected = (i, t) + z[:2]
            else:
                closing[a] = z
                e_n[a] = 0.0
        if snap:
            e_n[:] = 0.0
        return closing, snap

    def _series_end(self, i, t, v, v_res, a_n, e):
        """``(t_inf, r, reason)`` when the impacts of contact ``i`` end here, else None."""
        z = self.zeno_opts
        log = self.impact_log[i]
        t_res = self.event_tol * max(1.0, abs(t))
        if z["early"] or self.zeno_action == "report":
            if len(log) >= 2 and log[-1] - log[-2] < z["min_flight"] * max(1.0, abs(t)):
                return log[-1], 0.0, "min_flight"
            r = measured_ratio(log, z["min_impacts"] - 1, z["ratio_tol"], z["r_max"])
            return None if r is None else (extrapolate(log, r), r, "early")
        if self._interleaved(i):
            return None                    # several contacts in turn: rest snapping
        if len(log) >= 2 and log[-1] - log[-2] < t_res:
            return log[-1], 0.0, "time"
        r = measured_ratio(log, 2, z["ratio_tol"], z["r_max"])
        if r is not None and (log[-1] - log[-2]) * r / (1.0 - r) < t_res:
            return extrapolate(log, r), r, "time"
        if not v < v_res or not e < z["r_max"]:
            return None
        if r is not None:
            return extrapolate(log, r), r, "velocity"
        # too few impacts for a measured ratio: the flight of the rebound under a_n
        return t + 2.0 * e * v / (max(a_n, 1e-300) * (1.0 - e)), float(e), "velocity"

    def _interleaved(self, i):
        """Whether another contact impacted since contact ``i``'s previous impact."""
        if len(self.impact_log) < 2:
            return False                   # one contact: no other to interleave
        log = self.impact_log[i]
        since = log[-2] if len(log) >= 2 else -math.inf
        return any(j != i and lg and lg[-1] > since for j, lg in self.impact_log.items())

    def _rest_velocity(self, b, idx):
        """Velocity resolution per contact of ``idx``: ``rest_velocity`` when given, else
        ``2 sqrt(2 a_n gap_tol)`` (``a_n = |b_n|``, the contact's free normal acceleration,
        at least 1e-3 ``|b|``): the speed of a drop through a few ``gap_tol`` (a list)."""
        d = self.dim
        if self.rest_velocity is not None:
            return [float(self.rest_velocity)] * len(idx)
        bl = _floats(b)
        floor = 1e-3 * max(max(map(abs, bl)), 1e-300)
        return [2.0 * math.sqrt(2.0 * max(abs(bl[a * d]), floor) * self.gap_tol)
                for a in range(len(idx))]

    def _snap_to_rest(self, x, t, mode, idx, E1):
        """Close the contacts of the repeating tiny impacts (and those touching) after a
        plastic impact: positions and normal speeds projected onto the surfaces (tangential
        speeds too where they are below the resolution), then the contact-force problem
        decides the sustained mode. Records one ``"accumulation"`` event per contact
        (``reason="rest"``, ``set`` the contact names); the first carries the energy change
        of the projection (``E1``: the energy after the plastic impact)."""
        nq, nu = self.nq_nu()
        d = self.dim
        members = set(idx).union(*self.rest_streak)
        self.rest_streak.clear()
        tm = self.terms(x, t)
        members = sorted(i for i in members if tm["gap"][i] <= 100 * self.gap_tol
                         or mode[i] != OPEN)
        if not members:
            return mode, x
        _, _, _, b = self.contact_space(tm, members)
        vc = self.velocities(tm, members, x[nq:nq + nu])
        vr = self._rest_velocity(b, members)
        tmp = list(mode)
        for a, i in enumerate(members):
            vt = vc[a * d + 1:a * d + 1 + self.nt[i]]
            stick = self.nt[i] and self.mu[i] > 0 and np.all(np.abs(vt) < vr[a])
            tmp[i] = STICK if stick else (mode[i] if mode[i] in SLIDING else CLOSED)
        x = self.project_closed(x, t, "".join(tmp), gap_max=1e-3)
        new, x = self.decide(x, t, sorted(set(members) | {i for i in range(self.nc)
                                                          if mode[i] != OPEN}), mode)
        x = self.project_closed(x, t, new)
        E2 = self.energy(x, t)
        names = [self.names[i] for i in members]
        for k, i in enumerate(members):
            self.impact_log[i].clear()
            self.events.append(Event(t, self.names[i], "accumulation", None,
                                     E1 if k == 0 else E2, E2, reason="rest", set=names,
                                     mode=new[i]))
        if self.pending is not None and self.pending[1] in members:
            self.pending = None
        return new, x

    def _record_pending(self):
        """The ``"accumulation"`` event of a closed series, once its ``t_inf`` is passed
        (no energy change: the plastic impact that closed the contact booked it)."""
        t_inf, i, extra = self.pending
        self.pending = None
        E = self.energy(self.x, self.t)
        self.events.append(Event(t_inf, self.names[i], "accumulation", None, E, E, **extra))
