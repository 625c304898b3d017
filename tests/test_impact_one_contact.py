"""One contact sliding in space (issue 14): every sliding direction, proven.

The sliding direction of one 3D contact (the only one sliding in a mode combination) is a
root of a trigonometric polynomial of degree 2; the kernel solves it in closed form (the
real roots of a quartic, certified by inclusion disks; mdae_slide_search1) and falls back
to the interval branch-and-bound where the disks do not separate. A 96-point scan of the
angle used to stand there: two sliding solutions closer than 2 pi / 96 gave no sign change
between samples and were lost, with ``exhaustive=True``.

Problems: a rigid body (unit mass, principal axes along the world axes) touching the
ground at one point, found by a scan over bodies as a case with three solutions (it
sticks, or slides in one of two directions); the same body with the friction coefficient
just below the fold where the two sliding solutions merge (directions 0.024 rad apart);
a contact at rest among others. Every solution is checked against the impact law
(`law_error`) and the set against the brute force of test_impact_all_solutions.
Also: ``max_boxes`` through ``System.impact`` / ``impact_batch`` and the per-problem
``exhaustive`` of the batch.
"""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.contact import kernels
from mechdae.contact.kernels import impact
from test_impact_all_solutions import (SYM, body_delassus, brute_force, law_error, same_sets,
                                       symmetric_model, symmetric_problem)

# one foot at r from the center, inertia (Ix, Iy, Iz), speeds (vx, vy, vz, wx, wy, wz)
BODY = dict(r=(1.5, 1.0, -1.2), inertia=(0.25, 0.23, 0.83),
            u=(0.0, 1.1, 0.0, 1.5, 1.1, -0.7))
FOLD_MU = 2.6081433392190054      # above it the two sliding solutions are gone


def one_foot(mu):
    D, W = body_delassus(1.0, BODY["inertia"], [BODY["r"]])
    return D, W @ np.array(BODY["u"]), np.array([mu])


def sliding_angles(sol):
    """Directions of the tangential impulses of the sliding solutions (sorted)."""
    return sorted(math.atan2(-s.P[2], -s.P[1]) for s in sol.solutions if s.modes == ("slide",))


@pytest.mark.parametrize("mu", [2.1, 2.605])
def test_one_foot_sticks_or_slides_two_ways_all_found(mu):
    D, v, muv = one_foot(mu)
    assert v[0] < 0                                       # approaching
    sol = impact(D, v, 0.0, 0.0, muv, 3, all_solutions=True)
    assert sol.status == "ambiguous" and sol.exhaustive
    assert sorted(s.modes for s in sol.solutions) == [("slide",), ("slide",), ("stick",)]
    for s in sol.solutions:
        assert law_error(D, v, muv, s.P, 3) < 1e-9
        assert s.energy_change < 0
    th = sliding_angles(sol)
    if mu > 2.6:           # near the fold: closer than one step of a 96-point scan
        assert 0.0 < th[1] - th[0] < 2 * math.pi / 96 / 2
    assert same_sets([s.P for s in sol.solutions], brute_force(D, v, muv, 3, grid=48), D, v)


def test_past_the_fold_only_sticking_remains():
    D, v, muv = one_foot(FOLD_MU + 1e-3)
    sol = impact(D, v, 0.0, 0.0, muv, 3, all_solutions=True)
    assert sol.status == "unique" and sol.exhaustive
    assert sol.modes == ("stick",) and law_error(D, v, muv, sol.P, 3) < 1e-9
    assert same_sets([sol.P], brute_force(D, v, muv, 3, grid=48), D, v)


def test_one_foot_as_a_model_fast_and_general_paths():
    m = md.Model("one_foot")
    mu = m.parameter("mu", 2.605)
    b = m.rigid_body("b", mass=1.0, inertia=np.diag(BODY["inertia"]).tolist(), planar=False)
    pos, vel = b.position(BODY["r"]), b.velocity(BODY["r"])
    m.contact("F", gap=pos[2], tangent_velocity=[vel[0], vel[1]], restitution=0.0,
              friction=mu)
    system = m.compile(stabilization=None)
    u = BODY["u"]
    q = {"b.z": -BODY["r"][2]}
    v = dict(zip(["b.vx", "b.vy", "b.vz", "b.wx", "b.wy", "b.wz"], u))
    out = system.impact(q, v, all_solutions=True)
    assert out.status == "ambiguous" and out.exhaustive and len(out.solutions) == 3
    D, vk, muk = one_foot(2.605)
    ref = impact(D, vk, 0.0, 0.0, muk, 3, all_solutions=True)
    got = sorted(s.energy_after - out.energy_before for s in out.solutions)
    assert got == pytest.approx(sorted(s.energy_change for s in ref.solutions), abs=1e-9)
    first = system.impact(q, v)              # fast path: the same search behind the status
    assert first.status == "ambiguous" and first.exhaustive


