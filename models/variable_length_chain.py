"""Spatial chain of links of variable length (telescopic links), any number of links.

Source: A. V. Borisov, I. E. Kaspirovich, R. G. Mukharlyamov, "Control of the dynamics of a
composite structure with links of variable length", Izv. RAN, Mekhanika Tverdogo Tela,
2021, no. 2, 72-87 -- seed 002, sections 2-4.

Link i (i = 1..n) runs from joint A_i to joint A_{i+1}.  It is a massive uniform rod
B_i C_i (length l_i, mass m_i) between two massless telescopic parts of variable length,
xi_i1 = |A_i B_i| and xi_i2 = |C_i A_{i+1}|.  Its direction is given by the azimuth phi_i
(angle of the projection on the horizontal plane Oxy with Ox) and the elevation psi_i
(angle with that projection):

    e_i = (cos psi_i cos phi_i, cos psi_i sin phi_i, sin psi_i),
    A_{i+1} = A_i + (xi_i1 + l_i + xi_i2) e_i,        A_1 = origin (fixed hinge).

The last telescopic part xi_n2 moves no mass and is not a coordinate (4n - 1 degrees of
freedom, sec. 4) unless a point mass sits at the free end (``tip_mass``, like the head
mass m_G of the skier, sec. 6).

Coordinates
    phi_i, psi_i, xi_i1 (i = 1..n), xi_i2 (i = 1..n-1, and i = n with a tip mass)
Kinetic energy (2.5), (3.2): a rod point at distance x from B_i has velocity
    v = v_{A_i} + xi_i1' e_i + (xi_i1 + x) e_i',
integrated over the rod:
    T_i = 1/2 m_i |w_i|^2 + m_i (xi_i1 + l_i/2) w_i . e_i'
          + 1/2 (I_i + m_i l_i xi_i1 + m_i xi_i1^2) |e_i'|^2,
    w_i = v_{A_i} + xi_i1' e_i,   I_i = m_i l_i^2 / 3,   |e_i'|^2 = psi_i'^2 + cos^2 psi_i phi_i'^2.
For n = 1 Lagrange's equations are (2.7)-(2.9) (in (2.9) the gravity term reads
g m_1 sin psi_1; the printed S^phi is a misprint).
Potential energy (2.6): V = g sum_i m_i z(centre of rod i)  (+ g m_tip z_tip).
Generalized forces: the controls M_i_phi, M_i_psi (torques in the joints) and F_i1, F_i2
(forces along the telescopic parts) of (4.1) are model inputs, zero by default.

The phi-phi block of the mass matrix (the matrix A of (4.1)-(4.2)) is, with
L_i = xi_i1 + l_i + xi_i2 and S_j = sum_{k > j} m_k (+ m_tip):
    a_ii = cos^2 psi_i (I_i + m_i xi_i1 (l_i + xi_i1) + L_i^2 S_i),
    a_ij = cos psi_i cos psi_j cos(phi_i - phi_j) L_i (m_j (xi_j1 + l_j/2) + L_j S_j), i < j.
(The printed (4.2) garbles the Kronecker deltas of the second term; this is the version
checked in tests/test_seed002.py.)
"""
import mechdae as md


def _listify(v, n, what):
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"{what}: expected {n} values (one per link), got {len(v)}")
        return list(v)
    return [v] * n


