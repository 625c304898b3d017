"""The skier / snowboarder of sections 7-8: a board with a nonholonomic constraint, n links
of variable length and a head mass, steered along a path by the controls (F_1, F_2, M) that
constraint stabilization (5.5)-(5.6) determines.

Source: A. V. Borisov, I. E. Kaspirovich, R. G. Mukharlyamov, Izv. RAN MTT 2021 no. 2,
72-87 -- seed 002, sections 5-8 (figs. 4-6; equations (7.2)-(7.16), (8.1)-(8.2)).

System
    Board (mass m0, moment of inertia I0 about the binding A) on the slope plane Oxy
    (x down the fall line), A = (x, y, 0), heading phi0.  At A a chain of n links of
    variable length (models/variable_length_chain.py: a rod l_i, m_i between the massless
    telescopic parts xi_i1, xi_i2, direction (phi_i, psi_i)); the head / body mass mG
    sits at the end, so xi_n2 is a coordinate.  Coordinates x, y, phi0, then phi_i,
    psi_i, xi_i1, xi_i2 per link: 4n + 3 (sec. 6; seven for n = 1, fig. 4).
Kinetic energy (7.2) (n = 1; the link energy integrated over the rod)
    T = 1/2 [theta (x'^2 + y'^2) + I0 phi0'^2 + m1 xi11'^2 + mG (xi11' + xi12')^2
             + zeta (psi1'^2 + cos^2 psi1 phi1'^2)] + v_A . d/dt(Lambda e1),
    theta = m0 + m1 + mG,  zeta = I1 + m1 xi11 (l1 + xi11) + mG (l1 + xi11 + xi12)^2,
    Lambda = eta1 + vartheta1 = m1 (xi11 + l1/2) + mG (xi11 + l1 + xi12).
Potential energy: the uniform field (g sin(slope), 0, -g cos(slope)) on every mass, so
    g1 = g sin(slope) of (7.7) acts along the fall line.
Nonholonomic constraint (7.3), the board does not slide sideways ("skate"):
    x' tan(phi0) - y' = 0.
Generalized forces (model inputs, default 0)
    M0 steering torque on the board (phi0);  M{i}phi, M{i}psi, F{i}1, F{i}2 the controls
    of (4.1) (F11, F12 are the F_1, F_2 of (7.11)-(7.12));  Rx, Ry, Rz a force at the top
    D = A + (xi11 + l1) e1 of the first rod (the R of (7.7)-(7.10)).
Program constraints of sec. 8 (``program=True``; or a tuple of names)
    "path"   (7.5)  tan(phi0) - A k cos(k x) = 0     with (7.3): the board on y = A sin kx
    "height" (8.2)  (xi11 + l1) sin(psi1) - l_c = 0
    "head"          xi12 - xi12_p = 0                 the body held at the top of the leg
    and (8.1) phi1 - phi0 = 0, which the paper puts "directly into the Lagrangian":
    ``heading="substituted"`` builds the model with phi1 := phi0 (no phi1 coordinate, no
    M1phi: a torque between board and leg does no work on the merged coordinate).
Control (5.2)-(5.6)
    The program constraints are not ideal: they are realized by the controls
    u = (F_1, F_2, M) = (F11, F12, M1psi, M0) -- the telescopic forces and the moment
    vector (joint torque in psi1, steering torque on the board) -- whose generalized forces
    B u are not the constraint gradients (the gradient of "path" has an x component that no
    actuator has).  :class:`ServoLoop` closes the loop: the board constraint stays ideal
    (the lateral reaction of the snow, eliminated as in the Chaplygin reduction), the
    mechanics reads u' = Q + b u_c (5.2), the perturbations y = phi, z = (phi', psi) obey
    y' = z_hol, z' = H y + K z (5.5), and for S = r + 1 controls (5.6) gives
    u_c = u0 u_tau + u_v: u_v = Gamma^T (Gamma Gamma^T)^-1 w the minimum-norm solution
    (weights delta_sl = 1), u_tau_s = det[e_s; Gamma] the null direction of
    Gamma = (g^{rho s}) = C_P b, and u0 the paper's free scalar.  With u0 = 0 nothing
    holds the leg: (8.2) is kept by lengthening xi11 while psi1 falls; :func:`hold` chooses
    u0 so that psi1 follows a lean program near the vertical ("keeping the link near
    vertical", sec. 8).  mechdae itself realizes constraints only ideally; this loop
    composes the compiled System's M, h, constraint rows and input columns (nothing is
    derived here) into one CasADi graph integrated by CVODES.
Why "head": (8.1), (8.2) and (7.5) leave the head's slide xi12 free; the paper says the
    additional constraints are there to determine the controls uniquely.
Two links (fig. 5; the simulation of sec. 8)
    Sec. 8 supplements the equations by constraints "to hold the link near vertical", which
    "determine uniquely the controls that give the links their prescribed state", and then
    prints only (8.1), (8.2) -- both on the lower link.  Nothing in them involves the upper
    link, so its near-vertical position cannot follow from them: it is read here as a
    program constraint of its own, realized by the controls and stabilized by (5.5) like
    the others.  With n = 2 (heading substituted: 10 coordinates, the 8 controls
    ``CONTROLS2`` = F11, F12, M1psi, M0, M2phi, M2psi, F21, F22), ``program=True`` declares
    ``PROGRAM2``: "path", "height" as above and
    "hip"      xi12 - xi12_p = 0     the top part of the leg (hip) at its program length
    "facing"   phi2 - phi0 = 0       the torso faces along the board ((8.1) for link 2)
    "upright"  psi2 - psi2_p = 0     the torso near vertical (psi2_p = 1.50, 4 deg off)
    "waist"    xi21 - xi21_p = 0
    "head"     xi22 - xi22_p = 0     the head mG at its program distance from the torso
    r = 7 rows for S = 8 controls: the free scalar u0 of (5.6) again by :func:`hold` on the
    leg's lean psi1.  psi2_p = pi/2 is excluded: the azimuth phi2 is singular there (its
    row of the mass matrix is proportional to cos^2 psi2).  "Vertical" is the slope normal
    z, as in (7.2).  The programs of sec. 8 are given for one and two links only.

Stated deviations from the printed text (the OCR and the paper's own slips; the tests
say each one): (7.8) prints phi0'' = 0 and (7.14) a22 = 1 -- the board's equation is
I0 phi0'' = M0 (with phi0'' = 0 the path (7.5) could not be followed: phi0 = atan(Ak cos kx)
is not linear in t); the slope component g1 acts on every mass, not on the board's x only.
"""
import math
import pathlib

