r"""Mode logic: which contacts are closed, sticking or sliding after an event.

At a lift-off, stop or cone event the new mode comes from the acceleration-level contact
problem on the contacts that touch (:func:`.forces.solve_contact_forces`: every mode
combination of a small set, Lemke / NSGS past it), posed
in contact space: the rows ``W_c`` of the touching contacts, the Delassus matrix
``D = W_c M_c W_c^T`` and the free contact accelerations ``b`` (``M_c`` the inverse mass
restricted by the bilateral constraints, :meth:`ModeLogic.contact_space`). Painlevé
cases (no or several consistent solutions) are recorded as ``"painleve"`` events with their
alternatives and follow the run's ``painleve`` rule (:mod:`mechdae.simulate._painleve`:
lift-off, stay, impact without collision, or raise); closed contacts are
projected onto their surfaces (:meth:`ModeLogic.project_closed`).

:class:`ModeLogic` is a part of :class:`mechdae.simulate.event.EventEngine` (it uses the
engine's ``terms``, ``energy``, ``events`` and contact data).
"""
import numpy as np

from ...errors import SolverError
from ..result import Event
from .contact_space import ContactSpace, _psolve
from .forces import solve_contact_forces
from .impacts import not_exhaustive
from .painleve import PainleveCases
from .phase import OPEN, CLOSED, STICK, SLIDE_POS, SLIDE_NEG, SLIDE_2D, SLIDING

__all__ = ["ModeLogic"]


