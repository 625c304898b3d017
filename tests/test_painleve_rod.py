"""Painlevé's rod: System.painleve against U = (1 + 3cos^2 th + 3 s mu sin th cos th)/m,
F = -g + l th'^2 sin th, over a grid of angles, both sliding directions, mu inside and
beyond the paradox threshold 4/3."""
import math
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import painleve_rod as pr  # noqa: E402


@pytest.fixture(scope="module")
def sys_():
    return pr.build().compile()


def U_ref(th, mu, s, m=1.0):
    return (1 + 3 * math.cos(th) ** 2 + 3 * s * mu * math.sin(th) * math.cos(th)) / m


@pytest.mark.parametrize("mu", [0.3, 1.2, 4.0 / 3.0 + 0.2, 2.5])
@pytest.mark.parametrize("s", [1.0, -1.0])
def test_classification_matches_U_and_F(sys_, mu, s):
    counts = {}
    g, l = 9.81, 1.0
    for th in np.linspace(0.05, math.pi - 0.05, 37):
        for th_dot in (0.0, 5.0):
            F = -g + l * th_dot ** 2 * math.sin(th)
            U = U_ref(th, mu, s)
            if abs(U) < 1e-6 or abs(F) < 1e-6:
                continue
            q, v = pr.sliding_state(th, s * 0.7, th_dot)
            out = sys_.painleve(q, v, params={"mu": mu})
            assert out.U["A"] == pytest.approx(U, rel=1e-10, abs=1e-12)
            assert out.F["A"] == pytest.approx(F, rel=1e-10, abs=1e-12)
            expect = ("unique" if U > 0 else "inconsistent" if F < 0 else "indeterminate")
            assert out.status == expect, (th, th_dot, U, F)
            counts[expect] = counts.get(expect, 0) + 1
            for sol in out.solutions:
                lam_n, lam_t = sol.lam["A"]
                assert lam_n >= 0
                assert lam_t == pytest.approx(-mu * lam_n * s, abs=1e-12)
                if sol.modes["A"] == "slide":
                    assert lam_n == pytest.approx(max(0.0, -F / U), rel=1e-9, abs=1e-12)
                    assert sol.acc["A"][0] == pytest.approx(0.0, abs=1e-9)
    if mu > 4.0 / 3.0:
        assert counts.get("inconsistent") and counts.get("indeterminate")
    else:
        assert set(counts) == {"unique"}


def test_paradox_threshold_is_four_thirds():
    # min over th of 1 + 3cos^2 - 3 mu sin cos is negative iff mu > 4/3
    th = np.linspace(0, math.pi / 2, 200001)
    for mu, neg in ((4 / 3 - 1e-3, False), (4 / 3 + 1e-3, True)):
        assert (np.min(1 + 3 * np.cos(th) ** 2 - 3 * mu * np.sin(th) * np.cos(th)) < 0) == neg
