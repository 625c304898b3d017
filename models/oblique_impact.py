"""Oblique impact of two rigid bodies in space (seed 001).

V. F. Zharikov, oblique impact of two rigid bodies (Russian): two rigid bodies with full
inertia tensors (products of inertia included) whose centers lie on the common normal
through the contact point. Two-phase impact: compression ends when the velocities of the
contact points are equal (all three components, the bodies stick); the restitution impulse
is ``k`` times the compression impulse, tangential components included. In mechdae terms:
a spatial contact with ``e_n = e_t = k`` and ``mu = inf`` (Newton and Poisson laws agree
for a single contact).

Closed form (derived from the model; the printed eqs. 17-20, 28, 52-53 are garbled in the
extracted text). World frame, common normal ``n = e_z``, contact point at ``r1 = a1 n``
from the center of body 1 and ``r2 = -a2 n`` from the center of body 2. With the relative
velocity of the contact points ``v_rel = (v2 + w2 x r2) - (v1 + w1 x r1)`` and an impulse
``P`` acting on body 2 (``-P`` on body 1),

    v_rel+ = v_rel- + K P,   K = (1/m1 + 1/m2) E - [r1]x J1^-1 [r1]x - [r2]x J2^-1 [r2]x,

compression impulse ``P_c = -K^-1 v_rel-``, total ``P = (1 + k) P_c``,
``v_rel+ = -k v_rel-``, and

    v1+ = v1- - P/m1,   w1+ = w1- - J1^-1 (r1 x P),
    v2+ = v2- + P/m2,   w2+ = w2- + J2^-1 (r2 x P),
    dT  = -(1 - k^2)/2 v_rel-^T K^-1 v_rel-.

Bodies start at identity orientation (body axes = world axes), body 1 centered at the
origin, body 2 at ``(0, 0, a1 + a2)``. Inertia tensors are parameters ``J1xx, J1xy, ...``
so one compiled System serves any tensor.
"""
import math

import mechdae as md

SIMULATION = dict(
    t_final=1.0,
    q0={"b2.z": 2.0},
    v0={"b2.vz": -1.0, "b1.wx": 0.3},
)

_IDX = ("xx", "yy", "zz", "xy", "xz", "yz")


def _tensor(model, prefix, J):
    vals = dict(zip(_IDX, (J[0][0], J[1][1], J[2][2], J[0][1], J[0][2], J[1][2])))
    s = {k: model.parameter(f"{prefix}{k}", float(v)) for k, v in vals.items()}
    return [[s["xx"], s["xy"], s["xz"]], [s["xy"], s["yy"], s["yz"]],
            [s["xz"], s["yz"], s["zz"]]]


def build(m1=1.0, m2=2.0, J1=((0.3, 0.02, -0.01), (0.02, 0.4, 0.03), (-0.01, 0.03, 0.5)),
          J2=((0.6, -0.05, 0.02), (-0.05, 0.5, 0.01), (0.02, 0.01, 0.7)), a1=0.5, a2=0.7,
          k=0.5, law="newton"):
    """Build the two-body model; ``law`` is ``"newton"`` or ``"poisson"``."""
    model = md.Model("oblique_impact")
    m1 = model.parameter("m1", m1)
    m2 = model.parameter("m2", m2)
    a1 = model.parameter("a1", a1)
    a2 = model.parameter("a2", a2)
    k = model.parameter("k", k)
    b1 = model.rigid_body("b1", mass=m1, inertia=_tensor(model, "J1", J1), planar=False)
    b2 = model.rigid_body("b2", mass=m2, inertia=_tensor(model, "J2", J2), planar=False)
    # contact points: on the common normal n = e_z through both centers
    p1 = b1.position((0.0, 0.0, 0.0)) + md.vertcat(0, 0, a1)
    v1 = b1.velocity() + md.cross(b1.omega_world, md.vertcat(0, 0, a1))
    v2 = b2.velocity() + md.cross(b2.omega_world, md.vertcat(0, 0, -a2))
    p2 = b2.position((0.0, 0.0, 0.0)) - md.vertcat(0, 0, a2)
    model.contact("C", gap=p2[2] - p1[2], tangent_velocity=[v2[0] - v1[0], v2[1] - v1[1]],
                  restitution=k, tangential_restitution=k, friction=math.inf, law=law)
    return model


def impact_state(a1=0.5, a2=0.7, v1=(0, 0, 0), w1=(0, 0, 0), v2=(0, 0, -1), w2=(0, 0, 0)):
    """``(q, v)`` dicts at the contact configuration with the given velocities."""
    q = {"b2.z": a1 + a2}
    v = {}
    for b, lin, ang in (("b1", v1, w1), ("b2", v2, w2)):
        for c, x in zip("xyz", lin):
            v[f"{b}.v{c}"] = float(x)
        for c, x in zip("xyz", ang):
            v[f"{b}.w{c}"] = float(x)
    return q, v
