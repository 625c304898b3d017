"""Pickling of Systems, Models and Results (issue 10): a System of every model file pickles
and loads to a System that simulates to the same arrays (bit for bit: the compiled CasADi
Functions are serialized, not re-derived, and integrators rebuild from them), in this
process and in a spawned one; Results carry their System and named outputs; a Model loads
to a Model that compiles to the same equations."""
import multiprocessing
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

import mechdae as md
from conftest import REPO, model_module

MODELS = sorted(p.stem for p in (REPO / "models").glob("*.py"))
T_SHORT = 0.2          # enough for impacts / stick-slip transitions in most files


def _setup(name):
    """(System, simulate kwargs) from the model file's SIMULATION, with a short horizon."""
    mod = model_module(name)
    sim = dict(getattr(mod, "SIMULATION", {}))
    sim.pop("plot", None)
    system = mod.build().compile(stabilization=sim.pop("stabilization", "default"))
    t_final = min(sim.pop("t_final"), T_SHORT)
    kw = dict(q0=sim.pop("q0", None), v0=sim.pop("v0", None), params=sim.pop("params", None),
              method=sim.pop("method", "auto"), **sim)
    return system, t_final, kw


def _assert_same_result(a, b):
    for attr in ("t", "q", "v", "x", "zalg"):
        assert np.array_equal(getattr(a, attr), getattr(b, attr)), attr
    assert sorted(a.multipliers) == sorted(b.multipliers)
    for k in a.multipliers:
        assert np.array_equal(a.multipliers[k], b.multipliers[k]), k
    assert [(e.t, e.contact, e.kind) for e in a.events] == \
        [(e.t, e.contact, e.kind) for e in b.events]
    assert a.keys() == b.keys()
    for k in a.keys():                       # named outputs of component models included
        try:
            va = a[k]
        except KeyError as exc:              # outputs a method does not offer: same message
            with pytest.raises(KeyError) as info:
                b[k]
            assert str(info.value) == str(exc)
            continue
        assert np.array_equal(va, b[k], equal_nan=True), k


@pytest.mark.parametrize("name", MODELS)
def test_system_and_result_round_trip(name):
    system, t_final, kw = _setup(name)
    res = system.simulate(t_final, **kw)        # fills the caches: they are not pickled
    loaded = pickle.loads(pickle.dumps(system))
    assert loaded is not system and loaded.parent is not system.parent
    assert loaded.q_names == system.q_names and loaded.output_names == system.output_names
    assert not loaded._integrators
    _assert_same_result(res, loaded.simulate(t_final, **kw))
    # a Result holds its System: both travel, and the loaded System still works
    res2 = pickle.loads(pickle.dumps(res))
    _assert_same_result(res, res2)
    if res.system is not None:
        assert res2.system.q_names == system.q_names
    assert res2.stats.get("method") == res.stats.get("method")


def test_result_named_outputs_and_evaluate():
    system, t_final, kw = _setup("msl_translational_oscillator")
    res = system.simulate(t_final, **kw)
    res2 = pickle.loads(pickle.dumps(res))
    assert "spring1.f" in res2.keys()
    assert np.array_equal(res2["spring1.f"], res["spring1.f"])
    assert np.array_equal(res2["mass1.a"], res["mass1.a"])
    m = res2.system.parent                   # expressions of the loaded model's symbols
    x = m[system.q_names[0]]
    assert np.allclose(res2.evaluate(x ** 2 + md.der(x)), res.q[:, 0] ** 2 + res.v[:, 0],
                       rtol=0, atol=1e-14)


