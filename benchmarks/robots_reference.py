"""Reference data for tests/test_robots_urdf.py, made by Pinocchio.

1. Copies robots from the ``example-robot-data`` package (pip install example-robot-data;
   BSD-3-Clause packaging) into tests/data/robots/ with their mesh visuals and collisions,
   ``<gazebo>`` and ``<transmission>`` tags stripped (the dynamics never read them):
   ANYmal B (anymal_b_simple_description, upstream github.com/ANYbotics/
   anymal_b_simple_description, BSD-3-Clause), Franka Emika Panda (panda_description,
   upstream github.com/frankaemika/franka_ros, Apache-2.0) and the Unitree G1 humanoid
   (g1_description, upstream github.com/unitreerobotics/unitree_ros, BSD-3-Clause).
2. For every URDF in tests/data/robots/ listed in ``ROBOTS``: Pinocchio's (``pin``)
   mass matrix (crba), nonlinear effects (nonLinearEffects), forward dynamics (aba, zero
   torques) and kinetic and potential energies at 5 random states, saved to
   tests/data/robots/pinocchio_reference.npz with the joint names and the configuration
   layout, so that the test maps coordinates by joint name.

Run: python benchmarks/robots_reference.py  (needs pin >= 3 and example-robot-data)
"""
import os
import xml.etree.ElementTree as ET

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "tests", "data", "robots")

#: (file in tests/data/robots, example-robot-data file or None, source note)
ROBOTS = [
    ("two_link_arm.urdf", None, False),
    ("panda.urdf", ("panda_description/urdf/panda.urdf",
                    "Franka Emika Panda from example-robot-data 6.0.0 (panda_description; "
                    "upstream github.com/frankaemika/franka_ros), Apache-2.0"), False),
    ("anymal.urdf", ("anymal_b_simple_description/robots/anymal.urdf",
                     "ANYmal B from example-robot-data 6.0.0 (anymal_b_simple_description; "
                     "upstream github.com/ANYbotics/anymal_b_simple_description), "
                     "BSD-3-Clause"), True),
    ("g1.urdf", ("g1_description/urdf/g1_29dof_rev_1_0.urdf",
                 "Unitree G1 humanoid, 29 joints, from example-robot-data 6.0.0 (g1_description; "
                 "upstream github.com/unitreerobotics/unitree_ros), BSD-3-Clause"), True),
]
N_STATES = 5


def erd_dir():
    import site
    for d in site.getsitepackages() + [site.getusersitepackages()]:
        p = os.path.join(d, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(p):
            return p
    raise RuntimeError("example-robot-data not found: pip install example-robot-data")


def strip(src, dst, note):
    """Copy ``src`` to ``dst`` without mesh geometry, <gazebo> and <transmission>."""
    tree = ET.parse(src)
    root = tree.getroot()
    for tag in ("gazebo", "transmission"):
        for el in root.findall(tag):
            root.remove(el)
    for link in root.findall("link"):
        for tag in ("visual", "collision"):
            for el in link.findall(tag):
                if el.find("geometry/mesh") is not None:
                    link.remove(el)
    ET.indent(tree)
    body = ET.tostring(root, encoding="unicode")
    with open(dst, "w") as f:
        f.write('<?xml version="1.0"?>\n')
        f.write(f"<!-- {note}; mesh geometry, <gazebo> and <transmission> stripped by "
                "benchmarks/robots_reference.py -->\n")
        f.write(body + "\n")


def reference(path, floating, rng):
    import pinocchio as pin
    if floating:
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    else:
        model = pin.buildModelFromUrdf(path)
    data = model.createData()
    names = [model.names[i] for i in range(1, model.njoints)]
    idx_q = [model.joints[i].idx_q for i in range(1, model.njoints)]
    idx_v = [model.joints[i].idx_v for i in range(1, model.njoints)]
    nqs = [model.joints[i].nq for i in range(1, model.njoints)]   # continuous: (cos, sin)
    out = {k: [] for k in ("q", "v", "M", "nle", "ddq", "T", "V")}
    for _ in range(N_STATES):
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        if floating:
            q[:3] = rng.uniform(-1, 1, 3)
        v = rng.uniform(-2, 2, model.nv)
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        nle = pin.nonLinearEffects(model, data, q, v)
        ddq = pin.aba(model, data, q, v, np.zeros(model.nv))
        T = pin.computeKineticEnergy(model, data, q, v)
        V = pin.computePotentialEnergy(model, data, q)
        for k, x in zip(out, (q, v, M, nle, ddq, T, V)):
            out[k].append(np.array(x, float))
    return dict(names=np.array(names), idx_q=np.array(idx_q), idx_v=np.array(idx_v),
                nq=np.array(nqs),
                **{k: np.array(v) for k, v in out.items()})


def main():
    import pinocchio as pin
    rng = np.random.default_rng(26)
    np.random.seed(26)                  # pin.randomConfiguration draws from numpy's global
    src = None
    arrays = {}
    for fn, origin, floating in ROBOTS:
        dst = os.path.join(DATA, fn)
        if origin is not None:
            src = src or erd_dir()
            strip(os.path.join(src, origin[0]), dst, origin[1])
        key = fn[:-5]
        for k, v in reference(dst, floating, rng).items():
            arrays[f"{key}/{k}"] = v
        arrays[f"{key}/floating"] = np.array(floating)
    arrays["pinocchio_version"] = np.array(pin.__version__)
    np.savez(os.path.join(DATA, "pinocchio_reference.npz"), **arrays)
    print("wrote", os.path.join(DATA, "pinocchio_reference.npz"),
          sorted({k.split("/")[0] for k in arrays}))


if __name__ == "__main__":
    main()
