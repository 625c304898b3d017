"""Type aliases of the public API (annotations only; see ``py.typed``).

``Expr``: a symbolic expression or a number; ``Names``: one name, names separated by
spaces or commas, or a sequence of names; ``Values``: values by name (a dict) or an array
in the System's order (``q0``, ``v0``, ``params``, ``inputs``); ``PathLike``: a file path.
"""
import os
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import casadi as ca
import numpy as np

__all__ = ["Expr", "Names", "Values", "PathLike", "Any", "Callable", "Mapping", "Optional",
           "Sequence", "Union"]

Expr = Union[ca.SX, ca.MX, float, int]
Names = Union[str, Sequence[str]]
Values = Union[Mapping[str, Any], Sequence[float], np.ndarray]
PathLike = Union[str, os.PathLike]
