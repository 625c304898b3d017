"""compile(evaluate=...): parameters folded into the equations at their defaults.

The physics must not change (the same trajectories and impacts as with symbolic
parameters), the evaluated names must leave the System and be refused by name wherever
``params=`` is taken, and the Model itself stays as it was.
"""
import math
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "models"))


def _chain(n):
    m = md.Model(f"chain{n}")
    prev = m.add(pl.World("world")).frame
    for i in range(1, n + 1):
        j = m.add(pl.Revolute(f"j{i}"))
        b = m.add(pl.BodyShape(f"b{i}", r=(0.0, -1.0), r_cm=(0.0, -1.0), m=1.0, I=0.0))
        m.connect(prev, j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        prev = b.frame_b
    return m


def test_double_pendulum_same_motion_and_period_with_parameters_evaluated():
    import double_pendulum
    model = double_pendulum.build()
    sym = model.compile(stabilization=None)
    ev = model.compile(stabilization=None, evaluate=True)
    assert ev.p_names == [] and set(ev.evaluated) == set(sym.p_names)
    assert ev.evaluated == dict(zip(sym.p_names, map(float, sym.p_defaults)))
    q0 = {sym.q_names[0]: 0.3}
    a = sym.simulate(3.0, q0=q0, n_out=301, rtol=1e-10, atol=1e-12)
    b = ev.simulate(3.0, q0=q0, n_out=301, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.q, a.q, atol=1e-9)
    # the same energy, conserved to the integration tolerance (BDF drift 3e-8 over 3 s)
    np.testing.assert_allclose(b.energy, a.energy, atol=1e-9)
    assert np.ptp(b.energy) < 1e-7 * abs(b.energy[0])
    # the Model is unchanged: compiling again keeps every parameter
    again = model.compile(stabilization=None)
    assert again.p_names == sym.p_names


def test_component_chain_evaluated_is_smaller_and_moves_the_same():
    """Zero offsets (r[1] = r_cm[1] = 0) and zero inertias vanish from the mass matrix."""
    m_sym = _chain(6).compile(stabilization=None)
    m_ev = _chain(6).compile(stabilization=None, evaluate=True)
    n_sym = m_sym.functions["M"].n_instructions()
    n_ev = m_ev.functions["M"].n_instructions()
    # the tree fast path already writes a compact mass matrix (547 instructions, the generic
    # path 1067); evaluated: 333 (generic 343)
    assert n_ev < 0.65 * n_sym
    q0 = {"j1.phi": 0.5, "j2.phi": -0.5}
    a = m_sym.simulate(2.0, q0=q0, n_out=201, rtol=1e-10, atol=1e-12)
    b = m_ev.simulate(2.0, q0=q0, n_out=201, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.q, a.q, atol=1e-8)
    # cut forces (outputs) agree too: the joint carries the weight of the links below it
    # at rest along the vertical plus their centripetal and inertial forces
    np.testing.assert_allclose(b["j1.frame_a.fy"], a["j1.frame_a.fy"], atol=1e-7)


def test_patterns_choose_parameters_and_the_rest_stay_variable():
    s = _chain(3).compile(stabilization=None, evaluate=["b*.r[*]", "b*.r_cm[1]", "b?.I"])
    assert sorted(s.evaluated) == sorted(
        [f"b{i}.r[{k}]" for i in (1, 2, 3) for k in (1, 2)] + [f"b{i}.r_cm[1]" for i in (1, 2, 3)]
        + [f"b{i}.I" for i in (1, 2, 3)])
    assert "b1.m" in s.p_names and "b1.r_cm[2]" in s.p_names
    # a parameter left symbolic still acts: a heavier tip mass with the same geometry of
    # point masses leaves the small-angle period of a single link unchanged (sqrt(l/g))
    one = md.Model("one")
    w = one.add(pl.World("world"))
    j = one.add(pl.Revolute("j"))
    b = one.add(pl.BodyShape("b", r=(0.0, -1.0), r_cm=(0.0, -1.0), m=1.0, I=0.0))
    one.connect(w.frame, j.frame_a)
    one.connect(j.frame_b, b.frame_a)
    s1 = one.compile(stabilization=None, evaluate=["b.r*", "b.I"])
    for mass in (1.0, 5.0):
        r = s1.simulate(2 * math.pi * math.sqrt(1.0 / 9.81), q0={"j.phi": 1e-4},
                        params={"b.m": mass}, rtol=1e-11, atol=1e-14)
        assert r["j.phi"][-1] == pytest.approx(1e-4, rel=1e-6)


def test_evaluated_parameters_are_refused_by_name():
    import bouncing_ball
    s = bouncing_ball.build().compile(stabilization=None, evaluate=["e", "mu"])
    with pytest.raises(ValueError, match=r"'e' of model .* was evaluated at compile.*0\.8|"
                                         r"'e' of model .* was evaluated at compile"):
        s.simulate(1.0, params={"e": 0.5})
    with pytest.raises(ValueError, match="evaluated at compile"):
        s.sweep(params={"mu": [0.1, 0.2]}, t_final=0.1)
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        s.simulate(1.0, params={"nope": 1.0})


def test_bad_evaluate_arguments_are_named():
    m = _chain(2)
    with pytest.raises(ValueError, match=r"'z\*' matches no parameter of model 'chain2'"):
        m.compile(evaluate="z*")
    with pytest.raises(ValueError, match="not a parameter name or pattern"):
        m.compile(evaluate=[1.0])
    with pytest.raises(ValueError, match="give True"):
        m.compile(evaluate=3)


def test_impacts_with_evaluated_restitution_match_the_closed_form():
    """Bouncing ball with e folded in: the bounce times follow t_k = t_1 + 2 v_1 (e + ... +
    e^(k-1)) / g exactly as with e symbolic."""
    import bouncing_ball
    model = bouncing_ball.build()
    s = model.compile(stabilization=None, evaluate=True)
    e, g, R = s.evaluated["e"], s.evaluated["g"], s.evaluated["R"]
    h0 = 1.0
    res = s.simulate(2.5, q0={"y": R + h0}, method="event")
    ti = [ev.t for ev in res.events if ev.kind == "impact"][:4]
    t1 = math.sqrt(2 * h0 / g)
    v1 = g * t1
    expect = [t1 + 2 * v1 / g * sum(e ** j for j in range(1, k + 1)) for k in range(4)]
    np.testing.assert_allclose(ti, expect, rtol=1e-9)


def test_evaluated_system_pickles():
    import double_pendulum
    s = double_pendulum.build().compile(stabilization=None, evaluate=True)
    s2 = pickle.loads(pickle.dumps(s))
    assert s2.evaluated == s.evaluated and s2.p_names == []
    q0 = {s.q_names[0]: 0.2}
    np.testing.assert_allclose(s2.simulate(1.0, q0=q0).q, s.simulate(1.0, q0=q0).q, atol=1e-10)
