"""Seed 003 (Ivanov 1993), sec. 2: the eccentric disk past Gamma_1, against the paper.

Simulated with ``method="unified"`` (Ivanov's own formulation) and compared with:

- the flight law (2.15): ``phi'' = 0`` and the gap ``q(phi)``, ``q'(phi)`` in closed form;
- ``eta_1 = 2 r sqrt(eps)/j + O(eps)`` and the landing angle ``phi_2 = pi/2 + eta_2``,
  ``eta_2 = 3 eta_1 + O(eps)``;
- the estimates (2.16) ``q'(t_2) = O(eps^{3/2})``, ``g - r phi_2'^2 sin phi_2 = O(eps)``;
  the chatter duration ``O(eps^{1/2})`` (consequence of (2.17)); the energy orders
  ``E_n = O(eps^3)`` and ``Delta E_tau = O(eps^2)`` — each as a log-log slope over
  eps = 1e-4 .. 1e-2, and, sharper, against the leading coefficients derived below;
- the periodic impact-free motions ``Gamma_n`` (derived here; the paper only states that
  they exist).

Derivation used as the reference (eps = Gamma - Gamma_1, w1 = phi' in flight). With
``phi = pi/2 + eta_1 sigma`` and ``q = r eta_1^4 Q(sigma)`` the free gap acceleration of
(2.10) is ``F = r w1^2 (cos(eta_1 sigma) - cos eta_1) = r w1^2 eta_1^2 (1 - sigma^2)/2 + ...``,
so near the top of the disk the flight is ``Q'' = (1 - sigma^2)/2`` (derivatives in
sigma), ``Q(-1) = Q'(-1) = 0``: ``Q = sigma^2/4 - sigma^4/24 + sigma/3 + 1/8
= -(sigma + 1)^3 (sigma - 3)/24``. Hence ``eta_2 = 3 eta_1`` (the paper's value),
``q'(t_2) = -(8/3) r w1 eta_1^3`` and ``g - r w1^2 sin phi_2 = 4 r w1^2 eta_1^2``. The
chatter that follows is, to leading order, the bouncing of ``Q`` on ``Q = 0`` with
``Q'+ = -kappa Q'-`` under the same quartic law: it ends at a finite ``sigma_*(kappa)``
(computed below, quartic roots), so the chatter lasts ``(sigma_* - 3) eta_1 / w1`` and
dissipates ``m r^2 w1^2 eta_1^6 (1 - kappa^2)/2 sum Q'_i^2``.

What the printed text should read (OCR or misprints):
- ``Gamma_1 = r + j^2/(2 r^2)`` -> ``Gamma_1 = 1 + j^2/(2 r^2)`` (the minimum of (2.13)).
- "При Gamma > Gamma_0 ..." (periodic motions) -> ``Gamma > Gamma_1``: with the
  definition below, the sequence starts with ``Gamma_1`` itself (n = 1: flight of zero
  length at phi = pi/2).
- The conclusion's "theta = pi/2 (mod 2 pi)" -> ``phi = pi/2 (mod 2 pi)`` (theta = pi/2
  identically in the plane motion); ``I_3`` in B of (2.10) is ``J_3``.
- ``eta_1 = 2 r eps^{1/2}/j + O(eps)`` and ``eta_2 = 3 eta_1 + O(eps)``: true, and both
  remainders are measured sharper, ``O(eps^{3/2})``.
- ``Delta E_tau = O(eps^2)`` over the chatter is attained (slope 2: it is the exchange with
  the potential ``m g q``, q ~ eps^2), while the energy actually dissipated is
  ``O(eps^3)`` (slope 3, the order of E_n).
"""
import math

import numpy as np
import pytest
from numpy.polynomial import polynomial as P
from scipy.optimize import brentq

import mechdae.simulate.unified  # noqa: F401
from conftest import model_module

disk_model = model_module("ivanov_disk")

RHO, R, J, G, M, KAPPA = 1.0, 0.5, 0.5, 9.81, 1.0, 0.5
GAMMA1 = 1.0 + J ** 2 / (2 * R ** 2)
EPS = (1e-2, 3e-3, 1e-3, 3e-4, 1e-4)


