"""The tree fast path's kinetic energy in composite-rigid-body form (mechdae.components.flatten.crba).

The mass matrix ``compile()`` derives from it must be the Lagrangian one: the generic
path's ``M`` (from the components' own equations, ``T`` summed over the bodies) at random
states and parameters, for a branched planar tree with Revolute, Prismatic and Free joints
and a spatial one with Revolute, Prismatic, Spherical and FreeMotion; the velocity terms
``h`` and the kinetic energy likewise. Far from the world origin the entries
keep their digits (the composite inertias are taken about the joints, not the origin).

The planar tree hands ``compile()`` its mass matrix (composite-rigid-body algorithm) and
velocity terms (Newton-Euler with ``q'' = 0``) directly (``Model._inertia``): they must
equal ``d2T/dq'2`` and ``dT/dq - d/dt(dT/dq') + M q''`` derived from its own ``T``;
``compile(evaluate=...)`` substitutes into them, and a kinetic energy term added after
flattening turns them off.
"""
import casadi as ca
import numpy as np

import mechdae as md
from mechdae.components import planar as pl


def _branched(fast, base=(0.0, 0.0)):
    """Two trees: from the World, a revolute arm carrying a slider (prismatic, then a
    revolute link on it), a two-link revolute branch and a Free body riding on the turning
    arm; from a Fixed frame at ``base``, a revolute-prismatic-revolute chain."""
    m = md.Model("branched")
    m._tree_fast_path = fast
    w = m.add(pl.World("world", g=9.81, n=(0.2, -1.0)))
    j1 = m.add(pl.Revolute("j1", phi0=0.3))
    arm = m.add(pl.BodyShape("arm", r=(1.2, 0.1), r_cm=(0.5, 0.05), m=2.0, I=0.3))
    p1 = m.add(pl.Prismatic("p1", r=(0.6, -0.8), s0=0.4))
    sl = m.add(pl.BodyShape("sl", r=(0.2, 0.0), r_cm=(0.1, 0.02), m=0.7, I=0.04))
    j5 = m.add(pl.Revolute("j5", phi0=0.5))
    tip = m.add(pl.Body("tip", m=0.4, I=0.01))
    j2 = m.add(pl.Revolute("j2", phi0=-0.6))
    l2 = m.add(pl.BodyShape("l2", r=(0.7, 0.0), r_cm=(0.3, -0.05), m=0.9, I=0.05))
    j3 = m.add(pl.Revolute("j3", phi0=0.8))
    l3 = m.add(pl.BodyShape("l3", r=(0.5, 0.1), r_cm=(0.25, 0.0), m=0.6, I=0.02))
    fr = m.add(pl.Free("fr", x0=0.3, y0=-0.2, phi0=0.1))
    ball = m.add(pl.Body("ball", m=0.5, I=0.03))
    fx = m.add(pl.Fixed("base", r=base, phi=0.4))
    j4 = m.add(pl.Revolute("j4", phi0=-1.0))
    l4 = m.add(pl.BodyShape("l4", r=(0.8, 0.0), r_cm=(0.4, 0.1), m=1.1, I=0.06))
    p2 = m.add(pl.Prismatic("p2", r=(0.0, 1.0), s0=0.3))
    j6 = m.add(pl.Revolute("j6", phi0=0.2))
    l6 = m.add(pl.BodyShape("l6", r=(0.4, 0.0), r_cm=(0.2, 0.0), m=0.8, I=0.02))
    return _connect(m, [w, j1, arm], [arm, p1, sl, j5, tip], [arm, j2, l2, j3, l3],
                    [arm, fr, ball], [fx, j4, l4, p2, j6, l6])


def _connect(m, *chains):
    """Each chain's components in a row, frame_b (a root's frame) to the next frame_a."""
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            m.connect(getattr(a, "frame_b", None) or a.frame, b.frame_a)
    return m


