"""MJCF (MuJoCo) files into a :class:`~.description.RobotDescription`.

The file is compiled by the ``mujoco`` package itself (``mujoco.MjModel.from_xml_path``), so
every MJCF feature MuJoCo resolves — defaults, includes, frames, ``inertiafromgeom``,
``<compiler angle=...>`` — is handled by MuJoCo; this module reads the compiled arrays:

- the body tree (``body_parentid``) with each body's pose in its parent (``body_pos``,
  ``body_quat``), mass, center of mass and principal inertia (``body_mass``, ``body_ipos``,
  ``body_iquat``, ``body_inertia``: the full tensor is ``R diag(I) R^T`` in the body frame);
- the joints of each body (``jnt_type``, ``jnt_axis``, ``jnt_pos``, ``jnt_range``,
  ``jnt_limited``; ``dof_damping``, ``dof_frictionloss``): hinge -> ``revolute`` (limited) or
  ``continuous``, slide -> ``prismatic``, ball -> ``spherical``, free -> ``floating``; a body
  without joints is ``fixed`` to its parent;
- the geoms as :class:`~.description.Geometry` (every geom a visual, as MuJoCo draws them;
  those that collide also collisions).

MuJoCo moves a body about the joint's anchor ``p`` (``jnt_pos``, in the body frame):
``B = P (pos, quat) T(p) M(q) T(-p)``. A description's child link frame is the joint frame
``P (pos, quat) T(p) M(q)``, so the link frame of a body sits at its (last) joint's anchor and
everything the body carries is moved by ``-p``. A body with several joints becomes a chain of
massless intermediate links ``"<body>__<joint>"``, one per joint but the last. A hinge's or
slide's reference position (``ref``: MuJoCo measures its angle from ``qpos0``) is folded into
the joint origin, so the description's coordinate equals MuJoCo's ``qpos``.

The world body is the description's root link ``"world"``: a robot with a free joint is
``world --floating--> torso``, a fixed-base arm ``world --fixed--> base --revolute--> ...``.

Example
-------
>>> from mechdae.robots.mjcf import description_from_mjcf
>>> desc = description_from_mjcf("quadruped.xml")          # doctest: +SKIP
>>> [j.name for j in desc.joints if j.type != "fixed"]     # doctest: +SKIP
"""
import os
import warnings

import numpy as np

from ..errors import ModelError, ModelWarning
from .description import Geometry, Inertial, Joint, Link, RobotDescription

__all__ = ["description_from_mjcf", "load_mjcf"]

# mjtJoint, mjtGeom, mjtEq (MuJoCo's enums; read from the package when it is imported)
_JOINT_KINDS = {0: "free", 1: "ball", 2: "slide", 3: "hinge"}
_GEOM_KINDS = {0: "plane", 2: "sphere", 3: "capsule", 4: "ellipsoid", 5: "cylinder",
               6: "box", 7: "mesh"}
_EQ_KINDS = {0: "connect", 1: "weld", 2: "joint", 3: "tendon", 4: "flex"}


def _mujoco():
    try:
        import mujoco
    except ImportError as exc:      # pragma: no cover - the test extra installs it
        raise ImportError("reading MJCF needs the 'mujoco' package: pip install mujoco "
                          "(or mechdae[test])") from exc
    return mujoco


def _rot(quat):
    """Rotation matrix of a unit quaternion ``(w, x, y, z)``."""
    w, x, y, z = np.asarray(quat, float) / np.linalg.norm(quat)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _pose(pos=(0.0, 0.0, 0.0), R=None):
    T = np.eye(4)
    T[:3, 3] = pos
    if R is not None:
        T[:3, :3] = R
    return T


def _axis_angle(a, angle):
    a = np.asarray(a, float) / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def _names(mj, mujoco, objtype, count, prefix):
    out = []
    for i in range(count):
        nm = mujoco.mj_id2name(mj, objtype, i)
        out.append(nm if nm else f"{prefix}{i}")
    return out


