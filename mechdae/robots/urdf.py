"""URDF files -> :class:`~.description.RobotDescription` (the standard library's XML parser:
URDF is small), and :func:`load_urdf`, which builds the component Model from it.

What is read: ``<link>`` with ``<inertial>`` (mass, origin, full inertia tensor; the
origin's ``rpy`` rotates the tensor into the link frame, ``I_link = R I R^T``), ``<visual>``
and ``<collision>`` shapes (box, sphere, cylinder, capsule, mesh) as
:class:`~.description.Geometry`; ``<joint>`` of type revolute, continuous, prismatic, fixed
or floating with its ``origin`` (``xyz``, ``rpy``: ``R = Rz(yaw) Ry(pitch) Rx(roll)``),
``axis`` (normalised), ``limit`` and ``dynamics`` (damping, friction). Mesh file names
``package://<pkg>/<path>`` and relative names are resolved against the file's folder, its
parents and the ``package_dirs`` search path; a mesh not found is a warning (the dynamics
never need it) and its ``filename`` is kept as None.

Everything malformed is a :class:`~mechdae.errors.ModelError` naming the file and the
element: XML that does not parse, a joint that names a link the file does not define, a
link with two parent joints, a closed loop, a number that is not one, an unsupported joint
type (``planar``).
"""
import math
import os
import warnings
import xml.etree.ElementTree as ET

import numpy as np

from ..errors import ModelError
from .description import Geometry, Inertial, Joint, Link, RobotDescription

__all__ = ["parse_urdf", "load_urdf", "origin_matrix", "rpy_matrix"]

#: URDF joint types read (``planar`` is refused with a clear error)
URDF_JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating")


def load_urdf(path, floating_base=False, actuated=False, name=None, package_dirs=None,
              damping=True, joint_friction=False, contacts=None, **contact_params):
    """Read a URDF file into a component Model of spatial components.

    Parameters
    ----------
    path : str or path-like
        The ``.urdf`` file (or a string holding the XML itself).
    floating_base : bool
        ``True``: World -> FreeMotion ``"base"`` -> the root link (coordinates ``base.x ..
        base.z``, ``base.q0 .. base.q3``; speeds ``base.vx .. base.vz`` in the world,
        ``base.wx .. base.wz`` in the root link's frame). ``False``: the root link is the
        world frame.
    actuated : bool
        Add an input ``"<joint>.tau"`` per revolute, continuous and prismatic joint (a
        torque or force on its axis).
    name : str, optional
        Model name (default: the ``<robot name=...>``).
    package_dirs : str or list of str, optional
        Folders searched for ``package://<pkg>/...`` meshes (the folder holding ``<pkg>``, or
        ``<pkg>`` itself).
    damping : bool
        Joint damping from the file as dampers on the joints (default); ``False`` keeps it
        as data only (``m.joints[j].damping``, as Pinocchio's ``aba`` ignores it).
    joint_friction : bool
        ``True``: revolute joints' Coulomb friction from the file as exact stick/slip
        friction on the joint (see :func:`mechdae.robots.build.build_model`); default: data
        only (``m.joints[j].friction``).
    contacts, contact_params
        Feet contacts, handed to :func:`mechdae.robots.contacts.attach_contacts`
        (``contacts="feet"`` or a list of link names).

    Returns
    -------
    Model
        With ``m.links[name]`` (each link's frame connector), ``m.joints[name]`` (each
        movable joint's component, with ``.limits``, ``.damping``, ``.friction``) and
        ``m.description`` (the :class:`~.description.RobotDescription`).

    Raises
    ------
    ModelError
        A malformed file (see the module docstring) or a robot the spatial library cannot
        build (see :func:`mechdae.robots.build.build_model`).

    Examples
    --------
    >>> from mechdae import robots
    >>> m = robots.load_urdf("tests/data/robots/two_link_arm.urdf")   # doctest: +SKIP
    >>> sys = m.compile()                                              # doctest: +SKIP
    """
    from .build import build_model
    desc = parse_urdf(path, package_dirs=package_dirs)
    return build_model(desc, floating_base=floating_base, actuated=actuated, name=name,
                       damping=damping, joint_friction=joint_friction, contacts=contacts,
                       **contact_params)


