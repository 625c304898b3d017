"""Every LCP of the Siconos collection (peerdata/siconos/.../LCP/test/data) through every
method. Each (file, method) pair either solves to tolerance -- checked with the shared
residual, z >= 0, w >= 0, complementarity and, where the README gives it, the known
solution -- or is listed below as an expected failure with its reason."""
import numpy as np
import pytest

from mechdae import lcp
from mechdae.io.siconos import read_lcp

LCP_DIR = "siconos/numerics/src/LCP/test/data"
FILES = ["lcp_CPS_1", "lcp_CPS_2", "lcp_CPS_3", "lcp_CPS_4", "lcp_CPS_4bis", "lcp_CPS_5",
         "lcp_Pang_isolated_sol", "lcp_Pang_isolated_sol_perturbed", "lcp_deudeu",
         "lcp_deudeu_block", "lcp_enum_fails", "lcp_exp_murty", "lcp_exp_murty2",
         "lcp_inf_sol_perturbed", "lcp_mmc", "lcp_ortiz", "lcp_ortiz_block", "lcp_tobenna",
         "lcp_trivial", "lcp_trivial_block"]
TOL = 1e-10

# Lemke ends on a secondary ray: asserted as such (not an xfail).
RAY = {
    "lcp_CPS_3": "bimatrix game: Lemke with d = 1 ends on a secondary ray after 1 pivot "
                 "(Siconos and Drake expect this too)",
    "lcp_Pang_isolated_sol_perturbed": "infeasible: w_1 = -z_2 - z_3 - 1e-4 < 0 for all z >= 0",
}

_ZERO_DIAG = "M has a zero diagonal entry: PGS is not applicable (not symmetric PSD)"
_NOT_P = "M is not a P-matrix (zero diagonal, singular principal submatrix): outside Murty's domain"
XFAIL = {
    ("lcp_CPS_2", "pgs"): _ZERO_DIAG, ("lcp_CPS_3", "pgs"): _ZERO_DIAG,
    ("lcp_CPS_4", "pgs"): _ZERO_DIAG + " (KKT matrix)", ("lcp_CPS_4bis", "pgs"): _ZERO_DIAG + " (KKT matrix)",
    ("lcp_Pang_isolated_sol", "pgs"): _ZERO_DIAG, ("lcp_Pang_isolated_sol_perturbed", "pgs"): _ZERO_DIAG,
    ("lcp_enum_fails", "pgs"): "M has a non-positive diagonal entry: PGS not applicable",
    ("lcp_inf_sol_perturbed", "pgs"): _ZERO_DIAG, ("lcp_tobenna", "pgs"): _ZERO_DIAG + " (polymatrix game)",
    ("lcp_CPS_2", "murty"): _NOT_P, ("lcp_CPS_3", "murty"): _NOT_P, ("lcp_CPS_4", "murty"): _NOT_P,
    ("lcp_CPS_4bis", "murty"): _NOT_P, ("lcp_Pang_isolated_sol", "murty"): _NOT_P,
    ("lcp_Pang_isolated_sol_perturbed", "murty"): _NOT_P + "; also infeasible",
    ("lcp_inf_sol_perturbed", "murty"): _NOT_P, ("lcp_tobenna", "murty"): _NOT_P,
}

# Lemke pivot counts of the reference lexicographic Lemke (peerdata README section 2).
LEMKE_PIVOTS = {"lcp_CPS_1": 2, "lcp_CPS_2": 5, "lcp_CPS_3": 1, "lcp_CPS_4": 5,
                "lcp_CPS_4bis": 5, "lcp_CPS_5": 2, "lcp_Pang_isolated_sol": 3,
                "lcp_Pang_isolated_sol_perturbed": 4, "lcp_deudeu": 3, "lcp_deudeu_block": 3,
                "lcp_enum_fails": 8, "lcp_exp_murty": 2, "lcp_exp_murty2": 64,
                "lcp_inf_sol_perturbed": 5, "lcp_mmc": 23, "lcp_ortiz": 3,
                "lcp_ortiz_block": 3, "lcp_tobenna": 127, "lcp_trivial": 10,
                "lcp_trivial_block": 10}

