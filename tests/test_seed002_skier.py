"""Seed 002, sections 7-8: the skier of the paper (models/snowboarder.py).

References written here with numpy from the paper's printed formulas, corrected where the
OCR (or the paper) is wrong -- each correction is stated next to the term it concerns:
* (7.7)-(7.12): the Chaplygin-reduced equations in v = (x', phi0', phi1', psi1', xi11',
  xi12') after y' = x' tan(phi0) (7.3) eliminates y and the board's lateral reaction;
  compared with mechdae's compiled M, h reduced by the same substitution, term by term:
  mass matrix entries, the coefficient of every velocity product, gravity, and the column
  of every generalized force;
* (7.14)-(7.16): the block of the reduced mass matrix over (x, phi0, phi_1..phi_n);
* (5.6): the controls written out with the determinant u_tau and omega = (g g^T)^-1;
* (5.5): the constraint perturbations of the closed loop, from a matrix exponential.
"""
import numpy as np
import pytest
from scipy.linalg import expm

from conftest import model_module
from test_seed002 import ref_A_block

md = pytest.importorskip("mechdae")
sb = model_module("snowboarder")

PAR = dict(m0=4.0, I0=0.8, m1=30.0, l1=0.8, mG=40.0, g=9.81, slope=0.2)
RED = ["x", "phi0", "phi1", "psi1", "xi11", "xi12"]      # reduced coordinates (7.7)-(7.12)


def reduce_chaplygin(sys, q, v, inputs=None, params=None):
    """``Mr = N^T M N``, ``f = N^T (h - M N' v)`` at u = N v: the equations (7.7)-(7.12) read
    ``Mr v' = f``.  N maps v (all speeds but y') to u: y' = tan(phi0) x'."""
    names = sys.q_names
    iy, ix, i0 = names.index("y"), names.index("x"), names.index("phi0")
    keep = [i for i in range(len(names)) if i != iy]
    N = np.zeros((len(names), len(keep)))
    for c, i in enumerate(keep):
        N[i, c] = 1.0
    N[iy, keep.index(ix)] = np.tan(q[i0])
    u = N @ v
    Ndv = np.zeros(len(names))
    Ndv[iy] = v[keep.index(i0)] * v[keep.index(ix)] / np.cos(q[i0]) ** 2
    d = sys.dynamics_terms(q, u, inputs=inputs, params=params)
    return N.T @ d["M"] @ N, N.T @ (d["h"] - d["M"] @ Ndv)


def _random_q(sys, rng):
    q = np.zeros(sys.nq)
    for i, n in enumerate(sys.q_names):
        q[i] = (rng.uniform(-3, 3) if n.startswith(("phi", "x", "y"))
                else rng.uniform(-1.2, 1.2) if n.startswith("psi") else rng.uniform(0, 0.4))
    q[sys.q_names.index("phi0")] = rng.uniform(-1.2, 1.2)
    return q


