"""Units of component results: every variable and parameter of the component models in
models/ has its MSL SI unit in ``res.units``; plots label their axes with it and saved
files keep it."""
import glob
import os

import pytest

import mechdae as md
from mechdae.components import electrical as el, planar as pl, rotational as rot
from mechdae.components import spatial as sp, translational as tr
from mechdae.components.units import component_units, units_of_class

MODELS = os.path.join(os.path.dirname(__file__), "..", "models")


def _oscillator():
    m = md.Model("osc")
    mass = m.add(tr.Mass("mass", m=1.0, L=0.1, s=0.3))
    k = m.add(tr.SpringDamper("k", c=40.0, d=0.5))
    f = m.add(tr.Fixed("f"))
    m.connect(mass.flange_a, k.flange_b)
    m.connect(k.flange_a, f.flange)
    return m


def test_translational_units_by_full_name():
    res = _oscillator().compile().simulate(0.2, progress=False)
    u = res.units
    assert (u["mass.s"], u["mass.v"], u["mass.m"], u["mass.L"]) == ("m", "m/s", "kg", "m")
    assert (u["k.c"], u["k.d"], u["k.s_rel0"], u["k.f"]) == ("N/m", "N.s/m", "m", "N")
    assert (u["mass.flange_a.s"], u["mass.flange_a.f"], u["f.s0"]) == ("m", "N", "m")


def test_multibody_and_circuit_units():
    m = md.Model("arm")
    w = m.add(pl.World("world"))
    j = m.add(pl.Revolute("j", useAxisFlange=True))
    d = m.add(rot.Damper("damp", d=0.1))
    b = m.add(pl.BodyShape("b", r=(0.5, 0.0), r_cm=(0.25, 0.0)))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    m.connect(j.axis, d.flange_a)
    m.connect(j.support, d.flange_b)
    u = m.compile().simulate(0.1, progress=False).units
    assert (u["j.phi"], u["j.w"], u["b.frame_b.fx"], u["b.frame_b.tau"]) == \
        ("rad", "rad/s", "N", "N.m")
    assert (u["b.r[1]"], u["b.I"], u["world.g"], u["damp.d"]) == \
        ("m", "kg.m2", "m/s2", "N.m.s/rad")
    s = md.Model("top")
    w = s.add(sp.World("world"))
    js = s.add(sp.Spherical("j"))
    bs = s.add(sp.Body("b", r_cm=(0.0, 0.0, 0.1)))
    s.connect(w.frame, js.frame_a)
    s.connect(js.frame_b, bs.frame_a)
    u = s.compile().simulate(0.05, progress=False).units
    assert (u["j.q0"], u["j.wz"], u["b.frame_a.R[2,3]"], u["b.frame_a.f[1]"]) == \
        ("1", "rad/s", "1", "N")
    assert (u["b.I_21"], u["b.r_cm_0[3]"], u["b.w_a[1]"]) == ("kg.m2", "m", "rad/s")
    c = md.Model("rc")
    src = c.add(el.VoltageSource("src", V=1.0))
    R = c.add(el.Resistor("R", R=2.0))
    C = c.add(el.Capacitor("C", C=0.1))
    g = c.add(el.Ground("g"))
    c.connect(src.p, R.p)
    c.connect(R.n, C.p)
    c.connect(C.n, src.n, g.p)
    u = c.compile().simulate(0.1, progress=False).units
    assert (u["R.R"], u["C.C"], u["C.v"], u["R.i"], u["src.p.v"]) == ("Ohm", "F", "V", "A", "V")


def test_units_data_merge_along_the_class_hierarchy():
    assert units_of_class(tr.Damper)["d"] == "N.s/m"          # from _Compliant
    assert units_of_class(sp.Spring)["s_unstretched"] == "m"   # spatial adds to planar's
    assert units_of_class(sp.Spring)["c"] == "N/m"
    m = _oscillator()
    m.flatten()
    assert component_units(m, ["mass.s", "nothing.here", "k.unknown"]) == {"mass.s": "m"}


def test_plot_labels_and_files_carry_component_units(tmp_path):
    pytest.importorskip("matplotlib")
    res = _oscillator().compile().simulate(0.2, progress=False)
    fig = res.plot(names=["mass.s"])
    assert fig.axes[0].get_ylabel() == "mass.s (m)"
    fig = res.plot(names=["mass.v", "k.f"])
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "mass.v (m/s)" in legend and "k.f (N)" in legend
    path = res.save(tmp_path / "osc.npz")
    back = md.Result.load(path)
    assert back.units["k.c"] == "N/m" and back.units["mass.v"] == "m/s"


def _component_model_files():
    out = []
    for f in sorted(glob.glob(os.path.join(MODELS, "*.py"))):
        text = open(f, encoding="utf-8").read()
        if "from mechdae.components import" in text:
            out.append(os.path.basename(f)[:-3])
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", _component_model_files())
def test_every_name_of_the_component_model_files_has_a_unit(name):
    m = md.load(os.path.join(MODELS, f"{name}.py"))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = m.compile().simulate(0.02, progress=False)
    names = [n for n in res.keys() + list(res.system.p_names) if n != "t"]
    missing = [n for n in names if n not in res.units]
    assert not missing, f"{name}: no unit for {missing[:10]}"