KNOWN = {   # unique solutions quoted in the README
    "lcp_CPS_2": [0, 1, 3],
    "lcp_CPS_4": [2, 2, 2, 92],
    "lcp_CPS_4bis": [3, 3, 0, 83],
    "lcp_Pang_isolated_sol": [1, 0, 0],
    "lcp_deudeu": [4 / 3, 7 / 3], "lcp_deudeu_block": [4 / 3, 7 / 3],
    "lcp_ortiz": [2 / 3, 0, 1 / 3, 0], "lcp_ortiz_block": [2 / 3, 0, 1 / 3, 0],
    "lcp_trivial": 1 / np.arange(1, 10), "lcp_trivial_block": 1 / np.arange(1, 10),
    "lcp_exp_murty": np.eye(6)[5], "lcp_exp_murty2": 64 * np.eye(6)[5],
}


def _cases():
    for f in FILES:
        for m in lcp.METHODS:
            if (f, m) in XFAIL:
                yield pytest.param(f, m, marks=pytest.mark.xfail(strict=True, reason=XFAIL[f, m]),
                                   id=f"{f}-{m}")
            elif m == "lemke" and f in RAY:
                continue
            else:
                yield pytest.param(f, m, id=f"{f}-{m}")


@pytest.mark.parametrize("name, method", list(_cases()))
def test_collection_solves_to_tolerance(peerdata, name, method):
    M, q = read_lcp(peerdata / LCP_DIR / f"{name}.dat")
    r = lcp.solve(M, q, method=method, tol=TOL)
    assert r.success, f"{name} with {method}: {r}"
    z, w = r.z, M @ r.z + q
    scale = max(np.linalg.norm(q), 1.0)
    assert r.residual <= TOL
    assert lcp.residual(M, q, z) == pytest.approx(r.residual, abs=1e-15)
    assert z.min() >= 0.0 and w.min() >= -1e-9 * scale
    assert abs(z @ w) <= 1e-8 * scale * max(1.0, np.abs(z).max())
    np.testing.assert_allclose(r.w, w, atol=1e-12 * scale)
    if name in KNOWN:
        np.testing.assert_allclose(z, KNOWN[name], atol=1e-6 * max(1, np.abs(KNOWN[name]).max()))
    if method == "lemke":
        assert r.iterations == LEMKE_PIVOTS[name]


@pytest.mark.parametrize("name", sorted(RAY))
def test_lemke_reports_ray_termination(peerdata, name):
    M, q = read_lcp(peerdata / LCP_DIR / f"{name}.dat")
    r = lcp.solve(M, q, method="lemke")
    assert r.status == "ray_termination", RAY[name]
    assert not r.success and r.iterations == LEMKE_PIVOTS[name]
    np.testing.assert_array_equal(r.z, 0.0)      # honest: no garbage point
    np.testing.assert_array_equal(r.w, q)


def test_solution_sets_of_non_unique_problems(peerdata):
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_CPS_1.dat")
    z = lcp.solve(M, q).z
    assert z.sum() == pytest.approx(1.0) and z.min() >= 0
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_CPS_5.dat")
    z = lcp.solve(M, q).z
    assert z[1] == pytest.approx(1.0 + z[0])
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_inf_sol_perturbed.dat")
    z = lcp.solve(M, q).z
    assert z[0] == pytest.approx(1.0) and z[2] - z[1] == pytest.approx(1e-4)


def test_mmc_known_entries(peerdata):
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_mmc.dat")
    for method in lcp.METHODS:
        z = lcp.solve(M, q, method=method).z
        assert z[0] == pytest.approx(1.491388e-4, rel=1e-5)
        assert z[21] == pytest.approx(2.2274e-6, rel=1e-4)
        assert np.all(z[:22] > 0) and np.all(z[22:] == 0)


def test_batch_of_the_collection_equals_single_solves(peerdata):
    M, q = read_lcp(peerdata / LCP_DIR / "lcp_trivial.dat")
    Ms = np.stack([M, 2 * M, 3 * M])
    qs = np.stack([q, q, -q])
    b = lcp.solve_batch(Ms, qs)
    for k in range(3):
        r = lcp.solve(Ms[k], qs[k])
        np.testing.assert_array_equal(b.z[k], r.z)
        assert b.status[k] == r.status and b.iterations[k] == r.iterations