@pytest.mark.parametrize("name", ["two_link_impact", "rocking_block"])
def test_impact_round_trip(name):
    system, _, _ = _setup(name)
    rng = np.random.default_rng(1)
    states = [(system.q_defaults + 0.05 * rng.standard_normal(system.nq),
               rng.standard_normal(system.nu)) for _ in range(5)]
    before = [system.impact(q, v, all_solutions=True) for q, v in states]
    loaded = pickle.loads(pickle.dumps(system))        # with the contact assembler cached
    after = [loaded.impact(q, v, all_solutions=True) for q, v in states]
    for a, b in zip(before, after):
        assert a.status == b.status and a.modes == b.modes
        assert np.array_equal(a.v_plus_array, b.v_plus_array, equal_nan=True)
        assert len(a.solutions) == len(b.solutions)


def _functions_equal(s1, s2):
    rng = np.random.default_rng(0)
    assert sorted(s1.functions) == sorted(s2.functions)
    for k, F in s1.functions.items():
        G = s2.functions[k]
        assert F.n_in() == G.n_in() and F.n_out() == G.n_out(), k
        args = [rng.standard_normal(F.size_in(i)) for i in range(F.n_in())]
        for a, b in zip(F.call(args), G.call(args)):
            assert np.array_equal(np.array(a), np.array(b), equal_nan=True), k


@pytest.mark.parametrize("name", ["pendulum", "pendulum_equations", "free_body",
                                  "msl_translational_oscillator"])
def test_model_round_trip_compiles_to_the_same_equations(name):
    mod = model_module(name)
    model = mod.build()
    model.flatten()                                    # component models: flatten first
    loaded = pickle.loads(pickle.dumps(model))
    assert loaded is not model and loaded._id != model._id
    assert [c["name"] for c in loaded.coords] == [c["name"] for c in model.coords]
    # the loaded symbols are registered: der() and lookups by name work
    assert [v["name"] for v in loaded.variables] == [v["name"] for v in model.variables]
    for old, new in zip(model.coords + model.variables, loaded.coords + loaded.variables):
        assert str(md.der(new["sym"] ** 2)) == str(md.der(old["sym"] ** 2))
        assert loaded[new["name"]] is new["sym"]
    sim = dict(getattr(mod, "SIMULATION", {}))
    sim.pop("plot", None)
    stab = sim.pop("stabilization", "default")
    t_final = min(sim.pop("t_final"), 0.1)
    s1, s2 = model.compile(stab), loaded.compile(stab)
    _functions_equal(s1, s2)
    _assert_same_result(s1.simulate(t_final, **sim), s2.simulate(t_final, **sim))


def test_unflattened_component_model_is_refused_with_a_clear_message():
    model = model_module("msl_translational_oscillator").build()
    with pytest.raises(pickle.PicklingError, match="flatten"):
        pickle.dumps(model)


def test_locks_and_thread_local_state_load_fresh():
    system, _, _ = _setup("pendulum")
    system._test_lock = threading.Lock()
    system._test_tls = threading.local()
    system._test_tls.x = 1
    system._compiled_keys += ("_test_lock", "_test_tls")
    loaded = pickle.loads(pickle.dumps(system))
    assert isinstance(loaded._test_lock, type(threading.Lock())) and loaded._test_lock.acquire(False)
    assert not hasattr(loaded._test_tls, "x")


def _child_simulate(blob, t_final, kw):
    """In a spawned process: load the System, simulate, send the Result back."""
    system = pickle.loads(blob)
    return system.simulate(t_final, **kw)


def test_spawned_process_round_trip():
    names = ["two_link_impact", "msl_rotational_first", "pendulum_equations"]
    jobs = [_setup(n) for n in names]
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=ctx) as ex:
        futs = [ex.submit(_child_simulate, pickle.dumps(s), tf, kw) for s, tf, kw in jobs]
        results = [f.result(timeout=120) for f in futs]
    for (system, tf, kw), res in zip(jobs, results):
        _assert_same_result(system.simulate(tf, **kw), res)


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_loaded_system_pickles_again(protocol):
    system, t_final, kw = _setup("msl_rotational_first")   # a lambda input, named outputs
    twice = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(system, protocol)), protocol))
    _assert_same_result(system.simulate(t_final, **kw), twice.simulate(t_final, **kw))