def _compile(path):
    mujoco = _mujoco()
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"MJCF file {path!r} does not exist")
    try:
        mj = mujoco.MjModel.from_xml_path(path)
    except Exception as exc:     # mujoco raises ValueError with the XML parser's message
        raise ModelError(f"MJCF file {path!r}: MuJoCo cannot compile it: "
                         f"{str(exc).strip()}") from exc
    return mujoco, mj


def _equalities(mj, mujoco, jnames, path):
    """MuJoCo's equality constraints: a joint coupling ``q1 = offset + multiplier q2`` is a
    mimic (kept as data, ``Joint.mimic``, as a URDF ``<mimic>``: MuJoCo writes one for it);
    any other (``connect``, ``weld``: a closed kinematic loop; a nonlinear or one-joint
    coupling; tendon, flex) is refused, naming each. Returns ``{joint id: mimic dict}``."""
    problems, mimic = [], {}
    for e in range(mj.neq):
        kind = _EQ_KINDS.get(int(mj.eq_type[e]), str(int(mj.eq_type[e])))
        name = mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_EQUALITY, e) or f"equality{e}"
        a, b = int(mj.eq_obj1id[e]), int(mj.eq_obj2id[e])
        data = np.asarray(mj.eq_data[e], float)
        if kind == "joint" and b >= 0 and not np.any(data[2:5]):
            # MuJoCo: q_a - q0_a = c0 + c1 (q_b - q0_b), q0 the reference positions
            q0a, q0b = (float(mj.qpos0[int(mj.jnt_qposadr[k])]) for k in (a, b))
            mimic[a] = dict(joint=jnames[b], multiplier=float(data[1]),
                            offset=float(data[0]) + q0a - float(data[1]) * q0b)
            continue
        what = ("closes a kinematic loop" if kind in ("connect", "weld") else
                "couples joints in a way a robot description does not carry")
        problems.append(f"MJCF file {path!r}: <equality> '{name}' ({kind}) {what}; robot "
                        "files are read as trees: remove it and add the constraint on the "
                        "built Model (a cut joint of the spatial library, "
                        "Revolute(..., cut=True), or m.holonomic)")
    if problems:
        raise ModelError(problems)
    return mimic


def _check_unsupported(mj, jnames, bnames, path):
    """Data MuJoCo adds to the dynamics that a description cannot carry: warned, by name."""
    g = np.asarray(mj.opt.gravity, float)
    off = getattr(getattr(_mujoco(), "mjtDisableBit", None), "mjDSBL_GRAVITY", None)
    if off is not None and int(mj.opt.disableflags) & int(off):
        g = np.zeros(3)                      # <flag gravity="disable"/>
    if not np.allclose(g, (0.0, 0.0, -9.81), atol=1e-9):
        warnings.warn(f"MJCF file {path!r}: gravity {g.tolist()} is not (0, 0, -9.81); the "
                      "description keeps no gravity: set the World's g and n on the built "
                      "Model", ModelWarning, stacklevel=3)
    for b in range(1, mj.nbody):
        gc = float(mj.body_gravcomp[b]) if hasattr(mj, "body_gravcomp") else 0.0
        if gc != 0.0:
            warnings.warn(f"MJCF file {path!r}: body '{bnames[b]}' has gravcomp {gc} (MuJoCo cancels "
                          "that share of its weight); the description ignores it",
                          ModelWarning, stacklevel=3)
    for j in range(mj.njnt):
        d = int(mj.jnt_dofadr[j])
        arm = float(mj.dof_armature[d])
        if arm != 0.0:
            warnings.warn(f"MJCF file {path!r}: joint '{jnames[j]}' has armature {arm} (rotor "
                          "inertia added to M's diagonal by MuJoCo); the description ignores "
                          "it", ModelWarning, stacklevel=3)
        k = float(mj.jnt_stiffness[j])
        if k != 0.0:
            warnings.warn(f"MJCF file {path!r}: joint '{jnames[j]}' has stiffness {k}; the "
                          "description ignores it (add a spring on the built Model)",
                          ModelWarning, stacklevel=3)


