"""Signal shapes of Modelica.Blocks.Sources as expressions of time (the sources of
:mod:`.electrical_sources` use them; equations as in the MSL, ``offset`` and
``startTime`` included).

Each function takes the model time ``t`` and the shape's parameters (numbers or
expressions) and returns ``y(t)``. The periodic shapes count periods with ``floor`` (the
MSL counts them with time events); steps and period boundaries are discontinuities that
the variable-step integrators meet as they come (no time events are scheduled).
"""
import math

import casadi as ca

__all__ = ["step", "ramp", "sine", "cosine", "exp_sine", "exponentials", "pulse",
           "saw_tooth", "trapezoid", "time_table"]


def _started(t, startTime, value):
    return ca.if_else(t < startTime, 0, value)


def step(t, height, offset, startTime):
    """``offset + (height if t >= startTime else 0)``."""
    return offset + _started(t, startTime, height)


def ramp(t, height, duration, offset, startTime):
    """Linear rise by ``height`` over ``duration`` from ``startTime``, then constant."""
    rising = ca.if_else(t < startTime + duration, (t - startTime) * height / duration,
                        height)
    return offset + _started(t, startTime, rising)


def sine(t, amplitude, f, phase, offset, startTime):
    """``offset + amplitude sin(2 pi f (t - startTime) + phase)`` from ``startTime``."""
    return offset + _started(t, startTime,
                             amplitude * ca.sin(2 * math.pi * f * (t - startTime) + phase))


def cosine(t, amplitude, f, phase, offset, startTime):
    """``offset + amplitude cos(2 pi f (t - startTime) + phase)`` from ``startTime``."""
    return offset + _started(t, startTime,
                             amplitude * ca.cos(2 * math.pi * f * (t - startTime) + phase))


def exp_sine(t, amplitude, f, phase, damping, offset, startTime):
    """A sine decaying as ``exp(-damping (t - startTime))``."""
    tau = t - startTime
    return offset + _started(t, startTime, amplitude * ca.exp(-tau * damping) *
                             ca.sin(2 * math.pi * f * tau + phase))


def exponentials(t, outMax, riseTime, riseTimeConst, fallTimeConst, offset, startTime):
    """Rise ``outMax (1 - exp(-(t - startTime)/riseTimeConst))`` for ``riseTime``, then a
    fall from that value with ``fallTimeConst``."""
    tau = t - startTime
    y_rise = outMax * (1 - ca.exp(-riseTime / riseTimeConst))
    y = ca.if_else(tau < riseTime, outMax * (1 - ca.exp(-tau / riseTimeConst)),
                   y_rise * ca.exp(-(tau - riseTime) / fallTimeConst))
    return offset + _started(t, startTime, y)


def _period(t, period, nperiod, startTime):
    """``(T_start, active)``: the start of the current period and whether the shape is on
    (after ``startTime``; ``nperiod < 0``: forever, else that many periods)."""
    count = ca.floor((t - startTime) / period)
    active = ca.logic_and(t >= startTime, ca.logic_or(nperiod < 0, count < nperiod))
    return startTime + count * period, active


def pulse(t, amplitude, width, period, nperiod, offset, startTime):
    """``amplitude`` for the first ``width`` percent of each period, else 0."""
    T_start, active = _period(t, period, nperiod, startTime)
    on = t < T_start + period * width / 100
    return offset + ca.if_else(ca.logic_and(active, on), amplitude, 0)


def saw_tooth(t, amplitude, period, nperiod, offset, startTime):
    """``amplitude (t - T_start)/period`` in each period."""
    T_start, active = _period(t, period, nperiod, startTime)
    return offset + ca.if_else(active, amplitude * (t - T_start) / period, 0)


def trapezoid(t, amplitude, rising, width, falling, period, nperiod, offset, startTime):
    """Rise over ``rising``, hold for ``width``, fall over ``falling``, 0 for the rest of
    each ``period``."""
    T_start, active = _period(t, period, nperiod, startTime)
    tau = t - T_start
    T_width, T_falling = rising + width, rising + width + falling
    y = ca.if_else(tau < rising, amplitude * tau / rising,
                   ca.if_else(tau < T_width, amplitude,
                              ca.if_else(tau < T_falling,
                                         amplitude * (T_falling - tau) / falling, 0)))
    return offset + ca.if_else(active, y, 0)


def time_table(t, table, offset, startTime, shiftTime=None):
    """MSL's TimeTable: linear interpolation in ``table`` (rows ``(time, value)``, times
    non-decreasing; two equal times make a step) of ``t - shiftTime`` (default
    ``startTime``), extrapolated with the first and last two rows; ``offset`` before
    ``startTime``. The table is data (numbers), not parameters."""
    rows = [(float(a), float(b)) for a, b in table]
    if not rows:
        raise ValueError("time_table: give at least one row (time, value)")
    if any(b[0] < a[0] for a, b in zip(rows, rows[1:])):
        raise ValueError(f"time_table: the times {[r[0] for r in rows]} must not decrease")
    tp = t - (startTime if shiftTime is None else shiftTime)
    if len(rows) == 1:
        return offset + ca.if_else(t < startTime, 0, rows[0][1])

    def line(k):                          # segment between rows k and k + 1
        (t0, y0), (t1, y1) = rows[k], rows[k + 1]
        if t1 - t0 <= 1e-13 * abs(t1):   # MSL: a step, the next value
            return ca.SX(y1)
        return y0 + (tp - t0) * (y1 - y0) / (t1 - t0)

    y = line(len(rows) - 2)
    for k in range(len(rows) - 3, -1, -1):
        y = ca.if_else(tp < rows[k + 1][0], line(k), y)
    return offset + ca.if_else(t < startTime, 0, y)
