"""Readers of the Siconos .dat formats (peerdata/README.md section 1)."""
import io

import numpy as np
import pytest

from mechdae.io.siconos import (read_fc, read_global_fc, read_lcp, read_numerics_matrix,
                                SiconosTokens)

LCP_DIR = "siconos/numerics/src/LCP/test/data"
FC_DIR = "siconos/numerics/src/FrictionContact/test/data"

ORTIZ_M = np.array([[3, 1, 0, -1], [-1, 2, 1, 1], [0, 1, 3, -1], [0, 0, 1, 2]], float)

GLOBAL = {"GFC3D_Example0.dat", "GFC3D_Example00.dat", "GFC3D_Example00_badly_scaled.dat",
          "GFC3D_Example0_SBM.dat", "GFC3D_Example1.dat", "GFC3D_OneContact.dat",
          "GFC3D_TwoRods1.dat", "gfc2d_granularflowonwall_00000_00117.dat",
          "gfc2d_granularflowonwall_00069_00350.dat",
          "gfc2d_granularflowonwall_00230_00206.dat"}


def test_every_lcp_file_parses_with_consistent_sizes(peerdata):
    files = sorted((peerdata / LCP_DIR).glob("*.dat"))
    assert len(files) == 20
    for f in files:
        M, q = read_lcp(f)
        n = int(f.read_text().split()[0])
        assert M.shape == (n, n) and q.shape == (n,), f.name
        assert np.isfinite(M).all() and np.isfinite(q).all(), f.name


def test_ortiz_dense_is_column_major_and_equals_block_storage(peerdata):
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_ortiz.dat")
    Mb, qb = read_lcp(peerdata / LCP_DIR / "lcp_ortiz_block.dat")
    np.testing.assert_array_equal(M, ORTIZ_M)
    np.testing.assert_array_equal(Mb, ORTIZ_M)
    np.testing.assert_array_equal(q, [-2, 1, -1, 1])
    np.testing.assert_array_equal(qb, q)


@pytest.mark.parametrize("name", ["deudeu", "trivial"])
def test_block_files_equal_dense_files(peerdata, name):
    M, q = read_lcp(peerdata / LCP_DIR / f"lcp_{name}.dat")
    Mb, qb = read_lcp(peerdata / LCP_DIR / f"lcp_{name}_block.dat")
    np.testing.assert_array_equal(M, Mb)
    np.testing.assert_array_equal(q, qb)


def test_cps4_has_kkt_form_and_murty_is_upper_triangular(peerdata):
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_CPS_4.dat")
    np.testing.assert_array_equal(M, [[11, 0, 10, -1], [0, 11, 10, -1], [10, 10, 21, -1],
                                      [1, 1, 1, 0]])
    np.testing.assert_array_equal(q, [50, 50, 10, -6])
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_exp_murty2.dat")
    np.testing.assert_array_equal(M, np.eye(6) + 2 * np.triu(np.ones((6, 6)), 1))
    np.testing.assert_array_equal(q, [-126, -124, -120, -112, -96, -64])


def test_fc3d_example1_dense_equals_sbm(peerdata):
    a = read_fc(peerdata / FC_DIR / "FC3D_Example1.dat")
    b = read_fc(peerdata / FC_DIR / "FC3D_Example1_SBM.dat")
    assert (a.d, a.nc) == (b.d, b.nc) == (3, 3)
    np.testing.assert_array_equal(a.W, np.eye(9))
    np.testing.assert_array_equal(a.W, b.W)
    np.testing.assert_array_equal(a.q, np.tile([-1, 1, 3], 3))
    np.testing.assert_array_equal(a.q, b.q)
    np.testing.assert_array_equal(a.mu, [0.1] * 3)
    np.testing.assert_array_equal(a.mu, b.mu)


def test_frictioncontact3d_1c_matches_readme(peerdata):
    p = read_fc(peerdata / FC_DIR / "FrictionContact3D_1c.dat")
    assert (p.d, p.nc) == (3, 1)
    np.testing.assert_array_equal(p.W, [[15, -1, -2], [-1, 14, 1], [-2, 1, 16]])
    np.testing.assert_array_equal(p.q, [-1, 2, 3])
    np.testing.assert_array_equal(p.mu, [0.1])


