"""Seed 002 (Borisov, Kaspirovich, Mukharlyamov 2021): links of variable length, the skier
with a nonholonomic board constraint, control by constraint stabilization (5.5).

Independent references written here with numpy only:
* the mass matrix of an n-link variable-length chain from Gauss-Legendre quadrature of the
  rod points' velocities (exact: the integrand is quadratic along each rod);
* Lagrange's equations (2.7)-(2.9) of one link, as printed (with the S^phi -> S^psi
  misprint of the gravity term of (2.9) fixed);
* the phi-phi block (the matrix A of (4.1)-(4.2)) in the form re-derived in
  models/variable_length_chain.py;
* the designed perturbation dynamics of (5.5): [y; z]' = [[0, [I 0]], [H, K]] [y; z],
  solved with a matrix exponential.
"""

import numpy as np
import pytest
from scipy.linalg import expm
from conftest import model_module

md = pytest.importorskip("mechdae")


# ---------------------------------------------------------------------- references
def chain_names(n, tip=False):
    names = []
    for i in range(1, n + 1):
        names += [f"phi{i}", f"psi{i}", f"xi{i}1"]
        if i < n or tip:
            names.append(f"xi{i}2")
    return names


def ref_chain_points(qd, n, l, m, tip_mass=None):
    """List of (mass, position function of the coordinate dict) over quadrature points."""
    xg, wg = np.polynomial.legendre.leggauss(3)
    pts = []

    def e(q, i):
        return np.array([np.cos(q[f"psi{i}"]) * np.cos(q[f"phi{i}"]),
                         np.cos(q[f"psi{i}"]) * np.sin(q[f"phi{i}"]), np.sin(q[f"psi{i}"])])

    def joint(q, i):                                  # A_i, i = 1..n+1
        A = np.zeros(3)
        for k in range(1, i):
            A = A + (q[f"xi{k}1"] + l[k - 1] + q.get(f"xi{k}2", 0.0)) * e(q, k)
        return A

    for i in range(1, n + 1):
        for xk, wk in zip(xg, wg):
            s = 0.5 * (xk + 1) * l[i - 1]             # distance from B_i along the rod
            pts.append((0.5 * wk * m[i - 1],
                        lambda q, i=i, s=s: joint(q, i) + (q[f"xi{i}1"] + s) * e(q, i)))
    if tip_mass is not None:
        pts.append((tip_mass, lambda q: joint(q, n + 1)))
    return pts


def ref_chain_mass_matrix(qd, n, l, m, tip_mass=None, h=1e-6):
    """M = sum_k m_k J_k^T J_k with J_k = d r_k / d q by central differences."""
    names = list(qd)
    M = np.zeros((len(names), len(names)))
    for mk, r in ref_chain_points(qd, n, l, m, tip_mass):
        J = np.zeros((3, len(names)))
        for j, nm in enumerate(names):
            qp, qm = dict(qd), dict(qd)
            qp[nm] += h
            qm[nm] -= h
            J[:, j] = (r(qp) - r(qm)) / (2 * h)
        M += mk * J.T @ J
    return M


def ref_A_block(qd, n, l, m, tip_mass=0.0):
    """phi-phi block of the mass matrix, the re-derived (4.2)."""
    A = np.zeros((n, n))
    L = [qd[f"xi{i}1"] + l[i - 1] + qd.get(f"xi{i}2", 0.0) for i in range(1, n + 1)]
    S = [sum(m[i:]) + tip_mass for i in range(1, n + 1)]   # S_j = sum_{k>j} m_k + m_tip
    for i in range(n):
        for j in range(i, n):
            ci, cj = np.cos(qd[f"psi{i + 1}"]), np.cos(qd[f"psi{j + 1}"])
            xi = qd[f"xi{j + 1}1"]
            if i == j:
                a = m[i] * l[i] ** 2 / 3 + m[i] * xi * (l[i] + xi) + L[i] ** 2 * S[i]
                A[i, i] = ci * ci * a
            else:
                A[i, j] = A[j, i] = ci * cj * np.cos(qd[f"phi{i + 1}"] - qd[f"phi{j + 1}"]) * \
                    L[i] * (m[j] * (xi + l[j] / 2) + L[j] * S[j])
    return A


def ref_one_link(q, u, l1, m1, g):
    """Mass matrix and h of (2.7)-(2.9) for q = (phi, psi, xi), controls zero."""
    phi, psi, xi = q
    dphi, dpsi, dxi = u
    I1 = m1 * l1**2 / 3
    zeta = I1 + m1 * l1 * xi + m1 * xi**2
    lam = xi + l1 / 2
    c, s = np.cos(psi), np.sin(psi)
    M = np.diag([zeta * c * c, zeta, m1])
    h = -np.array([
        2 * m1 * lam * c * c * dxi * dphi - 2 * zeta * c * s * dphi * dpsi,
        zeta * c * s * dphi**2 + 2 * m1 * lam * dxi * dpsi + g * m1 * lam * c,
        -m1 * lam * c * c * dphi**2 - m1 * lam * dpsi**2 + g * m1 * s,
    ])
    return M, h