@pytest.fixture(scope="module")
def disk():
    return disk_model.build(m=M, rho=RHO, r=R, j=J, g=G, kappa=KAPPA).compile(stabilization=None)


def run(disk, Gamma, t_final, dt=1e-3):
    q0, v0 = disk_model.initial_state(rho=RHO, r=R, phi0_dot=disk_model.spin_for_gamma(
        Gamma, r=R, j=J, g=G))
    return disk.simulate(t_final, q0=q0, v0=v0, method="unified", dt=dt)


def phi1_of(Gamma):
    """(2.14)."""
    return math.asin(Gamma - math.sqrt(Gamma ** 2 - 2 * GAMMA1 + 1))


def flight_q(phi, phi1):
    """(2.15): gap and its rate / w1 along the flight from the lift-off angle phi1."""
    d = phi - phi1
    q = R * (math.sin(phi1) - np.sin(phi) + d * math.cos(phi1) - 0.5 * d ** 2 * math.sin(phi1))
    qd_over_w = R * (math.cos(phi1) - np.cos(phi) - d * math.sin(phi1))
    return q, qd_over_w


def gap(res):
    return res["z"] - RHO - R * np.sin(res["phi"])


def landing(res):
    ev = res.events
    lo = next(e for e in ev if e.kind == "liftoff")
    imp = [e for e in ev if e.kind == "impact" and e.t > lo.t]
    acc = next(e for e in ev if e.kind == "accumulation" and e.t > lo.t)
    return lo, imp[0], acc, [e for e in imp if e.t <= acc.t]


def at(res, t, name):
    """Value at an event time (the unified method stores the located state)."""
    k = np.flatnonzero(np.abs(res.t - t) < 1e-14)
    return res[name][k[0]]


def scaled_chatter(kappa):
    """The leading-order chatter: Q'' = (1 - s^2)/2, landing at s = 3 with Q' = -8/3,
    impacts Q'+ = -kappa Q'-; returns (s_*, (1 - kappa^2)/2 sum Q'_i^2)."""
    s0, v, loss = 3.0, -8.0 / 3.0, 0.0
    for _ in range(100000):
        loss += 0.5 * (1 - kappa ** 2) * v * v
        c = [0.0, -kappa * v, (1 - s0 ** 2) / 4, -s0 / 6, -1.0 / 24]
        x = min(z.real for z in P.polyroots(c[1:]) if abs(z.imag) < 1e-12 and z.real > 0)
        if x < 1e-14:
            return s0, loss
        v, s0 = P.polyval(x, P.polyder(c)), s0 + x
    raise AssertionError("scaled chatter did not accumulate")


def slope(x, y, last=3):
    """Log-log slope over the ``last`` smallest eps (the asymptotic rate)."""
    return np.polyfit(np.log(x[-last:]), np.log(y[-last:]), 1)[0]


# ----------------------------------------------------------------- flight law (2.15)
@pytest.mark.parametrize("Gamma", [1.6, 2.0, 3.0, 6.0])
def test_flight_is_law_2_15_and_lands_at_its_root(disk, Gamma):
    phi1 = phi1_of(Gamma)
    res = run(disk, Gamma, 2.5)
    lo = next(e for e in res.events if e.kind == "liftoff")
    t2 = next(e.t for e in res.events if e.kind == "impact")
    fl = (res.t >= lo.t) & (res.t < t2)        # the sample at t2 holds the post-impact u
    phi, w = res["phi"][fl], res["der(phi)"][fl]
    assert at(res, lo.t, "phi") == pytest.approx(phi1, abs=1e-8)          # (2.14)
    w1 = w[0]
    assert w1 ** 2 * R * math.sin(phi1) == pytest.approx(G, rel=1e-8)     # F = 0 at lift-off
    assert np.ptp(w) < 1e-9 * w1                                           # phi'' = 0
    np.testing.assert_allclose(phi, phi[0] + w1 * (res.t[fl] - lo.t), atol=1e-10)
    q_ref, qd_ref = flight_q(phi, phi1)
    np.testing.assert_allclose(gap(res)[fl], q_ref, atol=1e-8)             # (2.15)
    qd = res["der(z)"][fl] - R * np.cos(phi) * w
    np.testing.assert_allclose(qd, w1 * qd_ref, atol=3e-8)
    # the landing is the first root of (2.15) after the lift-off
    phis = np.linspace(phi1 + 1e-3, phi[-1] + 0.5, 20001)
    k = np.argmax(flight_q(phis, phi1)[0] < 0)
    assert k > 0
    phi2 = brentq(lambda p: flight_q(p, phi1)[0], phis[k - 1], phis[k], xtol=1e-14)
    assert at(res, t2, "phi") == pytest.approx(phi2, abs=5e-8)      # 1.1e-8 at Gamma = 6