def _systems(build, base):
    """The fast and the generic path's Systems of ``build(fast, base)``."""
    fm, gm = build(True, base), build(False, base)
    fs, gs = fm.compile(stabilization=None), gm.compile(stabilization=None)
    assert fm.flatten_stats["tree_fast_path"] and "tree_fast_path" not in gm.flatten_stats
    assert fs.q_names == gs.q_names and fs.u_names == gs.u_names
    assert fs.p_names == gs.p_names
    return fs, gs


def _same_dynamics(fs, gs, q, u, p):
    """M, h and T of the two Systems at one state, to 1e-12 relative (M symmetric and
    positive definite, T = 1/2 u^T M u); returns the fast path's M."""
    Mf = np.asarray(fs.functions["M"](q, p))
    Mg = np.asarray(gs.functions["M"](q, p))
    scale = np.abs(Mg).max()
    assert np.abs(Mf - Mg).max() < 1e-12 * scale
    assert np.abs(Mf - Mf.T).max() < 1e-12 * scale              # not doubled, symmetric
    assert np.linalg.eigvalsh(0.5 * (Mf + Mf.T)).min() > 0       # positive definite
    hf, hg = _h(fs, q, u, p), _h(gs, q, u, p)
    assert np.abs(hf - hg).max() < 1e-11 * (1.0 + np.abs(hg).max())
    # the composite form's energy is the bodies' energy
    Tf = float(fs.functions["energy"](q, u, 0.0, p)[0])
    Tg = float(gs.functions["energy"](q, u, 0.0, p)[0])
    assert abs(Tf - Tg) < 1e-12 * abs(Tg) and abs(Tf - 0.5 * u @ Mf @ u) < 1e-12 * abs(Tg)
    return Mf


def _states(s, rng, n):
    """Random coordinates, speeds and parameters (masses and inertias scaled, not shifted:
    they stay positive; gravity, offsets and angles shifted too)."""
    for _ in range(n):
        q = rng.uniform(-2.0, 2.0, s.nq)
        u = rng.uniform(-3.0, 3.0, s.nu)
        p = np.asarray(s.p_defaults, float) * rng.uniform(0.5, 1.5, len(s.p_names)) \
            + rng.uniform(-0.2, 0.2, len(s.p_names)) * [
                n.rsplit(".", 1)[1][0] not in "mI" for n in s.p_names]
        yield q, u, p


def _h(s, q, u, p):
    return np.asarray(s.functions["h"](q, u, [], [], 0.0, p, [])).ravel()


def test_crba_mass_matrix_equals_the_lagrangian_one_on_a_branched_tree():
    fs, gs = _systems(_branched, (0.0, 0.0))
    assert fs.nq == 11                   # 6 revolutes, 2 prismatics, a Free (3)
    for q, u, p in _states(fs, np.random.default_rng(11), 20):
        Mf = _same_dynamics(fs, gs, q, u, p)
        # M_jk = 0 where neither joint is an ancestor of the other: the two trees, and
        # the slider, the two-link branch and the Free body on the arm
        for a, b in (("j1.phi", "j4.phi"), ("p1.s", "p2.s"), ("p1.s", "j2.phi"),
                     ("j5.phi", "j3.phi"), ("fr.x", "j2.phi"), ("fr.phi", "p1.s")):
            assert Mf[fs.q_names.index(a), fs.q_names.index(b)] == 0.0


def test_crba_mass_matrix_keeps_its_digits_far_from_the_origin():
    """The second tree's base 1e4 m from the origin: its block of M (the joints j4, p2, j6)
    is the same as at the origin to 1e-12 -- no ``|p|^2`` of absolute positions enters."""
    far, _ = _systems(_branched, (1.0e4, -2.0e4))
    near, _ = _systems(_branched, (0.0, 0.0))
    rng = np.random.default_rng(4)
    idx = [far.q_names.index(n) for n in ("j4.phi", "p2.s", "j6.phi")]
    for q, _, p in _states(far, rng, 10):
        ib = [far.p_names.index(n) for n in ("base.r[1]", "base.r[2]")]
        p_near = p.copy()
        p_near[ib] = 0.0
        Mf = np.asarray(far.functions["M"](q, p))[np.ix_(idx, idx)]
        Mn = np.asarray(near.functions["M"](q, p_near))[np.ix_(idx, idx)]
        assert np.abs(Mf - Mn).max() < 1e-12 * np.abs(Mn).max()


