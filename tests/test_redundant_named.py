"""Redundant constraints reported by name and time (DESIGN.md: "rank drops are reported").

The reference for "dependent" is the definition, computed here with numpy: constraint i
takes part in a dependency iff removing its row of C = [G; A] leaves the rank unchanged.
"""
import subprocess
import sys

import numpy as np
import pytest

import mechdae as md
from conftest import REPO, model_module

darboux = model_module("darboux")
pendulum = model_module("pendulum")


def essential(C):
    """Rows whose removal lowers the rank (the others are the dependent ones)."""
    rk = np.linalg.matrix_rank(C)
    return [np.linalg.matrix_rank(np.delete(C, i, axis=0)) < rk for i in range(C.shape[0])]


def test_constraint_written_twice_named_over_the_whole_run(tmp_path):
    base = pendulum.build()
    x, y = base["x"], base["y"]
    base.holonomic(2 * (x ** 2 + y ** 2 - 1.0), name="rod_again")
    s = base.compile(stabilization=md.Baumgarte(10.0, 10.0))
    res = s.simulate(2.0, q0={"x": 1.0, "y": 0.0}, rtol=1e-10, atol=1e-12)
    (d,) = res.redundant_constraints
    assert d.dependent == ("rod", "rod_again")
    assert (d.t_start, d.t_end, d.samples) == (0.0, 2.0, res.t.size)
    assert (d.rank, d.rows) == (1, 2)
    # grad(rod_again) = 2 grad(rod): the relation rod - rod_again / 2 = 0
    (rel,) = d.relations
    assert rel["rod"] == 1.0 and rel["rod_again"] == pytest.approx(-0.5, abs=1e-12)
    assert "rank 1 of 2, dependent: rod, rod_again" in repr(d)
    # streamed to disk in chunks: the same single interval
    sres = s.simulate(2.0, q0={"x": 1.0, "y": 0.0}, rtol=1e-10, atol=1e-12,
                      out=str(tmp_path / "run.h5"), chunk=97)
    (ds,) = sres.redundant_constraints
    assert ds.dependent == d.dependent and ds.samples == res.t.size and ds.t_end == 2.0


def test_mixed_holonomic_nonholonomic_the_independent_one_not_named():
    m = md.Model("boxed_point")
    x, y, z, w = m.coordinates("x y z w")
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2 + md.der(z) ** 2 + md.der(w) ** 2))
    m.potential_energy(9.81 * z + 0.5 * w ** 2)       # w: a free oscillator
    m.holonomic(x, name="wall_x")
    m.holonomic(y, name="wall_y")
    m.holonomic(z - 1.0, name="floor")
    m.nonholonomic(md.der(x) + md.der(y), name="diag_rate")
    s = m.compile(stabilization=md.Baumgarte(5.0, 5.0, 5.0))
    res = s.simulate(1.0, q0={"z": 1.0})
    (d,) = res.redundant_constraints
    C = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 0]], float)
    names = ["wall_x", "wall_y", "floor", "diag_rate"]
    assert d.dependent == tuple(n for n, e in zip(names, essential(C)) if not e)
    assert d.dependent == ("wall_x", "wall_y", "diag_rate") and (d.rank, d.rows) == (3, 4)
    (rel,) = d.relations
    a = np.array([rel.get(n, 0.0) for n in names])
    np.testing.assert_allclose(a @ C, 0.0, atol=1e-12)               # sum a_i C_i = 0
    assert res.multipliers["floor"] == pytest.approx(9.81, rel=1e-6)  # still unique


def _darboux_G(r, l=1.0):
    """The nine constraints (9) of seed 004 (f2, f6 corrected) differentiated by hand."""
    xK, yK, xB, yB, xC, yC, xM, yM, xH, yH = r
    G = np.zeros((9, 10))
    G[0, [0, 1, 2, 3]] = 2 * (xK - xB), 2 * (yK - yB), -2 * (xK - xB), -2 * (yK - yB)
    G[1, [0, 2]] = 0.5, 0.5
    G[2, [1, 3]] = 0.5, 0.5
    G[3, [2, 3, 4, 5]] = 2 * (xB - xC), 2 * (yB - yC), -2 * (xB - xC), -2 * (yB - yC)
    G[4, [4, 5, 6, 7]] = 2 * (xC - xM), 2 * (yC - yM), -2 * (xC - xM), -2 * (yC - yM)
    G[5, [4, 6]] = 0.5, 0.5
    G[6, [5, 7]] = 0.5, 0.5
    G[7, [6, 7, 8, 9]] = 2 * (xM - xH), 2 * (yM - yH), -2 * (xM - xH), -2 * (yM - yH)
    G[8, [0, 1, 8, 9]] = 2 * (xK - xH), 2 * (yK - yH), -2 * (xK - xH), -2 * (yK - yH)
    return G


def test_darboux_branch_point_names_the_dependent_constraints_at_its_instant():
    sys = darboux.build().compile(stabilization=None)
    res = sys.simulate(0.5, q0=darboux.vertices(0.0), v0=darboux.vertex_velocities(0.0, 1.0),
                       rtol=1e-10, atol=1e-12)
    (d,) = res.redundant_constraints                  # the square at t = 0 only
    assert d.t_start == d.t_end == 0.0 and (d.rank, d.rows) == (8, 9)
    q0 = np.array(list(darboux.vertices(0.0).values()))
    G = _darboux_G(q0)
    names = [f"f{i}" for i in range(1, 10)]
    ref = tuple(n for n, e in zip(names, essential(G)) if not e)
    assert d.dependent == ref == ("f1", "f2", "f4", "f5", "f6", "f8", "f9")
    # the relation is the left null vector of G at the square (f3, f7 not in it)
    (rel,) = d.relations
    a = np.array([rel.get(n, 0.0) for n in names])
    np.testing.assert_allclose(a @ G, 0.0, atol=1e-9)
    assert np.allclose([a[2], a[6]], 0.0)
    assert res.stats["rank_drop_times"] == [0.0]


def test_mechdae_run_summary_names_the_dependent_constraints(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "run",
                           str(REPO / "models" / "darboux.py"), "--t-final", "0.2",
                           "--plot", str(tmp_path / "d.png")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "RankDrop(t=0, rank 8 of 9, dependent: f1, f2, f4, f5, f6, f8, f9)" in proc.stdout
