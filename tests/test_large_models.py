"""Large models (issue 31): the stiffness test picks BDF, the sparse linear solver gives the
dense one's numbers, and the stats say when a model runs interpreted and why."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import mechdae as md
from mechdae.components import electrical as el
from mechdae.simulate import stiffness

sys.path.insert(0, str(Path(__file__).parent))
from _modeling import load  # noqa: E402

TIGHT = dict(rtol=1e-10, atol=1e-12)


def rc_ladder(n, R=1.0, C=1e-3):
    """A unit voltage step into ``n`` resistor-capacitor stages."""
    m = md.Model(f"ladder{n}")
    src, g = m.add(el.VoltageSource("src", V=1.0)), m.add(el.Ground("gnd"))
    m.connect(src.n, g.p)
    prev = src.p
    for k in range(n):
        r, c = m.add(el.Resistor(f"R{k}", R=R)), m.add(el.Capacitor(f"C{k}", C=C))
        m.connect(prev, r.p)
        m.connect(r.n, c.p)
        m.connect(c.n, g.p)
        prev = r.n
    return m


def ladder_closed_form(n, t, R=1.0, C=1e-3):
    """``v' = A v + b`` (``A = tridiag(1, -2, 1) / RC`` with ``-1`` in the last row's
    diagonal, ``b = e_1 / RC``) from ``v = 0``: ``v(t) = A^-1 (exp(A t) - I) b`` by the
    eigen-decomposition of the symmetric ``A``; and its eigenvalues, which are
    ``-(2 / RC) (1 - cos((2k - 1) pi / (2n + 1)))``."""
    A = (np.diag(-2.0 * np.ones(n)) + np.diag(np.ones(n - 1), 1)
         + np.diag(np.ones(n - 1), -1))
    A[-1, -1] = -1.0
    A /= R * C
    b = np.zeros(n)
    b[0] = 1.0 / (R * C)
    lam, Q = np.linalg.eigh(A)
    c = Q.T @ b
    V = Q @ (((np.exp(np.outer(lam, t)) - 1.0) / lam[:, None]) * c[:, None])
    return V, lam


def test_rc_ladder_is_stiff_and_runs_bdf_with_the_closed_form_voltages():
    n = 60
    s = rc_ladder(n).compile()
    res = s.simulate(0.5, n_out=51)
    st = res.stats
    assert st["lmm"] == "bdf" and st["stiff"] is True
    assert st["linear_solver"] == "csparse"
    V, lam = ladder_closed_form(n, res.t)
    k = np.arange(1, n + 1)
    exact = (2.0 / 1e-3) * (1.0 - np.cos((2 * k - 1) * math.pi / (2 * n + 1)))
    np.testing.assert_allclose(np.sort(-lam), np.sort(exact), rtol=1e-10)
    # the stiffness test's rate: the fastest mode, ~4/RC, from the colored Jacobian
    assert st["decay_rate"] == pytest.approx(exact.max(), rel=1e-5)
    ours = np.array([res[f"C{i}.v"] for i in range(n)])
    assert np.abs(ours - V).max() < 1e-6
    # Adams would be held to steps ~ RC / 4 (over 2,000 for the 0.5 s): BDF takes a few
    # hundred
    assert st["nsteps"] < 600


def test_sparse_and_dense_linear_solvers_give_the_same_ladder():
    """CSparse's sparse LU (the default of a Newton iteration) against LAPACK's dense LU."""
    s = rc_ladder(40).compile()
    sparse = s.simulate(0.3, n_out=31, **TIGHT)
    dense = s.simulate(0.3, n_out=31, integrator_options={"linear_solver": "lapacklu"},
                       **TIGHT)
    assert sparse.stats["linear_solver"] == "csparse"
    assert dense.stats["linear_solver"] == "lapacklu"
    assert dense.stats["lmm"] == "bdf"
    for i in range(40):
        np.testing.assert_allclose(sparse[f"C{i}.v"], dense[f"C{i}.v"], rtol=0, atol=1e-9)


@pytest.mark.parametrize("alpha", [10.0, 3000.0])
def test_stabilization_gains_decide_the_scheme(alpha):
    """Pendulum with Baumgarte ``phi'' + 2 alpha phi' + alpha^2 phi = 0``: the constraint
    perturbations decay at ``-alpha`` (double root), the physical mode oscillates. Gains of
    10/s keep Adams; 3,000/s over 2 s make the run stiff and BDF runs it; both give the
    motion of the reference (BDF at tight tolerances) and conserve energy."""
    s = load("pendulum").compile(stabilization=md.Baumgarte(alpha, alpha))
    q0 = {"x": 0.6, "y": -0.8}
    res = s.simulate(2.0, q0=q0, **TIGHT)
    st = res.stats
    # the double root -alpha (finite differences split it by ~ alpha sqrt(1e-7))
    assert st["decay_rate"] == pytest.approx(alpha, rel=2e-3)
    assert st["lmm"] == ("bdf" if alpha > 1000 else "adams")
    assert st["stiff"] is (alpha > 1000)
    ref = s.simulate(2.0, q0=q0, integrator_options={"linear_multistep_method": "bdf"},
                     rtol=1e-12, atol=1e-14)
    assert np.abs(res["x"] - ref["x"]).max() < 1e-7
    assert res.energy_error() < 1e-7


def test_the_rate_is_scaled_by_the_run_not_the_model():
    """The test is on ``rate * T``: the same model over a short run stays with Adams."""
    s = load("pendulum").compile(stabilization=md.Baumgarte(3000.0, 3000.0))
    res = s.simulate(0.2, q0={"x": 0.6, "y": -0.8})
    assert res.stats["lmm"] == "adams" and res.stats["stiff"] is False


def test_explicit_scheme_and_idas_are_not_tested():
    s = rc_ladder(10).compile()
    r = s.simulate(0.1, integrator_options={"linear_multistep_method": "adams"})
    assert "stiff" not in r.stats and "lmm" not in r.stats
    r = s.simulate(0.1, method="idas")
    assert "stiff" not in r.stats and r.stats["linear_solver"] == "csparse"


def test_interpreted_model_says_why(monkeypatch):
    """A right-hand side past the largest generated source compiled runs on the CasADi
    Function and the stats say so; with compiled=True it runs as C with the same numbers."""
    monkeypatch.setenv("MECHDAE_CODEGEN_HUGE", "2000")
    s = rc_ladder(30).compile()
    res = s.simulate(0.2, n_out=11)
    assert res.stats["compiled"] is False
    assert "past the limit of 2000 characters" in res.stats["interpreted"]
    assert "MECHDAE_CODEGEN_HUGE" in res.stats["interpreted"]
    off = s.simulate(0.2, n_out=11, compiled=False)
    assert off.stats["interpreted"] == "compiled=False"
    c = s.simulate(0.2, n_out=11, compiled=True)
    assert c.stats["compiled"] is True and "interpreted" not in c.stats
    np.testing.assert_allclose(c["C29.v"], res["C29.v"], rtol=0, atol=1e-12)


def test_network_dominated_by_its_sparse_solve_stays_interpreted(monkeypatch):
    from mechdae.simulate import smooth
    monkeypatch.setattr(smooth, "SOLVE_ROWS", 20)
    s = rc_ladder(30).compile()
    res = s.simulate(0.2, n_out=11)
    assert res.stats["compiled"] is False
    assert f"{s.nhd + s.nz} x {s.nhd + s.nz} matrix" in res.stats["interpreted"]
    V, _ = ladder_closed_form(30, res.t)
    assert np.abs(res["C29.v"] - V[29]).max() < 1e-6


def test_source_past_the_large_limit_runs_as_c_at_O0(monkeypatch, tmp_path):
    """Past MECHDAE_CODEGEN_MAX the source is compiled at -O0 (not skipped), in the
    background: the first run is interpreted and says so, the next runs as C with the
    interpreted run's numbers."""
    monkeypatch.setenv("MECHDAE_CACHE", str(tmp_path))      # not compiled before
    monkeypatch.setenv("MECHDAE_CODEGEN_MAX", "2000")
    m = md.Model("springs")
    xs = [m.coordinates(f"x{i}") for i in range(6)]
    prev = 0.0
    for i, x in enumerate(xs):
        m.kinetic_energy(0.5 * md.der(x) ** 2)
        m.potential_energy(0.5 * 100.0 * (x - prev) ** 2)
        prev = x
    s = m.compile()
    a = s.simulate(1.0, q0={"x5": 0.1}, n_out=21, **TIGHT)
    assert a.stats["compiled"] is False
    assert "compiling at -O0 in the background" in a.stats["interpreted"]
    assert s._ode_why[next(iter(s._ode_why))]["pending"].wait(120)
    a2 = s.simulate(1.0, q0={"x5": 0.1}, n_out=21, **TIGHT)
    np.testing.assert_allclose(a2.q, a.q, rtol=0, atol=1e-12)
    a = a2
    assert a.stats["compiled"] is True and a.stats["compiled_flags"] == "-O0"
    b = s.simulate(1.0, q0={"x5": 0.1}, n_out=21, compiled=False, **TIGHT)
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-12)
    # energy of the conservative chain: 1/2 c x5^2 at the start
    assert np.abs(a.energy - 0.5).max() < 1e-8


