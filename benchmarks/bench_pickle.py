"""Cost of shipping a compiled System by pickle versus compiling it again.

For each model: the pickle's size, ``pickle.dumps`` / ``pickle.loads`` times in the same
process, and, in fresh processes (what a multiprocessing / Dask worker sees), the time to
get to the end of a first ``simulate`` either by compiling the model there
(``build() + compile() + simulate()``) or by loading the pickled System
(``pickle.loads() + simulate()``). Import time of mechdae is reported apart and excluded.

Usage::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/bench_pickle.py [--repeat 3]
"""
import argparse
import os
import pathlib
import pickle
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

REPO = pathlib.Path(__file__).resolve().parents[1]

CASES = [  # (label, model file, build kwargs, t_final)
    ("pendulum", "pendulum", {}, 1.0),
    ("two_link_impact", "two_link_impact", {}, 0.5),
    ("msl_rotational_first (components)", "msl_rotational_first", {}, 1.0),
    ("dc_motor_drive (components)", "dc_motor_drive", {}, 0.5),
    ("nlink_chain n=8", "nlink_chain", {"n": 8}, 1.0),
    ("nlink_chain n=32", "nlink_chain", {"n": 32}, 0.2),
]

CHILD = r"""
import pickle, sys, time
t0 = time.perf_counter()
import mechdae
from mechdae.loader import load_module
t_import = time.perf_counter() - t0
mode, path, model_file, kw, t_final = sys.argv[1], sys.argv[2], sys.argv[3], eval(sys.argv[4]), float(sys.argv[5])
mod = load_module(model_file)
sim = dict(getattr(mod, "SIMULATION", {}))
stab = sim.pop("stabilization", "default")
q0, v0 = sim.get("q0"), sim.get("v0")
t0 = time.perf_counter()
if mode == "compile":
    system = mod.build(**kw).compile(stabilization=stab)
else:
    with open(path, "rb") as f:
        system = pickle.load(f)
t_get = time.perf_counter() - t0
system.simulate(t_final, q0=q0, v0=v0)
t_total = time.perf_counter() - t0
print(t_import, t_get, t_total)
"""


def _child(mode, path, model_file, kw, t_final):
    out = subprocess.run([sys.executable, "-c", CHILD, mode, path, str(model_file), repr(kw),
                          str(t_final)], capture_output=True, text=True, check=True)
    return [float(x) for x in out.stdout.split()[-3:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from mechdae.loader import load_module
    print(f"{'model':36s} {'size kB':>8s} {'dumps ms':>9s} {'loads ms':>9s} | fresh process: "
          f"{'compile':>8s} {'+sim':>8s} | {'loads':>8s} {'+sim':>8s}  (ms, median of "
          f"{args.repeat}; import excluded)")
    imports = []
    for label, fname, kw, t_final in CASES:
        model_file = REPO / "models" / f"{fname}.py"
        mod = load_module(model_file)
        sim = dict(getattr(mod, "SIMULATION", {}))
        system = mod.build(**kw).compile(stabilization=sim.pop("stabilization", "default"))
        dts, lts = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            blob = pickle.dumps(system)
            dts.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            pickle.loads(blob)
            lts.append(time.perf_counter() - t0)
        with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as f:
            f.write(blob)
            path = f.name
        try:
            comp = [_child("compile", path, model_file, kw, t_final) for _ in range(args.repeat)]
            load = [_child("load", path, model_file, kw, t_final) for _ in range(args.repeat)]
        finally:
            os.unlink(path)
        imports += [c[0] for c in comp + load]
        med = lambda rows, i: 1e3 * statistics.median(r[i] for r in rows)  # noqa: E731
        print(f"{label:36s} {len(blob) / 1e3:8.1f} {1e3 * statistics.median(dts):9.1f} "
              f"{1e3 * statistics.median(lts):9.1f} | {'':14s} {med(comp, 1):8.1f} "
              f"{med(comp, 2):8.1f} | {med(load, 1):8.1f} {med(load, 2):8.1f}", flush=True)
    print(f"mechdae import in a fresh process: {1e3 * statistics.median(imports):.0f} ms")


if __name__ == "__main__":
    main()
