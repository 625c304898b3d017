"""Make the MSL reference results that tests/test_msl_reference.py compares with.

Source: the Modelica Association's regression references for MSL 4.0.0,
https://github.com/modelica/MAP-LIB_ReferenceResults (Dymola 2020x, DASSL, tolerance 1e-6;
each example's ``creation.txt`` there names the settings), commit
d6a2b9b20426bbff1a6a5a1f29bb4c5e50d0e57a. Each CSV keeps every column of the reference at
101 equidistant times (the last row at a time where the reference repeats it at an event),
with the source path in a first comment line.

Usage: python make_reference.py /path/to/MAP-LIB_ReferenceResults  (a git clone)
"""
import csv
import io
import pathlib
import subprocess
import sys

COMMIT = "d6a2b9b20426bbff1a6a5a1f29bb4c5e50d0e57a"
EXAMPLES = [
    "Modelica/Mechanics/Rotational/Examples/RollingWheel",
    "Modelica/Mechanics/Rotational/Examples/First",
    "Modelica/Mechanics/Translational/Examples/Accelerate",
    "Modelica/Mechanics/Translational/Examples/Sensors",
    "Modelica/Mechanics/Translational/Examples/Oscillator",
    "Modelica/Mechanics/Translational/Examples/Damper",
    "Modelica/Mechanics/Translational/Examples/SignConvention",
    "Modelica/Electrical/Analog/Examples/ShowVariableResistor",
    "Modelica/Electrical/Analog/Examples/CauerLowPassAnalog",
    "Modelica/Electrical/Analog/Examples/SeriesResonance",
    "Modelica/Electrical/Analog/Examples/ParallelResonance",
    "Modelica/Mechanics/Translational/Examples/ElastoGap",
    "Modelica/Mechanics/Rotational/Examples/Backlash",
    "Modelica/Mechanics/Translational/Examples/Vehicle",
    "Modelica/Electrical/Analog/Examples/CauerLowPassOPV",
    "Modelica/Mechanics/Translational/Examples/WhyArrows",
    "Modelica/Mechanics/Translational/Examples/InitialConditions",
    "Modelica/Mechanics/Rotational/Examples/FirstGrounded",
]
N = 101


def subsample(rows, n=N):
    """The last row at each of ``n`` equidistant times from the first to the last."""
    t0, t1 = float(rows[0][0]), float(rows[-1][0])
    wanted = [t0 + (t1 - t0) * k / (n - 1) for k in range(n)]
    by_time = {}
    for r in rows:
        by_time[round(float(r[0]), 9)] = r
    return [by_time[round(t, 9)] for t in wanted]


def main(clone):
    here = pathlib.Path(__file__).parent
    for ex in EXAMPLES:
        name = ex.rsplit("/", 1)[1]
        path = f"{ex}/{name}.csv"
        text = subprocess.run(["git", "-C", clone, "show", f"{COMMIT}:{path}"],
                              check=True, capture_output=True, text=True).stdout
        rows = list(csv.reader(io.StringIO(text)))
        header, rows = rows[0], rows[1:]
        out = here / f"{name}.csv"
        with open(out, "w", newline="") as fh:
            fh.write(f"# MAP-LIB_ReferenceResults@{COMMIT[:12]}:{path} ({N} of "
                     f"{len(rows)} rows)\n")
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(subsample(rows))
        print(out.name, len(header) - 1, "signals")


if __name__ == "__main__":
    main(sys.argv[1])