import casadi as ca
import numpy as np

import mechdae as md
from mechdae.loader import load_module

_VLC = load_module(pathlib.Path(__file__).with_name("variable_length_chain.py"))
add_links = _VLC.add_links

PROGRAM = ("path", "height", "head")
CONTROLS = ("F11", "F12", "M1psi", "M0")   # (F_1, F_2, M) of sections 7-8
# two links (fig. 5): the upper link's program and controls added
PROGRAM2 = ("path", "height", "hip", "facing", "upright", "waist", "head")
CONTROLS2 = CONTROLS + ("M2phi", "M2psi", "F21", "F22")


def build(n=1, heading="coordinate", program=False, m0=4.0, I0=0.8, m=30.0, l=0.8,
          mG=40.0, g=9.81, slope=0.2, A=1.5, k=0.4, l_c=0.89, xi12_p=0.3, psi2_p=1.50,
          xi21_p=0.05, xi22_p=0.1):
    """The n-link skier of sections 6-8.

    Parameters
    ----------
    n : int
        Number of variable-length links (1: fig. 4 and sec. 7; 2: fig. 5).
    heading : {"coordinate", "substituted"}
        "substituted": the program constraint (8.1) phi1 = phi0 put into the Lagrangian.
    program : bool or tuple of str
        Declare the program constraints (True: ``PROGRAM`` = "path" (7.5), "height" (8.2),
        "head" for n = 1; ``PROGRAM2`` for n = 2) for :class:`ServoLoop`, which realizes
        them by the controls; mechdae's own simulate would treat them as ideal constraints.
    m0, I0 : float
        Board mass (kg) and moment of inertia about the binding (kg m^2).
    m, l : float or list of n floats
        Rod masses (kg) and lengths (m).
    mG : float
        Head / body point mass at the end of the chain (kg).
    g, slope : float
        Gravity (m/s^2) and slope inclination (rad).
    A, k : float
        Path y = A sin(k x) (7.4): amplitude (m) and wave number (1/m).
    l_c : float
        Program height of the top of the first rod (m), (8.2).
    xi12_p : float
        Program length of xi12 (m): "head" for n = 1, "hip" for n = 2.
    psi2_p, xi21_p, xi22_p : float
        n = 2 only: program elevation of the upper link ("upright", rad) and lengths of its
        telescopic parts ("waist", "head"; m).

    Returns
    -------
    mechdae.Model
    """
    if heading not in ("coordinate", "substituted"):
        raise ValueError(f"snowboarder: heading must be 'coordinate' or 'substituted', got "
                         f"{heading!r}")
    mod = md.Model(f"snowboarder_{n}")
    phi_path = math.atan(A * k)
    x, y, phi0 = mod.coordinates("x y phi0", default=[0.0, 0.0, phi_path])
    ls, ms = _VLC._listify(l, n, "l"), _VLC._listify(m, n, "m")
    L = [mod.parameter(f"l{i + 1}", ls[i]) for i in range(n)]
    Ms = [mod.parameter(f"m{i + 1}", ms[i]) for i in range(n)]
    par = dict(m0=m0, I0=I0, mG=mG, g=g, slope=slope, A=A, k=k, l_c=l_c, xi12_p=xi12_p)
    if n == 2:
        par.update(psi2_p=psi2_p, xi21_p=xi21_p, xi22_p=xi22_p)
    P = {nm: mod.parameter(nm, v) for nm, v in par.items()}
    g_n = P["g"] * md.cos(P["slope"])      # normal to the slope plane: the "vertical" z
    g_t = P["g"] * md.sin(P["slope"])      # along the fall line x: g1 of (7.7)
    psi_0 = math.asin(min(1.0, l_c / (ls[0] + 0.1)))
    given = [phi0 if heading == "substituted" else None] + [None] * (n - 1)
    ch = add_links(mod, n, [x, y, 0], L, Ms, g_n, tip_mass=P["mG"], phi=given,
                   default_phi=phi_path, default_psi=[psi_0] + [1.45] * (n - 1),
                   default_xi=0.1, controls=True)
    # board
    mod.kinetic_energy(0.5 * P["m0"] * (md.der(x) ** 2 + md.der(y) ** 2)
                       + 0.5 * P["I0"] * md.der(phi0) ** 2)
    mod.generalized_force(mod.input("M0"), phi0)
    # slope component of gravity on every mass: V = -g1 sum(m x)
    J = ch["joints"]
    ex = [md.cos(ps) * md.cos(ph) for ph, ps in zip(ch["phi"], ch["psi"])]
    mx = P["m0"] * x + P["mG"] * J[n][0]
    for i in range(n):
        mx = mx + Ms[i] * (J[i][0] + (ch["xi1"][i] + L[i] / 2) * ex[i])
    mod.potential_energy(-g_t * mx)
    # the force R at the top D of the first rod (7.7)-(7.10)
    phi1, psi1, xi11 = ch["phi"][0], ch["psi"][0], ch["xi1"][0]
    e1 = [md.cos(psi1) * md.cos(phi1), md.cos(psi1) * md.sin(phi1), md.sin(psi1)]
    D = [J[0][c] + (xi11 + L[0]) * e1[c] for c in range(3)]
    R = [mod.input(nm) for nm in ("Rx", "Ry", "Rz")]
    mod.power_terms.append((ca.vertcat(*R), ca.vertcat(*[md.der(c) for c in D])))
    # the board does not slide sideways (7.3)
    mod.nonholonomic(md.der(x) * md.tan(phi0) - md.der(y), name="skate")
    rows = dict(path=lambda: md.tan(phi0) - P["A"] * P["k"] * md.cos(P["k"] * x),
                height=lambda: (xi11 + L[0]) * md.sin(psi1) - P["l_c"],
                head=lambda: ch["xi2"][n - 1] - P["xi12_p"])
    if n == 2:
        rows.update(hip=lambda: ch["xi2"][0] - P["xi12_p"],
                    facing=lambda: ch["phi"][1] - phi0,
                    upright=lambda: ch["psi"][1] - P["psi2_p"],
                    waist=lambda: ch["xi1"][1] - P["xi21_p"],
                    head=lambda: ch["xi2"][1] - P["xi22_p"])
    if program is True and n > 2:
        raise ValueError(f"snowboarder: the program of sec. 8 is given for n = 1 (fig. 4) and "
                         f"n = 2 (fig. 5), not n = {n}; pass program=(names...) from "
                         f"{sorted(rows)}")
    for name in ((PROGRAM, PROGRAM2)[n - 1] if program is True else program or ()):
        if name not in rows:
            raise ValueError(f"snowboarder: unknown program constraint {name!r}; choose from "
                             f"{sorted(rows)}")
        mod.holonomic(rows[name](), name=name)
    # what Result.animate draws besides the links (add_links): the board along its heading
    mod.draw("board", [(x + c * md.cos(phi0), y + c * md.sin(phi0), 0.0) for c in (-0.6, 0.6)])
    return mod


