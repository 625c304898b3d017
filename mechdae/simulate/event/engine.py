r"""The event engine: a resumable integrator that steps from event to event.

:class:`EventEngine` integrates the current mode window by window (:mod:`.phase`), looks
for the first sign change of the mode's event functions (:mod:`.location`), moves to the
located event recording the output times passed (cubic Hermite interpolants of the
window's sub-samples), and hands the event to the mode logic (:mod:`.modes`,
:mod:`.impacts`, :mod:`.accumulation`). It is used by ``method="event"`` and by
``method="auto"`` (which takes over with time stepping across chattering).

The class is assembled from rooms, one concern each: the compiled pieces it evaluates
(:mod:`.evaluation`), the integration of one mode to its first event (:mod:`.integration`),
the recorded samples (:mod:`.recording`), the mode logic (:mod:`.modes`), impacts
(:mod:`.impacts`), accumulations (:mod:`.accumulation`) and the C event cycle
(:mod:`.cycle`); this module holds the start and the event-to-event loop.
"""
import warnings

import numpy as np

from ...errors import SolverError
from .._laws import contact_laws
from ..inputs import inputs_key, constant_vector
from .accumulation import AccumulationLogic, zeno_options
from .evaluation import EngineEvaluation
from .impacts import ImpactLogic
from .integration import PhaseIntegration
from .laws import contact_laws_option
from .modes import ModeLogic
from .cycle import CycleLogic
from .phase import OPEN, offsets
from .recording import SampleRecording

__all__ = ["EventEngine", "MAX_WINDOW"]


#: Default largest window of one cvodes call (s); its ``samples_per_window`` sub-samples
#: are where event functions are checked for sign changes and the knots of the Hermite
#: outputs. Fixed, so the answer up to a time does not depend on ``t_final``.
MAX_WINDOW = 0.2


