"""Generated C (mechdae.codegen, issue 15): the compiled path and the CasADi Function path
give the same trajectories to integration tolerance; without a C compiler the package
works and warns once; the disk cache is reused by a second process and keyed by the
expressions."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mechdae as md
from mechdae import codegen
from conftest import REPO, model_module

pytestmark = pytest.mark.skipif(not codegen.available(), reason="no C compiler")
TIGHT = dict(rtol=1e-10, atol=1e-12)


def _pendulum(L=1.0, k=0.0):
    m = md.Model("cg_pendulum")
    x, y = m.coordinates("x y")
    Lp = m.parameter("L", L)
    m.kinetic_energy(0.5 * (md.der(x) ** 2 + md.der(y) ** 2))
    m.potential_energy(9.81 * y + k * x ** 2)
    m.holonomic(x ** 2 + y ** 2 - Lp ** 2, name="rod")
    return m.compile()


def _same(a, b, tol):
    A, B = (np.hstack([r.q, r.v, r.x]) for r in (a, b))     # coordinates, speeds, extras
    assert a.t.shape == b.t.shape and A.shape == B.shape and A.size
    scale = max(1.0, float(np.abs(A).max()))
    assert np.abs(A - B).max() < tol * scale


def test_compiled_and_function_paths_agree_pendulum():
    s = _pendulum()
    q0, v0 = {"x": 0.6, "y": -0.8}, {"x": 0.8, "y": 0.6}
    a = s.simulate(2.0, q0=q0, v0=v0, method="cvodes", compiled=True, **TIGHT)
    b = s.simulate(2.0, q0=q0, v0=v0, method="cvodes", compiled=False, **TIGHT)
    assert a.stats["compiled"] and not b.stats["compiled"]
    _same(a, b, 1e-7)
    # energy of the conservative pendulum: kept to the tolerance on both paths
    assert a.energy_error() < 1e-8 and b.energy_error() < 1e-8


@pytest.mark.parametrize("name", ["double_pendulum", "slider_crank", "chaplygin_sleigh",
                                  "dc_motor_drive"])
def test_compiled_and_function_paths_agree_models(name):
    mod = model_module(name)
    sim = dict(getattr(mod, "SIMULATION", {}))
    s = mod.build().compile(stabilization=sim.get("stabilization", "default"))
    kw = dict(q0=sim.get("q0"), v0=sim.get("v0"), params=sim.get("params"), method="smooth",
              **TIGHT)
    a = s.simulate(0.5, compiled=True, **kw)
    b = s.simulate(0.5, compiled=False, **kw)
    assert a.stats["compiled"] and not b.stats["compiled"]
    _same(a, b, 1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "models").glob("*.py")))
def test_compiled_and_function_paths_agree_every_model(name):
    mod = model_module(name)
    sim = dict(getattr(mod, "SIMULATION", {}))
    s = mod.build().compile(stabilization=sim.get("stabilization", "default"))
    if not (s.nq or s.nu or s.nv):
        pytest.skip(f"{name}: no states (a resistive circuit): no right-hand side to compile")
    if s.contact_names:
        kw = dict(method="timestepping", dt=1e-3)
        res = [s.simulate(0.2, q0=sim.get("q0"), v0=sim.get("v0"), params=sim.get("params"),
                          compiled=c, **kw) for c in (True, False)]
    else:
        res = [s.simulate(0.5, q0=sim.get("q0"), v0=sim.get("v0"), params=sim.get("params"),
                          method="smooth", compiled=c, **TIGHT) for c in (True, False)]
    assert res[0].stats["compiled"] and not res[1].stats["compiled"]
    _same(res[0], res[1], 1e-6)


def test_integrator_reused_for_new_grids_and_parameters():
    s = _pendulum()
    q0 = {"x": 0.6, "y": -0.8}
    s.simulate(1.0, q0=q0)
    f = s._ode_functions
    for L, n in ((0.5, 101), (2.0, 37)):
        r = s.simulate(3.0, q0={"x": 0.01 * L, "y": -L * np.sqrt(1 - 1e-4)}, params={"L": L},
                       n_out=n, **TIGHT)
        assert r.t.size == n
    assert s._ode_functions is f and len(f) == 1      # one right-hand side for all runs
    # small oscillation period 2 pi sqrt(L/g) on the last grid: first zero crossing up
    x = r["x"]
    i = np.where((x[:-1] < 0) & (x[1:] >= 0))[0][0]
    assert abs(r.t[i] - 0.75 * 2 * np.pi * np.sqrt(2.0 / 9.81)) < 3.0 / 36


def test_changed_model_gets_new_code(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHDAE_CACHE", str(tmp_path))
    for k in (0.0, 0.0, 1.0):
        _pendulum(k=k).simulate(0.1, q0={"x": 0.6, "y": -0.8})
    libs = sorted(p.name for p in tmp_path.glob("mdae_*.so"))
    assert len(libs) == 2                    # the same model twice: one library; changed: new
    assert not list(tmp_path.glob("build_*"))        # no temporary folder left behind


_SCRIPT = """
import warnings, mechdae as md, mechdae.codegen as cg
calls = []
if {forbid}:
    def _no(*a, **k):
        raise AssertionError("compiled again")
    cg._compile = _no
m = md.Model("cg_ball")
y = m.coordinates("y")
m.kinetic_energy(0.5 * md.der(y) ** 2)
m.potential_energy(9.81 * y)
s = m.compile()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r1 = s.simulate(1.0, q0={{"y": 1.0}})
    r2 = s.simulate(0.5, q0={{"y": 2.0}})