# ---------------------------------------------------------------------- the file
def parse_urdf(path, package_dirs=None):
    """Parse a URDF file (or XML string) into a :class:`~.description.RobotDescription`.

    Parameters
    ----------
    path : str or path-like
        File name, or the XML text itself (a string starting with ``<``).
    package_dirs : str or list of str, optional
        Search path for ``package://`` mesh names.

    Returns
    -------
    RobotDescription

    Raises
    ------
    ModelError
        Naming the file and the element at fault.
    """
    text = str(path)
    if text.lstrip().startswith("<"):
        where, folder = "URDF string", os.getcwd()
        try:
            root = ET.fromstring(text)
        except ET.ParseError as e:
            raise ModelError(f"{where}: malformed XML ({e}); fix the file") from None
    else:
        where = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(where))
        if not os.path.isfile(where):
            raise ModelError(f"URDF file '{where}' not found")
        try:
            root = ET.parse(where).getroot()
        except ET.ParseError as e:
            raise ModelError(f"URDF file '{where}': malformed XML ({e}); fix the file") \
                from None
    if root.tag != "robot":
        raise ModelError(f"{where}: the root element is <{root.tag}>, not <robot>; is this a "
                         "URDF file? (MJCF files: robots.load_mjcf)")
    rd = _Reader(where, folder, package_dirs)
    links = {}
    for el in root.findall("link"):
        link = rd.link(el)
        if link.name in links:
            raise ModelError(f"{where}: two <link name=\"{link.name}\">; link names must be "
                             "unique")
        links[link.name] = link
    if not links:
        raise ModelError(f"{where}: no <link> in <robot>; a robot needs at least one link")
    joints = [rd.joint(el) for el in root.findall("joint")]
    root_link = check_tree(links, joints, where)
    return RobotDescription(name=root.get("name") or "robot", links=links, joints=joints,
                            root=root_link, source=None if where == "URDF string" else where)


def check_tree(links, joints, where):
    """Check that the joints join the links into one tree; return the root link's name.

    Raises
    ------
    ModelError
        A joint naming a link that does not exist, two joints of one name, a link with two
        parents, a closed loop, or links not connected to the root.
    """
    problems, parent_of, names = [], {}, set()
    for j in joints:
        if j.name in names:
            problems.append(f"two joints named '{j.name}'; joint names must be unique")
        names.add(j.name)
        for role, ln in (("parent", j.parent), ("child", j.child)):
            if ln not in links:
                problems.append(f"joint '{j.name}': {role} link '{ln}' is not defined (no "
                                f"<link name=\"{ln}\">)")
        if j.child in parent_of:
            problems.append(f"link '{j.child}' has two parents: joints '{parent_of[j.child].name}' "
                            f"and '{j.name}' (a URDF is a tree; close loops with constraints "
                            "in the Model instead)")
        else:
            parent_of[j.child] = j
    if problems:
        raise ModelError([f"{where}: {p}" for p in problems])
    roots = [ln for ln in links if ln not in parent_of]
    if len(roots) != 1:
        if not roots:
            raise ModelError(f"{where}: every link has a parent joint, so the joints close a "
                             "loop; a URDF is a tree with one root link")
        raise ModelError(f"{where}: {len(roots)} root links ({', '.join(roots)}): links not "
                         "connected by joints; join them into one tree")
    children = {}
    for j in joints:
        children.setdefault(j.parent, []).append(j.child)
    seen, stack = {roots[0]}, [roots[0]]
    while stack:
        for c in children.get(stack.pop(), ()):
            seen.add(c)
            stack.append(c)
    lost = [ln for ln in links if ln not in seen]
    if lost:
        loop = [parent_of[ln].name for ln in lost]
        raise ModelError(f"{where}: joints {', '.join(loop)} form a closed loop (links "
                         f"{', '.join(lost)} are not reached from the root '{roots[0]}')")
    return roots[0]