class EventEngine(EngineEvaluation, PhaseIntegration, SampleRecording, ModeLogic, ImpactLogic,
                  AccumulationLogic, CycleLogic):
    """Resumable event-driven integrator (used by ``"event"`` and ``"auto"``).

    Parameters
    ----------
    system : System
    specs : list
        Resolved input specs.
    pv : array
        Parameter vector.
    H, K : arrays
        Stabilization matrices of the bilateral constraints.
    options : dict
        See :func:`mechdae.simulate.event.simulate_event`.
    """

    def __init__(self, system, specs, pv, H, K, rtol, atol, options):
        self.system, self.specs, self.pv = system, specs, pv
        self.H, self.K = np.asarray(H, float), np.asarray(K, float)
        self.rtol, self.atol = rtol, atol
        o = options
        self.gains = tuple(float(g) for g in o["contact_stabilization"])
        self.nsub = int(o["samples_per_window"])
        self.event_tol = float(o["event_tol"])
        self.gap_tol = float(o["gap_tol"])
        self.vel_tol = float(o["vel_tol"])
        self.painleve = o["painleve"]
        self.zeno_opts = zeno_options(o["zeno"])
        self.max_events = int(o["max_events"])
        self.h_max = o["max_step"]
        from ...contact.energetic import check_rule
        self.energy_gain = check_rule(o.get("energy_gain", "fallback"))
        self.integrator_options = dict(o.get("integrator_options") or {})
        self.wc = constant_vector(specs)
        self.names = system.contact_names
        self.nc = len(self.names)
        self.offs = offsets(system)
        self.nt = [c["n_tangent"] for c in system.contacts]
        self.dim = max([2] + [1 + n for n in self.nt])
        self.e_n, self.e_t, self.mu = contact_laws(system, pv)
        self.impact_laws = contact_laws_option(o.get("impact_law", "simultaneous"), self.names)
        self.skey = inputs_key(specs)
        self._init_evaluation(system, specs, o)
        # the Runge-Kutta pair of the modes without a closed contact: 8th order at tight
        # tolerances (the default 1e-10: a spinning body in flight or a pendulum chain takes
        # 3-5x fewer steps than with the 5th-order pair); closed contacts keep the 5th-order
        # pair: at a Baumgarte-stabilized rest the 8th-order continuous extension's large
        # coefficients turn the round-off of the accelerations into 1e-13 m/s of noise
        self.rk_method = 1 if self.rtol < 1e-7 else 0        # _ode.DOP853 / _ode.DOPRI5
        self._phases = {}
        self._h0 = 0.0                # first Runge-Kutta step of a continuation (0: auto)
        self._stiff_mode = None       # a mode found stiff: cvodes for a window (see advance)
        self._stiff_tries = 0
        self.n_steps = self.n_rk = 0
        self.n_c_impacts = 0          # impacts resolved by the C cycle (.cycle)
        self._refreshed = None        # (t, mode, x) of the last _refresh
        self._terms_memo = {}
        self.events = []
        self.samples_t, self.samples_x, self.samples_mode = [], [], []
        self.n_windows = self.n_shoots = 0
        self.impact_log = {i: [] for i in range(self.nc)}
        self.pending = None           # (t_inf, contact, extra) of a closed series
        self.zeno_action = o.get("zeno_action", "extrapolate")
        self.zeno_detected = None     # (contact, t_k, t_inf, r) with zeno_action="report"
        self.zero_steps = 0
        self._calls = {}
        self.rest_velocity = o.get("rest_velocity")
        self.rest_impacts = int(o.get("rest_impacts", 2))
        self.rest_streak = []
        self.dref = np.zeros(2 * self.nc)     # see phase._split_P / _update_dref
        self.dref_log = []
        self._Pbase = np.concatenate([[0.0, 0.0], pv, self.H.ravel(order="F"),
                                      self.K.ravel(order="F"), self.wc, np.zeros(2 * self.nc)])

    # ---------------------------------------------------------------- integration
    def start(self, t0, x0, mode=None, touching=()):
        """Set the state at ``t0`` and decide the initial mode.

        ``touching``: contacts to treat as touching whatever their (small) gap.
        """
        self.t, self.x = float(t0), np.asarray(x0, float).copy()
        nq, nu = self.nq_nu()
        tm = self.terms(self.x, self.t)
        if self.nc and np.any(tm["gap"] < -1e-6):
            bad = [self.names[i] for i in range(self.nc) if tm["gap"][i] < -1e-6]
            warnings.warn(f"{self.system.name}: initial state penetrates contact(s) {bad} "
                          f"(gap {tm['gap'].min():.3g})", stacklevel=4)
        cur = mode or OPEN * self.nc
        u = self.x[nq:nq + nu]
        touch = sorted(set(self.touching(tm, u, cur)) | set(touching))
        closing = [i for i in touch if self.vn(tm, i, u) < -self.vel_tol]
        if closing:
            self.mode, self.x = self.do_impact(self.x, self.t, cur, closing)
        elif touch:
            self.mode, self.x = self.decide(self.x, self.t, touch, cur, record=mode is not None)
        else:
            self.mode = cur if mode else OPEN * self.nc
        self.x = self.project_closed(self.x, self.t, self.mode)
        self._refresh()
        self.record()

    def advance(self, t_stop, out_times, monitor=None):
        """Integrate to ``t_stop`` recording the states at ``out_times`` and at events.

        A mode with generated C (:meth:`phase`) is integrated by ``csrc/mdae_ode.c`` up to
        its next event (outputs from the Runge-Kutta continuous extension); otherwise
        window by window with cvodes (outputs: cubic Hermite interpolants of the window's
        sub-samples). Event states are integrated exactly in both.

        Returns
        -------
        str
            ``"done"`` or ``"monitor"`` (the monitor asked to stop after an event).
        """
        self.out_times = np.asarray(out_times, float)
        self.k_out = int(np.searchsorted(self.out_times, self.t, side="right"))
        span = max(t_stop - self.t, 1e-300)
        # windows: at most max_step (default MAX_WINDOW seconds, sub-samples every
        # MAX_WINDOW / K), never a fraction of the horizon: event detection and the Hermite
        # outputs would coarsen with t_final. Each cvodes call has a fixed cost (start-up of
        # its step size and order), so a window spans a whole flight when it can: the first
        # is as long as allowed, one after an event as long as the previous inter-event
        # time, and they grow 4x while nothing happens (the C integrator samples the event
        # functions on the same windows)
        h_max = self.h_max or MAX_WINDOW
        h = min(h_max, span)
        h_min = 1e-13 * max(1.0, abs(t_stop))
        last_event_t = self.t
        if self._refreshed != (self.t, self.mode, self.x.tobytes()):
            self._refresh()            # (start() has just done it for a new run)
        while self.t < t_stop - 1e-14 * max(1.0, abs(t_stop)):
            tb = t_stop
            if self.pending is not None and self.pending[0] <= tb:
                tb = self.pending[0]
            ph = None if self._stiff_mode == self.mode else self.phase(self.mode)
            cy = None if ph is None or monitor is not None else self._cycle(ph)
            if cy is not None:                 # flight phases and simple impacts in C
                which, h, last = self._run_cycle(cy, ph, tb, h, h_max, h_min)
                if last is not None:
                    last_event_t = last
            elif ph is not None:
                which = self._rk(ph, tb, h, h_max)
            else:
                which, h = self._window(tb, h, h_max)
                if which is None and self._stiff_mode == self.mode and self._stiff_tries < 3:
                    # a stiff stretch may be transient (a spatial slide starting from rest):
                    # the C integrator is tried again after each cvodes window, thrice
                    self._stiff_mode = None
            if which is None:
                continue
            self.record()
            self._handle(which)
            self.x = self.project_closed(self.x, self.t, self.mode)
            self.record()
            self._stiff_mode = None
            self._stiff_tries = 0
            self._h0 = 0.0
            self._refresh()
            dt_ev = self.t - last_event_t
            last_event_t = self.t
            h = min(max(dt_ev, 64 * h_min), h_max)
            if len(self.events) > self.max_events:
                raise SolverError(f"{self.system.name}: more than {self.max_events} events by "
                                  f"t = {self.t:.12g} (chattering contacts?); raise max_events "
                                  "or use method='auto' / 'timestepping'")
            if monitor is not None and monitor(self):
                return "monitor"
        return "done"
