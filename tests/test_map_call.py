"""Whole-trajectory evaluation (mechdae.codegen.map_call, issue 13): small scalar functions
run in chunks of one expanded SX function, larger ones and MX graphs as a serial map; every
path gives the values of the Function called point by point, bit for bit (sparse outputs,
shared inputs, a padded last chunk, one point, threads), and the ball's energies are the
closed form."""
import threading

import casadi as ca
import numpy as np
import pytest

import mechdae as md
from mechdae import codegen
from conftest import REPO

MODELS = ["bouncing_ball", "double_pendulum", "planar_slider_crank", "rocking_block",
          "spatial_top"]


def _inputs(f, n, pv, rng):
    """Random points for every input of ``f``, the parameters (input ``p``) shared."""
    args, shared = [], []
    for i in range(f.n_in()):
        if f.name_in(i) == "p":
            args.append(pv)
            shared.append(i)
        else:
            args.append(rng.uniform(-1.5, 1.5, (f.nnz_in(i), n)))
    return args, tuple(shared)


def _pointwise(f, args, shared, n):
    """Outputs of ``f`` called at each point (DM path), as ``(numel_out, n)``."""
    cols = [[] for _ in range(f.n_out())]
    for k in range(n):
        ins = []
        for i, a in enumerate(args):
            v = np.asarray(a, float) if i in shared else a[:, k]
            ins.append(ca.DM(f.sparsity_in(i), ca.DM(v.ravel(order="F"))))
        outs = f.call(ins)
        for j in range(f.n_out()):
            cols[j].append(np.array(ca.densify(outs[j])).ravel(order="F"))
    return [np.array(c).T.reshape(f.numel_out(j), n) for j, c in enumerate(cols)]


@pytest.mark.parametrize("name", MODELS)
def test_map_call_equals_pointwise_calls(name):
    system = md.load(str(REPO / "models" / f"{name}.py")).compile()
    pv = system.param_vector(None)
    rng = np.random.default_rng(13)
    checked = 0
    for fname, f in system.functions.items():
        if not isinstance(f, ca.Function) or not f.n_out():
            continue
        for n in (1, 3, 64, 130):
            args, shared = _inputs(f, n, pv, rng)
            got = codegen.map_call(f, n, args, shared)
            want = _pointwise(f, args, shared, n)
            for g, w in zip(got, want):
                assert g.shape == w.shape
                # bitwise (NaN where the point is outside the function's domain)
                assert np.array_equal(g, w, equal_nan=True), (fname, n)
            checked += 1
    assert checked >= 40


def test_chunked_path_used_for_small_functions_and_serial_for_large():
    ball = md.load(str(REPO / "models" / "bouncing_ball.py")).compile()
    ch = codegen._chunk(ball.functions["energy"], (3,))
    assert ch is not None and ch.C == codegen._CHUNK_MAX
    assert codegen._chunk(ball.functions["extras_solve"], (4,)) is None      # an MX graph
    x = ca.SX.sym("x", 40)
    big = ca.Function("big", [x], [ca.sum1(ca.sin(x) * ca.cos(x) ** 2 * ca.exp(-x)) ** 30
                                   + ca.mtimes(ca.DM.ones(30, 40), x) ** 2])
    assert big.n_instructions() * codegen._CHUNK_MIN > codegen._CHUNK_INSTRUCTIONS
    assert codegen._chunk(big, ()) is None
    X = np.random.default_rng(1).normal(size=(40, 7))
    assert np.array_equal(codegen.map_call(big, 7, [X])[0], _pointwise(big, [X], (), 7)[0])


def test_ball_energies_are_the_closed_form():
    ball = md.load(str(REPO / "models" / "bouncing_ball.py"), e=0.8).compile()
    pv = ball.param_vector(None)
    res = ball.simulate(0.4, q0={"y": 1.1}, v0={"x": 0.3}, method="event")
    p = dict(zip(ball.p_names, pv))
    m, g = p.get("m", 1.0), p.get("g", 9.81)
    T = 0.5 * m * (res.v ** 2).sum(axis=1)
    assert np.allclose(res.kinetic, T, rtol=1e-14, atol=1e-14)
    assert np.allclose(res.potential - res.potential[0], m * g * (res.q[:, 1] - 1.1),
                       rtol=1e-12, atol=1e-12)
    # free flight: T + V constant to the integration tolerance
    assert np.ptp(res.energy) < 1e-9 * abs(res.energy[0])


def test_threads_get_their_own_buffers():
    ball = md.load(str(REPO / "models" / "bouncing_ball.py")).compile()
    f = ball.functions["energy"]
    pv = ball.param_vector(None)
    rng = np.random.default_rng(5)
    jobs = [_inputs(f, 200 + 7 * k, pv, rng) for k in range(6)]
    want = [codegen.map_call(f, 200 + 7 * k, *jobs[k]) for k in range(6)]
    bad = []

    def run(k):
        for _ in range(30):
            got = codegen.map_call(f, 200 + 7 * k, *jobs[k])
            if not all(np.array_equal(a, b) for a, b in zip(got, want[k])):
                bad.append(k)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def test_wrong_input_size_names_the_function():
    ball = md.load(str(REPO / "models" / "bouncing_ball.py")).compile()
    f = ball.functions["energy"]
    with pytest.raises(ValueError, match="energy: input 0 has 6 values, expected 10"):
        codegen.map_call(f, 5, [np.zeros((2, 3)), np.zeros((2, 5)), np.zeros((1, 5)),
                                ball.param_vector(None)], (3,))
