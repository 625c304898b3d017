"""Generated-C evaluation of the unified method's step function (ctypes)."""
import numpy as np

__all__ = ["CFunction", "fast"]


class CFunction:
    """A CasADi Function evaluated through its generated C (ctypes), dense in and out.

    The argument, result and work arrays belong to the object: a run takes its own copy
    (:meth:`fresh`), so that runs in several threads do not share them."""

    def fresh(self):
        """A new evaluator of the same function with arrays of its own."""
        return CFunction(self.f, self.lib)

    def __init__(self, f, lib):
        import ctypes
        self.f = f
        self.lib = lib
        self.cf = getattr(lib, f.name())
        self.cf.restype = ctypes.c_int
        self.ins = [np.zeros(f.numel_in(i)) for i in range(f.n_in())]
        self.outs = [np.zeros(f.numel_out(i)) for i in range(f.n_out())]
        P = ctypes.POINTER(ctypes.c_double)
        self.arg = (P * max(1, f.sz_arg()))(*[a.ctypes.data_as(P) for a in self.ins])
        self.res = (P * max(1, f.sz_res()))(*[a.ctypes.data_as(P) for a in self.outs])
        self.iw = (ctypes.c_longlong * max(1, f.sz_iw()))()
        self.w = (ctypes.c_double * max(1, f.sz_w()))()

    def __call__(self, *args):
        for buf, a in zip(self.ins, args):
            buf[...] = a
        if self.cf(self.arg, self.res, self.iw, self.w, 0):
            raise RuntimeError(f"evaluation of {self.f.name()} failed")
        return [o.copy() for o in self.outs]


def fast(f):
    """Generated-C evaluator of ``f`` when a compiler works, else ``f`` itself."""
    from ..codegen import library
    lib = library([f], what="the unified equations")
    return f if lib is None else CFunction(f, lib.cdll)
