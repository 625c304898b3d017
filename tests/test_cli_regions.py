"""`mechdae regions`: the seed-000 region map. Ambiguity (region IV) appears only when the
friction at B is large enough (f >= |I/F|), never at f = 0.5 on this grid."""
import ast
import io

import numpy as np

from conftest import REPO
from mechdae.cli import _parser
from mechdae.loader import load_module
from mechdae.contact import _cli


def _counts(text):
    return ast.literal_eval(text[text.index("{"):text.rindex("}") + 1])


def _run(tmp_path, f):
    out = io.StringIO()
    args = _parser().parse_args(
        ["regions", str(REPO / "models" / "two_link_impact.py"), "--f", str(f), "--n", "60",
         "--out", str(tmp_path / f"map_{f}.png")])
    assert _cli.regions(args, out=out) == 0
    assert (tmp_path / f"map_{f}.png").stat().st_size > 10_000
    return _counts(out.getvalue())


def test_region_map_ambiguity_needs_large_friction(tmp_path):
    low, high = _run(tmp_path, 0.5), _run(tmp_path, 3.0)
    assert sum(low.values()) == sum(high.values()) == 3600
    # cells with several solutions are counted by their outcome set ("stays | leaves ...")
    amb = [sum(v for k, v in c.items() if "|" in k) for c in (low, high)]
    assert amb[0] == 0 and amb[1] > 0
    # no consistent impact below gamma_5 (E_1y < 0): gamma_4 for alpha < alpha', else gamma_2
    alpha = np.linspace(0.01, np.pi / 2 - 0.01, 60)
    gamma = np.linspace(-np.pi + 0.01, -0.01, 60)
    curves = load_module(str(REPO / "models" / "two_link_impact.py")).boundary_curves(alpha)
    g5 = np.where(alpha < np.arcsin(np.sqrt(2 / 3)), curves["gamma_4"], curves["gamma_2"])
    below = int((gamma[None, :] < g5[:, None]).sum())
    for counts in (low, high):
        assert abs(counts["inconsistent"] - below) <= 0.03 * below
    # more friction turns sliding into sticking
    assert high["stays"] > low["stays"] and high["slides"] < low["slides"]


def test_region_map_with_the_closure_law_has_no_inconsistent_cell(tmp_path):
    """--build closure=True (sec. 5, law (5.2)): every cell has an outcome; D lifts off
    (hatched) exactly in the cells below gamma_5 that were inconsistent before."""
    out = io.StringIO()
    args = _parser().parse_args(
        ["regions", str(REPO / "models" / "two_link_impact.py"), "--f", "3", "--n", "60",
         "--build", "closure=True", "--out", str(tmp_path / "closure.png")])
    assert _cli.regions(args, out=out) == 0
    closed, default = _counts(out.getvalue()), _run(tmp_path, 3.0)
    assert "inconsistent" not in closed
    lifted = closed.pop("other contact lifts off")
    assert sum(closed.values()) == 3600
    assert abs(lifted - default["inconsistent"]) <= 0.02 * default["inconsistent"]
