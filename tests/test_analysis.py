"""Analysis: linearization in minimal coordinates and trim, against closed forms."""
import math

import numpy as np
import pytest

import mechdae as md

G = 9.81


def cart_pole(m1=1.0, m2=0.3, l=0.5):
    return md.load("models/cart_pole.py", m1=m1, m2=m2, l=l, g=G).compile(stabilization=None)


def test_cart_pole_upright_A_B_closed_form():
    # th = pi + d: m1 x'' = F + m2 g d,  m1 l d'' = (m1 + m2) g d + F
    m1, m2, l = 1.3, 0.4, 0.7
    lin = cart_pole(m1, m2, l).linearize(q={"x": 0.2, "th": math.pi}, inputs={"F": 0.0},
                                         outputs=["x", "th"])
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    A[2, 1] = m2 * G / m1
    A[3, 1] = (m1 + m2) * G / (m1 * l)
    B = np.array([[0.0], [0.0], [1.0 / m1], [1.0 / (m1 * l)]])
    assert lin.x_names == ["x", "th", "der(x)", "der(th)"]
    np.testing.assert_allclose(lin.A, A, atol=1e-12)
    np.testing.assert_allclose(lin.B, B, atol=1e-12)
    np.testing.assert_allclose(lin.C, np.eye(4)[:2], atol=1e-15)
    np.testing.assert_allclose(lin.D, 0.0, atol=1e-15)
    ss = lin.to_scipy()
    np.testing.assert_allclose(ss.A, A, atol=1e-12)
    lam = np.sort(lin.eigenvalues.real)
    np.testing.assert_allclose(lam[-1], math.sqrt((m1 + m2) * G / (m1 * l)), rtol=1e-12)


@pytest.mark.parametrize("stab", [None, md.Baumgarte(alpha=10.0, beta=10.0),
                                  md.Baumgarte(alpha=1.0, beta=30.0),
                                  md.Mukharlyamov(H=[[-4.0]], K=[[-3.0]])],
                         ids=["none", "baumgarte10", "baumgarte1-30", "mukharlyamov"])
def test_cartesian_pendulum_bottom_two_states(stab):
    L = 2.0
    sys = md.load("models/pendulum.py", L=L).compile(stabilization=stab)
    lin = sys.linearize(q={"x": 0.0, "y": -L}, outputs=["x", "y"])
    assert lin.A.shape == (2, 2) and lin.x_names == ["x", "der(x)"]
    np.testing.assert_allclose(np.sort(lin.eigenvalues.imag), [-math.sqrt(G / L),
                                                                math.sqrt(G / L)], rtol=1e-12)
    np.testing.assert_allclose(lin.eigenvalues.real, 0.0, atol=1e-12)
    np.testing.assert_allclose(lin.C, [[1.0, 0.0], [0.0, 0.0]], atol=1e-14)   # y: 2nd order
    orth = sys.linearize(q={"x": 0.0, "y": -L}, basis="orthonormal")
    np.testing.assert_allclose(np.sort(orth.eigenvalues.imag),
                               np.sort(lin.eigenvalues.imag), rtol=1e-12)


def test_cartesian_pendulum_naive_jacobian_has_stabilization_poles():
    # what the issue reports: the Jacobian of the exported ODE mixes in the Baumgarte modes
    import casadi as ca
    sys = md.load("models/pendulum.py").compile(stabilization=md.Baumgarte(alpha=10.0,
                                                                           beta=10.0))
    dae = sys.to_casadi()
    J = ca.Function("J", [dae["x"], dae["p"], dae["t"]], [ca.jacobian(dae["ode"], dae["x"])])
    ev = np.linalg.eigvals(np.array(J([0.0, -1.0, 0.0, 0.0], dae["p0"], 0.0)))
    assert np.sum(np.abs(ev + 10.0) < 1e-6) == 2
    lin = sys.linearize(q={"x": 0.0, "y": -1.0})
    assert not np.any(np.abs(lin.eigenvalues + 10.0) < 1e-3)