def test_every_fc_file_parses_with_consistent_sizes(peerdata):
    files = sorted((peerdata / FC_DIR).glob("*.dat"))
    files = [f for f in files if f.name != "ACinputs.dat"]
    assert len(files) == 56
    for f in files:
        sparse = "granularflowonwall" in f.name
        if f.name in GLOBAL:
            p = read_global_fc(f, sparse=sparse)
            ndof = p.M.shape[0]
            assert p.M.shape == (ndof, ndof) and p.H.shape == (ndof, p.d * p.nc), f.name
            assert p.q.shape == (ndof,) and p.b.shape == (p.d * p.nc,), f.name
        else:
            p = read_fc(f, sparse=sparse)
            assert p.W.shape == (p.d * p.nc,) * 2 and p.q.shape == (p.d * p.nc,), f.name
        assert p.mu.shape == (p.nc,) and np.all(p.mu > 0), f.name


def test_csparse_csc_sparse_and_dense_agree(peerdata):
    f = peerdata / FC_DIR / "fc2d_granularflowonwall_00667_00000.dat"
    a = read_fc(f, sparse=True)
    b = read_fc(f)
    assert a.W.nnz == 3822
    np.testing.assert_array_equal(a.W.toarray(), b.W)
    assert b.W[0, 0] == 856.713 and b.W[649, 0] == -454.43   # "col 0": rows 0 and 649


def test_huge_csparse_file_reads_sparse(peerdata):
    p = read_fc(peerdata / FC_DIR / "fc2d_granularflowonwall_07002_00801.dat", sparse=True)
    assert p.W.shape == (14004, 14004) and p.W.nnz <= 125806


def test_global_fc_triplet_storage(peerdata):
    p = read_global_fc(peerdata / FC_DIR / "gfc2d_granularflowonwall_00069_00350.dat")
    assert p.M.shape == (900, 900) and np.count_nonzero(p.M - np.diag(np.diag(p.M))) == 0
    assert p.M[0, 0] == 0.00150187 and p.H.shape == (900, 138)


# -- synthetic matrices and malformed files (no peer data needed) ---------------------
def test_dense_matrix_from_text_is_column_major():
    A = read_numerics_matrix("0 2 3\n2 3\n1 2 3 4 5 6\n")
    np.testing.assert_array_equal(A, [[1, 3, 5], [2, 4, 6]])


def test_csr_and_half_triplet_text():
    csr = ("2 2 3\n3\nCSparse Version 3.1.9, May 4, 2016.\ncsr: 2-by-3, nzmax: 3 nnz: 3\n"
           "    row 0 : locations 0 to 1\n      0 : 1\n      2 : 2\n"
           "    row 1 : locations 2 to 2\n      1 : 3\n")
    np.testing.assert_array_equal(read_numerics_matrix(csr), [[1, 0, 2], [0, 3, 0]])
    half = ("2 2 2\n4\nCSparse Version 3.1.9\ntriplet: 2-by-2, nzmax: 2 nnz: 2\n"
            "0 0 : 1\n1 0 : 5\n")
    np.testing.assert_array_equal(read_numerics_matrix(half), [[1, 5], [5, 0]])


def test_stream_input_and_token_stream_advance():
    t = SiconosTokens("0 1 1 1 1 7 0 1 1 1 1 8", "two.dat")
    assert read_numerics_matrix(t)[0, 0] == 7
    assert read_numerics_matrix(t)[0, 0] == 8
    assert read_numerics_matrix(io.StringIO("0 1 1 1 1 9"))[0, 0] == 9


@pytest.mark.parametrize("text, fragment", [
    ("2\n0 2 2 2 2 1 2 3\n", "unexpected end of file"),
    ("2\n0 2 2 2 2 1 2 x 4 1 1\n", "non-numeric token 'x'"),
    ("2\n7 2 2\n", "unknown NumericsMatrix storage type 7"),
    ("3\n0 2 2 2 2 1 2 3 4 1 1\n", "LCP size n=3 but M is 2x2"),
    ("2\n0 2 2 3 3 1 2 3 4 1 1\n", "sizes repeat as 3x3"),
    ("", "unexpected end of file while reading the LCP size n"),
])
def test_malformed_lcp_files_name_the_file_and_the_problem(tmp_path, text, fragment):
    f = tmp_path / "bad.dat"
    f.write_text(text)
    with pytest.raises(ValueError) as exc:
        read_lcp(f)
    assert "bad.dat" in str(exc.value) and fragment in str(exc.value)


def test_global_file_read_as_local_is_rejected(peerdata):
    with pytest.raises(ValueError, match="read_global_fc"):
        read_fc(peerdata / FC_DIR / "GFC3D_Example00.dat")