def _inertial(mj, b, shift):
    """The body's inertial in its link frame (body frame moved by ``-shift``), or None."""
    mass = float(mj.body_mass[b])
    inert = np.asarray(mj.body_inertia[b], float)
    if mass == 0.0 and not np.any(inert):
        return None
    R = _rot(mj.body_iquat[b])
    return Inertial(mass=mass, com=np.asarray(mj.body_ipos[b], float) - shift,
                    inertia=R @ np.diag(inert) @ R.T)


def _mesh_file(mj, mesh_id, folder):
    """Path of a mesh's file as MuJoCo resolved it (``meshdir`` included; a relative one is
    taken from the model file's ``folder``); None when MuJoCo keeps none (a mesh given by
    its vertices)."""
    adr = getattr(mj, "mesh_pathadr", None)
    if adr is None or int(adr[mesh_id]) < 0:
        return None
    raw = bytes(mj.paths[int(adr[mesh_id]):]).split(b"\0", 1)[0].decode()
    if not raw:
        return None
    return raw if os.path.isabs(raw) else os.path.normpath(os.path.join(folder, raw))


def _geometry(mj, g, shift, gname, folder):
    """Geom ``g`` as a Geometry in its body's link frame (body frame moved by ``-shift``)."""
    kind = _GEOM_KINDS.get(int(mj.geom_type[g]))
    if kind is None:
        return None
    size = np.asarray(mj.geom_size[g], float)
    T = _pose(np.asarray(mj.geom_pos[g], float) - shift, _rot(mj.geom_quat[g]))
    filename, scale = None, (1.0, 1.0, 1.0)
    if kind == "sphere":
        dims = (float(size[0]),)
    elif kind == "box":
        dims = tuple(2.0 * float(s) for s in size)
    elif kind in ("capsule", "cylinder"):
        dims = (float(size[0]), 2.0 * float(size[1]))
    elif kind == "ellipsoid":
        dims = tuple(float(s) for s in size)
    elif kind == "plane":
        dims = tuple(2.0 * float(s) for s in size[:2])
    else:                                   # mesh: MuJoCo recentered it at its inertia frame
        mid = int(mj.geom_dataid[g])
        dims = ()
        T = T @ np.linalg.inv(_pose(mj.mesh_pos[mid], _rot(mj.mesh_quat[mid])))
        filename = _mesh_file(mj, mid, folder)
        if hasattr(mj, "mesh_scale"):
            scale = tuple(float(s) for s in mj.mesh_scale[mid])
    return Geometry(kind=kind, size=dims, origin=T, filename=filename, scale=scale, name=gname)


def _link(mj, b, name, shift, gnames, folder):
    link = Link(name=name, inertial=_inertial(mj, b, shift))
    for g in range(int(mj.body_geomadr[b]), int(mj.body_geomadr[b] + mj.body_geomnum[b])):
        geo = _geometry(mj, g, shift, gnames[g], folder)
        if geo is None:
            continue
        link.visuals.append(geo)
        if int(mj.geom_contype[g]) or int(mj.geom_conaffinity[g]):
            link.collisions.append(geo)
    return link


def _joint_record(mj, j, name, parent, child, origin, mimic=None):
    """One MuJoCo joint as a description Joint (type, axis, limits, losses)."""
    kind = _JOINT_KINDS[int(mj.jnt_type[j])]
    d = int(mj.jnt_dofadr[j])
    limited = bool(mj.jnt_limited[j])
    limits = None
    if kind in ("hinge", "slide"):
        lo, hi = (float(x) for x in mj.jnt_range[j])
        effort = None
        if bool(mj.jnt_actfrclimited[j]):
            effort = float(max(abs(x) for x in mj.jnt_actfrcrange[j]))
        if limited or effort is not None:
            limits = {"lower": lo if limited else None, "upper": hi if limited else None,
                      "effort": effort, "velocity": None}
    jtype = {"hinge": "revolute" if limited else "continuous", "slide": "prismatic",
             "ball": "spherical", "free": "floating"}[kind]
    return Joint(name=name, type=jtype, parent=parent, child=child, origin=origin,
                 axis=np.asarray(mj.jnt_axis[j], float) / np.linalg.norm(mj.jnt_axis[j]),
                 limits=limits, damping=float(mj.dof_damping[d]),
                 friction=float(mj.dof_frictionloss[d]), mimic=mimic)


