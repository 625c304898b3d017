"""Sphinx configuration of the API reference, built from the docstrings.

Build it with ``sphinx-build -b html docs/api build/api`` (``pip install ".[docs]"``);
open ``build/api/index.html``. Every public module of the package (no leading underscore
in its path) gets a page written at build time (``modules/<name>.rst``, not kept in the
repository), so a new module appears without editing anything here.
"""
import importlib.util
import os
import pkgutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if importlib.util.find_spec("mechdae") is None:     # not installed: the source tree
    sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..")))

project = "mechdae"
author = "mechdae maintainers"
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# optional peers: documented without being installed
autodoc_mock_imports = [m for m in ("fmpy", "mujoco", "dask", "distributed", "pandas",
                                    "h5py", "pyarrow", "tqdm", "meshcat", "umsgpack",
                                    "matplotlib", "PIL")
                        if importlib.util.find_spec(m) is None]
exclude_patterns = ["_build"]
html_theme = "alabaster"
suppress_warnings = ["autodoc.import_object"]


def public_modules():
    """Every module of mechdae whose dotted path has no part starting with ``_``."""
    import mechdae
    names = ["mechdae"]
    for info in pkgutil.walk_packages(mechdae.__path__, "mechdae."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def _write_pages():
    out = os.path.join(HERE, "modules")
    os.makedirs(out, exist_ok=True)
    names = public_modules()
    for name in names:
        # the package's own page lists what it re-exports; its submodules' pages are the
        # targets of cross-references
        extra = "   :no-index:\n" if name == "mechdae" else ""
        with open(os.path.join(out, f"{name}.rst"), "w", encoding="utf-8") as fh:
            fh.write(f"{name}\n{'=' * len(name)}\n\n.. automodule:: {name}\n{extra}")
    with open(os.path.join(out, "index.rst"), "w", encoding="utf-8") as fh:
        fh.write("Modules\n=======\n\n.. toctree::\n   :maxdepth: 1\n\n")
        fh.writelines(f"   {name}\n" for name in names)


_write_pages()