def test_jacobian_by_colours_matches_the_dense_one():
    """Three evaluations for the tridiagonal ladder; the entries of ``A`` (1/RC = 1000)."""
    from mechdae.simulate.smooth import ode_function, _pack, stabilization_matrices
    s = rc_ladder(25).compile()
    f, _ = ode_function(s, [])
    H, K, _ = stabilization_matrices(s, "compiled")
    P = _pack(s, 0.0, 1.0, s.param_vector(None), H, K, np.zeros(0))
    J = stiffness.jacobian(f, np.linspace(0.0, 1.0, 25), 0.0, P)
    assert stiffness._groups(f)[1].__len__() == 3
    _, lam = ladder_closed_form(25, np.zeros(1))
    A = (np.diag(-2.0 * np.ones(25)) + np.diag(np.ones(24), 1) + np.diag(np.ones(24), -1))
    A[-1, -1] = -1.0
    np.testing.assert_allclose(J.toarray(), 1000.0 * A, rtol=0, atol=1e-4)


def test_long_ladder_rate_from_arpack_and_voltages():
    """500 stages (1,002 components, 500 states past the dense-eigenvalue limit): ARPACK's
    fastest decay rate matches the closed form, and the sparse BDF run the voltages."""
    n = 500
    assert n > stiffness.DENSE_EIG
    s = rc_ladder(n).compile()
    res = s.simulate(0.5, n_out=21)       # rate ~4,000/s times 0.5 s: stiff
    st = res.stats
    V, lam = ladder_closed_form(n, res.t)
    assert st["lmm"] == "bdf" and st["linear_solver"] == "csparse"
    assert st["decay_rate"] == pytest.approx(-lam.min(), rel=1e-3)
    ours = np.array([res[f"C{i}.v"] for i in range(n)])
    assert np.abs(ours - V).max() < 1e-6
    # the network's solve dominates its evaluation: interpreted, and the stats say why
    assert st["compiled"] is False and "sparse factorization" in st["interpreted"]