# ------------------------------------------- eps -> 0: landing angle, (2.16), chatter
@pytest.fixture(scope="module")
def near_gamma1(disk):
    rows = []
    for eps in EPS:
        Gamma = GAMMA1 + eps
        res = run(disk, Gamma, 0.3 + 30 * math.sqrt(eps))
        lo, first, acc, imps = landing(res)
        phi1 = phi1_of(Gamma)
        w1 = at(res, lo.t, "der(phi)")
        phi2 = at(res, first.t, "phi")
        # E_tau = B p_phi^2 / 2 + m g r sin(phi), p_phi = m r cos(phi) z' + J3 phi'
        ph, zd, wd = res["phi"], res["der(z)"], res["der(phi)"]
        B = 1 / (M * R ** 2 * np.cos(ph) ** 2 + M * J ** 2)
        Etau = 0.5 * B * (M * R * np.cos(ph) * zd + M * J ** 2 * wd) ** 2 + M * G * R * np.sin(ph)
        ch = (res.t >= first.t) & (res.t <= acc.t)
        t_next = next((e.t for e in res.events if e.kind == "liftoff" and e.t > acc.t), np.inf)
        rows.append(dict(
            eps=eps, eta1=math.pi / 2 - phi1, eta2=phi2 - math.pi / 2, w1=w1,
            qd2=first.extra["gdot_before"], F2=G - R * w1 ** 2 * math.sin(phi2),
            E0=res.energy[0],
            dEn=0.5 * M * J ** 2 / (M * R ** 2 * math.cos(phi2) ** 2 + M * J ** 2)
            * first.extra["gdot_before"] ** 2,
            first_loss=first.energy_before - first.energy_after,
            loss=sum(e.energy_before - e.energy_after for e in imps),
            E_after=res.energy[(res.t > acc.t) & (res.t < t_next)], dEtau=np.ptp(Etau[ch]),
            chatter=acc.t - first.t, n_imp=len(imps)))
    return rows


def test_eta1_and_landing_angle_3_eta1(near_gamma1):
    eps = np.array([r["eps"] for r in near_gamma1])
    eta1 = np.array([r["eta1"] for r in near_gamma1])
    eta2 = np.array([r["eta2"] for r in near_gamma1])
    # eta_1 = 2 r sqrt(eps)/j + O(eps): the remainder is below eps, and is O(eps^{3/2})
    err1 = np.abs(eta1 - 2 * R * np.sqrt(eps) / J)
    assert np.all(err1 < 0.5 * eps)
    assert slope(eps, err1) == pytest.approx(1.5, abs=0.05)
    # eta_2 = 3 eta_1 + O(eps): the remainder is below eps and falls faster (slope 3/2)
    err2 = np.abs(eta2 - 3 * eta1)
    assert np.all(err2 < 0.25 * eps)
    assert slope(eps, err2) == pytest.approx(1.5, abs=0.08)
    np.testing.assert_allclose(eta2 / eta1, 3.0, atol=0.011)