def test_pendulum_at_angle_independent_coordinates_and_output_expression():
    # off the bottom the rod's slope mixes x and y; y = -sqrt(L^2 - x^2), at a general
    # point a first-order Taylor model whose xdot0 is the constrained acceleration
    L, x0 = 1.5, 0.6
    sys = md.load("models/pendulum.py", L=L).compile()
    m = sys.parent
    y0 = -math.sqrt(L ** 2 - x0 ** 2)
    th0 = math.asin(x0 / L)
    lin = sys.linearize(q={"x": x0, "y": y0}, outputs=[md.atan2(m.symbol("x"),
                                                                 -m.symbol("y"))])
    # in the chart x = L sin(theta), at rest: x'' = -g sin(theta) cos(theta), so
    # d x''/dx = -g cos(2 theta) / (L cos(theta)) (a Taylor model: the point is no equilibrium)
    w = math.sqrt(G * math.cos(2 * th0) / (L * math.cos(th0)))
    np.testing.assert_allclose(np.sort(lin.eigenvalues.imag), [-w, w], rtol=1e-12)
    np.testing.assert_allclose(lin.xdot0, [0.0, -G * math.sin(th0) * math.cos(th0)], atol=1e-12)
    # dtheta/dx = 1 / (L cos th0) along the rod
    np.testing.assert_allclose(lin.C[0], [1.0 / (L * math.cos(th0)), 0.0], rtol=1e-12)


def rolling_disk(mu):
    m = md.Model("rolling_disk")
    x, y, th = m.coordinates("x y th")
    mass, r, k = m.parameter("m", 2.0), m.parameter("r", 0.3), m.parameter("k", 50.0)
    J = m.parameter("J", 0.05)
    m.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2) + 0.5 * J * md.der(th) ** 2)
    m.potential_energy(mass * G * y + 0.5 * k * x ** 2)
    m.contact("ground", gap=y - r, tangent_velocity=[md.der(x) + r * md.der(th)],
              restitution=0.0, friction=mu)
    return m.compile(stabilization=None)


def test_rolling_disk_on_spring_contact_closed_as_constraint():
    # rolling without slipping: omega^2 = k / (m + J / r^2); normal force m g
    sys = rolling_disk(0.5)
    lin = sys.linearize(q={"y": 0.3}, outputs=["y"])
    assert lin.mode == {"ground": "stick"}
    assert lin.x_names == ["x", "th", "der(th)"]   # y dependent (gap), der(x) (rolling)
    w = math.sqrt(50.0 / (2.0 + 0.05 / 0.09))
    ev = lin.eigenvalues
    np.testing.assert_allclose(np.sort(ev.imag), [-w, 0.0, w], atol=1e-12)
    np.testing.assert_allclose(lin.contact_forces["ground"][0], 2.0 * G, rtol=1e-12)
    np.testing.assert_allclose(lin.C, 0.0, atol=1e-15)
    # frictionless: the disk slides, omega^2 = k / m, the spin is free
    sys0 = rolling_disk(0.0)
    lin0 = sys0.linearize(q={"y": 0.3})
    assert lin0.mode == {"ground": "slide"} and len(lin0.x_names) == 4
    np.testing.assert_allclose(np.sort(lin0.eigenvalues.imag),
                               [-math.sqrt(25.0), 0, 0, math.sqrt(25.0)], atol=1e-12)
    with pytest.raises(ValueError, match="slide with zero sliding speed"):
        sys.linearize(q={"y": 0.3}, contacts={"ground": "slide"})
    # open contact: a free disk (vertical motion free too)
    lin_open = sys.linearize(q={"y": 0.3}, contacts={"ground": "open"})
    assert len(lin_open.x_names) == 6


def test_chaplygin_sleigh_steady_motion_nonholonomic():
    # Bloch sec. 1.7: along u = U, omega' = -(m a U / (I + m a^2)) omega
    m, I, a = 1.0, 0.5, 0.5
    sys = md.load("models/chaplygin_sleigh.py", m=m, I=I, a=a).compile()
    for U in (1.0, -2.0):
        lin = sys.linearize(q={"theta": 0.0}, v={"der(x)": U})
        assert len(lin.x_names) == 5
        ev = lin.eigenvalues
        k = np.argmax(np.abs(ev))
        np.testing.assert_allclose(ev[k], -m * a * U / (I + m * a * a), rtol=1e-12)
        np.testing.assert_allclose(np.delete(ev, k), 0.0, atol=1e-12)


