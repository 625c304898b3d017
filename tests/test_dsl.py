"""The modeling language: symbols, der(), rigid bodies, and validation messages."""
import math

import casadi as ca
import numpy as np
import pytest

import mechdae as md


def test_der_of_coordinate_is_its_speed_and_chain_rule_applies():
    m = md.Model("p")
    x, y = m.coordinates("x y")
    assert str(md.der(x)) == "der(x)"
    e = md.der(x ** 2 * md.sin(y))
    f = ca.Function("f", [x, y, md.der(x), md.der(y)], [e])
    # d/dt (x^2 sin y) = 2 x x' sin y + x^2 cos y y'
    val = float(f(1.5, 0.3, 2.0, -1.0))
    assert val == pytest.approx(2 * 1.5 * 2.0 * math.sin(0.3) + 1.5 ** 2 * math.cos(0.3) * -1.0)


def test_elementary_functions_work_on_numbers_and_symbols():
    assert md.sin(0.5) == pytest.approx(math.sin(0.5))
    assert md.atan2(1.0, 1.0) == pytest.approx(math.pi / 4)
    m = md.Model("f")
    x = m.coordinates("x")
    assert isinstance(md.sqrt(x), ca.SX)
    assert isinstance(md.if_else(x > 0, x, -x), ca.SX)


def test_rigid_body_names_and_defaults():
    m = md.Model("bodies")
    m.rigid_body("b1", mass=1.0, inertia=0.1, planar=True)
    m.rigid_body("b2", mass=1.0, inertia=[1.0, 2.0, 3.0])
    s = m.compile()
    assert s.u_names == ["b1.vx", "b1.vy", "b1.w", "b2.vx", "b2.vy", "b2.vz",
                         "b2.wx", "b2.wy", "b2.wz"]
    assert s.q_names[3:] == ["b2.x", "b2.y", "b2.z", "b2.q0", "b2.q1", "b2.q2", "b2.q3"]
    assert s.q_defaults[s.q_names.index("b2.q0")] == 1.0


def test_planar_body_point_velocity_matches_der_of_position():
    m = md.Model("pb")
    b = m.rigid_body("b", mass=1.0, inertia=0.1, planar=True)
    p = (0.3, -0.2)
    e = md.der(b.position(p)) - b.velocity(p)
    f = ca.Function("f", [ca.vertcat(b.x, b.y, b.theta, b.vx, b.vy, b.w)], [e])
    assert np.allclose(np.array(f([0.1, 0.2, 0.7, 1.0, -2.0, 3.0])), 0, atol=1e-14)


def test_bad_model_is_rejected_with_every_problem_named():
    other = md.Model("other")
    stranger = other.coordinates("z")
    m = md.Model("bad")
    x, y = m.coordinates("x y")
    w = m.coordinates("w")                       # no inertia
    m.parameter("k", float("nan"))               # NaN default
    with pytest.raises(md.ModelError, match=r"parameter 'x': the name is already used by a "
                       r"coordinate"):
        m.parameter("x", 1.0)                    # duplicate name: refused where declared
    tau = m.input("tau")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2) * (1 + tau ** 2))
    m.potential_energy(stranger * y)
    m.nonholonomic(md.der(x) ** 2 - md.der(y), name="skid")
    m.contact("A", gap=y + md.der(x))
    m.contact("B", gap=y - tau)
    with pytest.raises(md.ModelError) as exc:
        m.compile()
    msg = str(exc.value)
    probs = exc.value.problems
    assert len(probs) >= 7, msg
    assert "parameter 'k'" in msg and "not finite" in msg
    assert "kinetic energy: depends on input(s) 'tau'" in msg
    assert "symbol 'z' that does not belong to model 'bad'" in msg
    assert "nonholonomic constraint 'skid': not linear in the velocities" in msg
    assert "coordinate 'w': has no dynamics" in msg
    assert "contact 'A': gap expression depends on speeds" in msg
    assert "contact 'B': gap expression depends on input 'tau'" in msg


def test_too_many_constraints_rejected():
    m = md.Model("over")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.holonomic(x - 1, name="a")
    m.holonomic(x ** 2 - 1, name="b")
    with pytest.raises(md.ModelError, match="2 constraint rows .* only 1 speeds"):
        m.compile()


def test_equations_count_checked():
    m = md.Model("eqs")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.variable("i")
    with pytest.raises(md.ModelError, match="0 equation rows for 1 extra unknowns"):
        m.compile()


def test_unstable_mukharlyamov_rejected():
    with pytest.raises(ValueError, match="not asymptotically stable"):
        md.Mukharlyamov([[1.0]], [[-1.0]]).matrices(1, 0)
    with pytest.raises(ValueError, match=r"H must be \(1, 1\)"):
        md.Mukharlyamov([[1.0, 2.0]], [[-1.0]]).matrices(1, 0)