def _handed_and_derived(m):
    """Functions ``(q, q', p) -> (M, c)`` of the handed terms of the flattened fast-path
    Model ``m`` and of the Lagrangian ones derived from its kinetic energy."""
    m.flatten()
    assert m.flatten_stats["tree_fast_path"]
    M, c, T = m._inertia
    assert len(m.T_terms) == 1 and m.T_terms[0] is T
    q = ca.vertcat(*[e["sym"] for e in m.coords])
    qd = ca.vertcat(*[e["rate"] for e in m.coords])
    p = ca.vertcat(*[e["sym"] for e in m.params])
    pm = ca.gradient(T, qd)
    c_T = ca.gradient(T, q) - ca.jtimes(pm, q, qd)      # no time in T: d/dt explicit = 0
    return (ca.Function("handed", [q, qd, p], [M, c]),
            ca.Function("derived", [q, qd, p], [ca.jacobian(pm, qd), c_T]), M)


def test_handed_mass_matrix_and_velocity_terms_equal_the_lagrangian_ones_of_T():
    """On the branched planar tree (6 Revolute, 2 Prismatic, a Free joint, two roots), at
    40 random states and parameters, far from the origin too: the handed ``M`` and ``c``
    are ``d2T/dq'2`` and ``dT/dq - (d/dq dT/dq') q'`` to 1e-11; ``c`` is quadratic in the
    rates (``c(q, 2 q') = 4 c(q, q')``, zero at rest); ``M`` stores no entry where neither
    joint is the other's ancestor."""
    m = _branched(True, (3.0e2, -1.0e2))
    handed, derived, M = _handed_and_derived(m)
    names = [e["name"] for e in m.coords]
    p0 = np.array([float(e["default"]) for e in m.params])
    rng = np.random.default_rng(7)
    for _ in range(40):
        q = rng.uniform(-2.0, 2.0, len(names))
        qd = rng.uniform(-3.0, 3.0, len(names))
        p = p0 * rng.uniform(0.5, 1.5, len(p0))
        Mh, ch = (np.asarray(x) for x in handed(q, qd, p))
        Md, cd = (np.asarray(x) for x in derived(q, qd, p))
        assert np.abs(Mh - Md).max() < 1e-11 * np.abs(Md).max()
        assert np.abs(ch - cd).max() < 1e-11 * (1.0 + np.abs(cd).max())
        assert np.abs(np.asarray(handed(q, 2 * qd, p)[1]) - 4 * ch).max() < \
            1e-11 * (1.0 + np.abs(ch).max())
        assert np.abs(np.asarray(handed(q, 0 * qd, p)[1])).max() == 0.0
    pattern = {(names[i], names[j]) for i, j in zip(*M.sparsity().get_triplet())}
    for a, b in (("j1.phi", "j4.phi"), ("p1.s", "j2.phi"), ("fr.x", "j2.phi"),
                 ("fr.phi", "p1.s"), ("j5.phi", "j3.phi")):
        assert (a, b) not in pattern and (b, a) not in pattern
    assert ("j1.phi", "fr.x") in pattern and ("j4.phi", "j6.phi") in pattern
    from mechdae.symbolic.derive import derive
    d, problems = derive(m)              # compile() takes them as they are
    assert not problems and ca.is_equal(d.M, M)


