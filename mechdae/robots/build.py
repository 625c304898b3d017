"""A :class:`~.description.RobotDescription` -> a component Model of :mod:`mechdae.components.
spatial` (both readers, :mod:`.urdf` and :mod:`.mjcf`, end here).

The model is a tree from the :class:`~mechdae.components.spatial.World` (gravity ``-z``):

- the links joined to one another by fixed joints move as one rigid *body*; the body is the
  link at the top of such a group (its parent joint movable, or the root). Their inertias
  merge into one :class:`~mechdae.components.spatial.Body` at the body's frame as Pinocchio
  merges them (masses add, the center of mass is the mass-weighted mean, each inertia moved
  to it by the parallel-axis rule ``I + m (|d|^2 E - d d^T)``), so sensor links with tiny
  or unphysical inertias of their own never reach the dynamics; links fixed to the world
  (fixed base) carry no dynamics;
- every movable joint is a joint component named after the joint (characters outside
  ``[A-Za-z0-9_]`` become ``_``): :class:`~mechdae.components.spatial.Revolute` (revolute,
  continuous; ``"<joint>.phi"``, ``"<joint>.w"``), ``Prismatic`` (``".s"``, ``".v"``),
  ``Spherical`` (ball), ``FreeMotion`` (floating), placed in its parent body by a rigid
  offset ``"<joint>_origin"`` (``FixedTranslation`` or ``FixedRotation``) where the joint
  frame is not the body frame. A joint with damping gets a rotational or translational
  ``Damper`` ``"<joint>_damper"`` on its drive flanges; ``actuated=True`` an input
  ``"<joint>.tau"`` acting through a ``Torque`` (``Force``) ``"<joint>_drive"``;
  ``joint_friction=True`` a ``BearingFriction`` ``"<joint>_friction"`` (revolute joints);
- bodies are named ``"<link>_body"``; ``floating_base=True`` puts a ``FreeMotion`` ``"base"``
  between the World and the root link.

Only components of the spatial tree fast path are used (``joint_friction=True`` aside; see
:mod:`mechdae.components.flatten.tree`), so a robot flattens in a few CasADi calls per link
(``model.flatten_stats["tree_fast_path"]``).
"""
import os
import re
import warnings

import numpy as np
from scipy.spatial.transform import Rotation

from ..dsl.model import Model
from ..errors import ModelError, ModelWarning
from ..components import rotational as rot, spatial as sp, translational as tr
from .description import JOINT_TYPES

__all__ = ["build_model", "RobotModel", "component_name", "merged_bodies"]

_MOVABLE = ("revolute", "continuous", "prismatic", "floating", "spherical")


