"""Bad input to a compiled System gives a clear ValueError naming the object and the fix,
never a LinAlgError, a NaN run or an integrator crash."""
import numpy as np
import pytest

import mechdae as md
from conftest import REPO


@pytest.fixture(scope="module")
def pendulum():
    return md.load(str(REPO / "models" / "pendulum.py")).compile()


def test_nan_initial_coordinate_is_named(pendulum):
    with pytest.raises(ValueError, match=r"q0: 'x' not finite"):
        pendulum.simulate(1.0, q0={"x": np.nan, "y": -1.0})


def test_inf_initial_speed_is_named(pendulum):
    with pytest.raises(ValueError, match=r"v0: .*not finite"):
        pendulum.simulate(1.0, q0={"x": 1.0, "y": 0.0}, v0=[np.inf, 0.0])


def test_nan_parameter_is_named(pendulum):
    with pytest.raises(ValueError, match=r"params: value of 'L' is NaN"):
        pendulum.simulate(1.0, q0={"x": 1.0, "y": 0.0}, params={"L": np.nan})


def test_initialization_from_singular_point_fails_clearly(pendulum):
    # at the origin the rod constraint x^2 + y^2 = L^2 has a zero Jacobian: no projection
    with pytest.raises(ValueError, match=r"consistent initialization failed.*'rod'.*initialize=False"):
        pendulum.simulate(1.0, q0={"x": 0.0, "y": 0.0})


def test_initialization_moves_a_nearby_state_onto_the_rod(pendulum):
    with pytest.warns(UserWarning, match=r"changed given values x: 0.9 -> "):
        res = pendulum.simulate(0.1, q0={"x": 0.9, "y": -0.1})
    assert np.hypot(res["x"][0], res["y"][0]) == pytest.approx(1.0, abs=1e-10)
    assert set(res.init_report) >= {"x", "y"}