def ref_perturbation(H, K, x0, t):
    """Solution of y' = z_hol, z' = H y + K z (5.5): rows of [y; z] at the times t."""
    r, m = H.shape
    A = np.zeros((m + r, m + r))
    A[:m, m:2 * m] = np.eye(m)
    A[m:, :m] = H
    A[m:, m:] = K
    return np.array([expm(A * ti) @ x0 for ti in t])


# ---------------------------------------------------------------------- chain
def _random_state(names, rng):
    q = {}
    for nm in names:
        if nm.startswith("phi"):
            q[nm] = rng.uniform(-np.pi, np.pi)
        elif nm.startswith("psi"):
            q[nm] = rng.uniform(-1.2, 1.2)
        else:
            q[nm] = rng.uniform(0.0, 0.4)
    return q


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_variable_length_chain_mass_matrix_against_quadrature(n):
    vlc = model_module("variable_length_chain")
    l = [0.5 + 0.1 * i for i in range(n)]
    m = [1.0 + 0.3 * i for i in range(n)]
    sys = vlc.build(n=n, l=l, m=m).compile(stabilization=None)
    names = chain_names(n)
    assert sys.q_names == names and sys.nq == 4 * n - 1      # 4n - 1 degrees of freedom
    rng = np.random.default_rng(n)
    for _ in range(3):
        qd = _random_state(names, rng)
        Mref = ref_chain_mass_matrix(qd, n, l, m)
        M = sys.dynamics_terms(qd, None)["M"]
        assert np.allclose(M, Mref, rtol=1e-8, atol=1e-8)
        iphi = [names.index(f"phi{i}") for i in range(1, n + 1)]
        assert np.allclose(M[np.ix_(iphi, iphi)], ref_A_block(qd, n, l, m), rtol=1e-12,
                           atol=1e-12)


def test_variable_length_chain_with_tip_mass_mass_matrix():
    vlc = model_module("variable_length_chain")
    n, l, m, mt = 2, [0.6, 0.4], [2.0, 1.0], 0.7
    sys = vlc.build(n=n, l=l, m=m, tip_mass=mt).compile(stabilization=None)
    names = chain_names(n, tip=True)
    assert sys.q_names == names
    qd = _random_state(names, np.random.default_rng(7))
    M = sys.dynamics_terms(qd, None)["M"]
    assert np.allclose(M, ref_chain_mass_matrix(qd, n, l, m, mt), rtol=1e-8, atol=1e-8)
    iphi = [names.index("phi1"), names.index("phi2")]
    assert np.allclose(M[np.ix_(iphi, iphi)], ref_A_block(qd, n, l, m, mt), atol=1e-12)


def test_one_link_equations_2_7_to_2_9():
    vlc = model_module("variable_length_chain")
    l1, m1, g = 0.7, 2.5, 9.81
    sys = vlc.build(n=1, l=l1, m=m1, g=g).compile(stabilization=None)
    rng = np.random.default_rng(3)
    for _ in range(4):
        q = np.array([rng.uniform(-3, 3), rng.uniform(-1.3, 1.3), rng.uniform(0, 0.5)])
        u = rng.normal(size=3)
        d = sys.dynamics_terms(q, u)
        M, h = ref_one_link(q, u, l1, m1, g)
        assert np.allclose(d["M"], M, atol=1e-12)
        assert np.allclose(d["h"], h, atol=1e-11)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("g, t_final", [(0.0, 2.0), (9.81, 0.3)])
def test_variable_length_chain_conserves_energy_without_control(n, g, t_final):
    """Controls zero: T + V constant (relative 1e-8).  Without gravity the spinning chain
    stretches its telescopic parts (centrifugal); with gravity it falls (kept short: the
    free telescopic parts let the chain reach psi = -pi/2, where the angles are singular)."""
    vlc = model_module("variable_length_chain")
    sys = vlc.build(n=n, g=g).compile(stabilization=None)
    q0 = {f"psi{i}": 0.3 * (-1) ** i for i in range(1, n + 1)}
    v0 = {f"der(phi{i})": 1.0 + 0.2 * i for i in range(1, n + 1)}
    v0.update({"der(xi11)": 0.2, "der(psi1)": -0.3})
    res = sys.simulate(t_final, q0=q0, v0=v0, output_times=np.linspace(0, t_final, 41),
                       rtol=1e-10, atol=1e-12)
    pv = sys.param_vector()
    TV = np.array([[float(x) for x in sys.functions["energy"](qi, ui, 0.0, pv)]
                   for qi, ui in zip(res.q, res.v)])
    E = TV.sum(axis=1)
    scale = np.abs(TV).max()
    assert np.abs(E - E[0]).max() / scale < 1e-8
    if g:
        assert np.ptp(TV[:, 0]) > 1e-2 * scale              # energy is exchanged T <-> V
    assert np.ptp(res["xi11"]) > 1e-2                        # the telescopic part moves


