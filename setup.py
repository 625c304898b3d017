"""Build the C kernels (csrc/, plain C99) behind thin Cython wrappers.

``csrc/*.c`` is compiled once into a static library (``build_clib``) that every
``mechdae/**/_*.pyx`` extension module links: each extension carries the kernels it uses,
and no shared library has to be located at run time.
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext
from setuptools.command.build_py import build_py as _build_py

HERE = os.path.dirname(os.path.abspath(__file__))


# the kernels compiled once, into a static library every extension links
_CFLAGS = ["-O3", "-ffp-contract=off", "-fPIC"]   # same bits in every build of a kernel


def _csrc():
    return sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "csrc", "*.c")))


def _extensions():
    exts = []
    for pyx in sorted(glob.glob(os.path.join(HERE, "mechdae", "**", "_*.pyx"), recursive=True)):
        rel = os.path.relpath(pyx, HERE)
        name = rel[:-len(".pyx")].replace(os.sep, ".")
        exts.append(Extension(
            name, [rel],
            include_dirs=["csrc", np.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=["-O3", "-ffp-contract=off"],
            libraries=["mdae_kernels"],
        ))
    # mechdae/ on the include path: _interrupt.pxi, the kernels' interrupt callback
    return cythonize(exts, language_level=3, include_path=[os.path.join(HERE, "mechdae")],
                     compiler_directives={"boundscheck": False, "wraparound": False,
                                          "cdivision": True, "initializedcheck": False})


class build_py(_build_py):
    """build_py that also ships the kernels' C sources (csrc/*.c, *.h) inside the package,
    as ``mechdae/_csrc``: an exported FMU (Co-Simulation, contacts) compiles them."""

    def run(self):
        super().run()
        dst = os.path.join(self.build_lib, "mechdae", "_csrc")
        self.mkpath(dst)
        for src in sorted(glob.glob(os.path.join(HERE, "csrc", "*.[ch]"))):
            self.copy_file(src, os.path.join(dst, os.path.basename(src)))


class build_ext(_build_ext):
    """build_ext that builds the kernel library first (also for ``build_ext --inplace``)
    and compiles the extensions in parallel."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = max(1, min(4, os.cpu_count() or 1))

    def run(self):
        if self.distribution.has_c_libraries():
            self.run_command("build_clib")
        super().run()


setup(cmdclass={"build_ext": build_ext, "build_py": build_py},
      libraries=[("mdae_kernels", dict(sources=_csrc(), include_dirs=["csrc"],
                                       cflags=_CFLAGS))],
      ext_modules=_extensions())
