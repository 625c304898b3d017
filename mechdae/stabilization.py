"""Constraint stabilization: the designed dynamics of constraint perturbations.

With ``y = phi(q, t)`` (m holonomic constraints) and ``z = (phi', psi)`` (m + k
velocity-level constraints, ``phi' = G u + phi_t``), the compiled system replaces the
index-3 / index-2 constraints by their acceleration-level form with feedback
(Mukharlyamov, seed 002 eq. 5.5):

    y' = z_hol,        z' = H y + K z,

i.e. ``C u' + c = H y + K z`` with ``C = [G; A]`` and ``c = dz/dt`` at ``u' = 0``.
``H`` is (m+k) x m, ``K`` is (m+k) x (m+k); the perturbations decay when the linear
system ``[[0, [I_m 0]], [H, K]]`` is asymptotically stable (checked).

Baumgarte is the special case ``phi'' + 2 alpha phi' + beta^2 phi = 0``,
``psi' + gamma psi = 0``; ``None`` is the plain index-1 form ``phi'' = 0, psi' = 0`` under
which perturbations drift (grow linearly).  ``Projection`` additionally projects the state
onto the constraint manifold at output points.

The gains enter the compiled graph as parameters, so a System is compiled once and the
stabilization can be changed at simulate time.
"""
import warnings

import numpy as np

__all__ = ["Stabilization", "Baumgarte", "Mukharlyamov", "Projection", "resolve"]


class Stabilization:
    """Base class: a rule giving ``(H, K)`` for ``m`` holonomic and ``k`` nonholonomic rows."""

    def matrices(self, m, k):  # pragma: no cover - interface
        raise NotImplementedError

    def __add__(self, other):
        return [self, other]


class Baumgarte(Stabilization):
    """Baumgarte stabilization ``phi'' + 2 alpha phi' + beta^2 phi = 0``, ``psi' + gamma psi = 0``.

    Parameters
    ----------
    alpha : float
        Damping rate of holonomic perturbations (1/s), ``>= 0``.
    beta : float, optional
        Natural frequency (1/s); defaults to ``alpha`` (critical damping).
    gamma : float, optional
        Decay rate of nonholonomic perturbations (1/s); defaults to ``alpha``.

    Examples
    --------
    >>> H, K = Baumgarte(10.0, 10.0).matrices(1, 0)
    >>> H.tolist(), K.tolist()
    ([[-100.0]], [[-20.0]])
    """

    def __init__(self, alpha=10.0, beta=None, gamma=None):
        self.alpha = float(alpha)
        self.beta = float(alpha if beta is None else beta)
        self.gamma = float(alpha if gamma is None else gamma)
        if min(self.alpha, self.beta, self.gamma) < 0 or not np.isfinite(
                [self.alpha, self.beta, self.gamma]).all():
            raise ValueError(f"Baumgarte: alpha, beta, gamma must be finite and >= 0, got "
                             f"{self.alpha}, {self.beta}, {self.gamma}")

    def matrices(self, m, k):
        H = np.zeros((m + k, m))
        H[:m, :m] = -self.beta ** 2 * np.eye(m)
        K = np.zeros((m + k, m + k))
        K[:m, :m] = -2.0 * self.alpha * np.eye(m)
        K[m:, m:] = -self.gamma * np.eye(k)
        return H, K

    def __repr__(self):
        return f"Baumgarte(alpha={self.alpha}, beta={self.beta}, gamma={self.gamma})"