# ---------------------------------------------------------------------- skier
def test_reference_perturbation_solution_is_designed_rate():
    """For diagonal gains each holonomic residual obeys y'' + 2 zeta w y' + w^2 y = 0:
    critically damped, y = (y0 + (z0 + w y0) t) exp(-w t); psi = psi0 exp(-gamma t)."""
    w, gam = 4.0, 3.0
    H = np.array([[-w * w], [0.0]])
    K = np.array([[-2 * w, 0.0], [0.0, -gam]])
    t = np.linspace(0, 2, 11)
    X = ref_perturbation(H, K, np.array([0.1, 0.3, 0.05]), t)
    assert np.allclose(X[:, 0], (0.1 + (0.3 + w * 0.1) * t) * np.exp(-w * t), atol=1e-14)
    assert np.allclose(X[:, 2], 0.05 * np.exp(-gam * t), atol=1e-14)


@pytest.fixture(scope="module")
def skier():
    sk = model_module("skier")
    return sk, sk.build(a_p=0.1, w_p=2.0)


def test_skier_follows_program_and_path(skier):
    """On the program manifold: all five program constraints and the board constraint hold,
    the board runs along y = A sin(kx), the controls (multipliers) stay finite."""
    sk, model = skier
    sys = model.compile(stabilization=sk.stabilization())
    q0, v0 = sk.initial_state(a_p=0.1, w_p=2.0)
    res = sys.simulate(8.0, q0=q0, v0=v0, output_times=np.linspace(0, 8, 161), rtol=1e-10,
                       atol=1e-12)
    assert sys.constraint_names == list(sk.HOLONOMIC + sk.NONHOLONOMIC)
    for name in sys.constraint_names:
        assert np.abs(res.residuals[name]).max() < 1e-6, name
        assert np.all(np.isfinite(res.multipliers[name])), name
    assert np.abs(res["y"] - 1.5 * np.sin(0.4 * res["x"])).max() < 1e-6
    assert np.abs(res["psi1"] - 1.2 - 0.1 * np.sin(2.0 * res.t)).max() < 1e-6
    # top of the leg rod at the program height l_c = 0.9 (8.2)
    assert np.abs((res["xi11"] + 0.8) * np.sin(res["psi1"]) - 0.9).max() < 1e-6
    # downhill on the frictionless slope (sin 0.2 g = 1.95 m/s^2 along the fall line):
    # more than two full waves of the path (2 pi / k = 15.7 m) in 8 s
    assert res["x"][-1] > 2 * 2 * np.pi / 0.4
    assert np.all(np.diff(res["x"]) > 0)


@pytest.mark.parametrize("coupling", [0.0, 0.7])
def test_skier_constraint_drift_decays_at_designed_rate(skier, coupling):
    """Start off the program (initialize=False): the constraint perturbations
    y = phi(q, t), z = (phi', psi) must follow y' = z_hol, z' = H y + K z (5.5) with the
    (H, K) of models/skier.py -- the Mukharlyamov control law (5.6) -- i.e. the figures
    7-8 of the paper: the drift decays at the designed rate (here omega = 4, gamma = 3)."""
    sk, model = skier
    stab = sk.stabilization(omega=4.0, zeta=1.0, gamma=3.0, coupling=coupling)
    sys = model.compile(stabilization=stab)
    q0, v0 = sk.initial_state(a_p=0.1, w_p=2.0)
    q0 = dict(q0, phi0=q0["phi0"] + 0.02, phi1=q0["phi1"] + 0.05, psi1=q0["psi1"] + 0.03,
              xi12=q0["xi12"] + 0.02)
    v0 = dict(v0)
    v0["der(y)"] += 0.1
    v0["der(psi1)"] += -0.05
    qa, ua, _, _, _ = sys.state_arrays(q0, v0)
    y0, z0, _, _ = sys.functions["constraints"](qa, ua, 0.0, sys.param_vector())
    x0 = np.concatenate([np.array(y0).ravel(), np.array(z0).ravel()])
    assert np.abs(x0).max() > 0.01                       # really off the manifold
    t = np.linspace(0, 3.0, 61)
    res = sys.simulate(3.0, q0=q0, v0=v0, output_times=t, initialize=False, rtol=1e-11,
                       atol=1e-13)
    X = ref_perturbation(stab.H, stab.K, x0, res.t)
    for i, name in enumerate(sk.HOLONOMIC):
        assert np.allclose(res.residuals[name], X[:, i], atol=1e-7), name
    assert np.allclose(res.residuals["skate"], X[:, -1], atol=1e-7)
    # decayed: after 3 s (12 time constants) the largest residual is below 1 % of the
    # initial perturbation (critically damped: (y0 + (z0 + w y0) t) exp(-w t))
    final = max(abs(res.residuals[n][-1]) for n in sys.constraint_names)
    assert final < 1e-2 * np.abs(x0).max()
    # and without stabilization the drift does not decay (grows linearly in y)
    res0 = model.compile(stabilization=None).simulate(
        3.0, q0=q0, v0=v0, output_times=t, initialize=False, rtol=1e-11, atol=1e-13)
    i_lean = sk.HOLONOMIC.index("lean")
    y_lean = x0[i_lean] + x0[len(sk.HOLONOMIC) + i_lean] * res0.t
    assert np.allclose(res0.residuals["lean"], y_lean, atol=1e-7)
