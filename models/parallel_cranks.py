"""Parallel cranks: a chain of parallelogram four-bars in a vertical plane.

``n + 1`` equal cranks (uniform rods, length ``r``, mass ``mk``) turn about the pivots
``(i d, 0)``, ``i = 0 .. n``; coupler ``i`` (a uniform bar of length ``d``, mass ``mc``,
centre ``(x_i, y_i)``, angle ``p_i``) is pinned to the tips of cranks ``i`` and ``i + 1``.
Each loop is a four-bar whose coupler equals its ground link and whose cranks are equal: a
parallelogram. Gravity ``g`` along ``-y``.

Coordinates ``th_0 .. th_n`` (crank angles from the ground line), ``x_i, y_i, p_i``;
``4 n`` pin constraints, one degree of freedom.

Singular positions: at ``th = 0`` and ``th = pi`` (cranks along the ground line) the two
x-rows of each loop's pins coincide, the constraint Jacobian loses ``n`` ranks and the
mechanism could continue on the anti-parallelogram branch (the coupler turning). The
physical motion keeps the coupler translating (``p_i = 0``) with every crank at the same
angle ``th``; then the coupler moves with the crank tips (speed ``r th'``) and

    T = 1/2 I th'^2,   I = (n + 1) mk r^2 / 3 + n mc r^2,
    V = A sin th,      A = ((n + 1) mk / 2 + n mc) g r,

so the reduced equation is the pendulum-like ``I th'' = -A cos th`` (see
``reduced_rhs``). (K. J. Waldron and G. L. Kinzel, *Kinematics, Dynamics, and Design of
Machinery*, 2004, sec. 1.8 on the change points of a Grashof four-bar; a parallelogram
has two per turn.)
"""
import math

import mechdae as md

SIMULATION = dict(
    t_final=3.0,
    q0={"th0": 0.3, "th1": 0.3, "x0": math.cos(0.3) + 1.0, "y0": math.sin(0.3), "p0": 0.0},
    v0={"th0": 8.0, "th1": 8.0, "x0": -8.0 * math.sin(0.3), "y0": 8.0 * math.cos(0.3),
        "p0": 0.0},
    plot=["th0", "th1", "p0"],
)


def build(n_loops=1, r=1.0, d=2.0, mk=1.0, mc=1.0, g=9.81):
    """Build ``n_loops`` parallelogram loops; keyword arguments are parameter defaults."""
    m = md.Model("parallel_cranks" if n_loops == 1 else f"parallel_cranks_{n_loops}")
    r, d = m.parameter("r", r), m.parameter("d", d)
    mk, mc, g = m.parameter("mk", mk), m.parameter("mc", mc), m.parameter("g", g)
    th = [m.coordinates(f"th{i}") for i in range(n_loops + 1)]
    T, V, pins = 0, 0, []
    for a in th:
        T = T + 0.5 * (mk * r ** 2 / 3) * md.der(a) ** 2
        V = V + mk * g * 0.5 * r * md.sin(a)
    for i in range(n_loops):
        x, y, p = m.coordinates(f"x{i} y{i} p{i}")
        T = T + 0.5 * mc * (md.der(x) ** 2 + md.der(y) ** 2) \
            + 0.5 * (mc * d ** 2 / 12) * md.der(p) ** 2
        V = V + mc * g * y
        pins += [r * md.cos(th[i]) + i * d - (x - 0.5 * d * md.cos(p)),
                 r * md.sin(th[i]) - (y - 0.5 * d * md.sin(p)),
                 r * md.cos(th[i + 1]) + (i + 1) * d - (x + 0.5 * d * md.cos(p)),
                 r * md.sin(th[i + 1]) - (y + 0.5 * d * md.sin(p))]
    m.kinetic_energy(T)
    m.potential_energy(V)
    m.holonomic(md.vertcat(*pins), name="pins")
    # what Result.animate draws: the cranks from their ground pins and the couplers
    for i, a in enumerate(th):
        m.draw(f"crank{i}", [(i * d, 0.0), (i * d + r * md.cos(a), r * md.sin(a))])
    for i in range(n_loops):
        x, y, p = (m.symbol(f"{c}{i}") for c in "xyp")
        m.draw(f"coupler{i}", [(x - 0.5 * d * md.cos(p), y - 0.5 * d * md.sin(p)),
                               (x + 0.5 * d * md.cos(p), y + 0.5 * d * md.sin(p))])
    return m


def branch_state(n_loops, th, w, r=1.0, d=2.0):
    """``(q0, v0)`` dicts on the physical branch: every crank at ``th`` turning at ``w``,
    the couplers translating."""
    q = {f"th{i}": th for i in range(n_loops + 1)}
    v = {f"th{i}": w for i in range(n_loops + 1)}
    for i in range(n_loops):
        q.update({f"x{i}": r * math.cos(th) + (i + 0.5) * d, f"y{i}": r * math.sin(th),
                  f"p{i}": 0.0})
        v.update({f"x{i}": -r * w * math.sin(th), f"y{i}": r * w * math.cos(th),
                  f"p{i}": 0.0})
    return q, v


def reduced_rhs(n_loops, r=1.0, mk=1.0, mc=1.0, g=9.81):
    """``f(t, (th, th')) -> (th', th'')`` of the reduced equation ``I th'' = -A cos th``."""
    inertia = (n_loops + 1) * mk * r ** 2 / 3 + n_loops * mc * r ** 2
    A = ((n_loops + 1) * mk / 2 + n_loops * mc) * g * r
    return lambda t, y: [y[1], -A * math.cos(y[0]) / inertia]
