"""Every ```python block of README.md and docs/*.md runs as written, so the docs cannot drift.

Rules (keep the docs within them):

- Every block runs alone, as a reader pastes it: with ``exec`` in a fresh namespace (its
  imports, models and data are its own; it never continues the block before it), and, in
  the slow test, in a fresh interpreter (``python block.py``).
- The working directory is a fresh temporary directory per block that holds a ``models``
  link to the repository's models/, so ``md.load("models/...")`` works as from the
  repository root and the files a block writes (``out.png``, ``run.h5``) land in the
  temporary directory.
- matplotlib uses the Agg backend.
- A block containing ``if __name__ == "__main__":`` is a script whose worker processes
  import its functions: it is written to a file and run with the interpreter in a
  subprocess (same directory layout), and must exit with status 0.
- A block passes when it raises nothing and mechdae warns nothing (any warning issued from
  mechdae's code or attributed to the block's own lines fails the test).
- ```bash and plain ``` blocks are not run. A block that genuinely cannot run would be listed
  in ``SKIP`` below with its reason (none is).
"""
import os
import re
import subprocess
import sys
import warnings

import pytest

from conftest import REPO

import matplotlib
matplotlib.use("Agg")

import mechdae  # noqa: E402

MECHDAE_DIR = os.path.dirname(os.path.abspath(mechdae.__file__))

#: (file, block index) -> reason; an explicit list, never a silent skip
SKIP = {}


def _doc_files():
    return [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md"))


def _slug(title):
    return re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-").lower()[:40] or "top"


def _extract(path):
    """The ```python blocks of a markdown file: list of (index, section title, code)."""
    blocks, section, code, lang = [], "", None, None
    for line in path.read_text().splitlines(keepends=True):
        stripped = line.strip()
        if code is None:
            if line.startswith("## "):
                section = line[3:].strip()
            elif stripped.startswith("```"):
                lang = stripped[3:].strip().lower()
                code = []
        elif stripped == "```":
            if lang == "python":
                blocks.append((len(blocks), section, "".join(code)))
            code = lang = None
        else:
            code.append(line)
    assert code is None, f"{path.name}: unterminated code block"
    return blocks


def _cases():
    cases = []
    for path in _doc_files():
        rel = path.relative_to(REPO).as_posix()
        for i, section, code in _extract(path):
            marks = [pytest.mark.skip(reason=SKIP[rel, i])] if (rel, i) in SKIP else []
            cases.append(pytest.param(rel, i, id=f"{rel}-b{i:02d}-{_slug(section)}",
                                      marks=marks))
    return cases


def test_every_doc_file_is_scanned():
    """The extraction finds the blocks (a broken fence would silently drop them)."""
    found = {p.relative_to(REPO).as_posix(): len(_extract(p)) for p in _doc_files()}
    assert found["README.md"] >= 3 and found["docs/guide.md"] >= 13, found


def _workdir(tmp_path_factory, rel, section):
    d = tmp_path_factory.mktemp("doc-" + _slug(rel + "-" + section))
    os.symlink(REPO / "models", d / "models")
    return d


def _is_script(code):
    return re.search(r'^if __name__ == "__main__":', code, re.M) is not None


def _mechdae_warnings(records, filename):
    return [w for w in records
            if os.path.abspath(w.filename).startswith(MECHDAE_DIR + os.sep)
            or w.filename == filename
            or type(w.message).__module__.startswith("mechdae")]


def _exec(code, ns, filename, cwd):
    import matplotlib.pyplot as plt
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            exec(compile(code, filename, "exec"), ns)
    finally:
        os.chdir(old)
        plt.close("all")
    bad = _mechdae_warnings(rec, filename)
    assert not bad, f"{filename} warned: " + "; ".join(
        f"{w.category.__name__}: {w.message}" for w in bad)


def _run_script(code, filename, cwd):
    script = cwd / (re.sub(r"\W+", "_", filename) + ".py")
    script.write_text(code)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="always")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       cwd=cwd, env=env, timeout=600)
    assert p.returncode == 0, f"{filename} failed:\n{p.stderr[-3000:]}"
    warned = [ln for ln in p.stderr.splitlines() if re.search(r"\w*Warning: ", ln)
              and (MECHDAE_DIR in ln or str(script) in ln)]
    assert not warned, f"{filename} warned:\n" + "\n".join(warned)
    return p


@pytest.mark.parametrize("rel, index", _cases())
def test_doc_block_runs(rel, index, tmp_path_factory):
    _, section, code = _extract(REPO / rel)[index]
    filename = f"{rel} block {index} ({section})"
    cwd = _workdir(tmp_path_factory, rel, f"{section}-{index}")
    if _is_script(code):
        _run_script(code, filename, cwd)
    else:
        _exec(code, {"__name__": "__doc_block__"}, filename, cwd)


@pytest.mark.slow
@pytest.mark.parametrize("rel, index", _cases())
def test_doc_block_runs_in_a_fresh_interpreter(rel, index, tmp_path_factory):
    _, section, code = _extract(REPO / rel)[index]
    cwd = _workdir(tmp_path_factory, rel, f"{section}-{index}-fresh")
    _run_script(code, f"{rel} block {index} ({section})", cwd)
