"""Cart-pole: a cart on a horizontal rail with a pendulum hinged on it; input: force on the cart.

Cart position ``x``, pole angle ``th`` from the downward vertical (``th = pi``: upright),
cart mass ``m1``, point mass ``m2`` at distance ``l`` from the hinge, gravity ``-g e_y``,
horizontal force ``F`` on the cart:

    T = (m1 + m2)/2 x'^2 + m2 l cos(th) x' th' + m2/2 l^2 th'^2,   V = -m2 g l cos(th),
    Q_x = F.

The swing-up benchmark of M. Kelly, "An introduction to trajectory optimization: how to do
your own direct collocation", SIAM Review 59 (2017) 849-904, sec. 6 and appendix E
(eqs. E.1-E.2; m1 = 1 kg, m2 = 0.3 kg, l = 0.5 m, move the cart by d = 1 m and the pole
from hanging to upright in T = 2 s with |F| <= 20 N, minimizing int F^2 dt).
"""
import mechdae as md

SIMULATION = dict(
    t_final=5.0,
    q0={"x": 0.0, "th": 0.5},
    v0={},
    stabilization=None,
    plot=["x", "th"],
)


def build(m1=1.0, m2=0.3, l=0.5, g=9.81):
    """Build the cart-pole; keyword arguments are parameter defaults; input ``F`` (N)."""
    model = md.Model("cart_pole")
    x, th = model.coordinates("x th")
    m1 = model.parameter("m1", m1)
    m2 = model.parameter("m2", m2)
    l = model.parameter("l", l)
    g = model.parameter("g", g)
    F = model.input("F")
    d = md.der
    model.kinetic_energy(0.5 * (m1 + m2) * d(x) ** 2 + m2 * l * md.cos(th) * d(x) * d(th)
                         + 0.5 * m2 * l ** 2 * d(th) ** 2)
    model.potential_energy(-m2 * g * l * md.cos(th))
    model.generalized_force(F, x)
    # what Result.animate draws: the cart on its track and the pole (bob at l)
    w, h = 0.4, 0.2
    model.draw("cart", [(x - w / 2, -h / 2), (x + w / 2, -h / 2), (x + w / 2, h / 2),
                        (x - w / 2, h / 2)])
    tip = (x + l * md.sin(th), -l * md.cos(th))
    model.draw("pole", [(x, 0.0), tip])
    model.draw("bob", [tip], radius=0.04)
    model.draw("track", [(-10.0, -h / 2), (10.0, -h / 2)], kind="surface")
    return model