def add_links(mod, n, base, l, m, g, tip_mass=None, prefix="", default_phi=0.0,
              default_psi=0.9, default_xi=0.1, controls=True, phi=None):
    """Add n variable-length links hinged at the point ``base`` to a Model.

    Parameters
    ----------
    mod : mechdae.Model
    n : int
        Number of links (>= 1).
    base : list of 3 expressions
        Position of the first hinge A_1 (may depend on other coordinates of ``mod``).
    l, m : list of n parameters or numbers
        Rod lengths (m) and masses (kg).
    g : expression
        Gravity (m/s^2) along -z.
    tip_mass : expression, optional
        Point mass at the free end A_{n+1}; then xi_n2 is a coordinate.
    prefix : str
        Namespace for the names (``"leg."`` gives ``leg.phi1``).
    default_phi, default_psi, default_xi : float or list
        Default values of the coordinates.
    controls : bool
        Declare the inputs ``M{i}phi, M{i}psi, F{i}1, F{i}2`` acting on the coordinates.
    phi : list of n expressions or None, optional
        Azimuths given as expressions instead of new coordinates (``None`` entries are
        coordinates): a program constraint substituted into the Lagrangian, e.g. the
        skier's phi1 = phi0 (8.1).  A given azimuth has no ``M{i}phi`` input.

    Returns
    -------
    dict
        ``phi, psi, xi1, xi2`` (lists of symbols; xi2 has n-1 or n entries),
        ``joints`` (positions A_1..A_{n+1}), ``T``, ``V`` (energies added to ``mod``).
    """
    if n < 1:
        raise ValueError(f"variable-length chain: n must be >= 1, got {n}")
    dphi = _listify(default_phi, n, "default_phi")
    dpsi = _listify(default_psi, n, "default_psi")
    dxi = _listify(default_xi, n, "default_xi")
    given = _listify(phi, n, "phi") if phi is not None else [None] * n
    phi, psi, xi1, xi2 = [], [], [], []
    for i in range(1, n + 1):
        phi.append(given[i - 1] if given[i - 1] is not None
                   else mod.coordinates(f"{prefix}phi{i}", default=dphi[i - 1]))
        psi.append(mod.coordinates(f"{prefix}psi{i}", default=dpsi[i - 1]))
        xi1.append(mod.coordinates(f"{prefix}xi{i}1", default=dxi[i - 1]))
        if i < n or tip_mass is not None:
            xi2.append(mod.coordinates(f"{prefix}xi{i}2", default=dxi[i - 1]))

    A = [list(base)]
    T = 0
    V = 0
    for i in range(n):
        cps, sps = md.cos(psi[i]), md.sin(psi[i])
        e = [cps * md.cos(phi[i]), cps * md.sin(phi[i]), sps]
        de = [md.der(c) for c in e]
        vA = [md.der(c) for c in A[i]]
        w = [vA[k] + md.der(xi1[i]) * e[k] for k in range(3)]
        I_i = m[i] * l[i] ** 2 / 3
        T = T + 0.5 * m[i] * sum(c * c for c in w) \
            + m[i] * (xi1[i] + l[i] / 2) * sum(w[k] * de[k] for k in range(3)) \
            + 0.5 * (I_i + m[i] * l[i] * xi1[i] + m[i] * xi1[i] ** 2) * (
                md.der(psi[i]) ** 2 + cps**2 * md.der(phi[i]) ** 2)
        V = V + g * m[i] * (A[i][2] + (xi1[i] + l[i] / 2) * sps)
        Li = xi1[i] + l[i] + (xi2[i] if i < len(xi2) else 0)
        A.append([A[i][k] + Li * e[k] for k in range(3)])
    if tip_mass is not None:
        vt = [md.der(c) for c in A[n]]
        T = T + 0.5 * tip_mass * sum(c * c for c in vt)
        V = V + g * tip_mass * A[n][2]
    mod.kinetic_energy(T)
    mod.potential_energy(V)
    # what Result.animate draws: each link from joint to joint, the rod's massive part
    # (xi1 .. xi1 + l along the link) thicker, and the point masses at the joints
    for i in range(n):
        e = [(A[i + 1][k] - A[i][k]) for k in range(3)]
        Li = xi1[i] + l[i] + (xi2[i] if i < len(xi2) else 0)
        rod = [[A[i][k] + (xi1[i] + s_) * e[k] / Li for k in range(3)] for s_ in (0, l[i])]
        mod.draw(f"{prefix}link{i + 1}", [tuple(A[i]), tuple(A[i + 1])])
        mod.draw(f"{prefix}rod{i + 1}", [tuple(rod[0]), tuple(rod[1])])
        mod.draw(f"{prefix}joint{i + 1}", [tuple(A[i])], radius=0.03)
    if tip_mass is not None:
        mod.draw(f"{prefix}tip", [tuple(A[n])], radius=0.05)

    if controls:
        for i in range(n):
            if given[i] is None:
                mod.generalized_force(mod.input(f"{prefix}M{i + 1}phi"), phi[i])
            mod.generalized_force(mod.input(f"{prefix}M{i + 1}psi"), psi[i])
            mod.generalized_force(mod.input(f"{prefix}F{i + 1}1"), xi1[i])
            if i < len(xi2):
                mod.generalized_force(mod.input(f"{prefix}F{i + 1}2"), xi2[i])
    return dict(phi=phi, psi=psi, xi1=xi1, xi2=xi2, joints=A, T=T, V=V)


def build(n=2, l=0.5, m=1.0, g=9.81, tip_mass=None):
    """An n-link spatial chain of variable-length links hinged at the origin.

    Parameters
    ----------
    n : int
        Number of links (4n - 1 coordinates; 4n with a tip mass).
    l : float or list of n floats
        Lengths of the massive rods (m).
    m : float or list of n floats
        Masses of the rods (kg).
    g : float
        Gravity (m/s^2), along -z.
    tip_mass : float, optional
        Point mass at the free end (kg).

    Returns
    -------
    mechdae.Model
        Coordinates ``phi{i}, psi{i}, xi{i}1, xi{i}2``; parameters ``l{i}, m{i}, g``
        (and ``m_tip``); inputs ``M{i}phi, M{i}psi, F{i}1, F{i}2`` (controls, default 0).
    """
    mod = md.Model(f"variable_length_chain_{n}")
    ls = _listify(l, n, "l")
    ms = _listify(m, n, "m")
    L = [mod.parameter(f"l{i + 1}", ls[i]) for i in range(n)]
    M = [mod.parameter(f"m{i + 1}", ms[i]) for i in range(n)]
    G = mod.parameter("g", g)
    tip = None if tip_mass is None else mod.parameter("m_tip", tip_mass)
    # a bent, spread-out start: link i points at azimuth 0.7 i, elevation 0.9 - 0.3 i
    add_links(mod, n, [0, 0, 0], L, M, G, tip_mass=tip,
              default_phi=[0.7 * i for i in range(n)],
              default_psi=[0.9 - 0.3 * i for i in range(n)],
              default_xi=[0.1 + 0.05 * i for i in range(n)])
    return mod


# `mechdae run models/variable_length_chain.py`: two links spinning about the vertical
# without gravity or control: the telescopic parts stretch (centrifugal), energy is kept.
# (Under gravity the uncontrolled telescopic parts let the chain fall to psi = -pi/2, where
# the spherical angles are singular: control it, e.g. models/skier.py.)
SIMULATION = dict(
    t_final=2.0,
    q0={"psi1": -0.3, "psi2": 0.3},
    v0={"der(phi1)": 1.2, "der(phi2)": 1.4, "der(xi11)": 0.2, "der(psi1)": -0.3},
    params={"g": 0.0},
    stabilization=None,
)