def initial_state(V0=3.0, A=1.5, k=0.4, l1=0.8, l_c=0.89, psi1=1.45, xi12=0.3,
                  heading="substituted", n=1, psi2=1.50, xi21=0.05, xi22=0.1):
    """A state of the skier on the program manifold at x = 0, speed V0 along x.

    Parameters
    ----------
    n : {1, 2}
        Number of links; for n = 2 the upper link faces along the board (phi2 = phi0) at
        elevation ``psi2`` with telescopic parts ``xi21, xi22`` (m).
    Other parameters: as in :func:`build` (the program values), psi1 the leg's lean (rad).

    Returns
    -------
    (dict, dict)
        ``q0, v0`` by name.
    """
    if n not in (1, 2):
        raise ValueError(f"snowboarder.initial_state: n must be 1 or 2, got {n}")
    phi0 = math.atan(A * k)
    q0 = dict(x=0.0, y=0.0, phi0=phi0, psi1=psi1, xi11=l_c / math.sin(psi1) - l1, xi12=xi12)
    v0 = {"der(x)": V0, "der(y)": V0 * math.tan(phi0)}
    if heading == "coordinate":
        q0["phi1"] = phi0
    if n == 2:
        q0.update(phi2=phi0, psi2=psi2, xi21=xi21, xi22=xi22)
    return q0, v0