# ------------------------------------------------------------------ (7.7)-(7.12)
def paper_7_7_to_7_12(q, P=PAR):
    """Mass matrix, velocity-term coefficients, gravity and input columns of the corrected
    (7.7)-(7.12) in the order RED, the equations written as ``Mr v' + k(v) + pi = Q w``."""
    x, phi0, phi1, psi1, xi11, xi12 = q
    m0, I0, m1, l1, mG = P["m0"], P["I0"], P["m1"], P["l1"], P["mG"]
    g1, gz = P["g"] * np.sin(P["slope"]), P["g"] * np.cos(P["slope"])
    tg, sc2 = np.tan(phi0), 1 / np.cos(phi0) ** 2
    Cf, Sf, Cp, Sp = np.cos(phi1), np.sin(phi1), np.cos(psi1), np.sin(psi1)
    theta = m0 + m1 + mG
    Lt = xi11 + l1 + xi12
    zeta = m1 * l1**2 / 3 + m1 * xi11 * (l1 + xi11) + mG * Lt**2
    eta, vth = m1 * (xi11 + l1 / 2), mG * Lt           # eta_1, vartheta_1
    Lam = eta + vth
    Pc, Qc = Cf * tg - Sf, Sf * tg + Cf                # (C tg - S), (S tg + C)
    X, F0, F1, PS, X1, X2 = range(6)
    M = np.zeros((6, 6))
    M[X, X] = theta * sc2
    M[X, F1] = Lam * Pc * Cp
    M[X, PS] = -Lam * Qc * Sp
    # printed -(m1 + mG)(S tg - C) C^psi and -mG (S tg - C) C^psi: the sign inside the
    # bracket is garbled; (7.11), (7.12) print the symmetric entries with (S tg + C)
    M[X, X1] = (m1 + mG) * Qc * Cp
    M[X, X2] = mG * Qc * Cp
    M[F0, F0] = I0            # printed (7.8) phi0'' = 0 and (7.14) a22 = 1: I0 phi0'' = M0
    M[F1, F1] = zeta * Cp**2
    M[PS, PS] = zeta
    M[X1, X1], M[X1, X2], M[X2, X2] = m1 + mG, mG, mG
    M = np.triu(M) + np.triu(M, 1).T
    k = {X: {(F1, F1): -Lam * Qc * Cp, (PS, PS): -Lam * Qc * Cp, (F1, PS): -2 * Lam * Pc * Sp,
             # printed without the factor 2 (d/dt of Lambda' e' twice, as in (7.9))
             (F1, X1): 2 * (m1 + mG) * Pc * Cp, (F1, X2): 2 * mG * Pc * Cp,
             # printed -2(m1+mG)(S tg - C) C^psi and -2 mG (C tg - S) C^psi: the psi1'
             # derivative of the direction gives (S tg + C) S^psi
             (PS, X1): -2 * (m1 + mG) * Qc * Sp, (PS, X2): -2 * mG * Qc * Sp,
             (X, F0): theta * sc2 * tg},
         F0: {},
         F1: {(F1, X1): 2 * Lam * Cp**2, (F1, X2): 2 * vth * Cp**2,
              (F1, PS): -2 * zeta * Cp * Sp, (X, F0): Lam * Cp * Cf * sc2},
         PS: {(F1, F1): zeta * Cp * Sp, (PS, X1): 2 * Lam, (PS, X2): 2 * vth,
              (X, F0): -Lam * Sf * Sp * sc2},
         X1: {(F1, F1): -Lam * Cp**2, (PS, PS): -Lam, (X, F0): (m1 + mG) * Sf * Cp * sc2},
         X2: {(F1, F1): -vth * Cp**2, (PS, PS): -vth, (X, F0): mG * Sf * Cp * sc2}}
    # gravity: (7.7) prints theta g1; (7.10) prints g eta1 C^psi and (7.11) g m1 S^psi: the
    # head mG is missing there ((7.12) has it); the slope part g1 acts on every mass, so the
    # link equations get the x-derivatives of -g1 sum(m x) as well (not printed)
    pi = np.array([-theta * g1, 0.0, g1 * Lam * Cp * Sf, gz * Lam * Cp + g1 * Lam * Sp * Cf,
                   gz * (m1 + mG) * Sp - g1 * (m1 + mG) * Cp * Cf,
                   gz * mG * Sp - g1 * mG * Cp * Cf])
    # generalized forces: the controls, and R at D = A + (xi11 + l1) e1.  Printed (7.9):
    # Rx (xi11+l1) sin phi1 + Ry (xi11+l1) cos phi1, (7.10): Rx (xi11+l1) sin psi1 +
    # Rz (xi11+l1) cos psi1, (7.11): no R: the virtual work R . dD gives the columns below
    # (the cos psi1 factor and the sign of Rx in (7.9), Ry and cos phi1 in (7.10) and
    # R . e1 in (7.11) are lost in print)
    Ld = xi11 + l1
    Q = {"M0": [0, 1, 0, 0, 0, 0], "M1phi": [0, 0, 1, 0, 0, 0], "M1psi": [0, 0, 0, 1, 0, 0],
         "F11": [0, 0, 0, 0, 1, 0], "F12": [0, 0, 0, 0, 0, 1],
         "Rx": [1, 0, -Ld * Cp * Sf, -Ld * Sp * Cf, Cp * Cf, 0],
         "Ry": [tg, 0, Ld * Cp * Cf, -Ld * Sp * Sf, Cp * Sf, 0],
         "Rz": [0, 0, 0, Ld * Cp, Sp, 0]}
    return M, k, pi, {n: np.array(c, float) for n, c in Q.items()}


