"""Optimal control through contact (issue 16): closed-form optima of a block on a rough
floor (contact-implicit), a ball bouncing once onto a target and a periodic step of a
rimless wheel on a slope (fixed mode sequences), the exported contact Functions against
System.impact (seed 000) and the smooth stance dynamics, and bad input.

Block (mass m, friction mu, moved over D from rest to rest in T, minimum int F^2 dt): with
``tau = (6 D / (mu g))^(1/2)``, for ``T < tau`` it slides forward throughout with
``F = F_0 + m mu g`` (``F_0`` the frictionless optimum) and cost ``12 m^2 D^2 / T^3 +
m^2 mu^2 g^2 T``; for ``T > tau`` it waits in stiction and slides for ``tau``.  With ``N``
piecewise-constant forces and the Moreau--Jean step with ``theta = 1/2`` (exact for
piecewise-constant forces) the discrete optimum has the cost ``12 m^2 D^2 / (T^3 (1 -
N^-2)) + m^2 mu^2 g^2 T`` (the N^-2 term as in tests/test_ocp.py).

Rimless wheel (McGeer 1990; hub mass m, inertia I, K spokes of length l, alpha = pi/K, slope
gamma): stance on one spoke, plastic impact of the next one; ``J = m l^2 + I``, angular
momentum about the new foot gives ``w+ = eta w-``, ``eta = (m l^2 cos 2 alpha + I) / J``, the
stance from ``th = alpha`` to ``-alpha`` gains ``2 m g l sin(alpha) sin(gamma)``, so the
periodic gait has ``w-^2 = 4 m g l sin(alpha) sin(gamma) / (J (1 - eta^2))``.  (A
straight-legged two-link walker, seed 000, cannot do this step consistently: its swing foot
is below the ground whenever the swing leg passes the vertical before the stance leg, which
the event re-simulation would report as a scuffing impact.)
"""
import sys

import numpy as np
import pytest

import mechdae as md
from mechdae.export.contact import impact_map, phase_dynamics
from conftest import REPO

MASS, MU, G, D = 1.0, 0.6, 10.0, 1.0
TAU = np.sqrt(6 * D / (MU * G))          # = 1 s: the optimal sliding time


