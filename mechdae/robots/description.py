"""A robot description independent of its file format: links with inertia and geometry,
joints with their placement, axis, limits and losses. :mod:`.urdf` and :mod:`.mjcf` read
files into it; :mod:`.build` turns it into a component Model of the spatial library.

Conventions (URDF's, SI units): a joint's ``origin`` is the pose of the joint frame in the
parent link's frame (4x4 homogeneous matrix); the child link's frame is the joint frame
moved by the joint's motion along/about ``axis`` (a unit 3-vector in the joint frame). A
link's ``Inertial`` gives its mass, the center of mass in the link frame and the inertia
tensor about the center of mass in the link frame's axes.
"""
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Inertial", "Geometry", "Link", "Joint", "RobotDescription", "JOINT_TYPES"]

#: joint types of a description (URDF names; MJCF hinge -> revolute or continuous, slide ->
#: prismatic, free -> floating, ball -> spherical)
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "spherical")


@dataclass
class Inertial:
    """Mass (kg), center of mass ``com`` in the link frame (m), inertia tensor about the
    center of mass in the link frame's axes (kg m^2, symmetric 3x3)."""
    mass: float
    com: np.ndarray
    inertia: np.ndarray


@dataclass
class Geometry:
    """A visual or collision shape: ``kind`` in ``sphere``, ``box``, ``cylinder``,
    ``capsule``, ``mesh``; ``size`` (radius; half-extents... as the file gives them:
    ``sphere``: (radius,), ``box``: (lx, ly, lz) full lengths, ``cylinder``/``capsule``:
    (radius, length)), ``origin`` its pose in the link frame (4x4), ``filename`` and
    ``scale`` for meshes (resolved path or None when missing), ``name`` if the file names
    it."""
    kind: str
    size: tuple = ()
    origin: np.ndarray = field(default_factory=lambda: np.eye(4))
    filename: str = None
    scale: tuple = (1.0, 1.0, 1.0)
    name: str = None


@dataclass
class Link:
    name: str
    inertial: Inertial = None
    visuals: list = field(default_factory=list)
    collisions: list = field(default_factory=list)


@dataclass
class Joint:
    """``type`` one of :data:`JOINT_TYPES`; ``limits`` a dict with ``lower``, ``upper``
    (rad or m), ``effort``, ``velocity`` (None where the file has none); ``damping``
    (N m s/rad or N s/m) and ``friction`` (N m or N) as the file gives them; ``mimic`` a
    dict ``joint``, ``multiplier``, ``offset`` when the file couples this joint to another
    (URDF ``<mimic>``; kept as data, the joint is built independent, as Pinocchio does by
    default)."""
    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray = field(default_factory=lambda: np.eye(4))
    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    limits: dict = None
    damping: float = 0.0
    friction: float = 0.0
    mimic: dict = None


@dataclass
class RobotDescription:
    """A robot: its ``links`` by name, its ``joints`` (each joins a parent and a child
    link; together a tree), the ``root`` link (the one no joint has as child) and the
    ``source`` file."""
    name: str
    links: dict
    joints: list
    root: str
    source: str = None
