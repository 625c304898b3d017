"""Result.plot: event marks drawn per kind (not per event), axis labels with the units the
model declares, accumulation points marked and named; Result.animate writes a gif of the
rocking block whose frames show the computed configurations."""
import math

import numpy as np
import pytest

import mechdae as md
from conftest import model_module

pytest.importorskip("matplotlib")


def event_lines(ax):
    return [ln for ln in ax.lines if (ln.get_gid() or "").startswith("events:")]


@pytest.fixture(scope="module")
def beads():
    """Siconos ColumnOfBeadsTS (the model file's defaults): 13,000 time-stepping impacts."""
    mod = model_module("column_of_beads")
    sim = mod.SIMULATION
    return mod.build().compile(stabilization=None).simulate(
        sim["t_final"], q0=sim["q0"], method="timestepping", dt=sim["dt"], progress=False)


def test_column_of_beads_event_marks_one_collection_per_kind(beads, tmp_path):
    res = beads
    n = len(res.events)
    assert n > 10000 and {e.kind for e in res.events} == {"impact"}
    fig = res.plot(tmp_path / "beads.png", names=["y0", "y4", "y9"])
    assert (tmp_path / "beads.png").stat().st_size > 1000
    assert fig.event_counts == {"impact": n}
    for ax in fig.axes:
        marks = event_lines(ax)
        assert len(marks) == 1                      # one artist for 13,000 impacts
        xs = marks[0].get_xdata()
        assert np.isnan(xs).sum() == n              # one segment per impact
        assert len(ax.lines) <= 4                   # the series and the marks
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert f"impact: {n}" in legend
    assert fig.axes[0].get_ylabel() == "coordinates (m)"     # column_of_beads declares m
    assert fig.axes[-1].get_xlabel() == "t (s)"
    assert fig.axes[-1].get_ylabel() == "E(t) - E(0) (J)"


def test_accumulation_point_marked_and_named(tmp_path):
    """Bouncing ball, e = 0.8, dropped from h0 = 1 m: the impacts accumulate at
    t_inf = t1 + 2 v1 e / (g (1 - e)), t1 = sqrt(2 h0 / g), v1 = g t1."""
    mod = model_module("bouncing_ball")
    res = mod.build().compile(stabilization=None).simulate(
        5.0, q0={"y": 1.1}, method="event", progress=False)
    g, e, h0 = 9.81, 0.8, 1.0
    t1 = math.sqrt(2 * h0 / g)
    t_inf = t1 + 2 * g * t1 * e / (g * (1 - e))
    acc = [ev for ev in res.events if ev.kind == "accumulation"]
    assert len(acc) == 1 and acc[0].t == pytest.approx(t_inf, rel=1e-6)
    fig = res.plot(tmp_path / "ball.png")
    kinds = set(fig.event_counts)
    assert {"impact", "accumulation"} <= kinds
    for ax in fig.axes:      # one collection per plotted kind on every axis
        assert sorted(ln.get_gid() for ln in event_lines(ax)) == \
            sorted(f"events:{k}" for k in kinds)
    notes = [t.get_text() for t in fig.axes[0].texts]
    assert any(s.startswith("accumulation") and f"{acc[0].t:.6g} s" in s and "ground" in s
               for s in notes), notes
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "accumulation: 1" in legend


def test_units_declared_in_the_model_label_the_axes():
    mod = model_module("painleve_rod")
    res = mod.build().compile().simulate(0.2, q0=mod.SIMULATION["q0"],
                                         v0=mod.SIMULATION["v0"], progress=False)
    from mechdae.simulate.plot import label, unit_of
    assert unit_of(res, "th") == "rad" and unit_of(res, "der(th)") == "rad/s"
    assert unit_of(res, "t") == "s" and res.units["g"] == "m/s^2"
    fig = res.plot(names=["x", "th"])
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()][:2] == \
        ["x (m)", "th (rad)"]
    m = md.Model("nounits")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    assert label(m.compile().simulate(0.1, progress=False), "x") == "x"
    bad = md.Model("bad")
    bad.coordinates("x y", unit=["m"])
    with pytest.raises(md.ModelError, match="unit"):
        bad.compile()


def test_rocking_block_animation_to_gif(tmp_path):
    from PIL import Image
    mod = model_module("rocking_block")
    sim = mod.SIMULATION
    res = mod.build().compile().simulate(1.0, q0=sim["q0"], progress=False)
    path = tmp_path / "block.gif"
    anim = res.animate(path, fps=10)
    with Image.open(path) as im:
        assert im.n_frames == 11                 # 1 s at 10 frames per second
        assert im.size[0] > 100
    ft = anim.frame_times
    assert ft[0] == 0.0 and ft[-1] == pytest.approx(1.0) and np.all(np.diff(ft) > 0)
    # the drawn block is the computed configuration: its lower left corner is contact L
    fig = anim._fig
    poly = [p for p in fig.axes[0].patches][0]
    anim._func(len(ft) - 1)
    k = int(np.searchsorted(res.t, ft[-1]))
    x, y, th = res["x"][k], res["y"][k], res["th"][k]
    l, h = 1.0, 1.5
    corner = (x - l / 2 * math.cos(th) + h / 2 * math.sin(th),
              y - l / 2 * math.sin(th) - h / 2 * math.cos(th))
    assert np.allclose(poly.get_xy()[0], corner, atol=1e-12)


def test_animate_needs_drawings_and_a_known_format(tmp_path):
    m = md.Model("plain")
    x = m.coordinates("x")
    m.kinetic_energy(0.5 * md.der(x) ** 2)
    res = m.compile().simulate(0.1, progress=False)
    with pytest.raises(ValueError, match="declares nothing to draw.*m.draw"):
        res.animate(tmp_path / "a.gif")
    mod = model_module("bouncing_ball")
    res = mod.build().compile(stabilization=None).simulate(0.1, q0={"y": 1.1}, progress=False)
    with pytest.raises(ValueError, match="'.gif'"):
        res.animate(tmp_path / "a.avi")
