"""'All solutions' means all (issue 14): impact problems whose solution sets are known.

Every solution the enumeration returns is checked against the impact law itself
(complementarity and Coulomb's cone, `law_error`), and the set is compared with a brute
force written independently of the C kernels: every mode combination, the sliding
directions of the sliding contacts from a grid of starting angles polished by a root
finder on the parallelism conditions (`brute_force`). Problems:

- seed 000, region IV (two-link impact, Rubanovich & Formalsky): three solutions (B stays,
  leaves, slides backwards); the same problem embedded in space, tangent frames rotated,
  keeps exactly its three solutions;
- a rigid body symmetric about a plane hitting the ground at two mirror-image points with
  a mirror-symmetric velocity: five solutions, three with both contacts sliding at once,
  the set closed under the mirror map (a missing mirror partner would show);
- the `exhaustive` flag: False when the direction search cannot be completed (box budget,
  more than SLIDE_KMAX contacts sliding at once) or from the iterative methods.
"""
import itertools
import math

import numpy as np
import pytest
from scipy.optimize import root

import mechdae as md
from conftest import model_module
from mechdae.contact import kernels
from mechdae.contact.kernels import contact_forces, impact
from test_seed000 import paper_hypotheses

tl = model_module("two_link_impact")


# ------------------------------------------------------------------ independent checks
def law_error(D, c, mu, P, dim):
    """Largest relative violation of the impact law by the impulses P (w = D P + c):
    0 <= P_n _|_ w_n >= 0, |P_t| <= mu P_n, P_t = -mu P_n w_t/|w_t| where w_t != 0."""
    w = D @ P + c
    sc = max(1.0, np.abs(c).max())
    ps = max(np.abs(P).max(), sc / np.abs(D).max())
    err = 0.0
    for a in range(len(mu)):
        Pn, Pt = P[a * dim], P[a * dim + 1:(a + 1) * dim]
        wn, wt = w[a * dim], w[a * dim + 1:(a + 1) * dim]
        err = max(err, -Pn / ps, -wn / sc, abs(Pn * wn) / (ps * sc))
        if np.isfinite(mu[a]):
            err = max(err, (np.linalg.norm(Pt) - mu[a] * Pn) / ps)
            if np.linalg.norm(wt) > 1e-7 * sc:
                err = max(err, np.linalg.norm(Pt + mu[a] * Pn * wt / np.linalg.norm(wt)) / ps)
        else:
            err = max(err, np.linalg.norm(wt) / sc if Pn > 1e-12 * ps else 0.0)
    return err


def _mode_system(D, c, mu, modes, dirs, dim):
    n = D.shape[0]
    A, b = np.zeros((n, n)), np.zeros(n)
    for a, m in enumerate(modes):
        o = a * dim
        if m == "separate":
            A[o:o + dim, o:o + dim] = np.eye(dim)
        elif m == "stick":
            A[o:o + dim], b[o:o + dim] = D[o:o + dim], -c[o:o + dim]
        else:
            A[o], b[o] = D[o], -c[o]
            for i in range(1, dim):
                A[o + i, o + i] = 1.0
                A[o + i, o] = mu[a] * dirs[a][i - 1]
    return np.linalg.lstsq(A, b, rcond=None)[0]


def brute_force(D, c, mu, dim, grid=16):
    """Every solution (as impulses P) by brute force, deduplicated by w = D P + c."""
    k = len(mu)
    sols = []
    for modes in itertools.product(("separate", "stick", "slide"), repeat=k):
        sl = [a for a in range(k) if modes[a] == "slide"]
        if any(not np.isfinite(mu[a]) for a in sl):
            continue
        cands = []
        if not sl:
            cands.append(_mode_system(D, c, mu, modes, {}, dim))
        elif dim == 2:
            for sg in itertools.product((1.0, -1.0), repeat=len(sl)):
                cands.append(_mode_system(D, c, mu, modes, {a: (s,) for a, s in zip(sl, sg)},
                                          dim))
        else:
            def dirs(th):
                return {a: (math.cos(t), math.sin(t)) for a, t in zip(sl, th)}

            def parallel(th):
                w = D @ _mode_system(D, c, mu, modes, dirs(th), dim) + c
                return [w[3 * a + 1] * math.sin(t) - w[3 * a + 2] * math.cos(t)
                        for a, t in zip(sl, th)]
            start = np.linspace(0.0, 2 * math.pi, grid, endpoint=False) + 0.05
            for th0 in itertools.product(*[start] * len(sl)):
                r = root(parallel, th0, tol=1e-14)
                if r.success and np.abs(parallel(r.x)).max() < 1e-10 * np.abs(D).max():
                    cands.append(_mode_system(D, c, mu, modes, dirs(r.x), dim))
        for P in cands:
            w = D @ P + c
            if law_error(D, c, mu, P, dim) < 1e-8 and not any(
                    np.abs(w - D @ Q - c).max() < 1e-6 * max(1.0, np.abs(c).max()) for Q in sols):
                sols.append(P)
    return sols


