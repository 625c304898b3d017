"""Skier / snowboarder on a board with a nonholonomic constraint, controlled by constraint
stabilization.

Source: A. V. Borisov, I. E. Kaspirovich, R. G. Mukharlyamov, Izv. RAN MTT 2021 no. 2,
72-87 -- seed 002, sections 5-8 (model of fig. 4: one variable-length link and a head mass).

System
    The board (mass m0, moment of inertia I0 about the binding point A) slides on the
    slope plane Oxy (x down the fall line); A = (x, y, 0), heading phi0.  At A the leg is
    hinged: one link of variable length (massless part xi11, uniform rod l1 of mass m1,
    massless part xi12) in direction e1 = (cos psi1 cos phi1, cos psi1 sin phi1, sin psi1);
    the body/head is a point mass mG at its end B.  Seven coordinates
    x, y, phi0, phi1, psi1, xi11, xi12 (sec. 6, "seven degrees of freedom").
Energies
    T: board 1/2 (m0 (x'^2 + y'^2) + I0 phi0'^2) plus the link and the point mass, as in
    models/variable_length_chain.py; this is (7.2) written without expanding.
    V: a uniform field (g sin(slope), 0, -g cos(slope)) acting on every mass.
Nonholonomic constraint (7.3), the board does not slide sideways
    "skate":   x' tan(phi0) - y' = 0
Program constraints (5.1) -- ideal constraints whose reactions G^T lam are the controls:
    "path"    (7.5)  tan(phi0) - A k cos(k x) = 0        steer along y = A sin(kx) (7.4)
    "heading" (8.1)  phi1 - phi0 = 0                     leg in the board's vertical plane
    "height"  (8.2)  (xi11 + l1) sin(psi1) - l_c = 0      top of the leg rod at height l_c
    "lean"           psi1 - psi_p - a_p sin(w_p t) = 0    program of the leg inclination
    "head"           xi12 - xi12_p = 0                    the head held at the rod's end
Stabilization (5.5): perturbations y = phi, z = (phi', psi) obey y' = z_hol,
z' = H y + K z; ``stabilization()`` builds (H, K) from per-constraint rates.  The
multipliers of the program constraints then are the controls (5.6).

Simplifications (stated, deliberate)
    * one leg link (fig. 4), not the two-link model of sec. 8; the paper's sec. 8 adds the
      constraints (8.1), (8.2) and lets (8.2) and (5.5) define the controls; with one link
      we add the "lean" and "head" programs so that the five controls (board steering
      torque, the two joint torques, the two telescopic forces) are fixed by five program
      constraints, as the paper requires ("the additional constraints determine the
      controls uniquely"); the lean is kept away from psi1 = pi/2 where the spherical
      angles are singular;
    * the program constraints are ideal: the reaction of "path" (gradient in phi0 and x)
      also contains a force along x, lam * A k^2 sin(kx), besides the steering torque;
    * gravity acts on every mass as a uniform field; the paper's printed equations
      (7.7)-(7.12) apply the slope component only to the board (theta g1) and have
      inconsistent vertical gravity terms;
    * the nonholonomic constraint is used in the paper's form with tan(phi0) (valid for
      |phi0| < pi/2, which the path keeps for A k < inf).
"""
import math

import numpy as np

import mechdae as md


