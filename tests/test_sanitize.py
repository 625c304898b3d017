"""The sanitizer harness of the C kernels cannot go stale (issue 24, "The C harness").

``.ci/sanitize`` builds ``csrc/*.c`` with ``.ci/fuzz_kernels.c`` under AddressSanitizer and
UndefinedBehaviorSanitizer and fuzzes every kernel family. It had stopped building when a
kernel's signature changed (``too few arguments to function 'mdae_impact_batch'``) and
nobody noticed, since nothing ran it. Here:

- a fast test compiles the harness against the current headers (``-fsyntax-only``, with
  the warnings about mismatched arguments as errors);
- a slow test (CI runs slow tests) builds it with the sanitizers through ``.ci/sanitize``
  and runs a short budget (2 seeds x 2 s; about 17 s with the build), asserting exit
  status 0 and that every kernel family ran cases.
"""
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import REPO

SANITIZE = REPO / ".ci" / "sanitize"
HARNESS = REPO / ".ci" / "fuzz_kernels.c"
FAMILIES = ("lcp", "impact", "impact_batch", "painleve", "fc", "step", "slide", "ode",
            "cycle")
CC = os.environ.get("CC", "gcc")


def _compiler():
    """The C compiler .ci/sanitize uses (``$CC`` or gcc), or None."""
    return shutil.which(CC)


def _sanitizer_runtime_missing():
    """Why a tiny program does not build and run with -fsanitize=address,undefined
    (no runtime libraries, or ASan unable to run here), or None when it does."""
    with tempfile.TemporaryDirectory() as d:
        src, exe = Path(d) / "probe.c", Path(d) / "probe"
        src.write_text("int main(void) { return 0; }\n")
        out = subprocess.run([CC, "-fsanitize=address,undefined", str(src), "-o", str(exe)],
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            return f"{CC} cannot link with -fsanitize=address,undefined: {out.stderr.strip()[:300]}"
        run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            return f"an AddressSanitizer program does not run here: {run.stderr.strip()[:300]}"
    return None


@pytest.mark.skipif(_compiler() is None, reason=f"no C compiler ({CC}) on PATH")
def test_harness_compiles_against_the_current_headers():
    out = subprocess.run([CC, "-std=c99", "-Wall", "-Wextra", "-Wno-unused-parameter",
                          "-Werror=incompatible-pointer-types", "-Werror=int-conversion",
                          "-Werror=implicit-function-declaration", "-fsyntax-only",
                          "-I", str(REPO / "csrc"), str(HARNESS)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (
        f".ci/fuzz_kernels.c no longer compiles against csrc/*.h: update the harness to "
        f"the kernels' signatures\n{out.stderr}")


def _per_kernel(stdout):
    """{family: cases} summed over the seeds' 'per kernel:' lists."""
    counts = {}
    for line in stdout.splitlines():
        if line.startswith("seed ") and "per kernel:" in line:
            for name, n in re.findall(r"([a-z_]+) (\d+) \(", line.split("per kernel:", 1)[1]):
                counts[name] = counts.get(name, 0) + int(n)
    return counts


@pytest.mark.slow
@pytest.mark.skipif(_compiler() is None, reason=f"no C compiler ({CC}) on PATH")
@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("timeout") is None,
                    reason=".ci/sanitize needs bash and timeout")
def test_sanitizer_fuzz_short_budget():
    why = _sanitizer_runtime_missing()
    if why:
        pytest.skip(why)
    # 2 s per seed, 2 seeds: ~4 s of fuzzing after a ~13 s build; the limit only turns a
    # hang into a failure
    try:
        out = subprocess.run(["bash", str(SANITIZE), "2", "1 2"], capture_output=True,
                             text=True, timeout=600, cwd=REPO)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f".ci/sanitize did not finish in 600 s: {exc.stdout!r}")
    report = f"stdout:\n{out.stdout}\nstderr (last 4000 chars):\n{out.stderr[-4000:]}"
    assert out.returncode == 0, report
    assert re.search(r"^sanitize: \d+ cases", out.stdout, re.M), report
    counts = _per_kernel(out.stdout)
    for family in FAMILIES:
        assert counts.get(family, 0) > 0, f"kernel family {family} ran no case\n{report}"
    assert set(counts) == set(FAMILIES), f"families {sorted(counts)}\n{report}"
