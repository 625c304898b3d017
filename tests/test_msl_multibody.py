"""MSL MultiBody.Examples.Elementary rebuilt from planar components (models/msl_multibody_*):
each against its ODE or closed form, with energy and cut-force checks."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from conftest import model_module

TOL = dict(rtol=1e-10, atol=1e-10)
TIGHT = dict(rtol=1e-12, atol=1e-12)


def _run(name, params=None, **kw):
    mod = model_module(name)
    sim = dict(mod.SIMULATION)
    system = mod.build(**(params or {})).compile(stabilization=sim["stabilization"])
    args = dict(q0=sim["q0"], v0=sim["v0"], method=sim["method"])
    args.update(kw)
    t_final = args.pop("t_final", sim["t_final"])
    return mod, system.simulate(t_final, **args)


def _dissipated(t, d, w):
    """int d w^2 dt (trapezoid on the output grid)."""
    return float(np.trapezoid(d * w ** 2, t)) if hasattr(np, "trapezoid") \
        else float(np.trapz(d * w ** 2, t))


# ------------------------------------------------------------------ Pendulum
def test_pendulum_equals_the_pendulum_ode():
    mod, res = _run("msl_multibody_pendulum", **TOL)
    ref = solve_ivp(mod.pendulum_rhs(), (0.0, 5.0), [0.0, 0.0], t_eval=res.t, method="DOP853",
                    rtol=1e-12, atol=1e-12)
    err = max(np.abs(res["rev.phi"] - ref.y[0]).max(), np.abs(res["rev.w"] - ref.y[1]).max())
    assert err < 1e-6                                   # measured 5.0e-8 (w), 1.1e-8 (phi)
    # the body: center of mass r_CM = 0.5 along the rod
    assert np.allclose(res["body.r_cm_x"], 0.5 * np.cos(res["rev.phi"]), atol=1e-12)
    assert np.allclose(res["body.r_cm_y"], 0.5 * np.sin(res["rev.phi"]), atol=1e-12)


def test_pendulum_energy_falls_by_the_damper_dissipation():
    _, res = _run("msl_multibody_pendulum", n_out=20001, **TOL)
    J = 0.001 + 1.0 * 0.5 ** 2
    E = 0.5 * J * res["rev.w"] ** 2 + 1.0 * 9.81 * 0.5 * np.sin(res["rev.phi"])
    assert np.abs(res.energy - E).max() < 1e-9          # T + V of the body
    lost = res.energy[0] - res.energy[-1]
    assert lost > 0.5                                   # measured 4.20 J of 4.91 available
    assert abs(lost - _dissipated(res.t, 0.1, res["rev.w"])) < 1e-6 * lost   # measured 3.9e-8 J
    # undamped (d = 0): conserved
    _, res0 = _run("msl_multibody_pendulum", params=dict(d=0.0), **TOL)
    assert np.ptp(res0.energy) < 1e-7 * np.max(res0.kinetic)   # measured 8.6e-8 J (T_max 4.9 J)


def test_pendulum_at_rest_carries_its_weight_at_the_joint():
    _, res = _run("msl_multibody_pendulum", q0={"rev.phi": -math.pi / 2}, t_final=1.0)
    assert np.allclose(res["rev.phi"], -math.pi / 2, atol=1e-12)
    assert np.allclose(res["rev.frame_a.fy"], 1.0 * 9.81, atol=1e-9)     # the world holds it
    assert np.allclose(res["rev.frame_a.fx"], 0.0, atol=1e-9)
    assert np.allclose(res["rev.frame_a.tau"], 0.0, atol=1e-9)           # no damper torque


def test_pendulum_joint_force_while_swinging():
    """Pivot force = m a_cm - m g (Newton for the body), a_cm from phi, w, w'."""
    mod, res = _run("msl_multibody_pendulum", **TOL)
    f = mod.pendulum_rhs()
    phi, w = res["rev.phi"], res["rev.w"]
    al = np.array([f(0, [p, v])[1] for p, v in zip(phi, w)])
    r = 0.5
    ax = -r * w ** 2 * np.cos(phi) - r * al * np.sin(phi)
    ay = -r * w ** 2 * np.sin(phi) + r * al * np.cos(phi)
    assert np.abs(res["rev.frame_a.fx"] - ax).max() < 1e-9         # measured 4e-15
    assert np.abs(res["rev.frame_a.fy"] - (ay + 9.81)).max() < 1e-9


# ------------------------------------------------------------------ DoublePendulum
def test_double_pendulum_box_properties_from_msl_dimensions():
    mod = model_module("msl_multibody_double_pendulum")
    m, rcm, I = mod.box_properties()
    assert m == pytest.approx(7700 * 0.5 * 0.06 * 0.06)                 # 13.86 kg
    assert rcm == (0.25, 0.0)
    assert I == pytest.approx(13.86 * (0.25 + 0.0036) / 12)             # 0.29291 kg m^2


