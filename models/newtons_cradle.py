"""Newton's cradle: ``n`` equal balls on a line, frictionless, restitution ``e``.

Ball ``i`` (mass ``m``, radius ``r``) has the coordinate ``x{i}`` of its center; neighbors
touch when ``x{i+1} - x{i} = 2 r`` (contact ``c{i}{i+1}``, frictionless, Newton
restitution ``e``, no tangent). When ball 1 strikes the touching row all contacts are
closed at once: a simultaneous impact. With Newton's law the contact-space problem is an
LCP with the positive definite Delassus matrix ``D = tridiag(-1, 2, -1)/m``, so its
solution is unique: for ``e = 1`` and three balls it gives ``(-1/3, 2/3, 2/3) v0`` (energy
and momentum conserved, since ``dT = P^T (v+ + v-)/2 = P^T w/2 = 0`` by complementarity),
not the observed ``(0, 0, v0)``. The observed outcome is the sequence of binary impacts,
obtained by resolving one contact at a time (``active=["c12"]``, then ``["c23"]``, ...),
or in a simulation by the sequential multiple-impact law,
``simulate(..., method="event", impact_law="sequential")``
(:mod:`mechdae.simulate.event.laws`; with ``e < 1`` the binary impacts 1-2, 2-3, 1-2).
Both outcomes are consistent with the impact laws; the simultaneous law (the default)
picks the first.
"""
import mechdae as md

SIMULATION = dict(t_final=1.0, q0={"x1": -0.5, "x2": 0.1, "x3": 0.2}, v0={"x1": 1.0})


def build(n=3, m=1.0, r=0.05, e=1.0):
    """Build a cradle of ``n`` (3 to 5) balls; ``e`` is a parameter."""
    if not 2 <= int(n) <= 8:
        raise ValueError(f"n: number of balls must be between 2 and 8, got {n}")
    n = int(n)
    model = md.Model("newtons_cradle")
    xs = model.coordinates(" ".join(f"x{i + 1}" for i in range(n)))
    m = model.parameter("m", m)
    r = model.parameter("r", r)
    e = model.parameter("e", e)
    model.kinetic_energy(sum(0.5 * m * md.der(x) ** 2 for x in xs))
    for i in range(n - 1):
        model.contact(f"c{i + 1}{i + 2}", gap=xs[i + 1] - xs[i] - 2 * r, restitution=e)
    # what Result.animate draws: the balls on their line, the contact points between them
    for i, x in enumerate(xs):
        model.draw(f"ball{i + 1}", [(x, 0.0)], radius=r)
    for i in range(n - 1):
        model.draw(f"c{i + 1}{i + 2}", [(xs[i] + r, 0.0)], kind="point")
    return model


def touching_state(n=3, r=0.05, v0=1.0):
    """Balls touching in a row, ball 1 moving with ``v0``."""
    q = {f"x{i + 1}": 2 * r * i for i in range(n)}
    v = {"x1": v0}
    return q, v
