"""Slider-crank mechanism (closed kinematic loop), in a vertical plane.

Crank OA (length ``r``, moment of inertia ``J1`` about O, angle ``th1``), connecting rod
AB (length ``l``, uniform, mass ``m2``, angle ``th2`` measured below the x axis), slider B
(mass ``m3``) on the x axis at ``s``.  Coordinates ``(th1, th2, s)``, closure:

    phi_x = r cos th1 + l cos th2 - s = 0,    phi_y = r sin th1 - l sin th2 = 0.

A standard multibody benchmark (e.g. Haug, *Computer Aided Kinematics and Dynamics of
Mechanical Systems*, 1989, sec. 6.5).  One degree of freedom; energy is conserved.
"""
import mechdae as md

SIMULATION = dict(
    t_final=5.0,
    q0={"th1": 0.0},
    v0={"th1": 6.0},
    stabilization=md.Baumgarte(alpha=20.0, beta=20.0),
    plot=["th1", "th2", "s"],
)


def build(r=1.0, l=2.0, J1=0.5, m2=1.0, m3=1.0, g=9.81):
    """Build the slider-crank; keyword arguments are parameter defaults."""
    model = md.Model("slider_crank")
    th1, th2, s = model.coordinates("th1 th2 s")
    r = model.parameter("r", r)
    l = model.parameter("l", l)
    J1 = model.parameter("J1", J1)
    m2 = model.parameter("m2", m2)
    m3 = model.parameter("m3", m3)
    g = model.parameter("g", g)
    # center of the connecting rod
    xc = r * md.cos(th1) + 0.5 * l * md.cos(th2)
    yc = r * md.sin(th1) - 0.5 * l * md.sin(th2)
    vc2 = md.der(xc) ** 2 + md.der(yc) ** 2
    model.kinetic_energy(0.5 * J1 * md.der(th1) ** 2 + 0.5 * m2 * vc2
                         + 0.5 * (m2 * l ** 2 / 12) * md.der(th2) ** 2 + 0.5 * m3 * md.der(s) ** 2)
    model.potential_energy(m2 * g * yc)
    model.holonomic(md.vertcat(r * md.cos(th1) + l * md.cos(th2) - s,
                               r * md.sin(th1) - l * md.sin(th2)), name="loop")
    # what Result.animate draws: crank, connecting rod, slider and its guide
    A = (r * md.cos(th1), r * md.sin(th1))
    model.draw("crank", [(0.0, 0.0), A])
    model.draw("rod", [A, (s, 0.0)])
    model.draw("slider", [(s, 0.0)], radius=0.08 * r)
    model.draw("guide", [(0.0, 0.0), (r + l + 0.5 * r, 0.0)], kind="surface")
    return model