n = sum(issubclass(x.category, cg.CodegenWarning) for x in w)
print(r1.stats["compiled"], n, repr(float(r1["y"][-1])))
"""


def _run(tmp_path, forbid=False, **env):
    e = dict(os.environ, MECHDAE_CACHE=str(tmp_path / "cache"), **env)
    p = subprocess.run([sys.executable, "-c", _SCRIPT.format(forbid=forbid)], cwd=tmp_path,
                       capture_output=True, text=True, env=e, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout.split()


def test_second_process_reuses_the_cache(tmp_path):
    first = _run(tmp_path)
    again = _run(tmp_path, forbid=True)       # compiling again would raise
    assert first[0] == again[0] == "True" and first[1] == again[1] == "0"
    # free fall y = 1 - g t^2 / 2 at t = 1, bit for bit the same code
    assert float(first[2]) == pytest.approx(1 - 9.81 / 2, abs=1e-8)
    assert first[2] == again[2]


def test_missing_compiler_warns_once_and_works(tmp_path):
    out = _run(tmp_path, CC=str(tmp_path / "no-such-cc"))
    assert out[0] == "False" and out[1] == "1"
    assert float(out[2]) == pytest.approx(1 - 9.81 / 2, abs=1e-8)


def _chain(n):
    mod = model_module("nlink_chain")
    return mod.build(n).compile(stabilization=None)


def test_smooth_runs_start_with_adams():
    """cvodes starts with Adams and functional iteration (no Jacobian) on the compiled and
    the interpreted path: the same motion as BDF/Newton to the tolerances, energy
    conserved; idas and an explicit scheme run as given."""
    s = _chain(4)
    q0 = {f"theta{i + 1}": 0.4 + 0.1 * i for i in range(4)}
    bdf = dict(integrator_options={"linear_multistep_method": "bdf"})
    ref = s.simulate(2.0, q0=q0, compiled=False, rtol=1e-12, atol=1e-14, **bdf)
    assert ref.stats.get("lmm") is None                   # BDF, as asked
    for compiled in (False, True):
        a = s.simulate(2.0, q0=q0, compiled=compiled, **TIGHT)
        assert a.stats["lmm"] == "adams" and a.stats["nlinsetups"] == 0   # no Jacobian
        _same(a, ref, 1e-7)
        assert a.energy_error() < 1e-8
    for kw in (dict(method="idas", compiled=False),
               dict(compiled=False, integrator_options={"newton_scheme": "direct"})):
        assert s.simulate(0.2, q0=q0, **kw).stats.get("lmm") is None


def test_stiff_mode_hands_adams_over_to_bdf(monkeypatch):
    """Overdamped oscillator x'' + c x' + k x = 0 (c = k = 1e6: modes -1 and -1e6): the
    stiffness test at the initial state finds the rate 1e6/s and BDF runs throughout
    (issue 31); with the test off, Adams' functional iteration is held to steps ~1e-6 by the
    stiff mode, exceeds its step budget in the first output interval, and BDF finishes
    the run: the closed form x = a1 exp(s1 t) + a2 exp(s2 t) to 1e-7 both ways."""
    from mechdae.simulate import stiffness
    m = md.Model("cg_stiff")
    x = m.coordinates("x")
    c = k = 1e6
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    m.potential_energy(0.5 * k * x ** 2)
    m.generalized_force(-c * md.der(x), x)
    s = m.compile()
    s1, s2 = np.roots([1.0, c, k])
    a1, a2 = np.linalg.solve([[1.0, 1.0], [s1, s2]], [1.0, 0.0])
    r = s.simulate(1.0, q0={"x": 1.0}, compiled=False, n_out=11)
    assert r.stats["lmm"] == "bdf" and r.stats["nsteps"] < 2000
    assert r.stats["decay_rate"] == pytest.approx(-min(s1, s2).real, rel=1e-3)
    assert np.abs(r["x"] - (a1 * np.exp(s1 * r.t) + a2 * np.exp(s2 * r.t))).max() < 1e-7
    monkeypatch.setattr(stiffness, "STIFF_RATE", np.inf)
    r = s.simulate(1.0, q0={"x": 1.0}, compiled=False, n_out=11)
    assert r.stats["lmm"] == "adams+bdf" and r.stats["nsteps"] < 2000
    assert np.abs(r["x"] - (a1 * np.exp(s1 * r.t) + a2 * np.exp(s2 * r.t))).max() < 1e-7


def test_adams_scheme_named_in_streamed_and_projected_runs(tmp_path):
    """The chunked paths (a file, projection steps) report the scheme too, and keep the
    pendulum's rod length |q| = L to the projection tolerance."""
    pytest.importorskip("h5py")
    s = _pendulum()
    q0 = {"x": 0.6, "y": -0.8}
    st = s.simulate(2.0, q0=q0, compiled=False, out=tmp_path / "a.h5", chunk=50, **TIGHT)
    assert st.stats["lmm"] == "adams" and st.stats["n_chunks"] == 10
    pr = s.simulate(2.0, q0=q0, compiled=False, stabilization=md.Projection(), n_out=21)
    assert pr.stats["lmm"] == "adams"
    assert np.abs(np.hypot(pr["x"], pr["y"]) - 1.0).max() < 1e-10