def _block(friction=None):
    m = md.Model("block")
    x, y = m.coordinates("x y")
    mu = m.parameter("mu", MU)
    g = m.parameter("g", G)
    F = m.input("F")
    m.kinetic_energy(0.5 * MASS * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(MASS * g * y)
    m.generalized_force(F, x)
    m.contact("floor", gap=y, tangent=x, friction=mu if friction is None else friction)
    return m.compile(), F


@pytest.fixture(scope="module")
def block():
    return _block()


def _push(s, F, T, N, **kw):
    ocp = s.ocp(N=N, t_final=T, method="complementarity", controls=["F"], **kw)
    ocp.initial(q0={"x": 0.0, "y": 0.0}, v0={"x": 0.0, "y": 0.0})
    ocp.final(q={"x": D}, v={"x": 0.0})
    ocp.running_cost(F ** 2)
    return ocp.solve()


def test_block_slides_throughout_when_time_is_short(block):
    s, F = block
    T, N = 0.8, 100
    assert T < TAU
    sol = _push(s, F, T, N)
    continuous = 12 * MASS ** 2 * D ** 2 / T ** 3 + MASS ** 2 * MU ** 2 * G ** 2 * T
    discrete = 12 * MASS ** 2 * D ** 2 / (T ** 3 * (1 - N ** -2.0)) + (MASS * MU * G) ** 2 * T
    assert sol.cost == pytest.approx(discrete, rel=2e-6)
    assert sol.cost == pytest.approx(continuous, rel=1e-4)
    assert sol.complementarity < 1e-5
    assert sol.homotopy[-1][0] == pytest.approx(1e-9)
    # the frictionless optimum plus m mu g, sliding forward on every step (the last one
    # ends at rest)
    tmid = (np.arange(N) + 0.5) * T / N
    F0 = 6 * MASS * D / (T ** 2 * (1 - N ** -2.0)) * (1 - 2 * tmid / T)
    assert np.max(np.abs(sol["F"] - (F0 + MASS * MU * G))) < 1e-3
    assert np.all(sol.modes["floor"][:-1] == "slide+")
    # contact impulses: weight m g h and Coulomb friction -mu m g h while sliding
    h = T / N
    assert np.allclose(sol.impulses["floor"][:, 0], MASS * G * h, rtol=1e-5)
    assert np.allclose(sol.forces["floor"][:-1, 1], -MU * MASS * G, rtol=1e-4)
    # the event-driven simulation of the same forces reproduces the nodes
    chk = sol.simulate_check()
    assert chk.defect < 1e-3 and not chk.unplanned


def test_block_waits_in_stiction_when_time_is_long(block):
    s, F = block
    T, N = 1.5, 60
    h = T / N
    sol = _push(s, F, T, N)
    best = 12 * MASS ** 2 * D ** 2 / TAU ** 3 + MASS ** 2 * MU ** 2 * G ** 2 * TAU
    sliding_throughout = 12 * MASS ** 2 * D ** 2 / T ** 3 + MASS ** 2 * MU ** 2 * G ** 2 * T
    assert sol.cost == pytest.approx(best, rel=1e-4)
    assert sol.cost < sliding_throughout - 5
    modes = sol.modes["floor"]
    sliding = np.sum(modes == "slide+") * h
    assert abs(sliding - TAU) <= h + 1e-9
    assert set(modes) == {"stick", "slide+"}
    # in stiction the force stays inside the cone: |F| <= mu m g
    assert np.all(np.abs(sol["F"][modes == "stick"]) <= MU * MASS * G * (1 + 1e-6))
    assert sol.complementarity < 1e-5
    assert sol.simulate_check().defect < 1e-3


def test_block_sliding_phase_by_mode_sequence(block):
    # the same transfer with the mode given (one phase, floor sliding forward): forces
    # m g and -mu m g exactly, and the discrete optimum of the piecewise-constant forces
    # (RK4 integrates these dynamics exactly); y, y' = 0 come from the closed contact
    s, F = block
    T, N = 0.8, 40
    ocp = s.ocp(N=N, t_final=T, phases=[{"stance": {"floor": "slide+"}}], controls=["F"])
    ocp.initial(q0={"x": 0.0}, v0={"x": 0.0})
    ocp.final(q={"x": D}, v={"x": 0.0})
    ocp.running_cost(F ** 2)
    sol = ocp.solve()
    discrete = 12 * MASS ** 2 * D ** 2 / (T ** 3 * (1 - N ** -2.0)) + (MASS * MU * G) ** 2 * T
    assert sol.cost == pytest.approx(discrete, rel=1e-10)
    assert np.allclose(sol.forces["floor"], [MASS * G, -MU * MASS * G], rtol=1e-9)
    assert np.max(np.abs(sol["y"])) < 1e-12
    assert sol.simulate_check().defect < 1e-3


def _ball(e=0.6, g=9.81):
    m = md.Model("ball")
    x, y = m.coordinates("x y")
    e_ = m.parameter("e", e)
    g_ = m.parameter("g", g)
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(g_ * y)
    m.contact("floor", gap=y, tangent=x, restitution=e_, friction=0.0)
    return m.compile()


def _ball_ocp(s, R, e, g, N=10, vmax=None):
    ocp = s.ocp(N=N, t_final="free", phases=["flight", {"impact": ["floor"]}, "flight"])
    ocp.initial(q0={"x": 0.0, "y": 0.0})
    ocp.final(q={"x": R, "y": 0.0})
    vx, vy = ocp.v("x")[0], ocp.v("y")[0]
    ocp.minimize(vx ** 2 + vy ** 2)
    if vmax is not None:
        ocp.bounds("x", hi=R)
        ocp.opti.subject_to(vx ** 2 + vy ** 2 <= vmax ** 2)
    v0 = 0.8 * np.sqrt(R * g / (2 * (1 + e)))
    t1 = 2 * v0 / g
    tt = np.r_[np.linspace(0, t1, N + 1), np.linspace(0, e * t1, N + 1)]
    vy0 = np.r_[np.full(N + 1, v0), np.full(N + 1, e * v0)]
    xg = v0 * np.r_[np.linspace(0, t1, N + 1), t1 + np.linspace(0, e * t1, N + 1)]
    ocp.guess(q={"x": xg, "y": vy0 * tt - g * tt ** 2 / 2}, v={"x": v0, "y": vy0 - g * tt},
              durations=[t1, e * t1])
    return ocp


def test_ball_bouncing_once_onto_a_target_minimum_launch_speed():
    # range R = vx (2 vy / g)(1 + e): min vx^2 + vy^2 at vx = vy = (R g / (2 (1 + e)))^(1/2)
    e, g, R = 0.6, 9.81, 3.0
    s = _ball(e, g)
    sol = _ball_ocp(s, R, e, g).solve(options={"tol": 1e-12})
    v = np.sqrt(R * g / (2 * (1 + e)))
    assert sol.cost == pytest.approx(R * g / (1 + e), rel=1e-9)
    assert np.allclose(sol.v[0], [v, v], rtol=1e-6)
    assert np.allclose(sol.durations, [2 * v / g, 2 * e * v / g], rtol=1e-6)
    (imp,) = sol.impacts
    assert imp["t"] == pytest.approx(2 * v / g, rel=1e-6)
    assert imp["impulses"]["floor"][0] == pytest.approx((1 + e) * v, rel=1e-6)
    assert sol.impulses["floor"].shape == (1, 2)
    assert set(sol.modes["floor"]) == {"open"}
    chk = sol.simulate_check()
    assert chk.defect < 1e-7
    assert chk.impacts[0][1] == pytest.approx(2 * v / g, rel=1e-7) and not chk.unplanned


# ---------------------------------------------------------------- rimless wheel
K, L, I_HUB, SLOPE = 8, 1.0, 0.1, 0.08
ALPHA = np.pi / K


def _wheel():
    m = md.Model("rimless_wheel")
    x, y, th = m.coordinates("x y th")        # hub position, spoke 0 angle from the normal
    g = m.parameter("g", 9.81)
    slope = m.parameter("slope", SLOPE)
    m.kinetic_energy(0.5 * MASS * (md.der(x) ** 2 + md.der(y) ** 2)
                     + 0.5 * I_HUB * md.der(th) ** 2)
    m.potential_energy(MASS * g * (y * md.cos(slope) - x * md.sin(slope)))   # x downhill
    for i in range(K):
        a = th + 2 * ALPHA * i
        m.contact(f"S{i}", gap=y - L * md.cos(a), tangent=x + L * md.sin(a), friction=np.inf)
    return m.compile()


@pytest.fixture(scope="module")
def wheel():
    return _wheel()


def test_rimless_wheel_periodic_step_closes_the_cycle(wheel):
    s, N = wheel, 20
    ocp = s.ocp(N=N, t_final="free", substeps=3,
                phases=[{"stance": ["S0"]}, {"impact": ["S1"]}])
    ocp.initial(q0={"x": 0.0})
    ocp.periodic(offset={"th": -2 * ALPHA}, free=["x"])      # spoke 1 becomes spoke 0
    J = MASS * L ** 2 + I_HUB
    eta = (MASS * L ** 2 * np.cos(2 * ALPHA) + I_HUB) / J
    w_minus = np.sqrt(4 * MASS * 9.81 * L * np.sin(ALPHA) * np.sin(SLOPE) / (J * (1 - eta ** 2)))
    th = np.r_[np.linspace(ALPHA, -ALPHA, N + 1), -ALPHA]
    ocp.guess(q={"th": th, "x": -L * np.sin(th), "y": L * np.cos(th)}, v={"th": -1.0},
              durations=[0.8])
    sol = ocp.solve(options={"tol": 1e-10})
    assert sol.q[0, 2] == pytest.approx(ALPHA, abs=1e-6)
    assert -sol.v[-2, 2] == pytest.approx(w_minus, rel=1e-5)      # before the impact
    assert -sol.v[-1, 2] == pytest.approx(eta * w_minus, rel=1e-5)  # after it
    # energy: the impact loses what the step down the slope gained
    (imp,) = sol.impacts
    T_, V_ = (float(a) for a in s.energy(sol.q[0], sol.v[0], 0.0, s.p_defaults))
    Tm, Vm = (float(a) for a in s.energy(sol.q[-2], sol.v[-2], 0.0, s.p_defaults))
    assert Tm - T_ == pytest.approx(2 * MASS * 9.81 * L * np.sin(ALPHA) * np.sin(SLOPE), rel=1e-5)
    assert np.all(sol.forces["S0"][:N + 1, 0] > 0)             # the stance spoke pushes
    assert set(sol.modes["S0"]) == {"stick"} and set(sol.modes["S1"]) == {"open"}
    assert imp["impulses"]["S1"][0] > 0
    # the event-driven simulation, started from the first node, strikes spoke 1 at the
    # planned time and its post-impact state, relabelled, is the initial state to 1e-4
    chk = sol.simulate_check()
    assert chk.defect < 1e-4
    assert not chk.unplanned and chk.impacts[0][1] is not None
    res = chk.result
    post = np.concatenate([res.q[-1], res.v[-1]])
    start = np.concatenate([sol.q[0], sol.v[0]])
    post[2] += 2 * ALPHA
    post[0] -= 2 * L * np.sin(ALPHA)
    assert np.max(np.abs(post - start)) < 1e-4


def test_exported_pieces_are_casadi_functions(wheel):
    s = wheel
    ocp = s.ocp(N=4, t_final="free", phases=[{"stance": ["S0"]}, {"impact": ["S1"]}])
    assert set(ocp.functions) == {"guards", "phase 0", "impact 1"}
    f = ocp.functions["phase 0"]
    assert f.name_in() == ["x", "t", "p", "w"] and f.name_out() == ["xdot", "forces"]
    # pivoting at rest on a vertical spoke 0 (slope 0): pendulum-free, normal force m g
    x0 = np.array([0.0, L, 0.0, 0.0, 0.0, 0.0])
    p = s.param_vector({"slope": 0.0})
    xdot, forces = f(x0, 0.0, p, [])
    assert np.allclose(np.array(xdot).ravel(), 0.0, atol=1e-12)
    assert float(forces[0]) == pytest.approx(MASS * 9.81, rel=1e-12)


def test_stance_dynamics_stick_and_slide_forces(block):
    # block on the floor pushed by F: sticking, the floor holds F back (lambda_t = -F);
    # sliding forward, lambda_t = -mu lambda_n and x'' = (F - mu m g) / m
    s, _ = block
    x0 = np.zeros(4)
    p = s.p_defaults
    for Fv in (2.0, 9.0):
        xdot, lam = phase_dynamics(s, {"floor": "stick"})(x0, 0.0, p, [Fv])
        assert np.allclose(np.array(lam).ravel(), [MASS * G, -Fv])
        assert np.allclose(np.array(xdot).ravel(), 0.0, atol=1e-12)
        xdot, lam = phase_dynamics(s, {"floor": "slide+"})(x0, 0.0, p, [Fv])
        assert np.allclose(np.array(lam).ravel(), [MASS * G, -MU * MASS * G])
        assert float(xdot[2]) == pytest.approx((Fv - MU * MASS * G) / MASS)


def test_impact_map_matches_system_impact_seed000():
    sys.path.insert(0, str(REPO / "models"))
    import two_link_impact as tl
    s = tl.build().compile()
    F = impact_map(s, ["D"])                      # D strikes and sticks (mu = inf)
    for alpha, gamma in [(0.3, -2.0), (0.5, -1.2), (0.2, -2.8)]:
        q, v = tl.impact_state(alpha, gamma)
        qa = np.array([q[n] for n in s.q_names])
        va = np.array([v[n] for n in s.q_names])
        up, P = F(qa, va, 0.0, s.p_defaults)
        ref = s.impact(qa, va, active=["D"])
        assert np.allclose(np.array(up).ravel(), ref.v_plus_array, atol=1e-12)
        assert np.allclose(np.array(P).ravel()[:2], ref.impulses["D"], atol=1e-12)


# ---------------------------------------------------------------- bad input
def test_phase_naming_an_unknown_contact(wheel):
    with pytest.raises(ValueError, match=r"phase 1 \(impact\): unknown contact\(s\) 'Z'.*"
                                         r"'rimless_wheel'.*S0, S1"):
        wheel.ocp(N=4, phases=[{"stance": ["S0"]}, {"impact": ["Z"]}])
    with pytest.raises(ValueError, match=r"phase 0 \(impact\): an impact must follow"):
        wheel.ocp(N=4, phases=[{"impact": ["S1"]}, {"stance": ["S1"]}])
    with pytest.raises(ValueError, match=r"mu = inf.*use mode 'stick'"):
        wheel.ocp(N=4, phases=[{"stance": {"S0": "slide+"}}])
    with pytest.raises(ValueError, match=r"exactly one of 'stance', 'flight', 'impact'"):
        wheel.ocp(N=4, phases=[{"stance": ["S0"], "impact": ["S1"]}])


def test_infeasible_sequence_names_the_violated_constraints():
    # the target needs a launch speed of 3.03 m/s: at most 1 m/s cannot reach it
    e, g, R = 0.6, 9.81, 3.0
    ocp = _ball_ocp(_ball(e, g), R, e, g, vmax=1.0)
    with pytest.raises(RuntimeError, match=r"ipopt failed \((Infeasible_Problem_Detected|"
                                           r"Restoration_Failed).*most violated constraints.*"
                                           r"(final x|guard|impact map|shooting)"):
        ocp.solve()


def test_complementarity_bad_friction():
    s, _ = _block()
    with pytest.raises(ValueError, match=r"contact 'floor'.*mu.*-0.1"):
        s.ocp(N=5, method="complementarity", params={"mu": -0.1})
    s_inf, _ = _block(friction=np.inf)
    with pytest.raises(ValueError, match=r"'floor'.*mu = inf.*finite friction"):
        s_inf.ocp(N=5, method="complementarity")
    with pytest.raises(ValueError, match=r"relaxation needs 0 < final eps <= initial eps"):
        s.ocp(N=5, method="complementarity", relaxation=(1e-9, 1e-3))