def test_estimates_2_16_landing_velocity_and_free_acceleration(near_gamma1):
    eps = np.array([r["eps"] for r in near_gamma1])
    qd2 = np.array([r["qd2"] for r in near_gamma1])
    F2 = np.array([r["F2"] for r in near_gamma1])
    eta1 = np.array([r["eta1"] for r in near_gamma1])
    w1 = np.array([r["w1"] for r in near_gamma1])
    assert np.all(qd2 < 0) and np.all(F2 > 0)
    assert slope(eps, -qd2) == pytest.approx(1.5, abs=0.02)          # q' = O(eps^{3/2})
    assert slope(eps, F2) == pytest.approx(1.0, abs=0.02)            # g - r w^2 sin = O(eps)
    # leading coefficients of the derivation: -(8/3) r w1 eta1^3 and 4 r w1^2 eta1^2
    c_q = qd2 / (-(8 / 3) * R * w1 * eta1 ** 3)
    c_F = F2 / (4 * R * w1 ** 2 * eta1 ** 2)
    assert np.all(np.abs(c_q - 1) < 2 * eta1) and abs(c_q[-1] - 1) < 2e-3
    assert np.all(np.abs(c_F - 1) < 2 * eta1) and abs(c_F[-1] - 1) < 2e-3


def test_chatter_lasts_order_sqrt_eps_with_the_derived_constant(near_gamma1):
    eps = np.array([r["eps"] for r in near_gamma1])
    dt_ch = np.array([r["chatter"] for r in near_gamma1])
    eta1 = np.array([r["eta1"] for r in near_gamma1])
    w1 = np.array([r["w1"] for r in near_gamma1])
    assert all(r["n_imp"] > 10 for r in near_gamma1)                 # a real chatter
    assert slope(eps, dt_ch) == pytest.approx(0.5, abs=0.03)         # Delta t = O(eps^1/2)
    s_star, _ = scaled_chatter(KAPPA)
    ratio = dt_ch * w1 / eta1 / (s_star - 3)
    assert np.all(np.abs(ratio - 1) < 3 * eta1)                      # error O(eta_1)
    assert abs(ratio[-1] - 1) < 0.01                                 # measured 2.3e-3


def test_energy_orders_En_eps3_Etau_eps2(near_gamma1):
    eps = np.array([r["eps"] for r in near_gamma1])
    eta1 = np.array([r["eta1"] for r in near_gamma1])
    w1 = np.array([r["w1"] for r in near_gamma1])
    En = np.array([r["dEn"] for r in near_gamma1])          # m J3 B q'^2 / 2 at t_2
    first = np.array([r["first_loss"] for r in near_gamma1])
    loss = np.array([r["loss"] for r in near_gamma1])
    dEtau = np.array([r["dEtau"] for r in near_gamma1])
    assert slope(eps, En) == pytest.approx(3.0, abs=0.05)            # E_n = O(eps^3)
    np.testing.assert_allclose(first, (1 - KAPPA ** 2) * En, rtol=1e-6, atol=2e-12)  # Newton
    assert slope(eps, loss) == pytest.approx(3.0, abs=0.05)           # dissipated: O(eps^3)
    assert slope(eps, dEtau) == pytest.approx(2.0, abs=0.02)          # Delta E_tau = O(eps^2)
    # dissipated energy -> m r^2 w1^2 eta1^6 (1 - kappa^2)/2 sum Q'_i^2 (scaled chatter)
    _, c_loss = scaled_chatter(KAPPA)
    ratio = loss / (M * R ** 2 * w1 ** 2 * eta1 ** 6 * c_loss)
    assert abs(ratio[-1] - 1) < 0.01 and np.all(np.abs(ratio - 1) < 5 * eta1)   # 4.1e-3
    # the energy on the support after the chatter is E_0 minus the impact losses
    for r in near_gamma1:
        assert np.ptp(r["E_after"]) < 1e-9 * r["E0"]
        assert r["E0"] - r["E_after"][0] == pytest.approx(r["loss"], abs=2e-9 * r["E0"])