@pytest.mark.parametrize("d", [0.1, 0.0])
def test_double_pendulum_equals_the_rigid_body_lagrange_equations(d):
    mod, res = _run("msl_multibody_double_pendulum", params=dict(d=d), **TOL)
    m, (a, _), I = mod.box_properties()
    f = mod.double_pendulum_rhs(m, m, I, I, a, a, 0.5, d=d)
    ref = solve_ivp(f, (0.0, 3.0), [0.0, 0.0, 0.0, 0.0], t_eval=res.t, method="DOP853",
                    rtol=1e-12, atol=1e-12)
    p1, p2 = res["revolute1.phi"], res["revolute2.phi"]
    err = max(np.abs(p1 - ref.y[0]).max(), np.abs(p1 + p2 - ref.y[1]).max())
    assert err < 1e-6                                   # measured 2.5e-8 .. 1.4e-7
    # the tip of box 2
    tx = 0.5 * np.cos(p1) + 0.5 * np.cos(p1 + p2)
    assert np.allclose(res["boxBody2.frame_b.x"], tx, atol=1e-12)


def test_double_pendulum_energy_damped_and_undamped():
    _, res = _run("msl_multibody_double_pendulum", n_out=20001, **TOL)
    lost = res.energy[0] - res.energy[-1]
    assert lost > 0.0
    diss = _dissipated(res.t, 0.1, res["revolute1.w"])
    assert abs(lost - diss) < 1e-5 * diss               # measured rel. 1.0e-7 (4.40 J)
    _, res0 = _run("msl_multibody_double_pendulum", params=dict(d=0.0), **TIGHT)
    assert np.ptp(res0.energy) < 1e-9 * np.max(res0.kinetic)    # measured 1.5e-8 J of 136 J


def test_double_pendulum_with_point_masses_equals_models_planar_double_pendulum():
    _, res = _run("msl_multibody_double_pendulum",
                  params=dict(d=0.0, r=(1.0, 0.0), point_masses=(1.0, 1.0)), **TOL)
    ref = model_module("planar_double_pendulum").build().compile(stabilization=None) \
        .simulate(3.0, output_times=res.t, **TOL)
    assert np.abs(res["revolute1.phi"] - ref["j1.phi"]).max() < 1e-7
    assert np.abs(res["revolute2.phi"] - ref["j2.phi"]).max() < 1e-7
    assert np.abs(res["revolute1.frame_a.fy"] - ref["j1.frame_a.fy"]).max() < 1e-6


# ------------------------------------------------------------------ SpringMassSystem
def test_spring_mass_oscillates_about_the_closed_form_equilibrium():
    _, res = _run("msl_multibody_spring_mass", **TIGHT)
    m, c, s0, g = 1.0, 30.0, 0.1, 9.81
    s_eq, amp, om = s0 + m * g / c, m * g / c, math.sqrt(c / m)
    exact = s_eq - amp * np.cos(om * res.t)
    e1 = np.abs(res["p1.s"] - exact).max()
    e2 = np.abs(res["p2.s"] - exact).max()
    assert e1 < 1e-8 and e2 < 1e-8                      # measured 1.3e-9 (4.8e-8 at rtol 1e-10)
    assert np.abs(res["p1.s"] - res["p2.s"]).max() < 1e-8   # the two systems agree
    assert np.allclose(res["body2.frame_a.x"], 0.6) and np.allclose(res["body1.frame_a.x"], 0.3)
    assert np.allclose(res["body1.frame_a.y"], -res["p1.s"], atol=1e-12)
    assert np.ptp(res.energy) < 1e-7                    # measured 2.8e-8 (of T_max = 1.6 J)
    # period from the upward zero crossings of s - s_eq
    x = res["p1.s"] - s_eq
    k = np.nonzero((x[:-1] < 0) & (x[1:] >= 0))[0]
    tz = res.t[k] - x[k] * (res.t[k + 1] - res.t[k]) / (x[k + 1] - x[k])
    assert np.diff(tz).mean() == pytest.approx(2 * math.pi / om, rel=1e-6)   # 1.1471 s, measured rel. 6.5e-8


def test_spring_mass_at_equilibrium_stays_and_the_guide_holds_nothing_sideways():
    s_eq = 0.1 + 9.81 / 30.0
    _, res = _run("msl_multibody_spring_mass", q0={"p1.s": s_eq, "p2.s": s_eq}, t_final=1.0)
    assert np.abs(res["p1.s"] - s_eq).max() < 1e-10
    assert np.abs(res["p2.s"] - s_eq).max() < 1e-10
    assert np.allclose(res["spring2.f"], 9.81, atol=1e-9)              # the spring holds m g
    assert np.allclose(res["p1.frame_a.fx"], 0.0, atol=1e-9)
