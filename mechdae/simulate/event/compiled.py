r"""Generated C of the event engine: each mode's phase functions and the contact terms.

For one mode (:class:`.phase.ModeSet`) the scalar (SX) ``core`` is split into

- ``rhs(x, t, P) -> x'`` (the phase's right-hand side),
- ``ev(x, t, P) -> (e, e')`` (the event functions and their rates along the motion),
- ``lam(x, t, P) -> lam_c`` (the contact forces of the mode, for the Result),

generated as C and compiled once per content (:func:`mechdae.codegen.library`, cached on
disk), and driven by ``csrc/mdae_ode.c`` (:class:`mechdae.simulate._ode.Phase`): the
Dormand-Prince steps, the continuous extension, the event sampling and root finding
run without Python; Python is called back only at events. The contact terms of the mode
logic (``M, h, C, rc, W, Wt, Wdot_u, gap, E``) are compiled the same way
(:func:`compiled_terms`).

Outputs are densified (zeros written explicitly), so every buffer is a plain dense
column-major array.
"""
import functools
import math

import casadi as ca
import numpy as np

from ...codegen import library

__all__ = ["CompiledMode", "compiled_terms", "densified", "stable_step"]


def stable_step(eigenvalues, method=1, fraction=2.0 / 3.0):
    """Largest step of the Runge-Kutta pair ``method`` (:data:`_ode.DOP853` or
    :data:`_ode.DOPRI5`) for which the decaying linear modes ``eigenvalues`` keep
    decaying: ``fraction`` of the smallest step with ``|R(h lambda)| >= 1`` (inf when none
    is given). At the boundary the step control lets tolerance-level noise persist (a
    closed contact's Baumgarte rest oscillating at 1e-13 m instead of 1e-16).

    >>> round(stable_step([complex(-20, 98)], method=0), 4)    # DOPRI5, alpha 20, beta 100
    0.02
    """
    hs = [_boundary(complex(lam), method) for lam in eigenvalues if complex(lam).real < 0]
    return fraction * min(hs) if hs else math.inf


@functools.lru_cache(maxsize=256)
def _boundary(lam, method):
    """Smallest ``h > 0`` with ``|R(h lam)| = 1`` (geometric scan, then bisection)."""
    from .. import _ode
    a = 1e-3 / abs(lam)
    b = a * 1.25
    while _ode.growth(method, b * lam) < 1.0 and b < 1e6 / abs(lam):
        a, b = b, b * 1.25
    for _ in range(40):
        c = 0.5 * (a + b)
        if _ode.growth(method, c * lam) < 1.0:
            a = c
        else:
            b = c
    return a


def stabilization_eigenvalues(alpha, beta, gamma, H=None, K=None, m=0):
    """Eigenvalues of the stabilized constraint errors: a closed contact's gap
    ``g'' = -2 alpha g' - beta^2 g``, a sticking contact's ``v_t' = -gamma v_t``, and the
    bilateral constraints' ``y' = z_y, z' = H y + K z`` (``H`` r x m, ``K`` r x r)."""
    d = complex(alpha * alpha - beta * beta) ** 0.5
    out = [-alpha + d, -alpha - d, -gamma]
    if H is not None and np.size(K):
        r = np.shape(K)[0]
        A = np.zeros((m + r, m + r))
        A[:m, m:2 * m] = np.eye(m)
        A[m:, :m] = H
        A[m:, m:] = K
        out += list(np.linalg.eigvals(A))
    return out


def densified(f, name):
    """``f`` with dense outputs, renamed ``name`` (the C symbol)."""
    sym = ca.SX.sym if f.is_a("SXFunction") else ca.MX.sym
    ins = [sym(f.name_in(i), f.sparsity_in(i)) for i in range(f.n_in())]
    outs = f(*ins)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    return ca.Function(name, ins, [ca.densify(o) for o in outs],
                       [f.name_in(i) for i in range(f.n_in())],
                       [f.name_out(i) for i in range(f.n_out())])


def _signature(lib, f):
    """``(address, sizes, in_sizes, out_shapes)`` of ``f`` in ``lib`` (looked up once)."""
    addr, sizes, _, _ = lib.symbol(f.name())
    return (addr, sizes, [f.nnz_in(i) for i in range(f.n_in())],
            [(f.size1_out(i), f.size2_out(i)) for i in range(f.n_out())])


def _cfunction(lib, sig):
    from .. import _ode
    return _ode.CFunction(*sig, keep=lib)


class CompiledMode:
    """The compiled ``rhs``, ``ev`` and ``lam`` of one mode (shared by every engine).

    Attributes
    ----------
    nx, ne : int
        States and event functions (``ne = 0`` when the mode watches none).
    lib : mechdae.codegen.Library
    """

    def __init__(self, lib, fs, nx, ne):
        self.lib, self.fs, self.nx, self.ne = lib, fs, nx, ne
        self.sigs = {k: _signature(lib, f) for k, f in fs.items()}

    @classmethod
    def build(cls, system, mode, core, desc):
        """Generate and compile the mode's functions (from the scalar form, else from the
        MX graph: its linear solves have C code too); None without a working compiler
        or when the code is too large to be worth compiling (long chains)."""
        sym = ca.SX.sym if core.is_a("SXFunction") else ca.MX.sym     # MX: linear solves
        x = sym("x", core.nnz_in(0))
        t = sym("t")
        P = sym("P", core.nnz_in(2))
        xdot, lam, ev, evd = core(x, t, P)
        none = len(desc) == 1 and desc[0][1] == "none"
        fs = dict(rhs=ca.Function("rhs", [x, t, P], [ca.densify(xdot)]),
                  ev=ca.Function("ev", [x, t, P], [ca.densify(ev), ca.densify(evd)]),
                  lam=ca.Function("lam", [x, t, P], [ca.densify(lam)]),
                  state=ca.Function("state", [x, t, P],
                                    [ca.densify(xdot), ca.densify(ev), ca.densify(evd)]))
        lib = library(list(fs.values()), compiled="auto",
                      what=f"the event phases of {system.name} (mode {mode!r})")
        if lib is None:
            return None
        return cls(lib, fs, x.numel(), 0 if none else ev.numel())

    def functions(self):
        """Per-engine callables: ``(rhs, ev, lam, state)`` as :class:`_ode.CFunction`
        (``state -> (xdot, e, edot)``; their work buffers are private: engines in threads
        do not share them)."""
        return tuple(_cfunction(self.lib, self.sigs[k]) for k in ("rhs", "ev", "lam", "state"))


def compiled_terms(terms_f):
    """``terms`` (:func:`.phase.terms_function`) as generated C with dense outputs, or
    None (no compiler)."""
    f = densified(terms_f, "terms")
    sym = ca.SX.sym if f.is_a("SXFunction") else ca.MX.sym
    x, t, P = (sym(f.name_in(i), f.sparsity_in(i)) for i in range(3))
    fe = ca.Function("energy", [x, t, P], [f(x, t, P)[8]])
    lib = library([f, fe], compiled="auto", what="the event engine's contact terms")
    return None if lib is None else (lib, _signature(lib, f), _signature(lib, fe))


def terms_cfunction(compiled):
    """Per-engine :class:`_ode.CFunction` of :func:`compiled_terms`' result: ``terms``
    and ``energy`` (``(x, t, P) -> E``)."""
    lib, sig, sig_e = compiled
    return _cfunction(lib, sig), _cfunction(lib, sig_e)