def test_contact_at_rest_among_others_is_proven():
    """A contact at rest (v = 0) sliding while the others separate has w = A r: only
    r = 0 unless the normal row vanishes for some direction where w_t is also parallel to
    it (two conditions on one angle). Large friction makes that row vanish somewhere, and
    the search still proves the set."""
    pts = [(0.4, 0.3, -0.5), (-0.4, -0.2, -0.5)]
    D, W = body_delassus(1.0, (0.3, 0.2, 0.25), pts)
    u = np.array([0.0, 0.0, -1.0, 0.0, 0.0, 0.0])
    v = W @ u
    v[3:] = 0.0                               # second foot at rest
    for mu in (0.3, 6.0):
        sol = impact(D, v, 0.0, 0.0, np.full(2, mu), 3, all_solutions=True)
        assert sol.exhaustive
        for s in sol.solutions:
            assert law_error(D, v, np.full(2, mu), s.P, 3) < 1e-9


def test_max_boxes_through_system_impact_and_batch():
    p = SYM
    system, q, v = symmetric_model()
    assert system.impact(q, v).exhaustive
    # both feet sliding at once need the box search: one box cannot finish it
    for all_solutions in (False, True):
        out = system.impact(q, v, all_solutions=all_solutions, max_boxes=1)
        assert not out.exhaustive
        for s in out.solutions:
            D, vk, muk = symmetric_problem()
            assert law_error(D, vk, muk, np.concatenate(
                [s.impulses["L"], s.impulses["R"]]), 3) < 1e-9
    with pytest.raises(ValueError, match="max_boxes"):
        system.impact(q, v, max_boxes=0)
    # the batch: per problem, the same flag as the single problem
    qa, ua = system.state_arrays(q, v)[:2]
    qs, vs = np.tile(qa, (3, 1)), np.tile(ua, (3, 1))
    mus = np.array([p["mu"], 0.0, p["mu"]])     # problem 1 frictionless: nothing to search
    full = system.impact_batch(qs, vs, params={"mu": mus}, energy="report")
    assert full.exhaustive.dtype == bool and full.exhaustive.all()
    assert full.n_solutions.tolist() == [5, 1, 5]
    cut = system.impact_batch(qs, vs, params={"mu": mus}, energy="report", max_boxes=1)
    for i in range(3):
        one = system.impact(qs[i], vs[i], all_solutions=True, params={"mu": mus[i]},
                            max_boxes=1)
        assert cut.exhaustive[i] == one.exhaustive
        assert cut.n_solutions[i] == len(one.solutions)
    assert cut.exhaustive.tolist() == [False, True, False]
    with pytest.raises(ValueError, match="max_boxes"):
        system.impact_batch(qs, vs, max_boxes=0)


def test_kernel_batch_exhaustive_matches_single_problems():
    D, v, mu = symmetric_problem()
    D1, v1, mu1 = one_foot(2.605)
    # the one-foot problem padded with a separated frictionless contact (batch shape)
    D2 = np.zeros((6, 6))
    D2[:3, :3], D2[3:, 3:] = D1, np.eye(3)
    v2 = np.concatenate([v1, [1.0, 0.0, 0.0]])
    Ds, vs = np.stack([D, D2, D]), np.stack([v, v2, v])
    mus = np.array([mu, [mu1[0], 0.0], mu])   # one foot may slide: a one-angle search
    for mb in (kernels.MAX_BOXES, 1):
        out = kernels.impact_batch(Ds, vs, 0.0, 0.0, mus, 3, energy="report", max_boxes=mb)
        for i in range(3):
            one = impact(Ds[i], vs[i], 0.0, 0.0, mus[i], 3, all_solutions=True,
                         energy="report", max_boxes=mb)
            assert out.exhaustive[i] == one.exhaustive
            assert out.n_solutions[i] == len(one.solutions)
    assert out.exhaustive.tolist() == [False, True, False]
    # iterative methods prove nothing (with friction)
    assert not kernels.impact_batch(Ds, vs, 0.0, 0.0, mus, 3, method="nsgs",
                                    energy="report").exhaustive.any()
