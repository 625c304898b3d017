"""Issue 23 item 4: initial states that violate contacts.

A ball started 5 cm inside the floor used to gain 7.5 J under "event" and "auto" (the
closed contact's Baumgarte law g'' = -2 alpha g' - beta^2 g pushed it out with
m (g + beta^2 |g|) = 510 N and released it at 3.8 m/s), and one started 1 m below with
initialize=False was launched to y = 130 m. Now initialize=True projects the state onto
g(q) >= 0 in the kinetic metric (speeds of the contacts it closed made non-approaching:
kinetic energy never increases; the potential energy the lift costs is reported), the run
never exceeds the projected state's energy, and initialize=False is an error naming the
contacts, their gaps and the fix (mechdae.simulate.init_contacts).
"""
import warnings

import numpy as np
import pytest

import mechdae as md

from _modeling import MODELS

G, R = 9.81, 0.1
METHODS = ["event", "auto", "timestepping", "unified"]


@pytest.fixture(scope="module")
def ball():
    return md.load(str(MODELS / "bouncing_ball.py")).compile(stabilization=None)


def _run(system, *args, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = system.simulate(*args, **kw)
    return res, [str(x.message) for x in w]


@pytest.mark.parametrize("method", METHODS)
def test_ball_five_cm_inside_the_floor_is_lifted_onto_it_without_gaining_energy(ball, method):
    res, said = _run(ball, 1.0, q0={"x": 0.0, "y": R - 0.05}, method=method)
    rep = res.init_report
    assert rep["gap(ground)"] == pytest.approx((-0.05, 0.0), abs=1e-12)
    assert rep["y"] == pytest.approx((0.05, R), abs=1e-12)
    assert rep["kinetic energy"] == (0.0, 0.0)
    # the lift costs m g |g0| of potential energy, reported (0.4905 J -> 0.981 J)
    assert rep["potential energy"] == pytest.approx((G * 0.05, G * R), rel=1e-12)
    assert any("contact 'ground' (gap -0.05)" in s for s in said), said
    E = np.asarray(res.energy)
    E1 = G * R                                   # the projected state: at rest on the floor
    assert E[0] == pytest.approx(E1, rel=1e-12)
    assert E.max() <= E1 + 1e-9                  # was 7.98 J under event / auto
    assert np.max(res["y"]) <= R + 1e-9          # no launch: the ball rests on the floor
    assert np.min(res["y"]) >= R - 1e-6


@pytest.mark.parametrize("method", METHODS)
def test_approaching_speed_of_the_projected_contact_is_removed(ball, method):
    """5 cm inside, falling at 2 m/s and sliding at 1 m/s (mu = 0): on the floor the normal
    speed goes (plastic, frictionless), the sliding stays: T 2.5 J -> 0.5 J."""
    res, _ = _run(ball, 0.5, q0={"x": 0.0, "y": R - 0.05}, v0={"x": 1.0, "y": -2.0},
                  method=method)
    rep = res.init_report
    assert rep["der(y)"] == pytest.approx((-2.0, 0.0), abs=1e-12)
    assert "der(x)" not in rep
    assert rep["kinetic energy"] == pytest.approx((2.5, 0.5), rel=1e-12)
    E = np.asarray(res.energy)
    assert E.max() <= 0.5 + G * R + 1e-9
    assert np.max(res["y"]) <= R + 1e-9
    # sliding on at 1 m/s: x = t
    assert res["x"][-1] == pytest.approx(res.t[-1], abs=1e-6)


def test_a_state_that_only_touches_is_not_projected(ball):
    """A round-off gap (-1e-13) keeps its speeds: the approaching ball bounces (e = 0.8)."""
    res, said = _run(ball, 0.2, q0={"y": R - 1e-13}, v0={"y": -1.0}, method="event")
    assert not any(k.startswith("gap(") for k in res.init_report)
    imp = [e for e in res.events if e.kind == "impact"]
    assert imp and imp[0].t == 0.0
    assert imp[0].extra["v_plus"][0] == pytest.approx(0.8, rel=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_initialize_false_names_the_contact_its_gap_and_the_fix(ball, method):
    with pytest.raises(ValueError) as info:
        ball.simulate(1.0, q0={"x": 0.0, "y": R - 1.0}, method=method, initialize=False)
    msg = str(info.value)
    assert "contact 'ground' (gap -1)" in msg
    assert "initialize=True" in msg and "every gap >= 0" in msg


@pytest.mark.parametrize("method", ["event", "auto"])
def test_one_metre_below_with_initialize_true_is_not_launched(ball, method):
    """The story's second ball (launched to y = 130 m before): projected, it rests."""
    res, _ = _run(ball, 1.0, q0={"x": 0.0, "y": R - 1.0}, method=method)
    assert res.init_report["gap(ground)"][0] == pytest.approx(-1.0)
    assert np.max(res["y"]) <= R + 1e-9
    assert np.max(res.energy) <= G * R + 1e-9


@pytest.fixture(scope="module")
def block():
    return md.load(str(MODELS / "rocking_block.py")).compile()


@pytest.mark.parametrize("method", ["event", "auto", "timestepping"])
def test_block_with_both_corners_below_ground_is_laid_flat_and_rests(block, method):
    """Tilted by 0.1 rad with its center at y = 0.6 (corners at -0.196 and -0.096): the
    nearest admissible configuration in the kinetic metric is the block flat on both
    corners (th = 0, y = h/2 = 0.75), where it rests: E = m g h/2 throughout."""
    res, said = _run(block, 1.0, q0={"x": 0.0, "y": 0.6, "th": 0.1}, method=method)
    rep = res.init_report
    assert set(k for k in rep if k.startswith("gap(")) == {"gap(L)", "gap(R)"}
    assert rep["gap(L)"][1] == pytest.approx(0.0, abs=1e-12)
    assert rep["gap(R)"][1] == pytest.approx(0.0, abs=1e-12)
    assert rep["th"][1] == pytest.approx(0.0, abs=1e-12)
    assert rep["y"][1] == pytest.approx(0.75, abs=1e-12)
    E = np.asarray(res.energy)
    assert E[0] == pytest.approx(G * 0.75, rel=1e-12)
    assert np.max(E) <= G * 0.75 + 1e-8
    # at rest (Moreau-Jean: the O(g dt^2) sink of a step held by a closed contact)
    tol = 1e-4 if method == "timestepping" else 1e-7
    assert np.max(np.abs(res["y"] - 0.75)) <= tol


@pytest.mark.parametrize("method", ["event", "auto", "timestepping"])
def test_block_one_corner_below_while_rocking_keeps_its_energy_bound(block, method):
    res, _ = _run(block, 1.0, q0={"x": 0.0, "y": 0.7, "th": 0.3}, v0={"th": 2.0},
                  method=method)
    rep = res.init_report
    assert rep["gap(R)"][0] > 0.13                     # R was 0.13 m above (moved along)
    assert rep["gap(L)"] == pytest.approx((-0.1642618, 0.0), abs=1e-6)
    T0, T1 = rep["kinetic energy"]
    assert T0 == pytest.approx(0.5 * (1.5 ** 2 + 1.0) / 12 * 4.0)   # I w^2 / 2
    assert T1 <= T0                                    # the projection adds no kinetic energy
    E1 = T1 + rep["potential energy"][1]
    assert res.energy[0] == pytest.approx(E1, rel=1e-12)
    assert np.max(res.energy) <= E1 + 1e-8


def _box(mu=0.0):
    """A spatial cube (edge 1 m, 2 kg) with its four bottom corners as contacts."""
    a, m_ = 0.5, 2.0
    J = m_ * (2 * a) ** 2 / 6
    m = md.Model("box")
    b = m.rigid_body("b", mass=m_, inertia=[J, J, J], planar=False)
    m.potential_energy(m_ * G * b.z)
    for i, (sx, sy) in enumerate([(1, 1), (1, -1), (-1, 1), (-1, -1)]):
        p = b.position([sx * a, sy * a, -a])
        m.contact(f"c{i}", gap=p[2], tangent=[p[0], p[1]], restitution=0.0, friction=mu)
    return m.compile(stabilization=None)


@pytest.mark.parametrize("method", ["event", "timestepping"])
def test_spatial_box_with_two_corners_below_ground(method):
    """Tilted 0.3 rad about x with its center at z = 0.5: corners c1, c3 are 0.125 m below
    the ground. Projected (quaternion kept unit), the box stands on that edge and falls
    onto its face without gaining energy."""
    s = _box()
    th = 0.3
    q0 = {"b.z": 0.5, "b.q0": np.cos(th / 2), "b.q1": np.sin(th / 2)}
    res, said = _run(s, 0.6, q0=q0, method=method)
    rep = res.init_report
    below = sorted(k for k in rep if k.startswith("gap(") and rep[k][0] < 0)
    assert below == ["gap(c1)", "gap(c3)"]
    assert rep["gap(c1)"][0] == pytest.approx(-0.125428, abs=1e-6)
    gaps = np.array(s.functions["gap"](res.q[0], 0.0, res.params)).ravel()
    assert gaps.min() >= -1e-12 and abs(gaps[1]) < 1e-12 and abs(gaps[3]) < 1e-12
    assert np.linalg.norm(res.q[0, 3:7]) == pytest.approx(1.0, abs=1e-14)
    E = np.asarray(res.energy)
    assert np.max(E) <= E[0] + 1e-8
    assert np.max(res["b.z"]) <= res["b.z"][0] + 1e-9
    assert any("contact 'c1'" in m and "contact 'c3'" in m for m in said)


def test_pendulum_on_a_floor_is_projected_along_its_circle():
    """A pendulum (rod x^2 + y^2 = L^2) whose bob starts below a floor at y = -0.8: the
    projection keeps the rod (phi = 0) and puts the bob on the floor at x = 0.6."""
    m = md.Model("pendulum_floor")
    x, y = m.coordinates("x y")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(G * y)
    m.holonomic(x ** 2 + y ** 2 - 1.0, name="rod")
    m.contact("floor", gap=y + 0.8, tangent=x, restitution=0.0, friction=0.0)
    s = m.compile()
    res, _ = _run(s, 0.5, q0={"x": 0.1, "y": -1.0}, method="event")
    assert res["x"][0] == pytest.approx(0.6, abs=1e-10)
    assert res["y"][0] == pytest.approx(-0.8, abs=1e-10)
    assert res.init_report["gap(floor)"][1] == pytest.approx(0.0, abs=1e-12)
    # at rest on the floor (gravity pushes the bob against it along the circle)
    assert np.max(np.abs(res["x"] - 0.6)) <= 1e-7
    assert np.max(res.energy) <= res.energy[0] + 1e-9
