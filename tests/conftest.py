"""Shared fixtures: where the peer test data lives (../shared/peerdata, CI has it)."""
import os
import pathlib

import pytest

_REPO = pathlib.Path(__file__).resolve().parents[1]
PEERDATA = pathlib.Path(os.environ.get("MECHDAE_PEERDATA", _REPO.parent / "shared" / "peerdata"))
REPO = _REPO


@pytest.fixture(scope="session")
def peerdata():
    """Path to ../shared/peerdata; tests using it skip with a reason when it is absent."""
    if not PEERDATA.is_dir():
        pytest.skip(f"peer test data not found at {PEERDATA} (set MECHDAE_PEERDATA to its path)")
    return PEERDATA


def model_module(name):
    """Import ``models/<name>.py`` (its build(), SIMULATION and helpers) without sys.path edits."""
    from mechdae.loader import load_module
    return load_module(REPO / "models" / f"{name}.py")