def test_handed_terms_give_the_generic_equations_evaluated_or_not_and_step_aside():
    """The fast path's System (handed M and c) equals the generic path's (``T`` summed over
    the bodies), M and h at random states. ``compile(evaluate=True)`` substitutes the
    parameters into the handed terms with ``T`` (the same M and h at the defaults). A
    kinetic energy term added after flattening turns the hook off: M and h come from the
    whole ``T`` again (a rotor inertia 3.0 on j1 adds 3.0 to M[j1, j1] and nothing to h)."""
    fs, gs = _systems(_branched, (0.0, 0.0))
    for q, u, p in _states(fs, np.random.default_rng(12), 10):
        _same_dynamics(fs, gs, q, u, p)
    ev = _branched(True).compile(stabilization=None, evaluate=True)
    m = _branched(True)
    m.flatten()
    j1 = m.coords[[e["name"] for e in m.coords].index("j1.phi")]["rate"]
    m.kinetic_energy(1.5 * j1 * j1)
    rotor = m.compile(stabilization=None)
    assert ev.p_names == [] and rotor.q_names == fs.q_names
    p0 = np.asarray(fs.p_defaults, float)
    i = fs.q_names.index("j1.phi")
    for q, u, _ in _states(fs, np.random.default_rng(13), 10):
        Mf = np.asarray(fs.functions["M"](q, p0))
        hf = _h(fs, q, u, p0)
        for s, p in ((ev, []), (rotor, p0)):
            Ms = np.asarray(s.functions["M"](q, p))
            Ms[i, i] -= 3.0 if s is rotor else 0.0
            assert np.abs(Ms - Mf).max() < 1e-12 * np.abs(Mf).max()
            assert np.abs(_h(s, q, u, p) - hf).max() < 1e-11 * (1.0 + np.abs(hf).max())


def _spatial_branched(fast, base=(0.0, 0.0, 0.0)):
    """A spatial tree: a revolute arm about a skew axis (full inertia tensor) carrying a
    slider, a ball on a Spherical joint and a FreeMotion body; from a Fixed frame at
    ``base``, two revolutes about different axes."""
    from mechdae.components import spatial as sp
    m = md.Model("branched3")
    m._tree_fast_path = fast
    w = m.add(sp.World("world", n=(0.1, -0.2, -1.0)))
    j1 = m.add(sp.Revolute("j1", n=(0.3, 0.5, 0.8), phi0=0.3))
    arm = m.add(sp.BodyShape("arm", r=(1.0, 0.2, -0.1), r_cm=(0.5, 0.1, 0.05), m=2.0,
                             I=[[0.3, 0.01, -0.02], [0.01, 0.25, 0.03], [-0.02, 0.03, 0.1]]))
    p1 = m.add(sp.Prismatic("p1", n=(1.0, 1.0, 0.0), s0=0.2))
    sl = m.add(sp.Body("sl", m=0.7, I=(0.01, 0.02, 0.03), r_cm=(0.05, 0.0, 0.02)))
    sph = m.add(sp.Spherical("sph", n=(0.0, 1.0, 0.0), angle0=0.4))
    ball = m.add(sp.BodyShape("ball", r=(0.0, 0.0, -0.5), r_cm=(0.02, 0.0, -0.3), m=0.9,
                              I=[[0.03, 0.001, 0.0], [0.001, 0.025, 0.0], [0.0, 0.0, 0.02]]))
    fm = m.add(sp.FreeMotion("fm", r0=(0.3, -0.2, 0.4), n=(1.0, 0.0, 0.0), angle0=-0.3))
    fb = m.add(sp.Body("fb", m=0.5, I=(0.02, 0.01, 0.03), r_cm=(0.0, 0.05, 0.0)))
    fx = m.add(sp.Fixed("base", r=base, n=(0.0, 1.0, 0.0), angle=0.4))
    j4 = m.add(sp.Revolute("j4", n=(0.0, 0.0, 1.0), phi0=-1.0))
    l4 = m.add(sp.BodyShape("l4", r=(0.8, 0.0, 0.1), r_cm=(0.4, 0.05, 0.0), m=1.1, I=0.06))
    j5 = m.add(sp.Revolute("j5", n=(1.0, 0.0, 0.0), phi0=0.7))
    l5 = m.add(sp.BodyShape("l5", r=(0.0, 0.6, 0.0), r_cm=(0.0, 0.3, 0.02), m=0.6, I=0.02))
    return _connect(m, [w, j1, arm], [arm, p1, sl], [arm, sph, ball], [arm, fm, fb],
                    [fx, j4, l4, j5, l5])


