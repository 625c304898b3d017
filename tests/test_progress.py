"""Progress bars (mechdae._progress): off when not a terminal or with progress=False; on a
shown bar the drivers integrate in chunks and give the same run."""
import io

import numpy as np
import pytest

from mechdae import _progress
from conftest import model_module

pytest.importorskip("tqdm")


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_enabled_only_in_a_terminal_and_not_when_off():
    assert _progress.enabled(None, stream=io.StringIO()) is False       # a pipe, a log, CI
    assert _progress.enabled(None, stream=_Tty()) is True
    assert _progress.enabled(False, stream=_Tty()) is False
    assert _progress.enabled(True, stream=io.StringIO()) is True
    with pytest.raises(ValueError, match="progress must be True, False or None"):
        _progress.enabled("yes")


def test_nested_runs_report_to_the_outer_bar_only():
    out = _Tty()
    with _progress.running("sweep", 0, 3, progress=True, unit="run", stream=out) as bar:
        assert _progress.shown()
        with _progress.running("run", 0.0, 1.0, progress=True, stream=out) as inner:
            assert inner is None and not _progress.shown()
            _progress.advance(0.5)                  # a run inside: not the sweep's count
        _progress.advance(2)
        assert bar.last == 2
    assert not _progress.shown()


@pytest.mark.parametrize("model, method, t_final", [("pendulum", "cvodes", 0.5),
                                                    ("column_of_beads", "timestepping", 2.5)])
def test_a_shown_bar_chunks_the_run_and_changes_nothing(monkeypatch, capsys, model, method,
                                                        t_final):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    mod = model_module(model)
    sim = dict(mod.SIMULATION)
    system = mod.build().compile(stabilization=sim.get("stabilization", "default"))
    kw = dict(q0=sim.get("q0"), v0=sim.get("v0"), method=method)
    if method == "timestepping":
        kw["dt"] = sim["dt"]
    quiet = system.simulate(t_final, progress=False, **kw)
    assert capsys.readouterr().err == ""
    shown = system.simulate(t_final, progress=True, **kw)
    err = capsys.readouterr().err
    assert system.name in err and "%|" in err and "s [" in err
    assert shown.t.size == quiet.t.size
    if method == "timestepping":
        # C loop restarted every 2000 steps: bit for bit the same run
        np.testing.assert_array_equal(shown.q, quiet.q)
        assert len(shown.events) == len(quiet.events)
    else:
        # the integrator restarted at 20 chunk boundaries: within the tolerances
        np.testing.assert_allclose(shown.q, quiet.q, atol=1e-6)
        assert shown.energy_error() < max(3 * quiet.energy_error(), 1e-6)
