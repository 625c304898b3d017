"""Hand-checkable LCPs (z >= 0, w = M z + q >= 0, z^T w = 0) through every method; bad
input; batch; warm start; the command line."""
import subprocess
import sys

import numpy as np
import pytest

import mechdae
from mechdae import lcp
from mechdae.cli import main

METHODS = list(lcp.METHODS)
MURTY_M = np.eye(6) + 2 * np.triu(np.ones((6, 6)), 1)   # Murty's exponential example


@pytest.mark.parametrize("method", METHODS)
def test_n1_negative_q_gives_z_equal_minus_q_over_m(method):
    r = lcp.solve([[2.0]], [-3.0], method=method)
    assert r.success and r.status == "solved"
    assert r.z[0] == pytest.approx(1.5) and r.w[0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_n1_positive_q_is_trivial(method):
    r = lcp.solve([[2.0]], [3.0], method=method)
    assert r.success and r.z[0] == 0.0 and r.w[0] == 3.0 and r.iterations == 0


@pytest.mark.parametrize("method", METHODS)
def test_deudeu_n2(method):
    r = lcp.solve([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], method=method)
    assert r.success and r.method == method
    np.testing.assert_allclose(r.z, [4 / 3, 7 / 3], atol=1e-9)
    np.testing.assert_allclose(r.w, 0.0, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_n3_with_one_inactive_contact(method):
    # M = diag(1,2,4) + coupling; z* = (1, 0, 0.5), w* = (0, 3, 0): q = w* - M z*
    M = np.array([[1.0, 0.2, 0.1], [0.2, 2.0, 0.3], [0.1, 0.3, 4.0]])
    z_star = np.array([1.0, 0.0, 0.5])
    w_star = np.array([0.0, 3.0, 0.0])
    r = lcp.solve(M, w_star - M @ z_star, method=method)
    assert r.success
    np.testing.assert_allclose(r.z, z_star, atol=1e-9)
    np.testing.assert_allclose(r.w, w_star, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_q_nonnegative_returns_zero_without_pivoting(method):
    M = np.array([[1.0, -3.0], [4.0, 1.0]])
    r = lcp.solve(M, [0.0, 2.0], method=method)
    assert r.success and r.iterations == 0
    np.testing.assert_array_equal(r.z, 0.0)


@pytest.mark.parametrize("method", METHODS)
def test_empty_lcp_is_solved(method):
    r = lcp.solve(np.zeros((0, 0)), np.zeros(0), method=method)
    assert r.success and r.z.shape == (0,) and r.residual == 0.0


@pytest.mark.parametrize("method", METHODS)
def test_degenerate_ties_terminate(method):
    # equal q entries (tie in the first pivot) and a rank-one coupling
    M = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]) + np.eye(3)
    q = np.array([-1.0, -1.0, -1.0])
    r = lcp.solve(M, q, method=method)
    assert r.success
    np.testing.assert_allclose(r.z, [1 / 3, 1 / 3, 1 / 2], atol=1e-9)


def test_lemke_degenerate_zero_q_entries_terminate():
    # q has zeros (degenerate basis from the start) and a tie in the minimum ratio
    M = np.array([[1.0, 2.0, 0.0, 0.0], [2.0, 1.0, 0.0, 0.0],
                  [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]) + 0.5 * np.eye(4)
    q = np.array([-1.0, 0.0, -1.0, 0.0])
    r = lcp.solve(M, q)
    assert r.success and r.residual <= 1e-12


def test_minus_one_is_a_ray():
    r = lcp.solve([[-1.0]], [-1.0])
    assert r.status == "ray_termination" and not r.success
    assert r.z[0] == 0.0 and r.w[0] == -1.0 and r.iterations == 1


def test_murty_example_takes_two_to_the_n_lemke_pivots():
    q = -np.array([126.0, 124, 120, 112, 96, 64])
    r = lcp.solve(MURTY_M, q)
    assert r.success and r.iterations == 64
    np.testing.assert_allclose(r.z, [0, 0, 0, 0, 0, 64])
    np.testing.assert_allclose(r.w, [2, 4, 8, 16, 32, 0])
    assert lcp.solve(MURTY_M, q, max_iter=10).status == "max_iter"


@pytest.mark.parametrize("ell", [0.0, 1.0, 10.0, 16.0, 23.0, 40.0, 100.0])
def test_cps4_family_formula(ell):
    M = np.array([[11.0, 0, 10, -1], [0, 11, 10, -1], [10, 10, 21, -1], [1, 1, 1, 0]])
    q = np.array([50.0, 50.0, ell, -6.0])
    if ell <= 23:
        z = np.array([(ell + 16) / 13, (ell + 16) / 13, 2 * (23 - ell) / 13, (1286 - 9 * ell) / 13])
    else:
        z = np.array([3.0, 3.0, 0.0, 83.0])
    r = lcp.solve(M, q)
    assert r.success
    np.testing.assert_allclose(r.z, z, atol=1e-9)


def test_pgs_nonpositive_diagonal_fails_cleanly():
    r = lcp.solve([[0.0, 1.0], [1.0, 0.0]], [-1.0, -1.0], method="pgs")
    assert r.status == "not_converged" and r.iterations == 0 and not r.success


def test_pgs_relaxation_and_sweep_limit():
    A = np.random.default_rng(0).normal(size=(10, 10))
    M = A @ A.T + np.eye(10)
    q = -np.ones(10)
    ref = lcp.solve(M, q)
    for omega in (0.5, 1.0, 1.5):
        r = lcp.solve(M, q, method="pgs", omega=omega, tol=1e-12)
        assert r.success
        np.testing.assert_allclose(r.z, ref.z, atol=1e-8)
    r = lcp.solve(M, q, method="pgs", max_iter=2)
    assert r.status == "max_iter" and r.iterations == 2 and r.residual > 1e-10


def test_warm_start_cuts_pgs_sweeps():
    A = np.random.default_rng(1).normal(size=(20, 20))
    M = A @ A.T + 0.1 * np.eye(20)
    q = np.random.default_rng(2).normal(size=20)
    cold = lcp.solve(M, q, method="pgs")
    warm = lcp.solve(M, q * (1 + 1e-6), method="pgs", z0=cold.z)
    assert cold.success and warm.success
    assert warm.iterations < cold.iterations / 2
    exact = lcp.solve(M, q, method="pgs", z0=cold.z)
    assert exact.iterations == 0


def test_murty_outside_domain_reports_failure():
    r = lcp.solve([[0.0, 1.0], [-1.0, 0.0]], [-1.0, 1.0], method="murty")
    assert r.status == "numerical_failure" and not r.success


def test_result_fields_and_repr():
    r = lcp.solve(np.eye(3), [-1.0, 2.0, -3.0])
    assert isinstance(r.z, np.ndarray) and r.z.dtype == np.float64
    assert isinstance(r.iterations, int) and isinstance(r.residual, float)
    text = repr(r)
    assert "status='solved'" in text and "method='lemke'" in text and "residual=" in text


def test_residual_is_the_shared_one():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-5.0, -6.0])
    z = np.array([1.0, 0.0])
    w = M @ z + q
    expected = np.linalg.norm(z - np.maximum(0, z - w)) / max(np.linalg.norm(q), 1.0)
    assert lcp.residual(M, q, z) == pytest.approx(expected)