class Mukharlyamov(Stabilization):
    """General linear constraint-perturbation dynamics ``y' = z_hol``, ``z' = H y + K z``.

    Parameters
    ----------
    H : array (m+k, m)
    K : array (m+k, m+k)
    check : {"raise", "warn", "off"}
        What to do when the perturbation system is not asymptotically stable.

    Raises
    ------
    ValueError
        On shape mismatch (at compile) or instability (``check="raise"``).
    """

    def __init__(self, H, K, check="raise"):
        self.H = np.atleast_2d(np.asarray(H, dtype=float))
        self.K = np.atleast_2d(np.asarray(K, dtype=float))
        if self.H.size == 0:
            self.H = self.H.reshape(self.K.shape[0], 0)
        self.check = check

    def matrices(self, m, k):
        r = m + k
        if self.H.shape != (r, m) or self.K.shape != (r, r):
            raise ValueError(f"Mukharlyamov: H must be ({r}, {m}) and K ({r}, {r}) for {m} "
                             f"holonomic and {k} nonholonomic constraint rows; got H "
                             f"{self.H.shape}, K {self.K.shape}")
        ev = perturbation_eigenvalues(self.H, self.K, m)
        if ev.size and ev.real.max() >= 0 and self.check != "off":
            msg = (f"Mukharlyamov: the constraint perturbation system is not asymptotically "
                   f"stable (max Re eigenvalue {ev.real.max():.3g}); choose H, K with all "
                   "eigenvalues of [[0, [I 0]], [H, K]] in the left half plane")
            if self.check == "raise":
                raise ValueError(msg)
            warnings.warn(msg)
        return self.H.copy(), self.K.copy()

    def __repr__(self):
        return f"Mukharlyamov(H={self.H.tolist()}, K={self.K.tolist()})"


def perturbation_eigenvalues(H, K, m):
    """Eigenvalues of the linear perturbation system ``[[0, [I_m 0]], [H, K]]``."""
    r = K.shape[0]
    A = np.zeros((m + r, m + r))
    A[:m, m:2 * m] = np.eye(m)
    A[m:, :m] = H
    A[m:, m:] = K
    return np.linalg.eigvals(A) if A.size else np.zeros(0)


class Projection:
    """Project the state onto the constraint manifold at output points.

    Coordinates by Gauss-Newton on ``phi(q) = 0`` (minimum-norm steps), then speeds by the
    minimum-norm correction onto ``G u = -phi_t``, ``A u + b = 0``; quaternions of rigid
    bodies are renormalized.  Combine with a Baumgarte/Mukharlyamov stabilization by
    passing a list: ``compile(stabilization=[md.Baumgarte(5), md.Projection()])``.

    Parameters
    ----------
    tol : float
        Stop Gauss-Newton when ``|phi| <= tol``.
    max_iter : int
    """

    def __init__(self, tol=1e-12, max_iter=10):
        self.tol = float(tol)
        self.max_iter = int(max_iter)

    def __repr__(self):
        return f"Projection(tol={self.tol}, max_iter={self.max_iter})"


_DEFAULT = "default"


def resolve(stabilization):
    """Split a stabilization spec into ``(rule or None, Projection or None)``."""
    if isinstance(stabilization, str):
        if stabilization != _DEFAULT:
            raise ValueError(f"unknown stabilization {stabilization!r}; use md.Baumgarte(...), "
                             "md.Mukharlyamov(H, K), md.Projection(...) or None")
        return Baumgarte(10.0, 10.0, 10.0), None
    items = list(stabilization) if isinstance(stabilization, (list, tuple)) else [stabilization]
    rule, proj = None, None
    for s in items:
        if s is None:
            continue
        if isinstance(s, Projection):
            proj = s
        elif isinstance(s, Stabilization):
            if rule is not None:
                raise ValueError("give at most one of Baumgarte / Mukharlyamov")
            rule = s
        else:
            raise ValueError(f"unknown stabilization {s!r}; use md.Baumgarte(...), "
                             "md.Mukharlyamov(H, K), md.Projection(...) or None")
    return rule, proj


class _Zero(Stabilization):
    """Plain index-1 form (no feedback)."""

    def matrices(self, m, k):
        return np.zeros((m + k, m)), np.zeros((m + k, m + k))

    def __repr__(self):
        return "None"