def same_sets(Ps, Qs, D, c):
    """The two impulse lists give the same velocity sets (each element matched once)."""
    ws = [D @ P + c for P in Ps]
    wq = [D @ Q + c for Q in Qs]
    if len(ws) != len(wq):
        return False
    return all(min(np.abs(w - x).max() for x in wq) < 1e-6 * max(1.0, np.abs(c).max())
               for w in ws)


# ------------------------------------------------------------------ problems
def body_delassus(m, inertia, points):
    """D = W M^-1 W^T of one rigid body (principal axes = world axes) touching the ground
    z = 0 at body points r (from the center), normal e_z, tangents e_x, e_y; and W."""
    rows = []
    for r in points:
        for d in np.eye(3)[[2, 0, 1]]:
            rows.append(np.concatenate([d, np.cross(r, d)]))
    W = np.array(rows)
    Minv = np.diag([1.0 / m] * 3 + [1.0 / x for x in inertia])
    return W @ Minv @ W.T, W


# a body symmetric about the plane y = 0, feet at (a, +-b, -h), mirror-symmetric motion
# (vx, vz, wy): found by a scan over random bodies as the case with most solutions
SYM = dict(a=-0.1876047452206362, b=0.2748608244261762, h=0.5460668242411347,
           inertia=(0.9841251056152249, 0.9636193482234691, 0.052827330055953234),
           u=(-1.4726542242866636, 0.0, -0.39615880055363, 0.0, 1.203751746517066, 0.0),
           mu=2.159132546472455)


def symmetric_problem():
    p = SYM
    D, W = body_delassus(1.0, p["inertia"], [(p["a"], p["b"], -p["h"]),
                                             (p["a"], -p["b"], -p["h"])])
    return D, W @ np.array(p["u"]), np.full(2, p["mu"])


def mirror(P):
    """The mirror image y -> -y: contacts swapped, second tangent component negated."""
    Q = np.concatenate([P[3:], P[:3]])
    Q[[2, 5]] *= -1
    return Q


def region_iv_problem():
    """Seed 000, region IV point with f = 2 |I/F| + 0.1 (three solutions)."""
    alpha, gamma = 0.9046311906303561, -2.5150440310417066
    ph = paper_hypotheses(alpha, gamma)
    assert ph["region"] == "IV"
    f = 2.0 * abs(ph["I"] / ph["F"]) + 0.1
    system = tl.build().compile()
    q, v = tl.impact_state(alpha, gamma)
    return system, q, v, f


# ------------------------------------------------------------------ tests
def test_seed000_region_iv_has_three_solutions_all_found():
    system, q, v, f = region_iv_problem()
    out = system.impact(q, v, all_solutions=True, params={"f": f})
    assert out.status == "ambiguous" and out.exhaustive
    assert sorted(s.modes["B"] for s in out.solutions) == ["separate", "slide", "stick"]
    prob = out.problem
    c = prob.v_minus                  # e = 0 in the seed's law: target = v+
    sol = impact(prob.D, c, 0.0, 0.0, prob.mu, 2, all_solutions=True)
    assert sol.exhaustive and len(sol.solutions) == 3
    for s in sol.solutions:
        assert law_error(prob.D, c, prob.mu, s.P, 2) < 1e-9
    assert same_sets([s.P for s in sol.solutions], brute_force(prob.D, c, prob.mu, 2),
                     prob.D, c)