def _spatial_states(s, rng, n):
    """Random states with unit quaternions (the energies use |q|^2 = 1 as the generic path
    does only there)."""
    for q, u, p in _states(s, rng, n):
        for k, name in enumerate(s.q_names):
            if name.endswith(".q0"):
                q[k:k + 4] /= np.linalg.norm(q[k:k + 4])
        yield q, u, p


def test_crba_spatial_mass_matrix_equals_the_lagrangian_one():
    fs, gs = _systems(_spatial_branched, (0.0, 0.0, 0.0))
    assert fs.nu == 13                   # 3 revolutes, a prismatic, Spherical 3, FreeMotion 6
    for q, u, p in _spatial_states(fs, np.random.default_rng(3), 10):
        Mf = _same_dynamics(fs, gs, q, u, p)
        j1, j4 = fs.u_names.index("j1.w"), fs.u_names.index("j4.w")
        assert Mf[j1, j4] == 0.0 and Mf[fs.u_names.index("p1.v"), j4] == 0.0


def test_crba_spatial_mass_matrix_keeps_its_digits_far_from_the_origin():
    far = _spatial_branched(True, base=(1.0e4, -2.0e4, 5.0e3)).compile(stabilization=None)
    near = _spatial_branched(True).compile(stabilization=None)
    idx = [far.u_names.index(n) for n in ("j4.w", "j5.w")]
    ib = [far.p_names.index(f"base.r[{k}]") for k in (1, 2, 3)]
    for q, _, p in _spatial_states(far, np.random.default_rng(5), 10):
        p_near = p.copy()
        p_near[ib] = 0.0
        Mf = np.asarray(far.functions["M"](q, p))[np.ix_(idx, idx)]
        Mn = np.asarray(near.functions["M"](q, p_near))[np.ix_(idx, idx)]
        assert np.abs(Mf - Mn).max() < 1e-12 * np.abs(Mn).max()


def test_spatial_tree_hands_mass_matrix_and_velocity_terms_in_the_speeds():
    """The spatial tree pass hands M and c in the speeds (``Model._inertia`` with ``"u"``):
    compile takes them as they are; the System's M and h equal the ones derived from T
    with the hook off, at random states to 1e-11 (all joint kinds: revolute about a skew
    axis, prismatic, Spherical and FreeMotion quaternions); c is quadratic in the speeds
    and zero at rest; the handed terms are a fraction of the derived ones' size."""
    m = _spatial_branched(True)
    m.flatten()
    M, c, T, space = m._inertia
    assert space == "u" and T is m.T_terms[0] and M.shape == (13, 13)
    handed = m.compile(stabilization=None)
    m2 = _spatial_branched(True)
    m2.flatten()
    m2._inertia = None                   # derived from T
    derived = m2.compile(stabilization=None)
    assert handed.u_names == derived.u_names
    for q, u, p in _spatial_states(handed, np.random.default_rng(21), 10):
        Mh, Md = (np.asarray(s.functions["M"](q, p)) for s in (handed, derived))
        hh, hd = _h(handed, q, u, p), _h(derived, q, u, p)
        assert np.abs(Mh - Md).max() < 1e-11 * np.abs(Md).max()
        assert np.abs(hh - hd).max() < 1e-11 * (1.0 + np.abs(hd).max())
    for q, u, p in _spatial_states(handed, np.random.default_rng(22), 5):
        h0 = _h(handed, q, 0 * u, p)     # gravity alone
        c1, c2 = _h(handed, q, u, p) - h0, _h(handed, q, 2 * u, p) - h0
        assert np.abs(c2 - 4 * c1).max() < 1e-11 * (1.0 + np.abs(c1).max())
    size = {s: s.functions["M"].n_instructions() + s.functions["h"].n_instructions()
            for s in (handed, derived)}
    assert size[handed] < 0.7 * size[derived], size
