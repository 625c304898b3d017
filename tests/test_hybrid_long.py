"""Rocking block and Newton's cradle with the event-driven driver: energy never increases,
momentum is conserved by every cradle impact."""
import numpy as np

import mechdae as md


def test_rocking_block_energy_never_increases():
    sys_ = md.load("models/rocking_block.py").compile(stabilization=None)
    res = sys_.simulate(1.3, q0={"x": 0.0, "y": 1.0, "th": 0.2}, method="event")
    imps = [e for e in res.events if e.kind == "impact"]
    assert len(imps) > 10
    assert np.all(np.diff(res.energy) <= 1e-6 * res.energy[0])
    for e in imps:
        assert e.energy_after <= e.energy_before + 1e-12
        assert e.impulse[0] >= 0
    acc = [e for e in res.events if e.kind == "accumulation"]
    assert acc                      # each corner's bounce series ends in an accumulation


def test_newtons_cradle_momentum_per_impact():
    sys_ = md.load("models/newtons_cradle.py").compile(stabilization=None)
    res = sys_.simulate(1.0, q0={"x1": -0.5, "x2": 0.1, "x3": 0.2}, v0={"x1": 1.0},
                        method="event")
    imps = [e for e in res.events if e.kind == "impact"]
    assert imps
    p = res.v.sum(axis=1)
    assert np.allclose(p, 1.0, atol=1e-9)          # total momentum m (v1 + v2 + v3)
    assert np.all(np.diff(res.energy) <= 1e-9)
    # e = 1: the simultaneous Newton law of the touching row gives (-1/3, 2/3, 2/3) v0
    k = int(np.flatnonzero(np.isclose(res.t, imps[0].t))[-1])
    assert np.allclose(res.v[k], [-1 / 3, 2 / 3, 2 / 3], atol=1e-9)
