"""The code blocks of docs/guide.md section 7 (components and connectors) run as written,
and what they print is what the physics says."""
import re

import numpy as np
import pytest

from conftest import REPO


def _blocks():
    txt = (REPO / "docs" / "guide.md").read_text()
    sec = txt[txt.index("## 7. Components"):]
    return re.findall(r"```python\n(.*?)```", sec, re.S)


def _run(k):
    ns = {}
    exec(compile(_blocks()[k], f"guide section 7, block {k}", "exec"), ns)
    return ns


def test_guide_dc_motor_through_a_gear():
    ns = _run(0)
    res, sysm = ns["res"], ns["sys"]
    assert sysm.v_names == ["L.i"] and sysm.q_names == ["J.phi"]       # load.phi eliminated
    # the gear's relation holds (a stabilized constraint) and torques balance: ratio
    # tau_a + tau_b = 0
    assert np.abs(res["load.w"] * 10.0 - res["J.w"]).max() < 1e-8
    assert np.abs(10.0 * res["gear.flange_a.tau"] + res["gear.flange_b.tau"]).max() < 1e-9
    # approaching the no-load speed V/k = 240 rad/s with the mechanical time constant
    # J_eff R / k^2 (L/R = 2 ms is much faster)
    J_eff = 1e-3 + 0.05 / 100.0
    tau_m = J_eff * 0.5 / 0.05 ** 2
    w_first_order = 240.0 * (1 - np.exp(-res.t / tau_m))
    assert abs(res["J.w"][-1] - w_first_order[-1]) < 0.01 * 240.0


def test_guide_two_drives_keep_their_names_apart():
    ns = _run(1)
    res = ns["res"]
    assert "d1.emf.i" in res.keys() and "d2.emf.i" in res.keys()
    assert res["d1.emf.i"][-1] != pytest.approx(res["d2.emf.i"][-1], rel=1e-3)
    # Newton at the load: J w' = flange torques (a from the flows)
    sysm = res.system
    assert "d2.R.R" in sysm.p_names and "d1.emf.k" in sysm.p_names


def test_guide_spring_written_from_scratch():
    ns = _run(2)
    res = ns["res"]
    assert res["mass.s"][-1] == pytest.approx(-0.1, abs=1e-6)     # half a period
    assert res["k.f"][0] == pytest.approx(0.4)                      # c x0
    assert res["wall.flange.f"][0] == pytest.approx(0.4)            # the wall is pulled
    assert np.allclose(res["mass.s"], 0.1 * np.cos(2 * res.t), atol=1e-6)


def test_readme_component_example():
    txt = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", txt, re.S)
    block = next(b for b in blocks if "mechdae.components" in b)
    ns = {}
    exec(compile("import mechdae as md\n" + block, "README components block", "exec"), ns)
    res = ns["res"]
    assert res["mass.s"][-1] == pytest.approx(0.1, abs=1e-6)
    assert res["spring.f"][0] == pytest.approx(0.4) and res["wall.flange.f"][0] == pytest.approx(0.4)


def test_guide_general_equations_block():
    """docs/guide.md section 2, "General equations and index reduction", runs as written:
    the plain-equation pendulum is found to be index 3 and keeps its rod."""
    txt = (REPO / "docs" / "guide.md").read_text()
    sec = txt.split("### General equations and index reduction", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", sec, re.S)
    assert len(blocks) == 1
    ns = {}
    exec(compile(blocks[0], "guide section 2 (general equations)", "exec"), ns)
    sysm, res = ns["sys"], ns["res"]
    assert tuple(sysm.dae.c) == (0, 0, 2) and sysm.dae.index == 3
    assert np.abs(res["x"] ** 2 + res["y"] ** 2 - 1.0).max() < 1e-6
    assert res.init_report                       # y (and der(y)) set by initialization


def test_guide_pickling_block_runs_as_a_script(tmp_path):
    """docs/guide.md section 3, "Pickling": the block is a script (worker processes import
    its `run`); run it as one and check the first impact time sqrt(2 h / g)."""
    import subprocess
    import sys
    txt = (REPO / "docs" / "guide.md").read_text()
    sec = txt.split("### Pickling: multiprocessing and Dask", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", sec, re.S)
    assert len(blocks) == 1
    script = tmp_path / "pickling_example.py"
    script.write_text(blocks[0])
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    t1 = np.sqrt(2 * 1.0 / 9.81)
    times = [float(x) for x in p.stdout.split("]")[0].strip("[ ").split(",")]
    assert np.allclose(times, t1, atol=1e-8)