def test_linearize_refuses_inconsistent_point_and_bad_names():
    sys = md.load("models/pendulum.py").compile()
    with pytest.raises(ValueError, match="'rod' = "):
        sys.linearize(q={"x": 0.0, "y": -0.9})
    with pytest.raises(ValueError, match="unknown output 'z'"):
        sys.linearize(q={"x": 0.0, "y": -1.0}, outputs=["z"])
    with pytest.raises(ValueError, match="contact 'ground' .* pulls"):
        _pulled_off().linearize(q={"y": 0.3})
    with pytest.raises(ValueError, match="contacts: unknown contact"):
        _pulled_off().linearize(q={"y": 0.3}, contacts={"floor": "open"})


def _pulled_off():
    m = md.Model("pulled_off")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(-G * y)                    # gravity pulls it off the ground
    m.contact("ground", gap=y - 0.3, tangent=x, restitution=0.0, friction=0.5)
    return m.compile(stabilization=None)


# ---------------------------------------------------------------------- trim
def test_trim_spring_mass_under_gravity():
    m = md.Model("spring_mass")
    x = m.coordinates("x")
    k, mass, L0 = m.parameter("k", 40.0), m.parameter("m", 2.0), m.parameter("L0", 1.0)
    m.kinetic_energy(0.5 * mass * md.der(x) ** 2)
    m.potential_energy(0.5 * k * (x - L0) ** 2 + mass * G * x)
    sys = m.compile()
    eq = sys.trim(q={"x": 0.0}, free=["x"], params={"k": 30.0})
    np.testing.assert_allclose(eq.q["x"], 1.0 - 2.0 * G / 30.0, rtol=1e-13)
    assert eq.residual <= 1e-10 and set(eq.residuals) == {"der(der(x))"}
    lin = eq.linearize()
    np.testing.assert_allclose(np.abs(lin.eigenvalues.imag), math.sqrt(15.0), rtol=1e-12)


def test_trim_pendulum_held_by_torque():
    m = md.Model("held_pendulum")
    th = m.coordinates("th")
    tau = m.input("tau")
    L, mass = m.parameter("L", 0.7), m.parameter("m", 1.5)
    m.kinetic_energy(0.5 * mass * L ** 2 * md.der(th) ** 2)
    m.potential_energy(-mass * G * L * md.cos(th))
    m.generalized_force(tau, th)
    sys = m.compile()
    eq = sys.trim(q={"th": 0.5}, free=["tau"])
    np.testing.assert_allclose(eq.inputs["tau"], 1.5 * G * 0.7 * math.sin(0.5), rtol=1e-13)
    eq2 = sys.trim(q={"th": 0.1}, inputs={"tau": 2.0}, free=["th"])
    np.testing.assert_allclose(math.sin(eq2.q["th"]), 2.0 / (1.5 * G * 0.7), rtol=1e-12)
    # more torque than gravity can hold: no equilibrium, the equation named
    with pytest.raises(ValueError, match=r"der\(der\(th\)\) = "):
        sys.trim(q={"th": 0.5}, inputs={"tau": 20.0}, free=["th"])
    with pytest.raises(ValueError, match="free 'nope'"):
        sys.trim(q={"th": 0.5}, free=["nope"])


def test_trim_cartesian_pendulum_and_underdetermined():
    sys = md.load("models/pendulum.py", L=1.2).compile()
    eq = sys.trim(q={"x": 0.3, "y": -0.9}, free=["x", "y"])
    np.testing.assert_allclose([eq.q["x"], eq.q["y"]], [0.0, -1.2], atol=1e-12)
    assert set(eq.residuals) >= {"rod", "der(rod)"}
    # a free particle under no force: any x is an equilibrium
    m = md.Model("free")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    with pytest.raises(ValueError, match="does not determine 'x'"):
        m.compile().trim(free=["x"])