@pytest.fixture(scope="module")
def one_link():
    sys = sb.build(n=1, heading="coordinate").compile(stabilization=None)
    assert sys.q_names == ["x", "y", "phi0", "phi1", "psi1", "xi11", "xi12"]  # 7 (sec. 6)
    assert sys.constraint_names == ["skate"]
    return sys


def test_mechdae_equations_equal_7_7_to_7_12_term_by_term(one_link):
    sys = one_link
    zero = {n: 0.0 for n in sys.w_names}
    rng = np.random.default_rng(72)
    iy = sys.q_names.index("y")
    for _ in range(4):
        q = _random_q(sys, rng)
        qr = np.delete(q, iy)
        M, k, pi, Q = paper_7_7_to_7_12(qr)
        Mr, f0 = reduce_chaplygin(sys, q, np.zeros(6), inputs=zero)
        assert np.allclose(Mr, M, rtol=1e-12, atol=1e-10)
        assert np.allclose(-f0, pi, rtol=1e-12, atol=1e-10)              # gravity
        # velocity terms, one product at a time: k_ab = k(e_a + e_b) - k(e_a) - k(e_b)
        kv = {}
        for a in range(6):
            ea = np.eye(6)[a]
            kv[a] = -(reduce_chaplygin(sys, q, ea, inputs=zero)[1] - f0)
        for a in range(6):
            for b in range(a, 6):
                if a == b:
                    got = kv[a]
                else:
                    e = np.eye(6)[a] + np.eye(6)[b]
                    got = -(reduce_chaplygin(sys, q, e, inputs=zero)[1] - f0) - kv[a] - kv[b]
                want = np.array([k[r].get((a, b), k[r].get((b, a), 0.0)) for r in range(6)])
                assert np.allclose(got, want, rtol=1e-10, atol=1e-9), (RED[a], RED[b])
        for name, col in Q.items():
            f = reduce_chaplygin(sys, q, np.zeros(6), inputs=dict(zero, **{name: 1.0}))[1]
            assert np.allclose(f - f0, col, rtol=1e-12, atol=1e-11), name


def test_board_equation_7_8_is_I0_phi0dd_equals_steering_torque(one_link):
    """(7.8) prints phi0'' = 0: the board's row is decoupled (a_2j = 0 of (7.14)) and reads
    I0 phi0'' = M0; with M0 = 0 the heading would turn at a constant rate, which the path
    (7.5), phi0 = atan(A k cos kx), does not do."""
    sys = one_link
    q = _random_q(sys, np.random.default_rng(5))
    Mr, f = reduce_chaplygin(sys, q, np.random.default_rng(6).normal(size=6),
                             inputs={"M0": 2.5})
    vd = np.linalg.solve(Mr, f)
    assert vd[1] == pytest.approx(2.5 / PAR["I0"], rel=1e-12)


# ------------------------------------------------------------------ (7.14)-(7.16)
def paper_7_14_to_7_16(qd, n, l, m, m0, I0, mG):
    """Block of the reduced mass matrix over (x, phi0, phi_1..phi_n), corrected:
    (7.14) a11 = (m0 + sum m_k + mG) sec^2 phi0 (printed sum (m_k + mG), no sec^2 -- (7.7)
    has theta sc^2), a22 = I0 (printed 1), a12 = a2j = 0; (7.15) a1j = Lambda_j
    (C_j tg phi0 - S_j) C^psi_j with Lambda_j = m_j (xi_j1 + l_j/2) + L_j S_j the first
    moment of the masses beyond A_j (the eta + vartheta of (7.15)); (7.16) the link block is
    the re-derived (4.2): the printed off-diagonal (eta_j + vartheta_j) lacks the factor L_i."""
    tg = np.tan(qd["phi0"])
    L = [qd[f"xi{i}1"] + l[i - 1] + qd[f"xi{i}2"] for i in range(1, n + 1)]
    S = [sum(m[i:]) + mG for i in range(1, n + 1)]
    a = np.zeros((n + 2, n + 2))
    a[0, 0] = (m0 + sum(m) + mG) / np.cos(qd["phi0"]) ** 2
    a[1, 1] = I0
    for j in range(1, n + 1):
        Lam = m[j - 1] * (qd[f"xi{j}1"] + l[j - 1] / 2) + L[j - 1] * S[j - 1]
        a[0, j + 1] = a[j + 1, 0] = Lam * (np.cos(qd[f"phi{j}"]) * tg - np.sin(qd[f"phi{j}"])) \
            * np.cos(qd[f"psi{j}"])
    a[2:, 2:] = ref_A_block(qd, n, l, m, tip_mass=mG)
    return a