def _body_joints(mj, b, parent, bname, start, jnames, used, mimic):
    """Joints of body ``b`` from link ``parent``: ``start`` the pose of MuJoCo's body frame
    at zero motion in ``parent``'s link frame. Returns (joints, extra links, anchor shift)."""
    adr, num = int(mj.body_jntadr[b]), int(mj.body_jntnum[b])
    if num == 0:
        name = _unique(f"{bname}_fixed", used)
        return [Joint(name=name, type="fixed", parent=parent, child=bname, origin=start)], [], \
            np.zeros(3)
    joints, extra, T, link = [], [], start, parent
    for k, j in enumerate(range(adr, adr + num)):
        kind = _JOINT_KINDS[int(mj.jnt_type[j])]
        p = np.zeros(3) if kind == "free" else np.asarray(mj.jnt_pos[j], float)
        a = np.asarray(mj.jnt_axis[j], float)
        origin = (np.eye(4) if kind == "free" else T) @ _pose(p)
        ref = float(mj.qpos0[int(mj.jnt_qposadr[j])])
        if kind == "hinge" and ref != 0.0:      # angle measured from ref: qpos - ref
            origin = origin @ _pose(R=_axis_angle(a, -ref))
        elif kind == "slide" and ref != 0.0:
            origin = origin @ _pose(-ref * a / np.linalg.norm(a))
        child = bname if k == num - 1 else _unique(f"{bname}__{jnames[j]}", used)
        joints.append(_joint_record(mj, j, jnames[j], link, child, origin, mimic.get(j)))
        if child != bname:
            extra.append(Link(name=child))
        T, link = _pose(-p), child     # the next joint's frame: the body frame, moved by -p
    return joints, extra, p


def _unique(name, used):
    base, k = name, 1
    while name in used:
        k += 1
        name = f"{base}_{k}"
    used.add(name)
    return name


def _check_free(mj, jnames, bnames, path):
    problems = []
    for j in range(mj.njnt):
        if _JOINT_KINDS[int(mj.jnt_type[j])] == "free":
            b = int(mj.jnt_bodyid[j])
            if int(mj.body_parentid[b]) != 0:
                problems.append(f"MJCF file {path!r}: free joint '{jnames[j]}' of body "
                                f"'{bnames[b]}' is not on a child of the world body")
    if problems:
        raise ModelError(problems)


def description_from_mjcf(path):
    """Read an MJCF file into a :class:`~.description.RobotDescription`.

    Parameters
    ----------
    path : str or os.PathLike
        The MJCF file; includes and meshes are resolved by MuJoCo relative to it.

    Returns
    -------
    RobotDescription
        Root link ``"world"``; one link per MuJoCo body (named as in the file, unnamed
        bodies ``"body<i>"``), massless links ``"<body>__<joint>"`` between the joints of a
        body with several; one joint per MuJoCo joint (named as in the file, unnamed ones
        ``"joint<i>"``) and a ``"<body>_fixed"`` joint for each body without joints. Joint
        coordinates equal MuJoCo's ``qpos`` (free joint: position and quaternion ``w, x, y,
        z`` of the body frame in the world; speeds: world linear velocity, angular velocity
        in the body frame, as ``qvel``).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ModelError
        MuJoCo cannot compile the file (its message is quoted), an ``<equality>`` closes a
        loop or couples joints otherwise than linearly (named; a linear joint coupling is
        kept as ``Joint.mimic`` and built independent, with a warning, as URDF's
        ``<mimic>``), or a free joint sits below another body.

    Warns
    -----
    ModelWarning
        Dynamics the description cannot carry: non-standard gravity, joint armature,
        joint stiffness, gravity compensation (each named).
    """
    mujoco, mj = _compile(path)
    path = os.fspath(path)
    Obj = mujoco.mjtObj
    bnames = _names(mj, mujoco, Obj.mjOBJ_BODY, mj.nbody, "body")
    bnames[0] = "world"
    jnames = _names(mj, mujoco, Obj.mjOBJ_JOINT, mj.njnt, "joint")
    gnames = [mujoco.mj_id2name(mj, Obj.mjOBJ_GEOM, g) for g in range(mj.ngeom)]
    mimic = _equalities(mj, mujoco, jnames, path)
    _check_free(mj, jnames, bnames, path)
    _check_unsupported(mj, jnames, bnames, path)
    used = set(bnames) | set(jnames)
    folder = os.path.dirname(os.path.abspath(path))
    links = {"world": _link(mj, 0, "world", np.zeros(3), gnames, folder)}
    shifts = {0: np.zeros(3)}
    joints = []
    for b in range(1, mj.nbody):         # MuJoCo numbers a parent before its children
        par = int(mj.body_parentid[b])
        start = _pose(np.asarray(mj.body_pos[b], float) - shifts[par], _rot(mj.body_quat[b]))
        js, extra, shift = _body_joints(mj, b, bnames[par], bnames[b], start, jnames, used,
                                        mimic)
        shifts[b] = shift
        joints.extend(js)
        for lk in extra:
            links[lk.name] = lk
        links[bnames[b]] = _link(mj, b, bnames[b], shift, gnames, folder)
    name = getattr(mj, "names", b"")
    model_name = bytes(name).split(b"\0", 1)[0].decode() or os.path.splitext(
        os.path.basename(path))[0]
    return RobotDescription(name=model_name, links=links, joints=joints, root="world",
                            source=os.path.abspath(path))