# ------------------------------------------------------- periodic motions Gamma_n
def periodic_phi1(n):
    """Lift-off angle of the n-th impact-free periodic motion: the flight (2.15) ends with
    q = q' = 0 iff phi - phi1 = 2 cot(phi1) and phi = pi - phi1 (mod 2 pi), i.e.
    2 cot(phi1) + 2 phi1 = (2n - 1) pi (n = 1: phi1 = pi/2, Gamma = Gamma_1)."""
    if n == 1:
        return math.pi / 2
    return brentq(lambda p: 2 / math.tan(p) + 2 * p - (2 * n - 1) * math.pi, 1e-9,
                  math.pi / 2 - 1e-12, xtol=1e-15)


def gamma_of_phi1(phi1):
    """Inverse of (2.14): F = 0 in (2.13) at phi1."""
    S = math.sin(phi1)
    return (S * S + 2 * GAMMA1 - 1) / (2 * S)


def test_periodic_gamma_n_closed_form():
    gam = [gamma_of_phi1(periodic_phi1(n)) for n in range(1, 8)]
    assert gam[0] == pytest.approx(GAMMA1, abs=1e-15)
    assert np.all(np.diff(gam) > 0)                                  # increasing sequence
    assert gam == pytest.approx(list(disk_model.periodic_gammas(7, r=R, j=J)), rel=1e-12)
    for n in range(2, 8):
        phi1 = periodic_phi1(n)
        assert phi1_of(gam[n - 1]) == pytest.approx(phi1, abs=1e-12)
        phi2 = math.pi - phi1 + 2 * math.pi * (n - 1)
        q2, qd2 = flight_q(phi2, phi1)
        assert abs(q2) < 1e-12 and abs(qd2) < 1e-12                   # tangential landing
        inner = np.linspace(phi1, phi2, 4001)[1:-1]
        assert flight_q(inner, phi1)[0].min() > 0                      # no earlier contact
        # landing with F = r w1^2 sin(phi2) - g = 0: the support takes over smoothly
        assert math.sin(phi2) == pytest.approx(math.sin(phi1), abs=1e-12)
        # off Gamma_n the flight ends in an impact
        for dG in (-1e-2, 1e-2):
            p1 = phi1_of(gam[n - 1] + dG)
            ph = np.linspace(p1 + 1e-3, phi2 + 1.0, 40001)
            k = np.argmax(flight_q(ph, p1)[0] < 0)
            pl = brentq(lambda p: flight_q(p, p1)[0], ph[k - 1], ph[k], xtol=1e-14)
            assert abs(flight_q(pl, p1)[1]) > 1e-3


@pytest.mark.parametrize("n", [2, 3])
def test_periodic_motion_gamma_n_lands_without_impact(disk, n):
    phi1 = periodic_phi1(n)
    Gn = gamma_of_phi1(phi1)
    res = run(disk, Gn, 2.5, dt=2.5e-4)
    lo = [e for e in res.events if e.kind == "liftoff"]
    imp = [e for e in res.events if e.kind == "impact"]
    w1 = at(res, lo[0].t, "der(phi)")
    assert at(res, lo[0].t, "phi") == pytest.approx(phi1, abs=1e-8)
    # the flight spans (2n - 1) pi - 2 phi1 and lands (numerically: touches) tangentially
    phi_land = at(res, imp[0].t, "phi")
    assert phi_land == pytest.approx(math.pi - phi1 + 2 * math.pi * (n - 1), abs=1e-3)
    assert abs(imp[0].extra["gdot_before"]) < 1e-5 * R * w1
    # one period later it lifts off again at phi1 (mod 2 pi) with the same spin
    assert len(lo) >= 2
    assert at(res, lo[1].t, "phi") - 2 * math.pi * n == pytest.approx(phi1, abs=1e-5)
    assert at(res, lo[1].t, "der(phi)") == pytest.approx(w1, rel=1e-7)
    loss = sum(e.energy_before - e.energy_after for e in imp if e.t < lo[1].t)
    assert loss < 1e-8 * res.energy[0]
    # a Gamma 1e-2 away: the landing is an impact losing energy
    off = run(disk, Gn + 1e-2, 1.5)
    i_off = next(e for e in off.events if e.kind == "impact")
    assert abs(i_off.extra["gdot_before"]) > 1e-2 * R * w1
    assert i_off.energy_before - i_off.energy_after > 1e4 * max(loss, 1e-12)