def test_spherical_pendulum_quaternion_chart():
    # the heavy top hanging down (spatial components, orientation a unit quaternion, body
    # angular velocities as speeds): two transverse modes +-i sqrt(M g l / (A + M l^2)),
    # the axial rotation neutral; positions are the rotation quasi-coordinates s(w)
    M, l, A = 1.0, 0.1, 0.002
    sys = md.load("models/spatial_top.py", M=M, l=l, A=A, theta=math.pi).compile(
        stabilization=None)
    lin = sys.linearize()
    assert lin.x_names[:3] == ["s(pivot.wx)", "s(pivot.wy)", "s(pivot.wz)"]
    w = math.sqrt(M * G * l / (A + M * l * l))
    ev = lin.eigenvalues
    np.testing.assert_allclose(np.sort(ev.imag), [-w, -w, 0.0, 0.0, w, w], atol=1e-9)
    np.testing.assert_allclose(ev.real, 0.0, atol=1e-12)


def test_dc_motor_drive_general_equations_closed_form():
    # components with general equations (the armature current a state of the electrical
    # network): L i' = V - R i - k w, J_eff w' = k i - b_eff w (models/dc_motor_drive.py)
    sys = md.load("models/dc_motor_drive.py").compile()
    p = dict(zip(sys.p_names, sys.p_defaults))
    r2 = p["gear.ratio"] ** 2
    J, b = p["rotor.J"] + p["load.J"] / r2, p["bearing.d"] + p["friction.d"] / r2
    R, L, k = p["R.R"], p["L.L"], p["emf.k"]
    lin = sys.linearize(outputs=["L.i", "rotor.w"])
    assert lin.x_names == ["rotor.phi", "rotor.w", "L.i"]
    A = np.array([[0.0, 1.0, 0.0], [0.0, -b / J, k / J], [0.0, -k / L, -R / L]])
    np.testing.assert_allclose(lin.A, A, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lin.C, [[0, 0, 1], [0, 1, 0]], atol=1e-14)


def test_trim_rolling_disk_on_an_incline_with_a_closed_contact():
    # a disk rolling without slip on a slope beta, its center tied by a spring k along the
    # slope: at rest k x = -m g sin(beta) (friction carries nothing at rest: J th'' = r f),
    # normal force m g cos(beta); the contact is closed and sticking in the trim
    beta, mass, k, r = 0.3, 2.0, 50.0, 0.3
    m = md.Model("disk_on_incline")
    x, y, th = m.coordinates("x y th")
    m.kinetic_energy(0.5 * mass * (md.der(x) ** 2 + md.der(y) ** 2)
                     + 0.5 * 0.05 * md.der(th) ** 2)
    m.potential_energy(mass * G * (y * math.cos(beta) + x * math.sin(beta)) + 0.5 * k * x ** 2)
    m.contact("ground", gap=y - r, tangent_velocity=[md.der(x) + r * md.der(th)],
              restitution=0.0, friction=0.8)
    sys = m.compile(stabilization=None)
    eq = sys.trim(q={"x": 0.0, "y": r}, free=["x"])
    assert eq.mode == {"ground": "stick"}
    np.testing.assert_allclose(eq.q["x"], -mass * G * math.sin(beta) / k, rtol=1e-12)
    np.testing.assert_allclose(eq.contact_forces["ground"][0], mass * G * math.cos(beta),
                               rtol=1e-12)
    np.testing.assert_allclose(eq.contact_forces["ground"][1], [0.0], atol=1e-9)


def test_block_resting_on_two_corners_redundant_contact_rows():
    # four contact rows (two normals, two sticking tangents) on three degrees of freedom:
    # the tangents are redundant; minimal coordinates: the position x only (velocity-level
    # sticking), A = 0; each corner carries m g / 2 (the minimum-norm split of the
    # redundant tangential forces: zero)
    sys = md.load("models/rocking_block.py", m=1.0, h=1.5).compile(stabilization=None)
    lin = sys.linearize(q={"x": 0.0, "y": 0.75, "th": 0.0})
    assert lin.mode == {"L": "stick", "R": "stick"} and lin.x_names == ["x"]
    np.testing.assert_allclose(lin.A, 0.0, atol=1e-12)
    for name in ("L", "R"):
        np.testing.assert_allclose(lin.contact_forces[name][0], G / 2, rtol=1e-9)
        np.testing.assert_allclose(lin.contact_forces[name][1], [0.0], atol=1e-9)