class ModeLogic(PainleveCases, ContactSpace):
    """The decision rules of the event engine: which contacts touch, the new mode after
    an event from the contact problem (:meth:`decide`), what an event's fired functions
    mean (:meth:`_handle`), the reference directions of sliding contacts. The contact
    problems they pose are assembled by :class:`.contact_space.ContactSpace`; their
    Painlevé cases are :class:`.painleve.PainleveCases`."""

    def touching(self, tm, u, mode):
        """Contacts that are closed in ``mode`` or whose gap is within ``gap_tol``."""
        g = tm["gap"]
        return [i for i in range(self.nc) if mode[i] != OPEN or g[i] <= self.gap_tol]

    def decide(self, x, t, candidates, mode, record=True, cause=None, tol=1e-9):
        """New mode for contacts in ``candidates`` from the contact-force problem (its
        Painlevé cases follow the ``painleve`` rule: :meth:`_painleve_case`)."""
        nq, nu = self.nq_nu()
        tm = self.terms(x, t)
        u = x[nq:nq + nu]
        new = list(mode)
        for i in range(self.nc):
            if i not in candidates:
                new[i] = OPEN
        idx = []
        for i in candidates:
            if self.vn(tm, i, u) > self.vel_tol:
                new[i] = OPEN
            else:
                idx.append(i)
        if not idx:
            return "".join(new), x
        Wc, MW, D, b = self.contact_space(tm, idx)
        d = self.dim
        vc = self.velocities(tm, idx, u)
        vt = np.concatenate([vc[a * d + 1:a * d + d] for a in range(len(idx))])
        mu = self.mu[idx]
        sol = solve_contact_forces(D, b, vt, mu, [self.nt[i] for i in idx], d,
                                   slide_tol=self.vel_tol, tol=tol)
        extra = {}
        if sol.status in ("inconsistent", "indeterminate"):
            chosen, x_imp = self._painleve_case(x, t, idx, sol, D, vc, vt, mu, MW, b)
            if x_imp is not None:
                # an impact without collision: the contact problem of the new velocities
                self.zero_steps += 1
                if self.zero_steps > 20:
                    raise SolverError(f"t = {t:.12g}: impacts without collision did not "
                                      "resolve the Painlevé case at contacts "
                                      f"{[self.names[i] for i in idx]}")
                return self.decide(x_imp, t, candidates, mode, record, cause)
            if sol.status == "indeterminate":
                extra["indeterminate"] = [s.modes for s in sol.solutions]
        else:
            chosen = sol.solutions[0]
        not_exhaustive(extra, sol, t, [self.names[i] for i in idx], "contact-force")
        rest_rows = []
        for a, i in enumerate(idx):
            m = chosen.modes[a]
            if m == "separate":
                new[i] = OPEN
            elif self.mu[i] == 0 or self.nt[i] == 0:
                new[i] = CLOSED
            elif m == "stick":
                new[i] = STICK
            elif self.nt[i] == 2:
                new[i] = SLIDE_2D
                v2 = vt[(d - 1) * a:(d - 1) * a + 2]
                if np.hypot(*v2) <= self.vel_tol:
                    # from rest: against the friction force of the contact problem's
                    # solution (accurate where a_t ~ 0, just past a friction-cone exit)
                    v2 = -chosen.lam[a * d + 1:a * d + 3]
                    if not np.hypot(*v2) > 0:
                        v2 = chosen.acc[a * d + 1:a * d + 3]
                    rest_rows += [a * d + 1, a * d + 2]
                n = float(np.hypot(*v2))
                self.dref[2 * i:2 * i + 2] = v2 / n if n > 0 else 0.0
            else:
                v = vt[a] if self.nt[i] == 1 else 0.0
                if abs(v) <= self.vel_tol:
                    v = chosen.acc[a * d + 1]
                new[i] = SLIDE_POS if v > 0 else SLIDE_NEG
        if rest_rows:
            # a spatial slide from rest: remove the residual tangential speed (below
            # vel_tol, least kinetic-energy change) so that it starts along a_t exactly
            vv = vc[rest_rows]
            x = np.array(x, float)
            x[nq:nq + nu] = u - MW[:, rest_rows] @ _psolve(D[np.ix_(rest_rows, rest_rows)], vv)
        new = "".join(new)
        if record:
            self._record_modes(x, t, mode, new, extra)
        return new, x

    def _record_modes(self, x, t, mode, new, extra):
        """An event per contact whose mode changed (``"liftoff"``, ``"stick"``,
        ``"slide"``, ``"close"`` or ``"mode"``), with the energy at ``(x, t)``."""
        for i in range(self.nc):
            old, nw = mode[i], new[i]
            if old == nw:
                continue
            if nw == OPEN and old != OPEN:
                kind = "liftoff"
            elif nw == STICK:
                kind = "stick"
            elif nw in SLIDING and old in (STICK, CLOSED, OPEN) + SLIDING:
                kind = "slide"
            elif nw == CLOSED:
                kind = "close"
            else:
                kind = "mode"
            E = self.energy(x, t)
            self.events.append(Event(t, self.names[i], kind, None, E, E, mode=nw, **extra))

    def _handle(self, which):
        """Apply the event functions that fired (``which``: ``(contact, kind)`` pairs): an
        impact, Painlevé's jam, renewed sliding directions, or a new mode from the contact
        problem of the touching contacts."""
        kinds = {kd for _, kd in which}
        if "gap" in kinds:
            trig = [i for i, kd in which if kd == "gap"]
            self.mode, self.x = self.do_impact(self.x, self.t, self.mode, trig)
        elif "painleve" in kinds:
            self._jam([i for i, kd in which if kd == "painleve"][0])
        elif self._renew_directions(which):
            pass
        else:
            nq, nu = self.nq_nu()
            tm = self.terms(self.x, self.t)
            touch = self.touching(tm, self.x[nq:nq + nu], self.mode)
            old = self.mode
            self.mode, self.x = self.decide(self.x, self.t, touch, self.mode)
            if self.mode == old:
                # located just past the crossing, the violation can be below the kernel's
                # tolerance: decide again with a tight one, then a hair later
                self.mode, self.x = self.decide(self.x, self.t, touch, self.mode, tol=1e-14)
            for delta in (1e-10, 1e-9, 1e-8):
                if self.mode != old:
                    break
                dt = delta * max(1.0, abs(self.t))
                x1 = self.calls(old)[1](self.x, self.P(self.t, dt))[0].ravel()
                new, x1 = self.decide(x1, self.t + dt, touch, old, tol=1e-14)
                if new != old:
                    self.t, self.x, self.mode = self.t + dt, x1, new
            if self.mode == old:
                # a transition the contact problem does not confirm (round-off at a
                # tangency): count it and continue
                self.zero_steps += 1
                if self.zero_steps > 50:
                    raise SolverError(f"{self.system.name}: no progress at t = {self.t:.12g} "
                                      f"(events {which} keep firing in mode {old!r})")
                return
        self.zero_steps = 0

    def _renew_directions(self, which):
        """Spatial sliding whose direction turned by 60 degrees (``vt`` events of ``s``
        contacts still sliding): renew the reference directions, no mode change."""
        if not which or any(kd != "vt" or i < 0 or self.mode[i] != SLIDE_2D
                            for i, kd in which):
            return False
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        u = self.x[nq:nq + nu]
        for i, _ in which:
            o = self.offs[i]
            if not np.hypot(*(tm["W"][o + 1:o + 3] @ u + tm["Wt"][o + 1:o + 3])) > 10 * self.vel_tol:
                return False
        self._update_dref()
        return True


    def _update_dref(self):
        """Reference directions of the spatial sliding contacts: ``v_t / |v_t|`` where
        ``|v_t| > vel_tol`` (kept otherwise: a slide starting from rest keeps the direction
        the contact problem gave it); for a planar sliding contact, ``dref[2 i]`` is the sign
        of its Painlevé ``U`` at the phase start (the jam event, ``phase._jam_function``)."""
        nq, nu = self.nq_nu()
        for i, mo in enumerate(self.mode):
            if mo in (SLIDE_POS, SLIDE_NEG):
                U = self._sliding_U(self.x, self.t, i, mo)[0]
                self.dref[2 * i:2 * i + 2] = (-1.0 if U < 0 else 1.0), 0.0
        if SLIDE_2D not in self.mode:
            return
        tm = self.terms(self.x, self.t)
        u = self.x[nq:nq + nu]
        for i, mo in enumerate(self.mode):
            if mo != SLIDE_2D:
                continue
            o = self.offs[i]
            vt = tm["W"][o + 1:o + 3] @ u + tm["Wt"][o + 1:o + 3]
            n = float(np.hypot(*vt))
            if n > self.vel_tol:
                self.dref[2 * i:2 * i + 2] = vt / n