def test_region_iv_embedded_in_space_keeps_its_three_solutions():
    """Add a decoupled second tangent (no coupling, no velocity) and rotate each contact's
    tangent frame: a sliding contact cannot leave the plane (w_t2 = d P_t2 opposes
    P_t2 = -mu P_n s_2 unless s_2 = 0), so the spatial solutions are the planar ones."""
    system, q, v, f = region_iv_problem()
    prob = system.impact(q, v, all_solutions=True, params={"f": f}).problem
    D2, c2, mu = prob.D, prob.v_minus, prob.mu.copy()
    mu[:] = f                         # both feet with friction f: up to two sliding at once
    planar = impact(D2, c2, 0.0, 0.0, mu, 2, all_solutions=True)
    assert planar.exhaustive and len(planar.solutions) >= 3
    k = len(mu)
    E = np.zeros((3 * k, 2 * k))      # planar -> spatial components
    for a in range(k):
        E[3 * a, 2 * a] = E[3 * a + 1, 2 * a + 1] = 1.0
    D3 = E @ D2 @ E.T
    for a in range(k):
        D3[3 * a + 2, 3 * a + 2] = 0.7 + 0.2 * a
    c3 = E @ c2
    R = np.eye(3 * k)
    for a, ang in enumerate((0.4, -1.1)[:k]):
        R[3 * a + 1:3 * a + 3, 3 * a + 1:3 * a + 3] = [[math.cos(ang), -math.sin(ang)],
                                                       [math.sin(ang), math.cos(ang)]]
    D3r, c3r = R @ D3 @ R.T, R @ c3
    space = impact(D3r, c3r, 0.0, 0.0, mu, 3, all_solutions=True)
    assert space.exhaustive
    expect = [R @ E @ s.P for s in planar.solutions]
    assert same_sets([s.P for s in space.solutions], expect, D3r, c3r)
    assert sorted(s.modes for s in space.solutions) == sorted(s.modes for s in planar.solutions)


def test_symmetric_body_two_feet_five_solutions_closed_under_mirror():
    D, v, mu = symmetric_problem()
    sol = impact(D, v, 0.0, 0.0, mu, 3, all_solutions=True, energy="report")
    assert sol.status == "ambiguous" and sol.exhaustive
    Ps = [s.P for s in sol.solutions]
    assert len(Ps) == 5
    assert sorted(s.modes for s in sol.solutions) == sorted(
        [("slide", "separate"), ("separate", "slide")] + [("slide", "slide")] * 3)
    for s in sol.solutions:
        assert law_error(D, v, mu, s.P, 3) < 1e-9
        assert s.energy_change < 0
    # the mirror image of every solution is a solution
    assert same_sets(Ps, [mirror(P) for P in Ps], D, v)
    # one both-sliding solution is its own mirror image, two are a mirror pair whose
    # sliding directions are not mirror images of each other's
    both = [P for s, P in zip(sol.solutions, Ps) if s.modes == ("slide", "slide")]
    selfsym = [P for P in both if np.abs(mirror(P) - P).max() < 1e-9]
    assert len(selfsym) == 1
    # and the brute force finds the same five
    assert same_sets(Ps, brute_force(D, v, mu, 3), D, v)


def symmetric_model():
    """The SYM body as a model (feet L, R; parameter mu): ``(system, q, v)``."""
    p = SYM
    m = md.Model("symmetric_feet")
    mu = m.parameter("mu", p["mu"])
    b = m.rigid_body("b", mass=1.0, inertia=np.diag(p["inertia"]).tolist(), planar=False)
    for name, y in (("L", p["b"]), ("R", -p["b"])):
        r = (p["a"], y, -p["h"])
        pos, vel = b.position(r), b.velocity(r)
        m.contact(name, gap=pos[2], tangent_velocity=[vel[0], vel[1]], restitution=0.0,
                  friction=mu)
    u = p["u"]
    return (m.compile(stabilization=None), {"b.z": p["h"]},
            {"b.vx": u[0], "b.vz": u[2], "b.wy": u[4]})


def test_symmetric_body_as_a_model_gives_the_same_five():
    system, q, v = symmetric_model()
    out = system.impact(q, v, all_solutions=True)
    assert out.status == "ambiguous" and out.exhaustive and len(out.solutions) == 5
    D, vk, muk = symmetric_problem()
    ref = impact(D, vk, 0.0, 0.0, muk, 3, all_solutions=True, energy="report")
    got = sorted(round(s.energy_after - out.energy_before, 9) for s in out.solutions)
    assert got == pytest.approx(sorted(s.energy_change for s in ref.solutions), abs=1e-8)
    first = system.impact(q, v)        # fast path: the same search behind "ambiguous"
    assert first.status == "ambiguous" and first.exhaustive


