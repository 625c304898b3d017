"""Small models shared by the modeling-core tests."""
import pathlib

import mechdae as md

MODELS = pathlib.Path(__file__).resolve().parents[1] / "models"


def load(name, **kw):
    return md.load(str(MODELS / f"{name}.py"), **kw)


def knife_edge(stab=None):
    """A planar body whose center cannot slip sideways: psi = -sin(th) x' + cos(th) y'."""
    m = md.Model("knife")
    b = m.rigid_body("b", mass=1.0, inertia=0.2, planar=True)
    m.nonholonomic(-md.sin(b.theta) * b.vx + md.cos(b.theta) * b.vy, name="skate")
    return m, b
