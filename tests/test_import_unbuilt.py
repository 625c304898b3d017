"""Importing mechdae from a source tree whose compiled extensions are not built (the
repository root as the current directory, where the README leaves a new user) raises an
ImportError that says what happened and how to fix it, not a bare ModuleNotFoundError."""
import os
import shutil
import subprocess
import sys

import mechdae

from conftest import REPO


def _unbuilt_tree(dst):
    """A copy of the repository's layout with the package but without its .so/.pyd files."""
    src = os.path.dirname(os.path.abspath(mechdae.__file__))
    shutil.copytree(src, dst / "mechdae",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "*.c"))
    shutil.copy(REPO / "setup.py", dst / "setup.py")
    assert not list((dst / "mechdae").rglob("*.so"))
    return dst


def test_import_from_unbuilt_source_tree_explains(tmp_path):
    root = _unbuilt_tree(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", "import mechdae"], cwd=root, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: "), p.stderr[-2000:]
    assert "mechdae.lcp._lcp" in last
    assert "not built" in last
    assert str(root / "mechdae") in last                     # where it was imported from
    assert "pip install ." in last and "pip install -e ." in last
    assert "build_ext --inplace" in last


def test_the_error_keeps_the_missing_module_name(tmp_path):
    root = _unbuilt_tree(tmp_path)
    code = ("try:\n    import mechdae\nexcept ImportError as e:\n"
            "    print(type(e).__name__, e.name, type(e.__cause__).__name__)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", code], cwd=root, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.stdout.split() == ["ImportError", "mechdae.lcp._lcp", "ModuleNotFoundError"], \
        p.stderr[-2000:]
