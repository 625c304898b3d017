"""The same sweep serially, on threads, on processes and on a dask.distributed LocalCluster
(a real scheduler and two worker processes): identical results, Systems loaded once per
worker (issue 17)."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest

from conftest import model_module


@pytest.fixture(scope="module")
def two_link():
    mod = model_module("two_link_impact")
    return mod, mod.build().compile()


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as lc, distributed.Client(lc) as c:
        yield c


def _region_map(system, mod, n, **kw):
    """Outcome of the impact at B over an n x n (alpha, gamma) grid: 0 inconsistent,
    1 B leaves, 2 slides, 3 stays, 4 ambiguous (as `mechdae regions`)."""
    alpha = np.linspace(0.01, np.pi / 2 - 0.01, n)
    gamma = np.linspace(-np.pi + 0.01, -0.01, n)
    df = system.impact_sweep(grid={"alpha": alpha, "gamma": gamma}, state=mod.impact_state,
                             params={"f": 0.5}, **kw)
    assert not (df["status"] == "failed").any()
    cls = np.select([df["status"] == "inconsistent", df["status"] == "ambiguous",
                     df["mode.B"] == "separate", df["mode.B"] == "slide",
                     df["mode.B"] == "stick"], [0, 4, 1, 2, 3], -1)
    return cls.reshape(n, n), df


def _maps(system, mod, n, cluster, chunk):
    out = {}
    for name, ex in (("serial", None), ("threads", "threads"), ("processes", "processes"),
                     ("dask", cluster)):
        cls, df = _region_map(system, mod, n, executor=ex, workers=2, chunk=chunk)
        out[name] = cls
        if name == "serial":
            ref = df
        else:                  # every column, bit for bit
            pd.testing.assert_frame_equal(df, ref)
    return out


def _check_regions(cls, n, mod):
    """Region map of seed 000 at f = 0.5: no consistent impact below gamma_5, all three
    modes of B present, never ambiguous."""
    alpha = np.linspace(0.01, np.pi / 2 - 0.01, n)
    gamma = np.linspace(-np.pi + 0.01, -0.01, n)
    c = mod.boundary_curves(alpha)
    g5 = np.where(alpha < np.arcsin(np.sqrt(2 / 3)), c["gamma_4"], c["gamma_2"])
    below = gamma[None, :] < g5[:, None]
    assert abs(int((cls == 0).sum()) - int(below.sum())) <= 0.03 * below.sum()
    assert {1, 2, 3} <= set(np.unique(cls).tolist()) and not (cls == 4).any()


def test_seed000_region_map_identical_on_every_backend(two_link, cluster):
    mod, system = two_link
    maps = _maps(system, mod, 40, cluster, chunk=150)
    for name, cls in maps.items():
        np.testing.assert_array_equal(cls, maps["serial"], err_msg=name)
    _check_regions(maps["serial"], 40, mod)
    # `mechdae regions` maps the same sweep (here on the cluster)
    from mechdae.contact._cli import region_map
    cls = region_map(system, mod.impact_state, f=0.5, n=40, executor=cluster, chunk=150)[2]
    np.testing.assert_array_equal(cls, maps["serial"])


@pytest.mark.slow
def test_seed000_region_map_100x100_identical_on_every_backend(two_link, cluster):
    mod, system = two_link
    maps = _maps(system, mod, 100, cluster, chunk=None)
    for name, cls in maps.items():
        np.testing.assert_array_equal(cls, maps["serial"], err_msg=name)
    _check_regions(maps["serial"], 100, mod)


def _drop(h):                 # the ball's center starts at R + h (R = 0.1)
    return {"y": 0.1 + h}, {}


def test_simulation_sweep_identical_and_system_loaded_once_per_worker(cluster):
    ball = model_module("bouncing_ball").build().compile()
    kw = dict(grid={"h": np.linspace(0.5, 2.0, 6)}, params={"e": [0.6, 0.9]}, state=_drop,
              t_final=0.8, method="event", chunk=1,
              outputs={"t1": "first(impact)", "apex": lambda r: float(np.max(r["y"]))})
    ref = ball.sweep(**kw)
    assert (ref["status"] == "ok").all()
    np.testing.assert_allclose(ref["t1"], np.sqrt(2 * ref["h"] / 9.81), rtol=1e-8)
    for ex in ("threads", cluster):      # ("processes": the region-map test)
        df = ball.sweep(executor=ex, workers=2, **kw)
        pd.testing.assert_frame_equal(df, ref)
    # 12 tasks on 2 Dask workers: the System and the plan loaded once per worker process
    assert 2 <= df.attrs["sweep"]["loads"] <= 4, df.attrs["sweep"]
    # a caller's pool: the System travels with each task but is loaded once per worker
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        df = ball.sweep(executor=pool, **kw)
    pd.testing.assert_frame_equal(df, ref)
    assert 2 <= df.attrs["sweep"]["loads"] <= 4, df.attrs["sweep"]


def test_dask_scheduler_address_and_cached_system(two_link, cluster):
    mod, system = two_link
    kw = dict(grid={"alpha": np.linspace(0.2, 1.3, 5), "gamma": np.linspace(-2.5, -0.5, 5)},
              state=mod.impact_state, params={"f": 0.5}, chunk=5)
    ref = system.impact_sweep(**kw)
    first = system.impact_sweep(executor=cluster.scheduler.address, **kw)
    pd.testing.assert_frame_equal(first, ref)
    again = system.impact_sweep(executor=cluster, **kw)
    pd.testing.assert_frame_equal(again, ref)
    # the workers kept the System by its content hash: only the new plan was loaded
    assert again.attrs["sweep"]["loads"] <= 2