# ---------------------------------------------------------------------- geometry
def rpy_matrix(rpy):
    """Rotation matrix of URDF roll, pitch, yaw: ``Rz(yaw) Ry(pitch) Rx(roll)``."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), \
        math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def origin_matrix(xyz=(0.0, 0.0, 0.0), rpy=(0.0, 0.0, 0.0)):
    """4x4 homogeneous pose of a URDF ``<origin xyz rpy>``."""
    T = np.eye(4)
    T[:3, :3] = rpy_matrix(rpy)
    T[:3, 3] = np.asarray(xyz, float)
    return T


class _Reader:
    """Elements of one file -> description records (numbers checked, paths resolved)."""

    def __init__(self, where, folder, package_dirs):
        self.where, self.folder = where, folder
        if isinstance(package_dirs, (str, os.PathLike)):
            package_dirs = [package_dirs]
        self.package_dirs = [os.fspath(d) for d in (package_dirs or ())]

    def fail(self, what, msg):
        raise ModelError(f"{self.where}: {what}: {msg}")

    def numbers(self, el, attr, n, what, default=None):
        text = el.get(attr) if el is not None else None
        if text is None:
            if default is None:
                self.fail(what, f"attribute '{attr}' missing")
            return np.asarray(default, float)
        try:
            vals = np.array([float(x) for x in text.split()])
        except ValueError:
            self.fail(what, f"{attr}=\"{text}\" is not {n} number(s)")
        if vals.size != n or not np.all(np.isfinite(vals)):
            self.fail(what, f"{attr}=\"{text}\" must be {n} finite number(s)")
        return vals

    def number(self, el, attr, what, default=None):
        return float(self.numbers(el, attr, 1, what, None if default is None
                                  else [default])[0])

    def origin(self, el, what):
        o = el.find("origin")
        return origin_matrix(self.numbers(o, "xyz", 3, what + " <origin>", (0, 0, 0)),
                             self.numbers(o, "rpy", 3, what + " <origin>", (0, 0, 0)))

    def link(self, el):
        name = el.get("name")
        if not name:
            self.fail("<link>", "a link without a name")
        what = f"link '{name}'"
        link = Link(name=name)
        ine = el.find("inertial")
        if ine is not None:
            link.inertial = self.inertial(ine, what)
        for tag, out in (("visual", link.visuals), ("collision", link.collisions)):
            for k, g in enumerate(el.findall(tag)):
                geo = self.geometry(g, f"{what} <{tag}> {k + 1}")
                if geo is not None:
                    out.append(geo)
        return link

    def inertial(self, el, what):
        what = what + " <inertial>"
        mass = self.number(el.find("mass"), "value", what + " <mass>")
        if mass < 0:
            self.fail(what, f"mass {mass} is negative")
        I = el.find("inertia")
        if I is None:
            self.fail(what, "<inertia> missing (ixx, ixy, ixz, iyy, iyz, izz)")
        e = {k: self.number(I, k, what + " <inertia>", 0.0)
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        J = np.array([[e["ixx"], e["ixy"], e["ixz"]], [e["ixy"], e["iyy"], e["iyz"]],
                      [e["ixz"], e["iyz"], e["izz"]]])
        T = self.origin(el, what)
        R = T[:3, :3]
        return Inertial(mass=mass, com=T[:3, 3].copy(), inertia=R @ J @ R.T)

    def geometry(self, el, what):
        g = el.find("geometry")
        shape = None if g is None else next(iter(g), None)
        if shape is None:
            warnings.warn(f"{self.where}: {what} has no shape in <geometry>; ignored",
                          stacklevel=4)
            return None
        T, kind, name = self.origin(el, what), shape.tag, el.get("name")
        if kind == "box":
            return Geometry("box", tuple(self.numbers(shape, "size", 3, what)), T, name=name)
        if kind == "sphere":
            return Geometry("sphere", (self.number(shape, "radius", what),), T, name=name)
        if kind in ("cylinder", "capsule"):
            return Geometry(kind, (self.number(shape, "radius", what),
                                   self.number(shape, "length", what)), T, name=name)
        if kind == "mesh":
            fn = shape.get("filename")
            if not fn:
                self.fail(what, "<mesh> without a filename")
            scale = tuple(self.numbers(shape, "scale", 3, what, (1, 1, 1)))
            return Geometry("mesh", (), T, filename=self.mesh_path(fn, what), scale=scale,
                            name=name)
        warnings.warn(f"{self.where}: {what}: shape <{kind}> is not a URDF shape; ignored",
                      stacklevel=4)
        return None

    def mesh_path(self, fn, what):
        """The mesh file found, or None (with a warning: dynamics never need it)."""
        tries = []
        if fn.startswith("package://"):
            rest = fn[len("package://"):]
            pkg, _, sub = rest.partition("/")
            for d in self.package_dirs:
                tries += [os.path.join(d, pkg, sub), os.path.join(d, sub)]
            d = self.folder                      # the file's folder and its parents
            while True:
                tries += [os.path.join(d, pkg, sub)]
                if os.path.basename(d) == pkg:
                    tries.append(os.path.join(d, sub))
                up = os.path.dirname(d)
                if up == d:
                    break
                d = up
        elif fn.startswith("file://"):
            tries.append(fn[len("file://"):])
        elif os.path.isabs(fn):
            tries.append(fn)
        else:
            tries += [os.path.join(self.folder, fn)] + \
                [os.path.join(d, fn) for d in self.package_dirs]
        for p in tries:
            if os.path.isfile(p):
                return os.path.normpath(p)
        warnings.warn(f"{self.where}: {what}: mesh '{fn}' not found (looked in the file's "
                      "folder and package_dirs); kept without a file -- the dynamics do not "
                      "need it", stacklevel=5)
        return None

    def joint(self, el):
        name = el.get("name")
        if not name:
            self.fail("<joint>", "a joint without a name")
        what = f"joint '{name}'"
        kind = el.get("type")
        if kind not in URDF_JOINT_TYPES:
            self.fail(what, f"type=\"{kind}\" is not supported (supported: "
                      f"{', '.join(URDF_JOINT_TYPES)})")
        ends = {}
        for role in ("parent", "child"):
            e = el.find(role)
            if e is None or not e.get("link"):
                self.fail(what, f"<{role} link=\"...\"/> missing")
            ends[role] = e.get("link")
        axis = self.numbers(el.find("axis"), "xyz", 3, what + " <axis>", (1, 0, 0))
        nrm = float(np.linalg.norm(axis))
        if kind in ("revolute", "continuous", "prismatic") and nrm == 0.0:
            self.fail(what, "<axis xyz=\"0 0 0\"/>: a joint axis must be nonzero")
        limits = None
        lim = el.find("limit")
        if lim is not None:
            limits = {k: (float(self.number(lim, k, what + " <limit>"))
                          if lim.get(k) is not None else None)
                      for k in ("lower", "upper", "effort", "velocity")}
        elif kind in ("revolute", "prismatic"):
            warnings.warn(f"{self.where}: {what} ({kind}) has no <limit> (the URDF "
                          "specification requires one); kept without limits", stacklevel=4)
        if kind == "continuous" and limits is not None:
            limits["lower"] = limits["upper"] = None
        dyn = el.find("dynamics")
        damping = self.number(dyn, "damping", what + " <dynamics>", 0.0)
        friction = self.number(dyn, "friction", what + " <dynamics>", 0.0)
        if damping < 0 or friction < 0:
            self.fail(what, f"<dynamics damping=\"{damping}\" friction=\"{friction}\">: "
                      "both must be >= 0")
        j = Joint(name=name, type=kind, parent=ends["parent"], child=ends["child"],
                  origin=self.origin(el, what), axis=axis / nrm if nrm else axis,
                  limits=limits, damping=damping, friction=friction)
        mim = el.find("mimic")
        if mim is not None:
            j.mimic = dict(joint=mim.get("joint"),
                           multiplier=self.number(mim, "multiplier", what, 1.0),
                           offset=self.number(mim, "offset", what, 0.0))
        return j
