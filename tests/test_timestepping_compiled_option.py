"""Time stepping's ``compiled`` option is honoured run after run (it was cached under
``bool(compiled)``: after an ``"auto"`` run fell back to Python, ``compiled=True`` reused
the fallback and ran interpreted without a word)."""
import mechdae as md


def _ball():
    m = md.Model("ball_opt")
    y = m.coordinates("y")
    m.kinetic_energy(0.5 * md.der(y) ** 2)
    m.potential_energy(9.81 * y)
    m.contact("ground", gap=y, restitution=0.5)
    return m.compile(stabilization=None)


def test_compiled_true_after_an_auto_fallback_compiles(monkeypatch):
    s = _ball()
    monkeypatch.setenv("MECHDAE_CODEGEN", "0")        # "auto" runs interpreted
    a = s.simulate(0.5, method="timestepping", q0={"y": 1.0}, dt=1e-3)
    assert a.stats["compiled"] is False
    b = s.simulate(0.5, method="timestepping", q0={"y": 1.0}, dt=1e-3, compiled=True)
    assert b.stats["compiled"] is True
    # the same motion either way (generated C and CasADi evaluate the same expressions)
    assert abs(a.q[-1, 0] - b.q[-1, 0]) < 1e-12