# -- conversion of input -------------------------------------------------------------
def test_int_lists_fortran_and_strided_input_are_converted():
    M = np.asfortranarray(np.array([[2, 1], [1, 2]]))
    q = np.array([-5, 0, -6, 0])[::2]
    r = lcp.solve(M, q)
    np.testing.assert_allclose(r.z, [4 / 3, 7 / 3])
    r = lcp.solve(np.array([[2.0, 1.0], [1.0, 2.0]], dtype=np.float32), [-5, -6])
    np.testing.assert_allclose(r.z, [4 / 3, 7 / 3])


# -- bad input -------------------------------------------------------------------------
@pytest.mark.parametrize("M, q, kwargs, fragment", [
    (np.ones((2, 3)), np.ones(2), {}, "M must be a square 2-D array, got shape (2, 3)"),
    (np.ones(4), np.ones(2), {}, "M must be a square 2-D array"),
    (np.eye(2), np.ones(3), {}, "q must have shape (2,) to match M (2, 2), got shape (3,)"),
    (np.eye(2), np.ones((2, 1)), {}, "q must have shape (2,)"),
    (np.eye(2), np.zeros(0), {}, "q must have shape (2,)"),
    (np.array([[1.0, np.nan], [0, 1]]), np.ones(2), {}, "M contains NaN or inf"),
    (np.eye(2), np.array([1.0, np.inf]), {}, "q contains NaN or inf"),
    (np.eye(2, dtype=complex), np.ones(2), {}, "M has dtype complex128"),
    (np.eye(2), np.array(["a", "b"], dtype=object), {}, "q has dtype object"),
    (np.eye(2), np.ones(2), {"method": "simplex"}, "unknown LCP method 'simplex'; valid methods: 'lemke', 'pgs', 'murty'"),
    (np.eye(2), np.ones(2), {"z0": np.ones(3), "method": "pgs"}, "z0 must have shape (2,) like q, got (3,)"),
    (np.eye(2), np.ones(2), {"z0": [np.nan, 1.0], "method": "pgs"}, "z0 contains NaN or inf"),
    (np.eye(2), np.ones(2), {"omega": 2.5, "method": "pgs"}, "omega (PGS relaxation) must be in (0, 2)"),
    (np.eye(2), np.ones(2), {"tol": -1.0}, "tol must be a finite number > 0"),
    (np.eye(2), np.ones(2), {"max_iter": 0}, "max_iter must be a positive integer or None"),
])
def test_bad_input_raises_clear_value_error(M, q, kwargs, fragment):
    with pytest.raises(ValueError) as exc:
        lcp.solve(M, q, **kwargs)
    assert fragment in str(exc.value)