def _parallelograms(n):
    """``n`` parallelogram loops from planar components hanging under gravity (the
    benchmarks' four-bar chain): ``2 n + 1`` joint coordinates, ``2 n`` cut-joint rows."""
    from mechdae.components import planar as pl
    m = md.Model(f"loops{n}")
    w = m.add(pl.World("world"))
    tips = []
    for k in range(n + 1):
        j = m.add(pl.Revolute(f"k{k}", phi0=-math.pi / 2 + 0.5))
        b = m.add(pl.BodyShape(f"crank{k}", r=(1.0, 0.0)))
        m.connect(m.add(pl.Fixed(f"g{k}", r=(2.0 * k, 0.0))).frame if k else w.frame,
                  j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        tips.append(b.frame_b)
    for k in range(n):
        j = m.add(pl.Revolute(f"c{k}", phi0=math.pi / 2 - 0.5))
        b = m.add(pl.BodyShape(f"coupler{k}", r=(2.0, 0.0), r_cm=(1.0, 0.0)))
        cut = m.add(pl.Revolute(f"cut{k}", phi0=-math.pi / 2 + 0.5))
        m.connect(tips[k], j.frame_a)
        m.connect(j.frame_b, b.frame_a)
        m.connect(b.frame_b, cut.frame_a)
        m.connect(cut.frame_b, tips[k + 1])
    return m


def test_dense_jacobian_raises_the_threshold():
    """Six loops (13 coordinates, a dense Jacobian of 26 colours: BDF's Jacobians cost 26
    evaluations each): stabilization gains of 1,000/s over 2 s (scaled rate 2,000) stay
    with Adams, whose steps cost 2 evaluations; the rate is the gains' double root."""
    assert stiffness.threshold(3) == stiffness.STIFF_RATE
    s = _parallelograms(6).compile(stabilization=md.Baumgarte(1000.0))
    res = s.simulate(2.0, n_out=21)
    st = res.stats
    assert s.nq == 13 and st["decay_rate"] == pytest.approx(1000.0, rel=2e-3)
    assert stiffness.threshold(26) > 2000.0
    assert st["lmm"] == "adams" and st["stiff"] is False
    assert res.max_drift() < 1e-8
