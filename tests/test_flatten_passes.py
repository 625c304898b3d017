"""The flattening's passes on their own (mechdae.components.flatten): nodes of connection
sets, the spanning tree that relations grow and the loop they leave as constraints, flows
at a node, and the pipeline's stages on whole models against closed forms."""
import math

import numpy as np
import pytest

import mechdae as md
from mechdae.components import planar as pl, translational as tr
from mechdae.components.flatten import Flat, collect, declare, potentials
from mechdae.components.flatten.nodes import join


def _passes(m, upto):
    """Run the pipeline on ``m`` up to and including pass ``upto`` (a function)."""
    comps = [c for root in m.components for c in root.walk()]
    F = Flat(m, comps)
    collect(F)
    for step in (declare, potentials):
        step(F)
        if step is upto:
            break
    return F


def test_nodes_of_connection_sets_join_potentials_by_union_find():
    """Three flanges joined in two connect() calls are one node; a flange joined to
    nothing is a node of its own; members keep the connectors' order."""
    m = md.Model("sets")
    a, b, c = (m.add(tr.Mass(n, m=1.0)) for n in "abc")
    m.connect(a.flange_b, b.flange_a)
    m.connect(b.flange_a, c.flange_a)
    conns = [cn for comp in (a, b, c) for cn in comp._connectors]
    N = join(conns, list(m.connections))
    nodes = sorted((sorted(cn.path for cn, _ in lst) for lst in N.members.values()),
                   key=len)
    assert nodes == [["a.flange_a"], ["b.flange_b"], ["c.flange_b"],
                     ["a.flange_b", "b.flange_a", "c.flange_a"]]
    assert N.root_of(a.flange_b, 0) == N.root_of(c.flange_a, 0) != N.root_of(a.flange_a, 0)


def _four_bar(cut):
    """A planar four-bar: ground link from a World and a Fixed frame, crank, coupler and
    rocker on four revolutes; ``cut`` names the joint the user cuts (or None)."""
    m = md.Model("fourbar")
    m._tree_fast_path = False
    m.add(pl.World("world"))
    fx = m.add(pl.Fixed("fixed", r=(2.0, 0.0)))
    joints = [m.add(pl.Revolute(f"j{k}", phi0=phi, cut=(cut == f"j{k}")))
              for k, phi in enumerate((math.pi / 2, -math.pi / 2, -math.pi / 2, -math.pi / 2))]
    crank = m.add(pl.BodyShape("crank", r=(1.0, 0.0), r_cm=(0.5, 0.0)))
    coupler = m.add(pl.BodyShape("coupler", r=(2.0, 0.0), r_cm=(1.0, 0.0)))
    rocker = m.add(pl.BodyShape("rocker", r=(1.0, 0.0), r_cm=(0.5, 0.0)))
    w = m.components[0]
    m.connect(w.frame, joints[0].frame_a)
    m.connect(joints[0].frame_b, crank.frame_a)
    m.connect(crank.frame_b, joints[1].frame_a)
    m.connect(joints[1].frame_b, coupler.frame_a)
    m.connect(coupler.frame_b, joints[2].frame_a)
    m.connect(joints[2].frame_b, rocker.frame_a)
    m.connect(rocker.frame_b, joints[3].frame_b)
    m.connect(joints[3].frame_a, fx.frame)
    return m


@pytest.mark.parametrize("cut", ["j2", "j3"])
def test_relations_grow_a_spanning_tree_and_leave_the_cut_joint_as_the_loop_constraint(cut):
    """The relations of the four-bar's rigid parts and joints define every frame from the
    World and the Fixed frame; the three rows of the user's cut joint are the only
    constraints (they close the loop), and the other joints define their frame_b."""
    F = _passes(_four_bar(cut), potentials)
    roles = {}
    for r in F.N.rels:
        roles.setdefault(r["comp"].path, set()).add(r["role"])
    assert roles[cut] == {"constraint"}
    for j in {"j0", "j1", "j2", "j3"} - {cut}:
        assert "constraint" not in roles[j] and "definer" in roles[j], (j, roles[j])
    assert sum(r["role"] == "constraint" for r in F.N.rels) == 3
    assert not F.N.general_roots            # every frame positioned


def test_four_bar_through_the_whole_pipeline_keeps_one_degree_of_freedom():
    """A parallelogram four-bar (crank = rocker, coupler = ground): three coordinates,
    the cut's closure eliminated or kept to leave one degree of freedom; the coupler stays
    parallel to the ground (phi_coupler = 0) as the crank turns."""
    s = _four_bar("j3").compile()
    r = s.simulate(1.0, q0={"j0.phi": math.pi / 2 - 0.3}, output_times=[0.0, 0.5, 1.0])
    phi_c = np.asarray(r["coupler.frame_a.phi"])
    assert np.abs(phi_c).max() < 1e-6


def test_flows_at_a_node_obey_newtons_third_law_and_the_mass_carries_the_springs():
    """A mass between two springs (generic path): the mass's flange flows balance the
    springs' (f_mass = -f_spring at each node), and m a = sum of spring forces."""
    m = md.Model("msm")
    m._network_fast_path = False
    wall_a, wall_b = m.add(tr.Fixed("wall_a", s0=0.0)), m.add(tr.Fixed("wall_b", s0=2.0))
    sa = m.add(tr.Spring("sa", c=30.0, s_rel0=1.0))
    sb = m.add(tr.Spring("sb", c=50.0, s_rel0=1.0))
    mass = m.add(tr.Mass("mass", m=2.0, s=1.3))
    m.connect(wall_a.flange, sa.flange_a)
    m.connect(sa.flange_b, mass.flange_a)
    m.connect(mass.flange_b, sb.flange_a)
    m.connect(sb.flange_b, wall_b.flange)
    assert "network_fast_path" not in (m.flatten() or m).flatten_stats
    r = m.compile().simulate(0.3, output_times=[0.0, 0.1, 0.3])
    s = np.asarray(r["mass.s"])
    fa, fb = 30.0 * (s - 1.0), 50.0 * (2.0 - s - 1.0)
    assert np.allclose(r["sa.f"], fa, rtol=1e-12, atol=1e-12)
    assert np.allclose(r["mass.flange_a.f"], -np.asarray(r["sa.flange_b.f"]), atol=1e-12)
    assert np.allclose(r["mass.flange_b.f"], -np.asarray(r["sb.flange_a.f"]), atol=1e-12)
    assert np.allclose(2.0 * np.asarray(r["mass.a"]), fb - fa, rtol=1e-9, atol=1e-9)


def test_pipeline_reports_its_stages_in_the_stats():
    m = _four_bar("j3")
    m.flatten()
    st = m.flatten_stats
    assert st["components"] == 9 and st["general_nodes"] == 0
    assert 0.0 <= st["alias_elimination"] <= st["flatten"]
