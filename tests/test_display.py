"""Rich display in Jupyter: Model, System and Result show a table (``_repr_html_``) with
their sizes, names, parameter values and units, events by kind and final values."""
import re

from conftest import REPO

import mechdae as md


def test_bouncing_ball_tables():
    model = md.load(REPO / "models" / "bouncing_ball.py", e=0.8)
    page = model._repr_html_()
    assert page.startswith("<table>") and "Model &#x27;bouncing_ball&#x27;" in page
    assert "e = 0.8" in page and "ground" in page
    sys = model.compile(stabilization=None)
    assert "n_q = 2, n_u = 2" in sys._repr_html_()
    res = sys.simulate(5.0, q0={"y": 1.1}, method="event", progress=False)
    table = res._repr_html_()
    # 40 impacts up to the accumulation point, then resting on the ground: y = R = 0.1 m
    assert re.search(r"impact 40\b", table) and "accumulation 1" in table
    assert "y = 0.1 m" in table
    assert "[0, 5] s" in table


def test_component_result_table_carries_units():
    m = md.load(REPO / "models" / "msl_translational_oscillator.py")
    res = m.compile().simulate(0.1, progress=False)
    table = res._repr_html_()
    assert "mass1.s (m)" in table and "mass1.v (m/s)" in table
    assert "Mass &times; 2" in m._repr_html_()
