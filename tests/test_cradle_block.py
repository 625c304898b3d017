"""Newton's cradle and the rocking block: momentum and energy bookkeeping per impact."""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import newtons_cradle as nc  # noqa: E402
import rocking_block as rb  # noqa: E402


@pytest.fixture(scope="module", params=[3, 4, 5])
def cradle(request):
    return request.param, nc.build(n=request.param).compile()


def test_cradle_simultaneous_impact_momentum_and_energy(cradle):
    n, s = cradle
    q, v = nc.touching_state(n)
    for e in (0.0, 0.3, 0.8, 1.0):
        out = s.impact(q, v, all_solutions=True, params={"e": e})
        # Newton's law with D = tridiag(-1, 2, -1)/m positive definite: unique solution
        assert out.status == "unique" and len(out.solutions) == 1
        assert set(out.active) == {f"c{i + 1}{i + 2}" for i in range(n - 1)}
        u1 = out.v_plus_array
        assert u1.sum() == pytest.approx(1.0, abs=1e-13)          # momentum (m = 1)
        # energy: dT = (1 - e)/2 P^T v-  (w = 0 on every contact with P > 0)
        P = np.array([out.impulses[c][0] for c in out.active])
        vm = out.problem.v_minus[::out.problem.dim]
        assert out.energy_change == pytest.approx((1 - e) / 2 * P @ vm, abs=1e-13)
        assert out.energy_change <= 1e-15
        if e == 1.0:
            assert out.energy_after == pytest.approx(out.energy_before, rel=1e-13)
    # what the simultaneous law picks for e = 1, n = 3: (-1/3, 2/3, 2/3)
    if n == 3:
        out = s.impact(q, v, params={"e": 1.0})
        np.testing.assert_allclose(out.v_plus_array, [-1 / 3, 2 / 3, 2 / 3], atol=1e-14)


def test_cradle_sequential_binary_impacts(cradle):
    n, s = cradle
    for e in (1.0, 0.6):
        q, v = nc.touching_state(n)
        u = np.array([v.get(f"x{i + 1}", 0.0) for i in range(n)])
        T0 = 0.5 * u @ u
        for i in range(n - 1):
            c = f"c{i + 1}{i + 2}"
            vrel = u[i + 1] - u[i]
            if vrel >= 0:
                continue
            out = s.impact(q, u, active=[c], params={"e": e})
            # binary impact of equal masses: reduced mass 1/2
            assert out.energy_change == pytest.approx(-(1 - e * e) / 2 * 0.5 * vrel ** 2,
                                                      abs=1e-14)
            assert out.v_plus_array.sum() == pytest.approx(u.sum(), abs=1e-14)
            u = out.v_plus_array
        if e == 1.0:
            np.testing.assert_allclose(u, [0.0] * (n - 1) + [1.0], atol=1e-14)
            assert 0.5 * u @ u == pytest.approx(T0)


@pytest.fixture(scope="module")
def block():
    return rb.build().compile()


def _momenta_check(s, out, q, v, m=1.0, l=1.0, h=1.5):
    I = m * (h * h + l * l) / 12
    u0 = s.state_arrays(q, v)[1]
    du = out.v_plus_array - u0
    Px = sum(out.impulses[c][1] for c in out.active)
    Py = sum(out.impulses[c][0] for c in out.active)
    assert m * du[0] == pytest.approx(Px, abs=1e-13)
    assert m * du[1] == pytest.approx(Py, abs=1e-13)
    # angular: I dw = sum r x P, r = corner - center (th = 0)
    tau = 0.0
    for c in out.active:
        rx, ry = (-l / 2 if c == "L" else l / 2), -h / 2
        Pn, Pt = out.impulses[c]
        tau += rx * Pn - ry * Pt
    assert I * du[2] == pytest.approx(tau, abs=1e-13)


def test_rocking_block_housner_ratio(block):
    alpha = math.atan(1.0 / 1.5)
    for w in (1.0, -0.7):
        q, v = rb.flat_state(w)
        out = block.impact(q, v, all_solutions=True, params={"e": 0.0, "mu": math.inf})
        assert out.status == "unique"
        hit, pivot = ("L", "R") if w > 0 else ("R", "L")
        assert out.modes == {hit: "stick", pivot: "separate"}
        assert out.v_plus["der(th)"] == pytest.approx(w * (1 - 1.5 * math.sin(alpha) ** 2),
                                                      rel=1e-12)
        _momenta_check(block, out, q, v)
        # energy ratio of Housner's law: (1 - 3/2 sin^2 alpha)^2
        assert out.energy_after / out.energy_before == pytest.approx(
            (1 - 1.5 * math.sin(alpha) ** 2) ** 2, rel=1e-12)


@pytest.mark.parametrize("e,mu", [(0.5, 0.5), (0.5, 0.1), (0.0, 0.3), (0.9, 2.0)])
def test_rocking_block_impact_bookkeeping(block, e, mu):
    q, v = rb.flat_state(1.0)
    out = block.impact(q, v, all_solutions=True, params={"e": e, "mu": mu})
    assert out.solutions
    for sol in out.solutions:
        # per-contact laws
        for c in out.active:
            Pn, Pt = sol.impulses[c]
            assert Pn >= -1e-14 and abs(Pt) <= mu * Pn + 1e-12
        assert sol.energy_after <= out.energy_before + 1e-14
    _momenta_check(block, out, q, v)
    # the struck corner does not rebound faster than e times its approach speed
    vn_L = out.contact_velocities["L"][0]
    assert vn_L >= -1e-12 and vn_L <= e * 1.0 + 1e-12