def stabilization(omega=4.0, zeta=1.0, gamma=4.0):
    """(H, K) of (5.5) for the program constraints and "skate": each program constraint
    obeys ``y'' + 2 zeta omega y' + omega^2 y = 0``, the board ``psi' = -gamma psi``.

    Returns
    -------
    mechdae.Baumgarte
        The diagonal special case of (5.5).
    """
    return md.Baumgarte(alpha=zeta * omega, beta=omega, gamma=gamma)


def _null_cofactors(G):
    """``u_tau_s = det[e_s; G]`` (s = 1..S) of (5.6) for an (S-1) x S matrix G: the
    determinants expanded along their first row, the minors of G's rows memoized by their
    columns (2^S of them rather than S! products; S = 8 for two links)."""
    r, S = G.shape
    memo = {}

    def minor(cols):          # det of G[r - len(cols):, cols]
        if len(cols) == 1:
            return G[r - 1, cols[0]]
        if cols not in memo:
            row = r - len(cols)
            memo[cols] = sum((-1) ** j * G[row, c] * minor(cols[:j] + cols[j + 1:])
                             for j, c in enumerate(cols))
        return memo[cols]
    full = tuple(range(S))
    return ca.vertcat(*[(-1) ** s_ * minor(full[:s_] + full[s_ + 1:]) for s_ in range(S)])


def hold(system, coord, target, omega=4.0, zeta=1.0):
    """A ``u0`` for :class:`ServoLoop`: the free factor of u_tau chosen so that the coordinate
    ``coord`` follows ``y'' + 2 zeta omega y' + omega^2 y = 0``, y = coord - target (the
    third control then keeps, e.g., the head at its program length xi12).

    Returns
    -------
    callable
    """
    i = system.q_names.index(coord)
    j = system.u_names.index(f"der({coord})")

    def u0(q, u, t, accel, u_v, u_tau):
        a0 = accel(u_v)[j]
        a1 = accel(u_tau, homogeneous=True)[j]      # b u_tau: no difference of large terms
        want = -2 * zeta * omega * u[j] - omega**2 * (q[i] - target)
        return (want - a0) / a1
    return u0