def test_bad_batch_input_names_the_problem():
    Ms = np.stack([np.eye(2)] * 3)
    qs = -np.ones((3, 2))
    qs[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"qs\[1\] contains NaN or inf"):
        lcp.solve_batch(Ms, qs)
    with pytest.raises(ValueError, match=r"qs must have shape \(3, 2\)"):
        lcp.solve_batch(Ms, np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"Ms must be a \(B, n, n\) stack"):
        lcp.solve_batch(np.eye(2), np.ones(2))


# -- batch -----------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_solve_batch_equals_a_loop_of_solve(method):
    rng = np.random.default_rng(3)
    B, n = 50, 5
    A = rng.normal(size=(B, n, n))
    Ms = A @ A.transpose(0, 2, 1) + np.eye(n)
    qs = rng.normal(size=(B, n))
    Ms[7] = -np.eye(n)                 # a ray (lemke) / non-positive diagonal (pgs)
    qs[7] = -1.0
    b = lcp.solve_batch(Ms, qs, method=method)
    assert len(b) == B and b.z.shape == (B, n) and b.status.shape == (B,)
    for k in range(B):
        r = lcp.solve(Ms[k], qs[k], method=method)
        np.testing.assert_array_equal(b.z[k], r.z)
        np.testing.assert_array_equal(b.w[k], r.w)
        assert b.status[k] == r.status and b[k].status == r.status
        assert b.iterations[k] == r.iterations and b.residual[k] == r.residual
        assert b.success[k] == r.success
    assert not b.success[7] and b.success.sum() == B - 1
    assert "problems=50" in repr(b)


def test_solve_batch_warm_start_and_empty():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    Ms = np.stack([M, M])
    qs = np.array([[-5.0, -6.0], [-1.0, -1.0]])
    cold = lcp.solve_batch(Ms, qs, method="pgs")
    warm = lcp.solve_batch(Ms, qs, method="pgs", z0=cold.z)
    assert np.all(warm.iterations == 0) and warm.success.all()
    empty = lcp.solve_batch(np.zeros((0, 3, 3)), np.zeros((0, 3)))
    assert empty.z.shape == (0, 3)


# -- command line ------------------------------------------------------------------------
def test_cli_solves_a_plain_text_file(tmp_path, capsys):
    f = tmp_path / "deudeu.txt"
    f.write_text("# the deudeu problem\n2\n2 1\n1 2\n-5 -6\n")
    assert main(["lcp", str(f)]) == 0
    out = capsys.readouterr().out
    assert "status: solved" in out and "iterations: 3" in out
    assert "nonzeros of z: 2" in out and "1.33333 2.33333" in out
    assert float(out.split("residual:")[1].split()[0]) < 1e-10


def test_cli_exit_code_one_on_ray(tmp_path, capsys):
    f = tmp_path / "ray.txt"
    f.write_text("1\n-1\n-1\n")
    assert main(["lcp", str(f), "--method", "lemke"]) == 1
    assert "status: ray_termination" in capsys.readouterr().out


def test_cli_reports_malformed_file(tmp_path, capsys):
    f = tmp_path / "bad.txt"
    f.write_text("2\n1 2 3\n")
    assert main(["lcp", str(f)]) == 1
    assert "needs 6 numbers" in capsys.readouterr().err


def test_cli_reads_siconos_files(peerdata, capsys):
    f = peerdata / "siconos/numerics/src/LCP/test/data/lcp_mmc.dat"
    assert main(["lcp", str(f), "--method", "pgs", "--tol", "1e-9"]) == 0
    out = capsys.readouterr().out
    assert "status: solved" in out and "n: 26" in out and "nonzeros of z: 22" in out


def test_console_script_version_and_lcp(tmp_path):
    # run outside the source tree, so the installed package (with its extensions) is used
    out = subprocess.run([sys.executable, "-m", "mechdae.cli", "--version"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and mechdae.__version__ in out.stdout
    f = tmp_path / "p.txt"
    f.write_text("1\n2\n-3\n")
    out = subprocess.run([sys.executable, "-m", "mechdae.cli", "lcp", str(f), "--method", "murty"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and "status: solved" in out.stdout and "z[:8]: 1.5" in out.stdout
