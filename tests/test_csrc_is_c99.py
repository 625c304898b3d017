"""The C kernels are plain C99: no Python.h, no printing, no exit(); they compile alone
with -std=c99 -pedantic -Wall -Werror."""
import re
import shutil
import subprocess

import pytest

from conftest import REPO

CSRC = sorted((REPO / "csrc").glob("*.c"))
FORBIDDEN = re.compile(r"#\s*include\s*[<\"]Python\.h|\bprintf\s*\(|\bfprintf\s*\(|\bputs\s*\(|\bexit\s*\(|\babort\s*\(")


@pytest.mark.parametrize("path", CSRC, ids=[p.name for p in CSRC])
def test_no_python_no_printing_no_exit(path):
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    assert not FORBIDDEN.search(text), f"{path.name} uses Python, printing or exit()"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")
@pytest.mark.parametrize("path", CSRC, ids=[p.name for p in CSRC])
def test_compiles_as_strict_c99(path):
    out = subprocess.run(["gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror",
                          "-fsyntax-only", "-I", str(REPO / "csrc"), str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
