"""What a drawing is made of: shapes attached to frames, flanges or world expressions.

Components and rigid bodies describe how they look with a method ``drawing()`` returning
a list of :class:`Shape`; :mod:`mechdae.simulate.scene` evaluates them along a Result
(:meth:`mechdae.Result.animate` draws them in the plane or writes a 3-D page).

A shape is placed by :class:`Anchor` objects. An anchor is either

- a connector and an offset resolved in it: a planar or spatial frame (the offset is a
  point of the frame, the anchor turns with it), a translational flange (the point at
  ``s`` on the line of its network, a 1-D schematic) or a rotational flange (the centre
  of its shaft's place on the schematic, turned by ``phi``); or
- world expressions of the model's symbols: a position (2 or 3 entries) and optionally a
  rotation (an angle in the plane, or a 3x3 matrix body -> world).

Sizes are lengths in metres or ``None`` (the scene picks a size from the extent of the
motion). Offsets may contain :class:`Param` entries: the value of that model parameter in
the run drawn (``simulate(params=...)`` overrides count).

Kinds (``Shape.kind``) and their anchors:

=============  ========  ==============================================================
kind           anchors   drawn as
=============  ========  ==============================================================
``axes``       1         the frame's axes (x red, y green, z blue), ``size`` long
``sphere``     1         a disc (plane) or a sphere of radius ``size``
``capsule``    2         a bar of radius ``size`` between the anchors
``box``        2         a box from the first anchor to the second, ``size`` wide and
                         ``extra["height"]`` high, oriented by the first anchor
``cylinder``   2         a cylinder of radius ``size`` between the anchors
``spring``     2         a zigzag (coil) between the anchors
``damper``     2         a dashpot between the anchors
``joint``      1         a revolute pin (``extra["axis"]``: its axis in the frame), a
                         ball, or a slider (``extra["style"]``)
``point``      1         a contact point; red while the contact ``extra["contact"]`` is
                         closed (gap <= tol)
``plane``      0         the world plane (a line in the plane) through ``extra["p0"]``
                         with normal ``extra["n"]``
``block``      2         a 1-D mass between two flanges (at least ``size`` long)
``rotor``      1         a 1-D inertia: a disc with a spoke turned by its angle
``ground``     1         a fixed point (hatched support)
``visual``     1         a robot file's visual (``extra["geometry"]``: a
                         :class:`~mechdae.robots.description.Geometry`, sphere, box,
                         cylinder, capsule or mesh, at its origin in the link frame);
                         drawn in the 3-D page only
``polygon``    >= 3      a closed polygon through world points (``Model.draw``)
``line``       >= 2      an open polyline through world points (``Model.draw`` surfaces)
=============  ========  ==============================================================
"""

__all__ = ["Shape", "Anchor", "Param", "param_of", "nonzero", "KINDS"]

KINDS = ("axes", "sphere", "capsule", "box", "cylinder", "spring", "damper", "joint",
         "point", "plane", "block", "rotor", "ground", "visual", "polygon", "line")


class Param:
    """The value of the model parameter ``name`` in the run drawn (``default`` if the
    model has no such parameter)."""

    __slots__ = ("name", "default")

    def __init__(self, name, default):
        self.name = name
        self.default = float(default)

    def __repr__(self):
        return f"Param({self.name!r}, {self.default!r})"


class Anchor:
    """Where a shape is attached: a connector and an offset in it, or world expressions.

    Parameters
    ----------
    connector : Connector, optional
        A planar or spatial frame, a translational or rotational flange.
    offset : sequence of float or Param
        Point of the frame (frame axes, m); ignored for flanges.
    position : sequence of SX, optional
        World position (2 or 3 expressions) when no connector is given.
    rotation : SX, optional
        Angle (plane) or 3x3 rotation body -> world of an expression anchor.
    """

    __slots__ = ("connector", "offset", "position", "rotation")

    def __init__(self, connector=None, offset=(0.0, 0.0, 0.0), position=None, rotation=None):
        if (connector is None) == (position is None):
            raise ValueError("Anchor: give a connector or a world position, not both")
        self.connector = connector
        off = list(offset) + [0.0] * (3 - len(offset))
        self.offset = tuple(off[:3])
        self.position = position
        self.rotation = rotation

    def __repr__(self):
        where = self.connector.path if self.connector is not None else "world expression"
        return f"Anchor({where}, offset={self.offset})"


class Shape:
    """One drawn shape (see the module docstring for the kinds).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    name : str
        Label (the component's path, or the name given to ``Model.draw``).
    anchors : list of Anchor
    size : float, optional
        Radius, width or length (m); None: chosen from the extent of the motion.
    color : str, optional
        A matplotlib / CSS colour; None: the kind's default.
    **extra
        Kind-specific: ``height`` (box), ``axis`` and ``style`` (joint), ``contact``
        (point), ``p0`` and ``n`` (plane).
    """

    __slots__ = ("kind", "name", "anchors", "size", "color", "extra")

    def __init__(self, kind, name, anchors=(), size=None, color=None, **extra):
        if kind not in KINDS:
            raise ValueError(f"Shape {name!r}: kind={kind!r}; choose one of {', '.join(KINDS)}")
        self.kind = kind
        self.name = name
        self.anchors = list(anchors)
        self.size = size
        self.color = color
        self.extra = extra

    def __repr__(self):
        return f"Shape({self.kind!r}, {self.name!r}, {len(self.anchors)} anchors)"


def param_of(comp, local, value):
    """A component's parameter as a :class:`Param` (its full name ``"<path>.<local>"``), or
    ``value`` itself when it is already a number; an expression (no number known) gives
    None."""
    import numbers
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    for name, _sym, default in comp._params:
        if name == local and isinstance(default, numbers.Real):
            return Param(f"{comp.path}.{local}", default)
    return None


def nonzero(offset):
    """Whether an offset (numbers and :class:`Param`, at their defaults) is not zero."""
    return any((v.default if isinstance(v, Param) else float(v)) != 0.0 for v in offset)
