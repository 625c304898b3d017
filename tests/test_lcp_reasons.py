"""LCPResult.reason: a failed solve says which condition of the method's domain M breaks
(`mechdae lcp` prints it next to the status)."""
import subprocess
import sys

import numpy as np
import pytest

from mechdae import lcp
from mechdae.lcp._reasons import principal_minor_witness


def test_pgs_zero_diagonal_is_named():
    r = lcp.solve([[0.0, 1.0], [1.0, 0.0]], [-1.0, -1.0], method="pgs")
    assert r.status == "not_converged" and r.iterations == 0
    assert "M[0, 0] = 0 is not positive" in r.reason and "'lemke'" in r.reason
    # the LCP has a solution, z = (1, 1): the failure is PGS's domain, not the problem
    assert lcp.residual([[0.0, 1.0], [1.0, 0.0]], [-1.0, -1.0], [1.0, 1.0]) == 0.0


def test_pgs_outside_its_domain_says_so():
    """M = [[1, 3], [-3, 1]] (not symmetric): PGS oscillates; the reason names the domain."""
    r = lcp.solve([[1.0, 3.0], [-3.0, 1.0]], [-1.0, 1.0], method="pgs", max_iter=200)
    assert not r.success
    assert "not symmetric positive semidefinite" in r.reason


def test_murty_on_a_non_p_matrix_names_the_minor():
    M = np.array([[0.0, -1.0], [-1.0, 0.0]])
    assert principal_minor_witness(M) == ([0], 0.0)
    r = lcp.solve(M, [-1.0, -1.0], method="murty")
    assert r.status == "numerical_failure"
    assert "not a P-matrix" in r.reason and "J = [0]" in r.reason
    # a P-matrix (positive definite): solved, no reason
    ok = lcp.solve([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], method="murty")
    assert ok.success and ok.reason == "" and principal_minor_witness(
        np.array([[2.0, 1.0], [1.0, 2.0]])) is None
    # det [[1, 2], [3, 1]] = -5: not a P-matrix even though the diagonal is positive
    assert principal_minor_witness(np.array([[1.0, 2.0], [3.0, 1.0]]))[0] == [0, 1]


def test_lemke_ray_explained_and_cli_prints_reasons(tmp_path):
    r = lcp.solve([[0.0, -1.0], [-1.0, 0.0]], [-1.0, -1.0])
    assert r.status == "ray_termination" and "secondary ray" in r.reason
    f = tmp_path / "p.txt"
    f.write_text("2\n0 1\n1 0\n-1 -1\n")
    proc = subprocess.run([sys.executable, "-m", "mechdae.cli", "lcp", str(f), "--method",
                           "pgs"], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1
    assert "status: not_converged (M[0, 0] = 0 is not positive" in proc.stdout


@pytest.mark.parametrize("n", [13])
def test_large_matrices_are_not_enumerated(n):
    M = -np.eye(n)
    r = lcp.solve(M, -np.ones(n), method="murty")
    assert not r.success and "not checked" in r.reason
