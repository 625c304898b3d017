"""Planar n-link pendulum chain in absolute angles (the compile benchmark).

Link i (length ``L``, massless) carries a point mass ``m`` at its tip; ``theta_i`` is the
angle of link i from the downward vertical.  Tip positions

    x_i = sum_{j<=i} L sin theta_j,   y_i = -sum_{j<=i} L cos theta_j,
    T = m/2 sum_i (x_i'^2 + y_i'^2),   V = m g sum_i y_i.

An ODE (no constraints) with a dense mass matrix: the same system as sympy's n-link
pendulum example (``sympy.physics.mechanics``, LagrangesMethod), which
benchmarks/bench_compile.py compares against.
"""
import mechdae as md

SIMULATION = dict(
    t_final=5.0,
    q0={"theta1": 1.0},
    v0={},
    stabilization=None,
    plot=["theta1", "theta2", "theta3"],
)


def build(n=8, L=1.0, m=1.0, g=9.81):
    """Build an ``n``-link chain; ``L``, ``m``, ``g`` are parameter defaults."""
    n = int(n)
    if n < 1:
        raise ValueError(f"nlink_chain: n must be >= 1, got {n}")
    model = md.Model(f"chain{n}")
    th = model.coordinates(" ".join(f"theta{i + 1}" for i in range(n)))
    th = th if isinstance(th, tuple) else (th,)
    L = model.parameter("L", L)
    mass = model.parameter("m", m)
    g = model.parameter("g", g)
    x = y = 0
    vx = vy = 0
    T = V = 0
    for k, t in enumerate(th):
        x0, y0 = x, y
        x = x + L * md.sin(t)
        y = y - L * md.cos(t)
        model.draw(f"link{k + 1}", [(x0, y0), (x, y)])     # what Result.animate draws
        model.draw(f"bob{k + 1}", [(x, y)], radius=0.05 * L)
        vx = vx + L * md.cos(t) * md.der(t)
        vy = vy + L * md.sin(t) * md.der(t)
        T = T + 0.5 * mass * (vx ** 2 + vy ** 2)
        V = V + mass * g * y
    model.kinetic_energy(T)
    model.potential_energy(V)
    return model
