"""Build the C kernels (csrc/, plain C99) behind thin Cython wrappers.

Every ``mechdae/**/_*.pyx`` becomes one extension module compiled together with all of
``csrc/*.c``; the C sources are small, so each extension carries its own copy and no
shared library has to be located at run time.
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _extensions():
    csrc = sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "csrc", "*.c")))
    exts = []
    for pyx in sorted(glob.glob(os.path.join(HERE, "mechdae", "**", "_*.pyx"), recursive=True)):
        rel = os.path.relpath(pyx, HERE)
        name = rel[:-len(".pyx")].replace(os.sep, ".")
        exts.append(Extension(
            name, [rel] + csrc,
            include_dirs=["csrc", np.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3", "-ffp-contract=off"],   # same bits in every copy of a kernel
        ))
    return cythonize(exts, language_level=3,
                     compiler_directives={"boundscheck": False, "wraparound": False,
                                          "cdivision": True, "initializedcheck": False})


setup(ext_modules=_extensions())
