"""Column of beads (Siconos ColumnOfBeadsTS): n beads of radius R stacked on the ground.

Bead i has height ``y_i``; contacts: ground-bead 0 (``g_0 = y_0 - R``) and bead i-bead i+1
(``g_i = y_i+1 - y_i - 2R``), Newton restitution e, no friction; gravity g. With n = 10 it
is the 10-contact planar system of the time-stepping benchmark.
"""
import mechdae as md

# Moreau-Jean time stepping as in Siconos ColumnOfBeadsTS (h = 5e-4), the benchmark's
# reference. (The event method handles the ten contacts too -- past 8 frictionless contacts
# its contact forces come from Lemke's LCP instead of the enumeration -- but its thousands
# of impacts cost some 10 s over 2 s; method="auto" switches between the two.)
SIMULATION = dict(
    t_final=2.0,
    q0={f"y{i}": 0.1 + 0.05 + i * 0.25 for i in range(10)},
    v0={},
    method="timestepping",
    dt=5e-4,
    stabilization=None,
    plot=["y0", "y4", "y9"],
)


def build(n=10, R=0.1, m=1.0, g=9.81, e=0.9):
    """Build the column; ``initial_heights(n, R, gap)`` gives a starting state."""
    model = md.Model("column_of_beads")
    ys = model.coordinates(" ".join(f"y{i}" for i in range(n)), unit="m")
    ys = list(ys) if n > 1 else [ys]
    model.kinetic_energy(sum(0.5 * m * md.der(y) ** 2 for y in ys))
    model.potential_energy(sum(m * g * y for y in ys))
    model.contact("c0", gap=ys[0] - R, restitution=e)
    for i in range(n - 1):
        model.contact(f"c{i + 1}", gap=ys[i + 1] - ys[i] - 2 * R, restitution=e)
    for i, y in enumerate(ys):
        model.draw(f"bead{i}", [(0.0, y)], radius=R)
    model.draw("ground", [(-1.0, 0.0), (1.0, 0.0)], kind="surface")
    return model


def initial_heights(n=10, R=0.1, gap=0.05):
    """Beads separated by ``gap`` above the ground and each other."""
    return {f"y{i}": R + gap + i * (2 * R + gap) for i in range(n)}