class ServoLoop:
    """Program constraints realized by given controls, (5.2)-(5.6) of the paper.

    Parameters
    ----------
    system : mechdae.System
        Compiled from a model whose holonomic constraints ``program`` are realized by the
        inputs ``controls``; every other constraint stays ideal.
    controls : sequence of str, optional
        Inputs acting as controls u_c (S of them, S >= r); default ``CONTROLS`` for one
        link, ``CONTROLS2`` for two (counted by the coordinates psi1, psi2, ...).
    program : sequence of str, optional
        Constraints realized by the controls (r of them); default ``PROGRAM`` or
        ``PROGRAM2`` likewise.
    stabilization : mechdae.Stabilization
        (H, K) of (5.5) for all constraint rows (program and ideal).
    u0 : callable, optional
        ``u0(q, u, t, accel, u_v, u_tau) -> MX`` scalar: the free factor of the null
        direction u_tau of (5.6) (S = r + 1 only), where ``accel(u_c)`` gives the
        accelerations u' = Q + b u_c (``accel(u_c, homogeneous=True)``: b u_c); 0 by
        default (the minimum-norm control u_v).  See :func:`hold`.

    Notes
    -----
    With ``M u' = h + C_I^T lam + B u_c`` (ideal rows I, control columns B) the ideal
    multipliers are eliminated: u' = Q + b u_c with
    ``b = (I - M^-1 C_I^T S_I^-1 C_I) M^-1 B``, ``S_I = C_I M^-1 C_I^T``.  The program rows
    P then require ``Gamma u_c = w``, ``Gamma = C_P b``, ``w = s_P - c_P - C_P Q`` with
    ``s = H y + K z``.  For S = r + 1 the minimum-norm u_v = Gamma^T omega w is computed
    as the solution of the square system [Gamma; u_tau^T] u_v = [w; 0] (the same vector,
    without the squared condition number of omega^-1 = Gamma Gamma^T).
    """

    def __init__(self, system, controls=None, program=None,
                 stabilization=None, u0=None):
        self.system = system
        names = system.constraint_names
        links = sum(1 for q in system.q_names if q.startswith("psi"))
        if controls is None:
            controls = CONTROLS2 if links == 2 else CONTROLS
        if program is None:
            program = PROGRAM2 if links == 2 else PROGRAM
        miss = [c for c in controls if c not in system.w_names]
        if miss:
            raise ValueError(f"ServoLoop: controls {miss} are not inputs of '{system.name}' "
                             f"(inputs: {system.w_names})")
        missp = [c for c in program if c not in names]
        if missp:
            raise ValueError(f"ServoLoop: program constraints {missp} are not constraints of "
                             f"'{system.name}'; build it with program=True")
        if len(controls) < len(program):
            raise ValueError(f"ServoLoop: {len(controls)} controls cannot realize "
                             f"{len(program)} program constraints (need S >= r)")
        if u0 is not None and len(controls) != len(program) + 1:
            raise ValueError("ServoLoop: u0 (the null direction of (5.6)) needs S = r + 1")
        self.controls, self.program = list(controls), list(program)
        m, kk = system.m, system.k
        stab = stabilization if stabilization is not None else md.Baumgarte(4.0)
        self.H, self.K = (np.asarray(a, float) for a in stab.matrices(m, kk))
        # constraint rows: every constraint has one row here
        self.rows_P = [names.index(c) for c in program]
        self.rows_I = [i for i in range(m + kk) if i not in self.rows_P]
        self.icol = [system.w_names.index(c) for c in controls]
        self._u0 = u0
        self._build()

    def _build(self):
        sy = self.system
        F = sy.functions
        q, u = ca.MX.sym("q", sy.nq), ca.MX.sym("u", sy.nu)
        t, p = ca.MX.sym("t"), ca.MX.sym("p", len(sy.p_names))
        w = ca.MX.sym("w", len(sy.w_names))
        e = ca.MX(0, 1)
        M = F["M"](q, p)
        hw = F["h"](q, u, e, e, t, p, w)
        # h is linear in the inputs: h = h0 + B u_c (the other inputs held at 0)
        h0, B = ca.substitute([hw, ca.jacobian(hw, w)[:, self.icol]], [w],
                              [ca.DM.zeros(w.numel())])
        y, z, C, c = F["constraints"](q, u, t, p)
        s = ca.mtimes(ca.DM(self.H), y) + ca.mtimes(ca.DM(self.K), z)
        CI, CP = C[self.rows_I, :], C[self.rows_P, :]
        X = ca.solve(M, ca.horzcat(h0, B, CI.T), "ldl")
        S = len(self.icol)
        Mih, MiB, MiCt = X[:, 0], X[:, 1:1 + S], X[:, 1 + S:]
        if self.rows_I:
            SI = ca.mtimes(CI, MiCt)
            lam0 = ca.solve(SI, s[self.rows_I] - c[self.rows_I] - ca.mtimes(CI, Mih), "qr")
            Q = Mih + ca.mtimes(MiCt, lam0)
            b = MiB - ca.mtimes(MiCt, ca.solve(SI, ca.mtimes(CI, MiB), "qr"))
        else:
            Q, b = Mih, MiB
        Gam = ca.mtimes(CP, b)
        wv = s[self.rows_P] - c[self.rows_P] - ca.mtimes(CP, Q)
        r = len(self.rows_P)
        if S == r + 1:
            # the same minimum-norm u_v, as the solution of [Gamma; u_tau^T] u_v = [w; 0]:
            # forming omega^-1 = Gamma Gamma^T squares the condition number of Gamma (1e4
            # when two links are nearly collinear) and leaves 1e-9 in the program rows
            tau = _null_cofactors(Gam)
            uc = ca.solve(ca.vertcat(Gam, (tau / ca.norm_2(tau) * ca.norm_inf(Gam)).T),
                          ca.vertcat(wv, 0), "qr")
        else:
            uc = ca.mtimes(Gam.T, ca.solve(ca.mtimes(Gam, Gam.T), wv, "qr"))
        if self._u0 is not None:
            def accel(v, homogeneous=False):
                return ca.mtimes(b, v) if homogeneous else Q + ca.mtimes(b, v)
            uc = uc + self._u0(q, u, t, accel, uc, tau) * tau
        ud = Q + ca.mtimes(b, uc)
        qd = F["kinematics"](q, u, p)
        x = ca.vertcat(q, u)
        self.control = ca.Function("servo_controls", [q, u, t, p], [uc],
                                   ["q", "u", "t", "p"], ["uc"])
        self.rhs = ca.Function("servo_rhs", [x, t, p], [ca.vertcat(qd, ud)])
        self._dae = dict(x=x, t=t, p=p, ode=ca.vertcat(qd, ud))

    def accelerations(self, q, u, t=0.0, params=None):
        """Closed-loop ``u'`` and ``u_c`` at one state (arrays in System order)."""
        sy = self.system
        qa, ua, _, _, _ = sy.state_arrays(q, u)
        pv = sy.param_vector(params)
        xd = np.array(self.rhs(np.concatenate([qa, ua]), t, pv)).ravel()
        return xd[sy.nq:], np.array(self.control(qa, ua, t, pv)).ravel()

    def simulate(self, t_final, q0=None, v0=None, params=None, output_times=None,
                 rtol=1e-10, atol=1e-12):
        """Integrate the closed loop from the state given as is (no initialization).

        Returns
        -------
        dict
            ``t``; ``q``, ``u`` (arrays, System order); ``controls`` and ``residuals``
            (dicts by name: the controls and the constraint values y, then psi).
        """
        sy = self.system
        ts = np.linspace(0.0, t_final, 201) if output_times is None else \
            np.asarray(output_times, float)
        qa, ua, _, _, _ = sy.state_arrays(q0, v0)
        pv = sy.param_vector(params)
        I = ca.integrator("servo", "cvodes", self._dae, float(ts[0]), list(ts[1:]),
                          dict(abstol=atol, reltol=rtol, max_num_steps=500000))
        x0 = np.concatenate([qa, ua])
        X = np.hstack([x0[:, None], np.array(I(x0=x0, p=pv)["xf"])])
        q, u = X[:sy.nq].T, X[sy.nq:].T
        U = np.array([np.array(self.control(qi, ui, ti, pv)).ravel()
                      for qi, ui, ti in zip(q, u, ts)])
        Fc = sy.functions["constraints"]
        Y = []
        for qi, ui, ti in zip(q, u, ts):
            yv, zv, _, _ = Fc(qi, ui, ti, pv)
            Y.append(np.concatenate([np.array(yv).ravel(),
                                     np.array(zv).ravel()[sy.m:]]))
        Y = np.array(Y)
        return dict(t=ts, q=q, u=u,
                    coords={n: q[:, i] for i, n in enumerate(sy.q_names)},
                    controls={n: U[:, i] for i, n in enumerate(self.controls)},
                    residuals={n: Y[:, i] for i, n in enumerate(sy.constraint_names)})


# `mechdae run models/snowboarder.py`: the uncontrolled one-link skier (all inputs 0) for
# 0.6 s: the board glides along its heading (7.3) while the leg starts to fall.
_q0, _v0 = initial_state(heading="coordinate")
SIMULATION = dict(t_final=0.6, q0=_q0, v0=_v0)
