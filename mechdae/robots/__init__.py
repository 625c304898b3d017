"""Robots in: URDF and MJCF files as component Models of the spatial library.

>>> from mechdae import robots
>>> m = robots.load_urdf("robot.urdf", floating_base=True)     # doctest: +SKIP
>>> m.links["LF_FOOT"], m.joints["LF_KFE"].limits               # doctest: +SKIP

:mod:`.urdf` reads URDF (the standard library's XML parser), :mod:`.mjcf` MJCF (through the
``mujoco`` package, imported on first use); both fill a :class:`.description.
RobotDescription`, which :func:`.build.build_model` turns into the Model.
"""
from .build import build_model
from .description import Geometry, Inertial, Joint, Link, RobotDescription
from .urdf import load_urdf, parse_urdf

__all__ = ["load_urdf", "load_mjcf", "parse_urdf", "build_model", "RobotDescription", "Link",
           "Joint", "Inertial", "Geometry"]


def load_mjcf(path, *args, **kwargs):
    """Read an MJCF file (through the ``mujoco`` package); see :func:`.mjcf.load_mjcf`."""
    from .mjcf import load_mjcf as _load
    return _load(path, *args, **kwargs)
