r"""DC motor drive: a permanent-magnet DC motor driving a load inertia through a gearbox.

Built from components (Modelica.Electrical.Analog + Modelica.Mechanics.Rotational):

.. code-block:: text

    src(+) -- R -- L -- emf(+)          emf.flange -- rotor -- gear.flange_a
       |                  |                            |          gear.flange_b -- load
    src(-) ---- gnd ---- emf(-)         bearing: rotor -> fixed, friction: load -> fixed

Parameters: supply voltage ``V`` (``src.V``), armature resistance ``R`` (``R.R``) and
inductance ``L`` (``L.L``), motor constant ``k`` (``emf.k``: back EMF ``v = k w``, torque
``tau = k i``), rotor inertia ``J`` (``rotor.J``), bearing damping ``b`` (``bearing.d``),
gear ratio ``r`` (``gear.ratio``: ``phi_rotor = r phi_load``), load inertia ``J_L``
(``load.J``) and load damping ``b_L`` (``friction.d``).

The ideal gear reflects the load to the motor shaft: with ``w`` the rotor speed
(``w_load = w / r``), the kinetic energy ``J w^2/2 + J_L (w/r)^2/2`` and the dissipation
``b w^2 + b_L (w/r)^2`` give

.. math::

    J_{eff} = J + J_L / r^2, \qquad b_{eff} = b + b_L / r^2,

and the drive is the linear second-order system in the armature current ``i`` and ``w``:

.. math::

    L \frac{di}{dt} = V - R i - k w, \qquad
    J_{eff} \frac{dw}{dt} = k i - b_{eff} w,

that is ``x' = A x + B V`` with ``x = (i, w)``,
``A = [[-R/L, -k/L], [k/J_eff, -b_eff/J_eff]]``, ``B = (1/L, 0)``. Its steady state is

.. math::

    w_{ss} = \frac{k V}{k^2 + R\, b_{eff}}, \qquad i_{ss} = \frac{b_{eff}}{k} w_{ss},
    \qquad w_{load,ss} = w_{ss} / r,

and the two time constants are ``-1/lambda`` for the eigenvalues ``lambda`` of ``A``
(electrical ``~ L/R``, mechanical ``~ J_eff R / k^2`` when they are well apart). Energy:
the work of the source ``int V i dt`` equals the kinetic energy, the magnetic energy
``L i^2/2``, and the losses ``int R i^2 dt + int (b w^2 + b_L w_load^2) dt``.

With the defaults: ``J_eff = 1.5e-3 kg m^2``, ``b_eff = 1.1e-4 N m s``,
``w_ss = 234.83 rad/s`` (load 23.483 rad/s), time constants 0.0216 s and 0.272 s.
"""
import mechdae as md
from mechdae.components import electrical as el
from mechdae.components import rotational as rot

SIMULATION = dict(
    t_final=2.0,
    q0={},
    v0={},
    method="auto",
    stabilization="default",
    plot=["load.w", "R.i"],
)


def build(V=12.0, R=0.5, L=0.01, k=0.05, J=1e-3, b=1e-4, ratio=10.0, J_load=0.05,
          b_load=1e-3):
    """Build the DC motor drive.

    Parameters
    ----------
    V : float
        Supply voltage (V), parameter ``src.V``.
    R, L : float
        Armature resistance (Ohm) and inductance (H): ``R.R``, ``L.L``.
    k : float
        Motor constant (V s/rad = N m/A): ``emf.k``.
    J, b : float
        Rotor inertia (kg m^2) and bearing damping (N m s/rad): ``rotor.J``, ``bearing.d``.
    ratio : float
        Gear ratio ``phi_rotor / phi_load``: ``gear.ratio``.
    J_load, b_load : float
        Load inertia and damping: ``load.J``, ``friction.d``.

    Returns
    -------
    mechdae.Model
        States: the coordinate ``rotor.phi`` (speed ``rotor.w``; the gear eliminates
        ``load.phi``, read by name as an output) and the inductor current ``L.i``.
    """
    m = md.Model("dc_motor_drive")
    src = m.add(el.VoltageSource("src", V=V))
    res = m.add(el.Resistor("R", R=R))
    ind = m.add(el.Inductor("L", L=L))
    gnd = m.add(el.Ground("gnd"))
    emf = m.add(el.EMF("emf", k=k))
    rotor = m.add(rot.Inertia("rotor", J=J))
    bearing = m.add(rot.Damper("bearing", d=b))
    fixed = m.add(rot.Fixed("fixed"))
    gear = m.add(rot.IdealGear("gear", ratio=ratio))
    load = m.add(rot.Inertia("load", J=J_load))
    friction = m.add(rot.Damper("friction", d=b_load))
    m.connect(src.p, res.p)
    m.connect(res.n, ind.p)
    m.connect(ind.n, emf.p)
    m.connect(emf.n, src.n, gnd.p)
    m.connect(emf.flange, rotor.flange_a)
    m.connect(rotor.flange_b, bearing.flange_a, gear.flange_a)
    m.connect(gear.flange_b, load.flange_a)
    m.connect(load.flange_b, friction.flange_a)
    m.connect(bearing.flange_b, friction.flange_b, fixed.flange)
    return m
