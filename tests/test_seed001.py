"""Seed 001 (Zharikov): oblique impact of two spatial rigid bodies, e_n = e_t = k, mu = inf.

The solver's result is compared with the two-phase closed form written out in
models/oblique_impact.py for random masses, full inertia tensors (products of inertia),
contact offsets, restitution and velocities; momentum (linear, and angular about a fixed
point) and the closed-form energy loss are checked.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import oblique_impact as ob  # noqa: E402


def skew(r):
    return np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])


def closed_form(m1, m2, J1, J2, a1, a2, k, v1, w1, v2, w2):
    n = np.array([0.0, 0.0, 1.0])
    r1, r2 = a1 * n, -a2 * n
    J1i, J2i = np.linalg.inv(J1), np.linalg.inv(J2)
    K = ((1 / m1 + 1 / m2) * np.eye(3) - skew(r1) @ J1i @ skew(r1)
         - skew(r2) @ J2i @ skew(r2))
    vrel = (v2 + np.cross(w2, r2)) - (v1 + np.cross(w1, r1))
    Pc = -np.linalg.solve(K, vrel)
    P = (1 + k) * Pc
    out = dict(v1=v1 - P / m1, w1=w1 - J1i @ np.cross(r1, P),
               v2=v2 + P / m2, w2=w2 + J2i @ np.cross(r2, P), P=P, vrel=vrel,
               dT=-(1 - k * k) / 2 * vrel @ np.linalg.solve(K, vrel))
    return out


def random_case(rng):
    def spd():
        A = rng.normal(size=(3, 3))
        # a physical tensor: eigenvalues satisfy the triangle inequality
        lam = rng.uniform(0.5, 1.5, 3)
        Q, _ = np.linalg.qr(A)
        return Q @ np.diag(lam) @ Q.T
    c = dict(m1=rng.uniform(0.3, 5), m2=rng.uniform(0.3, 5), J1=spd(), J2=spd(),
             a1=rng.uniform(0.2, 1.5), a2=rng.uniform(0.2, 1.5), k=rng.uniform(0, 1),
             v1=rng.normal(size=3), w1=rng.normal(size=3), v2=rng.normal(size=3),
             w2=rng.normal(size=3))
    c["v2"][2] = c["v1"][2] - rng.uniform(0.2, 2.0)     # approaching along the normal
    return c


def params_of(c):
    p = dict(m1=c["m1"], m2=c["m2"], a1=c["a1"], a2=c["a2"], k=c["k"])
    for b in ("1", "2"):
        J = c["J" + b]
        for key, (i, j) in zip(ob._IDX, ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))):
            p[f"J{b}{key}"] = J[i, j]
    return p


@pytest.fixture(scope="module", params=["newton", "poisson"])
def sys_(request):
    return ob.build(law=request.param).compile()


def test_random_bodies_match_two_phase_closed_form(sys_):
    rng = np.random.default_rng(2024)
    for _ in range(25):
        c = random_case(rng)
        q, v = ob.impact_state(c["a1"], c["a2"], c["v1"], c["w1"], c["v2"], c["w2"])
        out = sys_.impact(q, v, params=params_of(c), all_solutions=True)
        ref = closed_form(**c)
        assert out.status == "unique"
        vp = out.v_plus
        got = {f"{b}": np.array([vp[f"b{b[1]}.{b[0]}{x}"] for x in "xyz"])
               for b in ("v1", "w1", "v2", "w2")}
        for key in ("v1", "w1", "v2", "w2"):
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-10, atol=1e-12)
        # impulse (normal, tangents) = P in (z, x, y) order
        P = out.impulses["C"]
        np.testing.assert_allclose(P, ref["P"][[2, 0, 1]], rtol=1e-10, atol=1e-12)
        # restitution of the whole relative velocity: v_rel+ = -k v_rel-
        np.testing.assert_allclose(out.contact_velocities["C"],
                                   -c["k"] * ref["vrel"][[2, 0, 1]], atol=1e-11)
        # energy loss
        assert out.energy_after - out.energy_before == pytest.approx(ref["dT"], rel=1e-9,
                                                                     abs=1e-12)
        # linear momentum and angular momentum about a fixed point O
        O = rng.normal(size=3)
        c1, c2 = np.zeros(3), np.array([0, 0, c["a1"] + c["a2"]])

        def momenta(vd):
            v1 = np.array([vd[f"b1.v{x}"] for x in "xyz"])
            v2 = np.array([vd[f"b2.v{x}"] for x in "xyz"])
            w1 = np.array([vd[f"b1.w{x}"] for x in "xyz"])
            w2 = np.array([vd[f"b2.w{x}"] for x in "xyz"])
            p = c["m1"] * v1 + c["m2"] * v2
            L = (c["m1"] * np.cross(c1 - O, v1) + c["J1"] @ w1
                 + c["m2"] * np.cross(c2 - O, v2) + c["J2"] @ w2)
            return p, L
        v_before = dict(zip(sys_.u_names, sys_.state_arrays(q, v)[1]))
        p0, L0 = momenta(v_before)
        p1, L1 = momenta(vp)
        np.testing.assert_allclose(p1, p0, atol=1e-11)
        np.testing.assert_allclose(L1, L0, atol=1e-11)


def test_plastic_impact_k0_sticks_contact_points(sys_):
    rng = np.random.default_rng(7)
    c = random_case(rng)
    c["k"] = 0.0
    q, v = ob.impact_state(c["a1"], c["a2"], c["v1"], c["w1"], c["v2"], c["w2"])
    out = sys_.impact(q, v, params=params_of(c))
    np.testing.assert_allclose(out.contact_velocities["C"], 0.0, atol=1e-12)
    assert out.modes["C"] == "stick"