def component_name(name):
    """The component name of a file's joint or link: characters outside ``[A-Za-z0-9_]``
    become ``_``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class RobotModel(Model):
    """A :class:`mechdae.Model` read from a robot file: ``links`` (link name -> its frame
    connector; a link merged into a body has a rigid offset ``"<link>_frame"`` from the
    body's frame where it is not at it), ``joints`` (movable joint
    name -> its component, with ``.limits``, ``.damping``, ``.friction``, ``.axis``,
    ``.joint_type``) and ``description`` (the :class:`~.description.RobotDescription`)."""

    def _pickle_state(self):
        state = super()._pickle_state()
        for key in ("links", "joints"):
            state.pop(key, None)
        return state


def build_model(desc, floating_base=False, actuated=False, name=None, damping=True,
                joint_friction=False, contacts=None, **contact_params):
    """Build the component Model of a robot description (see the module docstring).

    Parameters
    ----------
    desc : RobotDescription
    floating_base : bool
        World -> FreeMotion ``"base"`` -> root link (``base.x .. base.z``, ``base.q0 ..
        base.q3``, ``base.vx .. base.vz`` world velocity of the root link's origin,
        ``base.wx .. base.wz`` angular velocity in the root link's frame).
    actuated : bool
        An input ``"<joint>.tau"`` per revolute, continuous and prismatic joint.
    name : str, optional
        Model name (default ``desc.name``).
    damping : bool
        Joint damping from the file as dampers on the joints (default); ``False`` keeps it
        as data only (``m.joints[j].damping``).
    joint_friction : bool
        ``True``: the file's Coulomb friction of revolute and continuous joints as a
        :class:`~mechdae.components.rotational.BearingFriction` ``"<joint>_friction"`` on
        the joint (exact stick/slip; its virtual plate and contact take the model off the
        tree fast path, see :mod:`mechdae.components.friction`). Default ``False``: friction
        is data only (``m.joints[j].friction``), as in Pinocchio's dynamics. Prismatic
        joints' friction stays data (a warning says so).
    contacts, contact_params
        Handed to :func:`mechdae.robots.contacts.attach_contacts` when ``contacts`` is
        given.

    Returns
    -------
    RobotModel

    Raises
    ------
    ModelError
        An unknown joint type, two names that become the same component name, a movable
        joint whose subtree carries no mass (its acceleration would be undetermined), a
        body whose merged inertia is not one.
    """
    from .urdf import check_tree
    where = f"robot '{desc.name}'" + \
        (f" ({os.path.basename(desc.source)})" if desc.source else "")
    bad = [f"joint '{j.name}': type '{j.type}'" for j in desc.joints if j.type not in JOINT_TYPES]
    if bad:
        raise ModelError([f"{where}: {b} is not one of {', '.join(JOINT_TYPES)}" for b in bad])
    root = check_tree(desc.links, desc.joints, where)
    body_of, order = _bodies(desc, root)
    inertia = merged_bodies(desc, body_of, where)
    _check_names(desc, body_of, floating_base, where)
    _check_masses(desc, body_of, inertia, root, floating_base, where)
    m = RobotModel(name or desc.name)
    m.description = desc
    world = m.add(sp.World("world"))
    frame = {}                                     # body link -> its frame connector
    if floating_base:
        base = m.add(sp.FreeMotion("base"))
        m.connect(world.frame, base.frame_a)
        frame[root] = base.frame_b
    else:
        frame[root] = world.frame
    joints = {}
    for j in order:                                # movable joints, parents first
        joints[j.name] = _joint(m, j, frame, body_of, actuated, damping, joint_friction)
    for b, (mass, com, I) in inertia.items():
        if mass > 0 and (floating_base or b != root):
            body = m.add(sp.Body(f"{component_name(b)}_body", m=mass, I=I, r_cm=tuple(com)))
            m.connect(frame[b], body.frame_a)
    m.links = {ln: frame[ln] if ln == b else _offset(m, f"{component_name(ln)}_frame", frame[b], T)
               for ln, (b, T) in body_of.items()}
    m.joints = joints
    if contacts is not None:
        from .contacts import attach_contacts
        attach_contacts(m, desc, contacts, **contact_params)
    return m


def _bodies(desc, root):
    """``({link: (body link, pose of the link in the body frame)}, movable joints in
    order from the root)``."""
    children = {}
    for j in desc.joints:
        children.setdefault(j.parent, []).append(j)
    body_of = {root: (root, np.eye(4))}
    order, stack = [], [root]
    while stack:
        ln = stack.pop(0)
        b, T = body_of[ln]
        for j in children.get(ln, ()):
            if j.type == "fixed":
                body_of[j.child] = (b, T @ j.origin)
            else:
                body_of[j.child] = (j.child, np.eye(4))
                order.append(j)
            stack.append(j.child)
    return body_of, order


def merged_bodies(desc, body_of, where="robot"):
    """Each body's merged inertia ``{body link: (mass, com, I about com)}`` in the body
    frame: the inertials of its links moved into it (Pinocchio's sum of inertias)."""
    parts = {}
    for ln, (b, T) in body_of.items():
        ine = desc.links[ln].inertial
        if ine is None or ine.mass == 0.0:
            parts.setdefault(b, [])
            continue
        R = T[:3, :3]
        parts.setdefault(b, []).append((float(ine.mass), R @ np.asarray(ine.com, float) + T[:3, 3],
                                        R @ np.asarray(ine.inertia, float) @ R.T))
    out = {}
    for b, ps in parts.items():
        mass = sum(p[0] for p in ps)
        if mass == 0.0:
            out[b] = (0.0, np.zeros(3), np.zeros((3, 3)))
            continue
        com = sum(p[0] * p[1] for p in ps) / mass
        I = np.zeros((3, 3))
        for mi, ci, Ii in ps:
            d = ci - com
            I += Ii + mi * (float(d @ d) * np.eye(3) - np.outer(d, d))
        out[b] = (mass, com, 0.5 * (I + I.T))
    return out


def _check_names(desc, body_of, floating_base, where):
    """Two file names that become one component name are an error naming both."""
    used = {"world": "the World"}
    if floating_base:
        used["base"] = "the floating base"
    problems = []

    def take(cname, what):
        if cname in used:
            problems.append(f"{what} and {used[cname]} both become component '{cname}'; "
                            "rename one in the file")
        used[cname] = what

    for j in desc.joints:
        if j.type == "fixed":
            continue
        cn = component_name(j.name)
        for suffix in ("", "_origin", "_damper", "_drive", "_friction"):
            take(cn + suffix, f"joint '{j.name}'" + (f" ({suffix[1:]})" if suffix else ""))
    for ln in desc.links:
        take(f"{component_name(ln)}_frame", f"link '{ln}' (frame)")
        if body_of[ln][0] == ln:
            take(f"{component_name(ln)}_body", f"link '{ln}' (body)")
    if problems:
        raise ModelError([f"{where}: {p}" for p in problems])


def _check_masses(desc, body_of, inertia, root, floating_base, where):
    """A movable joint whose whole subtree has no mass leaves its acceleration undetermined
    (a zero row of M): an error naming the joint's child link. A merged inertia that is not
    one (negative, or the triangle inequality broken) is an error naming the body's links."""
    children = {}
    for j in desc.joints:
        children.setdefault(body_of[j.parent][0], set()).add(body_of[j.child][0])
    total = {}

    def subtree(b):
        if b not in total:
            total[b] = inertia[b][0] + sum(subtree(c) for c in children.get(b, ()) if c != b)
        return total[b]

    problems = []
    for j in desc.joints:
        if j.type != "fixed" and subtree(j.child) == 0.0:
            problems.append(f"link '{j.child}' on movable joint '{j.name}' has no inertia "
                            "(no <inertial>, and none on the links below it): the joint's "
                            "acceleration is undetermined; give the link an <inertial> or make "
                            "the joint fixed")
    if floating_base and subtree(root) == 0.0:
        problems.append(f"root link '{root}' of a floating base: the robot has no mass")
    free = [j.name for j in desc.joints if j.type == "floating" and body_of[j.parent][0] == root]
    if floating_base and free and inertia[root][0] == 0.0:
        problems.append(f"the file already frees the robot (floating joint '{free[0]}' from the "
                        f"massless root link '{root}'), so a floating base on top would move "
                        "nothing with mass; load it with floating_base=False")
    for b, (mass, _, I) in inertia.items():
        if mass <= 0 or (b == root and not floating_base):
            continue
        ev = np.linalg.eigvalsh(I)
        if ev[0] < -1e-12 * max(1.0, abs(ev[-1])) or ev[0] + ev[1] < ev[2] - 1e-9 * max(1.0, ev[2]):
            links = [ln for ln, (bb, _) in body_of.items() if bb == b]
            problems.append(f"link '{b}' (with {', '.join(links)} fixed to it): the merged "
                            f"inertia {np.round(I, 12).tolist()} about the center of mass is "
                            "not a body's (it must be positive semidefinite with I1 + I2 >= "
                            "I3); fix the <inertia> of these links")
    if problems:
        raise ModelError([f"{where}: {p}" for p in problems])


def _offset(m, cname, frame, T):
    """``frame`` itself where ``T`` is the identity, else ``frame_b`` of a rigid offset
    ``cname`` (FixedTranslation, or FixedRotation by the rotation vector of ``T``)."""
    r, R = T[:3, 3], T[:3, :3]
    rv = Rotation.from_matrix(R).as_rotvec()
    angle = float(np.linalg.norm(rv))
    if angle < 1e-15 and not np.any(r):
        return frame
    if angle < 1e-15:
        c = m.add(sp.FixedTranslation(cname, r=tuple(float(x) for x in r)))
    else:
        c = m.add(sp.FixedRotation(cname, r=tuple(float(x) for x in r),
                                   n=tuple(float(x) for x in rv / angle), angle=angle))
    m.connect(frame, c.frame_a)
    return c.frame_b


def _joint(m, j, frame, body_of, actuated, damping, joint_friction=False):
    """The joint component of movable joint ``j``, placed in its parent body, its child's
    frame recorded in ``frame``; its damper and drive where asked for."""
    cn = component_name(j.name)
    b, T = body_of[j.parent]
    a = _offset(m, f"{cn}_origin", frame[b], T @ j.origin)
    n = tuple(float(x) for x in j.axis)
    one_dof = j.type in ("revolute", "continuous", "prismatic")
    drive = actuated and one_dof
    damp = damping and one_dof and j.damping > 0
    rub = joint_friction and j.friction > 0 and j.type in ("revolute", "continuous")
    if joint_friction and j.friction > 0 and not rub:
        warnings.warn(f"robot '{m.name}': friction {j.friction} of {j.type} joint '{j.name}' "
                      "kept as data only (no friction component for it)", ModelWarning,
                      stacklevel=4)
    flange = drive or damp or rub
    if j.type in ("revolute", "continuous"):
        c = m.add(sp.Revolute(cn, n=n, useAxisFlange=flange))
        lib, Push = rot, rot.Torque
    elif j.type == "prismatic":
        c = m.add(sp.Prismatic(cn, n=n, useAxisFlange=flange))
        lib, Push = tr, tr.Force
    elif j.type == "spherical":
        c = m.add(sp.Spherical(cn))
    else:
        c = m.add(sp.FreeMotion(cn))
    m.connect(a, c.frame_a)
    frame[j.child] = c.frame_b
    if damp:
        d = m.add(lib.Damper(f"{cn}_damper", d=float(j.damping)))
        m.connect(c.support, d.flange_a)
        m.connect(c.axis, d.flange_b)
    if rub:
        f = m.add(rot.BearingFriction(f"{cn}_friction", tau_c=float(j.friction)))
        m.connect(c.axis, f.flange_a)
    if drive:
        u = m.input(f"{cn}.tau")
        p = m.add(Push(f"{cn}_drive", u))
        m.connect(c.axis, p.flange)
    lim = dict(j.limits) if j.limits else {}
    c.limits = {k: lim.get(k) for k in ("lower", "upper", "effort", "velocity")}
    c.damping, c.friction, c.axis_n, c.joint_type = float(j.damping), float(j.friction), \
        np.asarray(j.axis, float), j.type
    c.mimic = j.mimic
    if j.mimic:
        warnings.warn(f"robot '{m.name}': joint '{j.name}' mimics joint '{j.mimic['joint']}' "
                      "in the file; built as an independent joint (as Pinocchio does by "
                      "default); add the coupling (m.holonomic) if the motion needs it",
                      ModelWarning, stacklevel=4)
    return c