def _refloat(desc, where):
    """The description re-rooted at the world's one child body (for ``floating_base``)."""
    free = [j.name for j in desc.joints if j.type == "floating"]
    if free:
        raise ModelError(f"{where}: floating_base=True, but the file already gives free joint"
                         f" '{free[0]}'; leave floating_base False (the free joint is the "
                         "floating base)")
    top = [j for j in desc.joints if j.parent == desc.root]
    if len(top) != 1 or top[0].type != "fixed":
        raise ModelError(f"{where}: floating_base=True needs one body fixed to the world "
                         f"body, found {[(j.child, j.type) for j in top]}")
    links = {k: v for k, v in desc.links.items() if k != desc.root}
    joints = [j for j in desc.joints if j is not top[0]]
    return RobotDescription(name=desc.name, links=links, joints=joints, root=top[0].child,
                            source=desc.source)


def load_mjcf(path, floating_base=False, actuated=False, name=None, damping=True,
              joint_friction=False, contacts=None, **contact_params):
    """Read an MJCF file into a component Model of the spatial library.

    Parameters
    ----------
    path : str or os.PathLike
        The MJCF file (compiled by MuJoCo: see :func:`description_from_mjcf`).
    floating_base : bool
        For a file whose top body has no free joint: World -> FreeMotion ``"base"`` -> that
        body. A free joint in the file is a floating base already (its name is the
        joint's: ``"<joint>.x"`` ... ``"<joint>.wz"``, speeds as MuJoCo's ``qvel``).
    actuated, name, damping, joint_friction
        As :func:`mechdae.robots.build.build_model` (damping as dampers on the joints;
        ``frictionloss`` kept as data, ``m.joints[j].friction``, and with
        ``joint_friction=True`` exact Coulomb friction on the revolute joints).
    contacts : "feet" or list of str, optional
        Ground contacts (:func:`mechdae.robots.contacts.attach_contacts`) with
        ``contact_params`` ``restitution``, ``friction``, ``ground``.

    Returns
    -------
    RobotModel
        ``m.links[name]`` frame connectors and ``m.joints[name]`` joint components by the
        file's names (the world body is link ``"world"``).

    Raises
    ------
    ModelError
        As :func:`description_from_mjcf` and ``build_model``; ``floating_base=True`` on a
        file with a free joint.

    Examples
    --------
    >>> from mechdae.robots import load_mjcf
    >>> m = load_mjcf("quadruped.xml", contacts="feet", friction=0.8)   # doctest: +SKIP
    """
    from .build import build_model
    desc = description_from_mjcf(path)
    if floating_base:
        desc = _refloat(desc, f"MJCF file {os.fspath(path)!r}")
    return build_model(desc, floating_base=floating_base, actuated=actuated, name=name,
                       damping=damping, joint_friction=joint_friction, contacts=contacts,
                       **contact_params)