@pytest.mark.parametrize("n", [1, 2, 3])
def test_n_link_skier_mass_matrix_7_14_to_7_16(n):
    l = [0.8, 0.5, 0.3][:n]
    m = [30.0, 25.0, 6.0][:n]
    sys = sb.build(n=n, l=l, m=m, m0=4.0, I0=0.8, mG=10.0).compile(stabilization=None)
    assert sys.nq == 4 * n + 3                               # sec. 6: 4n + 3
    rng = np.random.default_rng(100 + n)
    iy = sys.q_names.index("y")
    red = [nm for nm in sys.q_names if nm != "y"]
    idx = [red.index(nm) for nm in ["x", "phi0"] + [f"phi{j}" for j in range(1, n + 1)]]
    for _ in range(3):
        q = _random_q(sys, rng)
        Mr, _ = reduce_chaplygin(sys, q, np.zeros(sys.nq - 1))
        qd = dict(zip(sys.q_names, q))
        assert np.allclose(Mr[np.ix_(idx, idx)], paper_7_14_to_7_16(qd, n, l, m, 4.0, 0.8, 10.0),
                           rtol=1e-12, atol=1e-10)
        assert iy == 1


# ------------------------------------------------------------------ (5.5)-(5.6), sec. 8
PSI_P = 1.45          # program lean of the leg, 6.9 deg from the vertical


@pytest.fixture(scope="module")
def servo():
    sys = sb.build(n=1, heading="substituted", program=True).compile(stabilization=None)
    assert sys.q_names == ["x", "y", "phi0", "psi1", "xi11", "xi12"]   # (8.1) substituted
    assert sys.constraint_names == ["path", "height", "head", "skate"]
    stab = sb.stabilization(omega=4.0, zeta=1.0, gamma=3.0)
    loop = sb.ServoLoop(sys, stabilization=stab, u0=sb.hold(sys, "psi1", PSI_P))
    return sys, stab, loop


