"""The modeling language: Model, der, rigid bodies and elementary functions."""
from .model import Model, der, Contact
from .bodies import PlanarBody, SpatialBody
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _fall

__all__ = ["Model", "der", "Contact", "PlanarBody", "SpatialBody"] + list(_fall)
