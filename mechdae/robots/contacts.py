"""Feet on the ground: collision spheres and boxes of a robot's links become unilateral
contacts.

Each chosen link gets one :class:`~mechdae.components.spatial.PointPlaneContact` against
the ground plane ``z = ground`` (normal ``+z``) per collision sphere (its center in the
link frame, its radius) and one per corner of each collision box (a point: a box sole
touches the ground at its corners); a link with neither: its frame origin as a point. Gap
``z_c - ground - radius``, restitution ``e``, Coulomb friction ``mu`` on the two tangential
directions of the contact point's velocity. The contacts are named
``"<link>_contact.contact"``, ``"<link>_contact_2.contact"`` ... (link name with
characters outside ``[A-Za-z0-9_]`` made ``_``).

Example
-------
>>> from mechdae import robots                                          # doctest: +SKIP
>>> m = robots.load_mjcf("quadruped.xml", contacts="feet", friction=0.8) # doctest: +SKIP
>>> res = m.compile().simulate(1.0, method="event")                     # doctest: +SKIP
"""
import fnmatch
import re

import numpy as np

from ..components import spatial as sp
from ..errors import ModelError

__all__ = ["attach_contacts", "feet"]


def _safe(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def _children(desc):
    kids = {name: [] for name in desc.links}
    for j in desc.joints:
        kids.setdefault(j.parent, []).append(j.child)
    return kids


def _spheres(link):
    """The link's collision spheres and boxes (the shapes that become contact points)."""
    return [g for g in link.collisions if g.kind in ("sphere", "box")]


def _footlike(name):
    return bool(name) and fnmatch.fnmatch(name.lower(), "*foot*")


def _foot_spheres(desc):
    """``{link: [sphere Geometry, ...] or []}`` of a description's feet, by the first rule
    that finds any: links named like ``*foot*`` (all their collision spheres, or their
    origin), collision spheres named like ``*foot*`` (MuJoCo Menagerie style: a foot geom
    on the shank), the collision spheres of the leaf links."""
    named = [n for n in desc.links if _footlike(n)]
    if named:
        return {n: _spheres(desc.links[n]) for n in named}
    by_geom = {n: [g for g in _spheres(lk) if _footlike(g.name)] for n, lk in desc.links.items()}
    by_geom = {n: gs for n, gs in by_geom.items() if gs}
    if by_geom:
        return by_geom
    kids = _children(desc)
    return {n: _spheres(desc.links[n]) for n in desc.links
            if not kids.get(n) and _spheres(desc.links[n])}


def feet(desc):
    """Names of a description's feet: the links named like ``*foot*`` (any case) if there
    are any, else the links with a collision sphere or box named like ``*foot*``, else the
    leaf links (no child) that carry a collision sphere or box.

    Raises
    ------
    ModelError
        None of these exists (names the fix: pass the link names).
    """
    found = _foot_spheres(desc)
    if not found:
        raise ModelError(f"robot '{desc.name}': contacts='feet' found no link named like "
                         "*foot*, no collision sphere named like *foot* and no leaf link "
                         "with a collision sphere; pass the link names: contacts=['LF_FOOT', "
                         "...]")
    return list(found)


def _points(shapes):
    """(center in the link frame, radius) of every contact point of a link with these
    collision shapes: a sphere's center and radius, a box's eight corners as points (none:
    the link's origin as a point)."""
    if not shapes:
        return [(np.zeros(3), 0.0)]
    out = []
    for g in shapes:
        T = np.asarray(g.origin, float)
        if g.kind == "sphere":
            out.append((T[:3, 3].copy(), float(g.size[0])))
            continue
        half = 0.5 * np.asarray(g.size, float)
        for sx in (-1, 1):
            for sy in (-1, 1):
                for sz in (-1, 1):
                    out.append((T[:3, :3] @ (half * (sx, sy, sz)) + T[:3, 3], 0.0))
    return out


def attach_contacts(model, desc, spec, restitution=0.0, friction=0.8, ground=0.0):
    """Add ground contacts at a robot's feet (or at named links) to a built robot Model.

    Parameters
    ----------
    model : mechdae.Model
        Built from ``desc`` (:func:`mechdae.robots.build.build_model`); ``model.links[name]``
        is the frame connector of link ``name``.
    desc : RobotDescription
        The description the model was built from (collision geometry, tree).
    spec : "feet" or list of str
        ``"feet"``: the links :func:`feet` finds (where feet are found by their geoms'
        names, only those spheres); or the link names (as in the file).
    restitution : float
        Normal restitution ``e`` of every contact (0: plastic impacts).
    friction : float
        Coulomb friction coefficient ``mu`` (``inf``: no sliding).
    ground : float
        Height of the ground plane ``z = ground`` (m).

    Returns
    -------
    list of Component
        The PointPlaneContact components added, in the order of the links.

    Raises
    ------
    ModelError
        A named link is not in the robot, or ``spec`` is neither ``"feet"`` nor a list of
        names.
    """
    if isinstance(spec, str):
        if spec != "feet":
            raise ModelError(f"robot '{desc.name}': contacts={spec!r}; give 'feet' or a "
                             "list of link names")
        feet(desc)                                   # the error when there are none
        chosen = _foot_spheres(desc)
    else:
        names = list(spec)
        missing = [n for n in names if n not in desc.links]
        if missing:
            raise ModelError(f"robot '{desc.name}': contacts name links {missing} that the "
                             f"robot does not have (its links: {sorted(desc.links)})")
        chosen = {n: _spheres(desc.links[n]) for n in names}
    links = getattr(model, "links", None)
    if links is None:
        raise ModelError(f"model '{model.name}' has no .links; build it from the "
                         "description first (mechdae.robots.build.build_model)")
    added = []
    for name, spheres in chosen.items():
        for k, (c, rho) in enumerate(_points(spheres)):
            cname = f"{_safe(name)}_contact" + (f"_{k + 1}" if k else "")
            comp = model.add(sp.PointPlaneContact(cname, r=tuple(c), radius=rho,
                                                  p0=(0.0, 0.0, float(ground)),
                                                  n=(0.0, 0.0, 1.0), e=restitution,
                                                  mu=friction))
            model.connect(links[name], comp.frame)
            added.append(comp)
    return added