def controls_5_6(sys, H, K, q, u, psi_p=PSI_P, omega=4.0, controls=sb.CONTROLS):
    """(5.6) written out: u_s = u0 u_tau_s + u_v_s with g^{rho s} = sum_i dg^rho/dv^i b^{is},
    u_tau_s = det[delta^{s.}; g^{1.}; ...; g^{r.}], u_v_s = sum_{rho,sigma} g^{rho s}
    omega_{rho sigma} w^sigma, omega = (sum_l g^{sigma l} g^{rho l})^-1, and u0 fixed by the
    lean program psi1'' = -2 omega psi1' - omega^2 (psi1 - psi_p).  The program rows are
    all holonomic rows but the last ("skate"), and S = r + 1.

    The paper prints u_v with a minus sign and h y + k z + g~: our w^sigma = (H y + K z)^sigma
    - c^sigma - (C_P Q)^sigma is its -(...), the acceleration defect of the uncontrolled
    motion."""
    zero = {n: 0.0 for n in sys.w_names}
    d = sys.dynamics_terms(q, u, inputs=zero)
    Mm, h, C, c = d["M"], d["h"], d["C"], d["c"]
    B = np.column_stack([sys.dynamics_terms(q, u, inputs=dict(zero, **{n: 1.0}))["h"] - h
                         for n in controls])
    y = d["phi"]
    z = C @ u                                    # scleronomic program: z = (G u, psi)
    s = H @ y + K @ z
    r, S = sys.m, len(controls)
    P, I = list(range(r)), [r]
    Mi = np.linalg.inv(Mm)
    SI = C[I] @ Mi @ C[I].T
    lam = np.linalg.solve(SI, s[I] - c[I] - C[I] @ Mi @ h)
    Q = Mi @ (h + C[I].T @ lam)
    b = (np.eye(len(u)) - Mi @ C[I].T @ np.linalg.solve(SI, C[I])) @ Mi @ B
    g = C[P] @ b                                 # (g^{rho s}), r x S
    w = s[P] - c[P] - C[P] @ Q
    om = np.linalg.inv(g @ g.T)
    uv = np.array([sum(g[a, si] * om[a, t] * w[t] for a in range(r) for t in range(r))
                   for si in range(S)])
    ut = np.array([np.linalg.det(np.vstack([np.eye(S)[si], g])) for si in range(S)])
    j = sys.q_names.index("psi1")
    a0, a1 = (Q + b @ uv)[j], (b @ ut)[j]
    u0 = (-2 * omega * u[j] - omega**2 * (q[j] - psi_p) - a0) / a1
    return u0 * ut + uv, g, ut, uv


def _off_manifold():
    q0, v0 = sb.initial_state(psi1=PSI_P)
    q0 = dict(q0, phi0=q0["phi0"] + 0.03, psi1=q0["psi1"] - 0.04, xi11=q0["xi11"] + 0.02,
              xi12=q0["xi12"] - 0.03)
    v0 = dict(v0, **{"der(y)": v0["der(y)"] + 0.1, "der(xi11)": 0.05, "der(psi1)": 0.1})
    return q0, v0


def test_controls_agree_with_5_6_written_out(servo):
    sys, stab, loop = servo
    q0, v0 = _off_manifold()
    run = loop.simulate(2.0, q0=q0, v0=v0, output_times=np.linspace(0, 2, 5))
    for qi, ui, ti in zip(run["q"], run["u"], run["t"]):
        want, g, ut, uv = controls_5_6(sys, stab.matrices(3, 1)[0], stab.matrices(3, 1)[1],
                                       qi, ui)
        got = np.array(loop.control(qi, ui, ti, sys.param_vector())).ravel()
        assert np.allclose(got, want, rtol=1e-8, atol=1e-8 * np.abs(want).max())
        assert np.abs(g @ ut).max() < 1e-9 * np.abs(g).max() * np.abs(ut).max()  # null dir.
        assert abs(uv @ ut) < 1e-9 * np.linalg.norm(uv) * np.linalg.norm(ut)      # u_v min.


def test_constraint_deviations_decay_by_5_5_and_leg_stays_near_vertical(servo):
    """Figs. 7-8 as a law: started off the program (all four constraints violated), the
    deviations y = (path, height, head), z = (y', skate) of the closed loop equal the
    solution of y' = z_hol, z' = H y + K z (critically damped, omega = 4; skate rate 3),
    the leg follows its lean psi1 - psi_p = (d0 + (d0' + 4 d0) t) e^{-4t}, and the skier
    descends along a copy of y = A sin kx with the leg within 0.2 rad of the vertical."""
    sys, stab, loop = servo
    H, K = stab.matrices(3, 1)
    q0, v0 = _off_manifold()
    t = np.linspace(0, 8.0, 161)
    run = loop.simulate(8.0, q0=q0, v0=v0, output_times=t)
    y0 = np.array([run["residuals"][n][0] for n in ("path", "height", "head")])
    qa, ua, *_ = sys.state_arrays(q0, v0)
    z0 = np.array(sys.functions["constraints"](qa, ua, 0.0, sys.param_vector())[1]).ravel()
    assert np.abs(y0).min() > 0.01 and abs(z0[3]) > 0.02            # really off
    Asys = np.zeros((7, 7))
    Asys[:3, 3:6] = np.eye(3)
    Asys[3:, :3], Asys[3:, 3:] = H, K
    X = np.array([expm(Asys * ti) @ np.concatenate([y0, z0]) for ti in t])
    for i, n in zip([0, 1, 2, 6], sys.constraint_names):     # y rows, then psi (z row 3)
        assert np.allclose(run["residuals"][n], X[:, i], atol=1e-7), n
    d0, dd0 = q0["psi1"] - PSI_P, v0["der(psi1)"]
    assert np.allclose(run["coords"]["psi1"] - PSI_P,
                       (d0 + (dd0 + 4 * d0) * t) * np.exp(-4 * t), atol=1e-7)
    assert np.abs(run["coords"]["psi1"] - np.pi / 2).max() < 0.2
    x, y = run["coords"]["x"], run["coords"]["y"]
    late = t > 4.0
    # (7.5) prescribes the heading, not the position: once the path residual has decayed,
    # (7.3) gives y' = A k cos(kx) x', i.e. a copy y = A sin kx + c shifted by the transient
    off = y[late] - 1.5 * np.sin(0.4 * x[late])
    assert np.ptp(off) < 1e-6 and abs(off[0]) < 0.2
    assert x[-1] > 2 * 2 * np.pi / 0.4                    # two path wavelengths downhill