def _load_chain_builder():
    """models/ is not a package: load add_links from the file next to this one."""
    import importlib.util
    import pathlib
    spec = importlib.util.spec_from_file_location(
        "_mechdae_models_variable_length_chain",
        pathlib.Path(__file__).with_name("variable_length_chain.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.add_links


add_links = _load_chain_builder()

HOLONOMIC = ("path", "heading", "height", "lean", "head")
NONHOLONOMIC = ("skate",)


def build(m0=4.0, I0=0.8, m1=30.0, l1=0.8, mG=40.0, g=9.81, slope=0.2, A=1.5, k=0.4,
          l_c=0.9, psi_p=1.2, a_p=0.0, w_p=2.0, xi12_p=0.3):
    """The one-link skier with its nonholonomic and program constraints.

    Parameters
    ----------
    m0, I0 : float
        Board mass (kg) and moment of inertia about the binding (kg m^2).
    m1, l1 : float
        Leg rod mass (kg) and length (m).
    mG : float
        Point mass of the body/head (kg).
    g, slope : float
        Gravity (m/s^2) and inclination of the slope (rad).
    A, k : float
        Program path y = A sin(k x): amplitude (m) and wave number (1/m).
    l_c : float
        Program height of the top of the leg rod (m), constraint (8.2).
    psi_p, a_p, w_p : float
        Lean program psi1 = psi_p + a_p sin(w_p t) (rad, rad, rad/s).
    xi12_p : float
        Program length of the upper telescopic part (m).

    Returns
    -------
    mechdae.Model
    """
    mod = md.Model("skier")
    x, y, phi0 = mod.coordinates("x y phi0", default=[0.0, 0.0, math.atan(A * k)])
    P = {n: mod.parameter(n, v) for n, v in dict(
        m0=m0, I0=I0, m1=m1, l1=l1, mG=mG, g=g, slope=slope, A=A, k=k, l_c=l_c,
        psi_p=psi_p, a_p=a_p, w_p=w_p, xi12_p=xi12_p).items()}
    g_n = P["g"] * md.cos(P["slope"])     # normal to the slope: the "vertical" z
    g_t = P["g"] * md.sin(P["slope"])     # along the fall line x
    xi11_0 = l_c / math.sin(psi_p) - l1
    leg = add_links(mod, 1, [x, y, 0], [P["l1"]], [P["m1"]], g_n, tip_mass=P["mG"],
                    default_phi=math.atan(A * k), default_psi=psi_p, default_xi=xi11_0,
                    controls=False)
    phi1, psi1, xi11, xi12 = leg["phi"][0], leg["psi"][0], leg["xi1"][0], leg["xi2"][0]

    # board
    mod.kinetic_energy(0.5 * P["m0"] * (md.der(x) ** 2 + md.der(y) ** 2)
                       + 0.5 * P["I0"] * md.der(phi0) ** 2)
    # slope component of gravity on every mass: V = -g_t * sum(m_i x_i)
    e1x = md.cos(psi1) * md.cos(phi1)
    mod.potential_energy(-g_t * (P["m0"] * x
                                 + P["m1"] * (x + (xi11 + P["l1"] / 2) * e1x)
                                 + P["mG"] * (x + (xi11 + P["l1"] + xi12) * e1x)))

    # nonholonomic constraint of the board (7.3)
    mod.nonholonomic(md.der(x) * md.tan(phi0) - md.der(y), name="skate")
    # program constraints: (7.5), (8.1), (8.2), lean, head
    mod.holonomic(md.tan(phi0) - P["A"] * P["k"] * md.cos(P["k"] * x), name="path")
    mod.holonomic(phi1 - phi0, name="heading")
    mod.holonomic((xi11 + P["l1"]) * md.sin(psi1) - P["l_c"], name="height")
    mod.holonomic(psi1 - P["psi_p"] - P["a_p"] * md.sin(P["w_p"] * mod.time), name="lean")
    mod.holonomic(xi12 - P["xi12_p"], name="head")
    # what Result.animate draws besides the leg (add_links): the board along its heading
    board = [(x + c * md.cos(phi0), y + c * md.sin(phi0), 0.0) for c in (-0.6, 0.6)]
    mod.draw("board", board)
    return mod


def stabilization(omega=4.0, zeta=1.0, gamma=4.0, coupling=0.0):
    """Mukharlyamov gains (5.5) for the skier's 5 holonomic + 1 nonholonomic constraints.

    Each program constraint gets ``y'' + 2 zeta omega y' + omega^2 y = 0`` and the board
    constraint ``psi' = -gamma psi``; ``coupling`` adds ``coupling * omega^2 * y_path`` to
    the heading equation (a non-diagonal H, still asymptotically stable: the system is
    block triangular).

    Returns
    -------
    mechdae.Mukharlyamov
    """
    m, kk = len(HOLONOMIC), len(NONHOLONOMIC)
    H = np.zeros((m + kk, m))
    K = np.zeros((m + kk, m + kk))
    H[:m, :m] = -omega**2 * np.eye(m)
    K[:m, :m] = -2 * zeta * omega * np.eye(m)
    K[m:, m:] = -gamma * np.eye(kk)
    H[1, 0] = coupling * omega**2
    return md.Mukharlyamov(H, K)


def initial_state(V0=3.0, A=1.5, k=0.4, l1=0.8, l_c=0.9, psi_p=1.2, a_p=0.0, w_p=2.0,
                  xi12_p=0.3):
    """A state on the program manifold at x = 0 with speed V0 along x.

    Returns
    -------
    (dict, dict)
        ``q0, v0`` by name.
    """
    phi0 = math.atan(A * k)
    xi11 = l_c / math.sin(psi_p) - l1
    dpsi = a_p * w_p
    dxi11 = -(xi11 + l1) * math.cos(psi_p) * dpsi / math.sin(psi_p)
    q0 = dict(x=0.0, y=0.0, phi0=phi0, phi1=phi0, psi1=psi_p, xi11=xi11, xi12=xi12_p)
    v0 = {"der(x)": V0, "der(y)": V0 * math.tan(phi0), "der(phi0)": 0.0, "der(phi1)": 0.0,
          "der(psi1)": dpsi, "der(xi11)": dxi11, "der(xi12)": 0.0}
    return q0, v0


_q0, _v0 = initial_state()
# `mechdae run models/skier.py`: 8 s down the slope along y = 1.5 sin(0.4 x).
SIMULATION = dict(
    t_final=8.0,
    q0=_q0,
    v0=_v0,
    stabilization=stabilization(),
)