def test_not_exhaustive_when_the_box_budget_runs_out():
    D, v, mu = symmetric_problem()
    sol = impact(D, v, 0.0, 0.0, mu, 3, all_solutions=True, energy="report", max_boxes=1)
    assert not sol.exhaustive
    for s in sol.solutions:            # what is found is still a solution
        assert law_error(D, v, mu, s.P, 3) < 1e-9
    # the one-contact-sliding solutions need no box search: found all the same
    assert {("slide", "separate"), ("separate", "slide")} <= {s.modes for s in sol.solutions}
    with pytest.raises(ValueError, match="max_boxes"):
        impact(D, v, 0.0, 0.0, mu, 3, all_solutions=True, max_boxes=0)


def test_not_exhaustive_beyond_the_search_size_and_for_iterative_methods():
    k = kernels._contact.SLIDE_KMAX + 1      # a body on k feet, all may slide at once
    ang = 2 * math.pi * np.arange(k) / k
    pts = [(0.5 * math.cos(t), 0.5 * math.sin(t), -0.3) for t in ang]
    D, W = body_delassus(1.0, (0.2, 0.25, 0.3), pts)
    v = W @ np.array([1.0, 0.3, -1.0, 0.1, 0.2, 0.4])
    sol = impact(D, v, 0.0, 0.0, 0.5, 3, all_solutions=True, energy="report")
    assert not sol.exhaustive
    for s in sol.solutions:
        assert law_error(D, v, np.full(k, 0.5), s.P, 3) < 1e-8
    # planar enumeration is always complete; LCP / NSGS do not search
    D2 = np.array([[2.0, 0.5], [0.5, 1.0]])
    assert impact(D2, [-1.0, 0.3], mu=0.4, dim=2, method="enum").exhaustive
    for method in ("lcp", "nsgs"):
        assert not impact(D2, [-1.0, 0.3], mu=0.4, dim=2, method=method).exhaustive


def test_painleve_two_contacts_starting_to_slide_complete():
    """Acceleration level, both contacts at rest (directions to be found): every
    consistent solution satisfies the law on (lam, a) and the brute force agrees."""
    D, _, _ = symmetric_problem()
    b = np.array([-1.0, 0.8, 0.3, -1.0, 0.8, -0.3])     # mirror-symmetric, pushed in
    mu = np.full(2, SYM["mu"])
    out = contact_forces(D, b, np.zeros((2, 2)), mu, dim=3)
    assert out.exhaustive and out.solutions
    for s in out.solutions:
        assert law_error(D, b, mu, s.lam, 3) < 1e-9
    assert same_sets([s.lam for s in out.solutions], brute_force(D, b, mu, 3), D, b)


def test_event_engine_marks_and_warns_when_a_search_was_not_exhaustive(monkeypatch):
    # the kernel's flag is carried to the run: an impact decided from a search that was not
    # complete is marked on its event and warned about (the engine never picks quietly)
    ball = model_module("bouncing_ball").build().compile(stabilization=None)
    real = kernels.impact

    def partial_search(*a, **k):
        out = real(*a, **k)
        out.exhaustive = False
        return out
    monkeypatch.setattr(kernels, "impact", partial_search)
    with pytest.warns(RuntimeWarning, match=r"not exhaustive"):
        r = ball.simulate(0.5, q0={"y": 1.1}, method="event", zeno="early")
    imp = [ev for ev in r.events if ev.kind == "impact"]
    assert imp and all(ev.extra.get("exhaustive") is False for ev in imp)
    # the physics is unchanged: the first impact at sqrt(2 h / g) with h = 1 m
    assert imp[0].t == pytest.approx(math.sqrt(2 / 9.81), abs=1e-9)


def test_lcp_impacts_are_exhaustive_only_when_provably_unique():
    # 8 contacts go to Lemke; frictionless with a positive definite normal block the LCP has
    # a P-matrix and one solution (exhaustive), with friction nothing is proved
    rng = np.random.default_rng(3)
    A = rng.normal(size=(16, 16))
    D = A @ A.T + 16 * np.eye(16)
    v = np.tile([-1.0, 0.3], 8)
    free = impact(D, v, e_n=0.5, mu=0.0, dim=2, method="lcp")
    assert free.exhaustive and np.all(free.P[0::2] >= 0)
    rough = impact(D, v, e_n=0.5, mu=0.4, dim=2, method="lcp")
    assert not rough.exhaustive
    # a singular normal block (two contacts on one constraint direction) proves nothing
    Ds = np.zeros((4, 4))
    Ds[np.ix_([0, 2], [0, 2])] = 1.0
    Ds[1, 1] = Ds[3, 3] = 1.0
    assert not impact(Ds, [-1.0, 0.0, -1.0, 0.0], e_n=0.0, mu=0.0, dim=2,
                      method="lcp").exhaustive