def test_minimum_norm_control_lets_the_leg_fall(servo):
    """The verdict on u0 = 0 (u = u_v alone, the minimum-norm control of (5.6)): the
    program constraints still hold to 1e-8, but nothing in them holds the leg -- the height
    constraint (8.2) is kept by lengthening xi11 while psi1 falls (psi1 < 0.3 after 2 s).
    Keeping the upper link near vertical needs the free scalar u0 (here: the lean
    program of :func:`hold`)."""
    sys, stab, _ = servo
    loop0 = sb.ServoLoop(sys, stabilization=stab)
    q0, v0 = sb.initial_state(psi1=PSI_P)
    run = loop0.simulate(2.0, q0=q0, v0=v0, output_times=np.linspace(0, 2, 21))
    for n in sys.constraint_names:
        assert np.abs(run["residuals"][n]).max() < 1e-8, n
    assert run["coords"]["psi1"][-1] < 0.3
    assert run["coords"]["xi11"][-1] > 2.0


def test_controls_replayed_as_inputs_reproduce_the_motion(servo):
    """The controls are forces of the physical model: played back as input samples into
    mechdae's own simulate of the skier without program constraints (only the ideal board
    constraint), they reproduce the closed-loop motion over 1 s."""
    sys, stab, loop = servo
    q0, v0 = sb.initial_state(psi1=PSI_P)
    t = np.linspace(0, 1.0, 2001)
    run = loop.simulate(1.0, q0=q0, v0=v0, output_times=t)
    free = sb.build(n=1, heading="substituted").compile(stabilization=md.Baumgarte(3.0))
    inputs = {n: np.column_stack([t, run["controls"][n]]) for n in sb.CONTROLS}
    res = free.simulate(1.0, q0=q0, v0=v0, inputs=inputs, output_times=t[::100],
                        rtol=1e-10, atol=1e-12)
    for n in free.q_names:
        assert np.allclose(res[n], run["coords"][n][::100], atol=2e-5), n


def test_bad_input_names_the_object_and_the_fix(servo):
    sys, stab, _ = servo
    with pytest.raises(ValueError, match="controls \\['F99'\\] are not inputs"):
        sb.ServoLoop(sys, controls=("F99",), program=("path",))
    with pytest.raises(ValueError, match="build it with program=True"):
        sb.ServoLoop(sb.build(heading="substituted").compile(stabilization=None))
    with pytest.raises(ValueError, match="need S >= r"):
        sb.ServoLoop(sys, controls=("F11",), program=("path", "height"))
    with pytest.raises(ValueError, match="needs S = r \\+ 1"):
        sb.ServoLoop(sys, program=("path", "height"), u0=sb.hold(sys, "psi1", PSI_P))
    with pytest.raises(ValueError, match="unknown program constraint 'lean'"):
        sb.build(program=("lean",))
    with pytest.raises(ValueError, match="heading must be"):
        sb.build(heading="free")
