"""Generated C of a System for an FMU, its compilation and the FMU archive.

The model is CasADi Functions of ``(x, t, p, w)``: ``mdae_fmu_ode`` (the stabilized
index-1 right-hand side ``x' = f``, :meth:`System.rhs_mx` with the compiled gains ``H, K``)
and ``mdae_fmu_out`` (the System's named outputs, given the accelerations and constraint
multipliers of the current mode); with contacts ``mdae_fmu_gap``, ``mdae_fmu_impact`` (the
contact assembly of :mod:`mechdae.contact.assembly`) and ``mdae_fmu_mode`` (the dynamics
with closed contacts). Their C (``casadi.CodeGenerator``), a header of sizes and start
values and the FMI layer of ``c/`` are compiled into one shared library with the C compiler
found at export (``CC``, else ``cc``, ``gcc`` or ``clang``); Co-Simulation FMUs add
mechdae's Runge-Kutta integrator from ``csrc/`` (mdae_ode.c, mdae_rk.c, mdae_status.c),
contact FMUs its contact kernels (mdae_contact.c, mdae_lcp.c, mdae_slide.c), both compiled
once into object files cached beside mechdae's generated code.
"""
import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

import casadi as ca
import numpy as np

__all__ = ["model_functions", "mode_function", "contact_functions", "dependencies", "platform_dirs", "compile_fmu", "write_fmu"]

HERE = os.path.dirname(os.path.abspath(__file__))
C_DIR = os.path.join(HERE, "c")
INCLUDE_DIR = os.path.join(C_DIR, "include")
def _csrc_dir():
    """The kernels' C sources: csrc/ of the source tree (an editable install), else the
    copy an installed package carries (``mechdae/_csrc``, written by setup.py's build_py)."""
    tree = os.path.normpath(os.path.join(HERE, "..", "..", "..", "csrc"))
    shipped = os.path.normpath(os.path.join(HERE, "..", "..", "_csrc"))
    return tree if os.path.isdir(tree) else shipped


CSRC_DIR = _csrc_dir()
CS_SOURCES = ("mdae_ode.c", "mdae_rk.c", "mdae_status.c")
CONTACT_SOURCES = ("mdae_contact.c", "mdae_lcp.c", "mdae_slide.c", "mdae_status.c")


def model_functions(system):
    """``(ode, out, out_of_state)``: ``mdae_fmu_ode(x, t, p, w) -> (xdot, lam)`` (``lam``
    the multipliers of the bilateral constraints), ``mdae_fmu_out(x, t, p, w, xdot, lam)
    -> y`` (evaluated with the accelerations and multipliers of the current contact mode)
    and ``out_of_state(x, t, p, w) -> y`` (smooth mode: for the dependencies); the last two
    None when the System has no outputs."""
    nq, nu, nv = system.nq, system.nu, system.nv
    x, t = ca.MX.sym("x", nq + nu + nv), ca.MX.sym("t")
    p, w = ca.MX.sym("p", len(system.p_names)), ca.MX.sym("w", len(system.w_names))
    xdot, lam, z = system.rhs_mx(x, t, p, w, ca.DM(system.H), ca.DM(system.K))
    names = ["x", "t", "p", "w"]
    ode = ca.Function("mdae_fmu_ode", [x, t, p, w], [xdot, lam], names, ["xdot", "lam"])
    if not getattr(system, "output_names", None):
        return ode, None, None
    xd, lm = ca.MX.sym("xdot", xdot.shape[0]), ca.MX.sym("lam", lam.shape[0])
    q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
    hd = ca.MX(0, 1)
    if system.nhd:
        J, F0 = system.functions["extras"](q, u, v, t, p, w)
        hd = ca.solve(J, -F0, "qr")[:system.nhd]
    _, z = system.extras_mx(q, u, v, t, p, w)
    y = system.functions["outputs"](q, u, v, hd, z, t, p, w, lm, xd[nq:nq + nu])
    out = ca.Function("mdae_fmu_out", [x, t, p, w, xd, lm], [y], names + ["xdot", "lam"],
                      ["y"])
    full = ca.Function("out_of_state", [x, t, p, w], [out(x, t, p, w, xdot, lam)], names,
                       ["y"])
    return ode, out, full


def mode_function(system, gains):
    """``mdae_fmu_mode(x, t, p, w, rows, slide) -> (xdot, lam, lam_c)``: the dynamics with
    the contact rows flagged in ``rows`` (1.0 / 0.0 per row of ``W``) held, stabilized as in
    the event engine (normal: ``w_n u' = -2 alpha v_n - beta^2 g - dot w_n u``; tangential,
    sticking: ``w_t u' = -gamma v_t - dot w_t u``), ``lam_c`` their multipliers (0 for the
    rows not held). A closed contact sliding along its one tangent (``slide = mu s``,
    ``s = sign(v_t)``) takes Coulomb's force ``lam_n (w_n - mu s w_t)^T``:

        M u' = h + C^T Lambda + sum_held (w_r - slide_r w_t,r)^T lam_r,

    solved through the Schur complement of the constraint rows (a row not held reads
    ``lam = 0``; QR: sliding makes it unsymmetric), regularized as the smooth right-hand
    side."""
    from ...simulate.event.phase import regularized_solve
    F = system.functions
    nq, nu = system.nq, system.nu
    alpha, beta, gamma = gains
    x, t = ca.MX.sym("x", nq + nu + system.nv), ca.MX.sym("t")
    p, w = ca.MX.sym("p", len(system.p_names)), ca.MX.sym("w", len(system.w_names))
    q, u, v = x[:nq], x[nq:nq + nu], x[nq + nu:]
    _, z = system.extras_mx(q, u, v, t, p, w)
    M, h = F["M"](q, p), F["h"](q, u, v, z, t, p, w)
    W, Wd, g = F["W"](q, t, p), F["Wdot_u"](q, u, t, p), F["gap"](q, t, p)
    rows = ca.MX.sym("rows", W.shape[0])
    slide = ca.MX.sym("slide", len(system.contacts))
    Vc = ca.mtimes(W, u) + F["Wt"](q, t, p) if system.rheonomic else ca.mtimes(W, u)
    target, force = [], []
    for a, c in enumerate(system.contacts):
        k, nt = len(target), int(c["n_tangent"])
        target.append(-2 * alpha * Vc[k] - beta ** 2 * g[a] - Wd[k])
        force.append(W[k, :] - slide[a] * W[k + 1, :] if nt == 1 else W[k, :])
        target += [-gamma * Vc[k + 1 + j] - Wd[k + 1 + j] for j in range(nt)]
        force += [W[k + 1 + j, :] for j in range(nt)]
    Ac = ca.mtimes(ca.diag(rows), W)
    Fc = ca.mtimes(ca.diag(rows), ca.vertcat(*force))
    rhs_c = rows * ca.vertcat(*target)
    r = system.m + system.k
    if r:
        y, zc, C, c = F["constraints"](q, u, t, p)
        A, Fd = ca.vertcat(C, Ac), ca.vertcat(C, Fc)
        rhs = ca.vertcat(ca.mtimes(ca.DM(system.H), y) + ca.mtimes(ca.DM(system.K), zc) - c,
                         rhs_c)
        free = ca.vertcat(ca.DM.zeros(r, 1), 1 - rows)
    else:
        A, Fd, rhs, free = Ac, Fc, rhs_c, 1 - rows
    X = ca.solve(M, ca.horzcat(h, Fd.T), "ldl")
    Mih, MiFt = X[:, 0], X[:, 1:]
    S = ca.mtimes(A, MiFt) + ca.diag(free)
    lam = regularized_solve(S, rhs - ca.mtimes(A, Mih), "qr")
    ud = Mih + ca.mtimes(MiFt, lam)
    xdot = ca.vertcat(F["kinematics"](q, u, p), ud)
    return ca.Function("mdae_fmu_mode", [x, t, p, w, rows, slide], [xdot, lam[:r], lam[r:]],
                       ["x", "t", "p", "w", "rows", "slide"], ["xdot", "lam", "lam_c"])


def contact_functions(system):
    """``(gap, impact)`` for a System with contacts: ``mdae_fmu_gap(x, t, p, w) -> (g, Wu)``
    and
    ``mdae_fmu_impact(x, t, p, w) -> (Wu, D, B, laws)``, the contact velocities, the
    constrained Delassus matrix, the speed jump per unit impulse and ``(e_n, e_t, mu)`` per
    contact, from the contact assembly the event engine and ``System.impact`` use
    (:mod:`mechdae.contact.assembly`)."""
    from ...contact.assembly import _assembler
    asm = _assembler(system)
    S = asm._sym
    nq, nu = system.nq, system.nu
    x, t = ca.MX.sym("x", nq + nu + system.nv), ca.MX.sym("t")
    p, w = ca.MX.sym("p", len(system.p_names)), ca.MX.sym("w", len(system.w_names))
    ins = [S[k] for k in ("q", "u", "v", "t", "p", "w")]
    outs = [ca.densify(S["gap"]), ca.densify(S["Wu"]), ca.densify(S["D"]), ca.densify(S["B"]),
            ca.densify(ca.MX(asm.law_sym))]
    F = ca.Function("contact_terms", ins, outs)
    g, Wu, D, B, laws = F(x[:nq], x[nq:nq + nu], x[nq + nu:], t, p, w)
    names = ["x", "t", "p", "w"]
    gap = ca.Function("mdae_fmu_gap", [x, t, p, w], [g, Wu], names, ["g", "Wu"])
    impact = ca.Function("mdae_fmu_impact", [x, t, p, w], [Wu, D, B, laws], names,
                         ["Wu", "D", "B", "laws"])
    return gap, impact


def dependencies(f, n_rows):
    """For each output row of ``f(x, t, p, w)``: the ``("x", i)`` and ``("w", k)`` it
    depends on (structural sparsity)."""
    rows = [[] for _ in range(n_rows)]
    if f is None:
        return rows
    for kind, iind in (("x", 0), ("w", 3)):
        if not f.size1_in(iind):
            continue
        sp = f.jac_sparsity(0, iind)
        for r, c in zip(*sp.get_triplet()):
            rows[r].append((kind, c))
    return rows


def platform_dirs(fmi_version):
    """``(binaries folder, shared library suffix)`` of this platform for ``fmi_version``.

    Raises
    ------
    OSError
        A platform the FMI standard names no folder for, or Windows (compiled with MSVC,
        which the export does not drive).
    """
    machine = platform.machine().lower()
    arch = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64",
            "arm64": "aarch64"}.get(machine)
    osname = {"linux": "linux", "darwin": "darwin"}.get(sys.platform.rstrip("0123456789"))
    if arch is None or osname is None:
        raise OSError(f"export_fmu: no FMU binaries for this platform ({sys.platform}, "
                      f"{machine}); mechdae compiles FMUs on Linux and macOS (x86_64, "
                      "aarch64)")
    suffix = ".so" if osname == "linux" else ".dylib"
    if fmi_version == 3:
        return f"{arch}-{osname}", suffix
    if osname == "linux" and arch == "x86_64":
        return "linux64", suffix
    if osname == "darwin":
        return "darwin64", suffix
    raise OSError(f"export_fmu: FMI 2.0 names no binaries folder for {osname} on {arch}; "
                  "export with fmi_version=3")


def compiler():
    """The C compiler command (list), or OSError naming the fix."""
    from ...codegen import _compiler
    try:
        return _compiler()
    except OSError as exc:
        raise OSError(f"export_fmu: {exc}. An FMU carries its model as compiled C: install a "
                      "C compiler (gcc or clang, e.g. `apt-get install gcc`) or set the CC "
                      "environment variable to one, then export again") from None


def _contact_lines(system, options):
    """Contact layout of the header: rows per contact, names, tolerances."""
    nc = len(system.contact_names)
    lines = [f"#define MDAE_NC {nc}"]
    if not nc:
        return lines
    rows = [1 + int(c["n_tangent"]) for c in system.contacts]
    starts = np.cumsum([0] + rows)[:-1]
    names = ", ".join('"' + n.replace("\\", "\\\\").replace('"', '\\"') + '"'
                      for n in system.contact_names)
    lines += [f"#define MDAE_NROWS {sum(rows)}",
              f"#define MDAE_GAP_TOL {options['gap_tol']!r}",
              f"#define MDAE_REST_VEL {options['rest_velocity']!r}",
              f"static const int MDAE_CSTART[{nc}] = {{{', '.join(str(int(x)) for x in starts)}}};",
              f"static const int MDAE_CROWS[{nc}] = {{{', '.join(str(r) for r in rows)}}};",
              f"static const char *const MDAE_CNAME[{nc}] = {{{names}}};",
              "int mdae_fmu_gap(const double **arg, double **res, long long *iw, double *w, "
              "int mem);",
              "int mdae_fmu_impact(const double **arg, double **res, long long *iw, double *w, "
              "int mem);",
              "int mdae_fmu_mode(const double **arg, double **res, long long *iw, double *w, "
              "int mem);"]
    return lines


def _header(layout, functions, token, kind, start, cs_options, system):
    sz = [max(getattr(f, a)() for f in functions)
          for a in ("sz_arg", "sz_res", "sz_iw", "sz_w")]
    L = layout
    lines = ["/* mdae_fmu_model.h - generated by mechdae.export.fmi: sizes, value references",
             " * and start values of this FMU (see mdae_fmu.h). */",
             "#ifndef MDAE_FMU_MODEL_H", "#define MDAE_FMU_MODEL_H", ""]
    for key in ("nx", "np", "nw", "ny"):
        lines.append(f"#define MDAE_{key.upper()} {L[key]}")
    lines += [f"#define MDAE_NQ {system.nq}", f"#define MDAE_NU {system.nu}",
              f"#define MDAE_NLAM {system.m + system.k}"]
    for key in ("VR_X", "VR_DX", "VR_P", "VR_W", "VR_Y", "VR_G", "VR_E"):
        lines.append(f"#define MDAE_{key} {L[key]}")
    lines += [f"#define MDAE_NR {L['NR']}",
              f"#define MDAE_SZ_ARG {sz[0]}", f"#define MDAE_SZ_RES {sz[1]}",
              f"#define MDAE_SZ_IW {sz[2]}", f"#define MDAE_SZ_W {sz[3]}",
              f"#define MDAE_ME {int(kind == 'model-exchange')}",
              f"#define MDAE_CS {int(kind == 'co-simulation')}",
              f"#define MDAE_CS_METHOD {1 if cs_options['method'] == 'dop853' else 0}",
              f"#define MDAE_CS_RTOL {cs_options['rtol']!r}",
              f"#define MDAE_CS_ATOL {cs_options['atol']!r}",
              f'#define MDAE_TOKEN "{token}"', "",
              "static const double MDAE_START[MDAE_NR] = {",
              ",\n".join("    " + repr(float(s)) for s in start), "};", "",
              "int mdae_fmu_ode(const double **arg, double **res, long long *iw, double *w, "
              "int mem);"]
    if L["ny"]:
        lines.append("int mdae_fmu_out(const double **arg, double **res, long long *iw, "
                     "double *w, int mem);")
    lines += _contact_lines(system, cs_options) + ["", "#endif", ""]
    return "\n".join(lines)


def _local_headers(path, seen):
    """Headers of csrc/ that ``path`` includes (transitively)."""
    with open(path) as fh:
        for name in re.findall(r'#include\s+"([^"]+)"', fh.read()):
            full = os.path.join(CSRC_DIR, name)
            if name not in seen and os.path.exists(full):
                seen.add(name)
                _local_headers(full, seen)
    return seen


def write_sources(folder, layout, functions, token, kind, fmi_version, start, cs_options,
                  system):
    """Write every C source and header of the FMU into ``folder`` (flat); returns the
    names of the ``.c`` files (compiled in this order)."""
    gen = ca.CodeGenerator("mdae_fmu_model.c", {"casadi_int": "long long",
                                                "with_header": False})
    for f in functions:
        gen.add(f)
    with open(os.path.join(folder, "mdae_fmu_model.c"), "w") as fh:
        fh.write(gen.dump())
    with open(os.path.join(folder, "mdae_fmu_model.h"), "w") as fh:
        fh.write(_header(layout, functions, token, kind, start, cs_options, system))
    api = f"mdae_fmi{fmi_version}.c"
    sources = ["mdae_fmu_model.c", "mdae_fmu_core.c", api]
    for name in ("mdae_fmu.h", "mdae_fmu_core.c", api):
        shutil.copy(os.path.join(C_DIR, name), folder)
    prefix = f"fmi{fmi_version}"
    for name in os.listdir(INCLUDE_DIR):
        if name.startswith(prefix):
            shutil.copy(os.path.join(INCLUDE_DIR, name), folder)
    kernels = list(CS_SOURCES) if kind == "co-simulation" else []
    if system.contact_names:
        shutil.copy(os.path.join(C_DIR, "mdae_fmu_contact.c"), folder)
        sources.append("mdae_fmu_contact.c")
        kernels += [k for k in CONTACT_SOURCES if k not in kernels]
    if kernels:
        missing = [s for s in kernels if not os.path.exists(os.path.join(CSRC_DIR, s))]
        if missing:
            raise OSError(f"export_fmu: the FMU compiles mechdae's C kernels from csrc/ "
                          f"({', '.join(missing)} not found in {CSRC_DIR}); reinstall mechdae "
                          "(pip install --force-reinstall mechdae, or pip install -e . from "
                          "its source tree): the package carries them in mechdae/_csrc")
        headers = set()
        for s in kernels:
            shutil.copy(os.path.join(CSRC_DIR, s), folder)
            _local_headers(os.path.join(CSRC_DIR, s), headers)
        for h in sorted(headers):
            shutil.copy(os.path.join(CSRC_DIR, h), folder)
        sources += kernels
    return sources


FLAGS = ["-O2", "-std=c99", "-fPIC", "-fvisibility=hidden"]


def _run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"export_fmu: compiling the FMU with {cmd[0]} failed:\n"
                           f"{proc.stderr[-3000:]}")


def _kernel_object(cmd, folder, name):
    """Object file of the csrc/ kernel ``name`` (its sources never change between exports):
    compiled once into mechdae's codegen cache, keyed by the hash of the kernel sources,
    the compiler command and the flags (atomic move: safe across processes)."""
    from ...codegen import cache_dir
    h = hashlib.sha256(f"{' '.join(cmd)}\0{' '.join(FLAGS)}\0{name}".encode())
    for f in sorted(os.listdir(folder)):
        if f.startswith("mdae_") and not f.startswith(("mdae_fmu", "mdae_fmi")):
            h.update(f.encode())
            with open(os.path.join(folder, f), "rb") as fh:
                h.update(fh.read())
    d = os.path.join(cache_dir(), "fmu_kernels", h.hexdigest()[:24])
    obj = os.path.join(d, name[:-2] + ".o")
    if not os.path.exists(obj):
        os.makedirs(d, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=d) as tmp:
            o = os.path.join(tmp, "k.o")
            _run(cmd + FLAGS + ["-I", folder, "-c", "-o", o, os.path.join(folder, name)])
            os.replace(o, obj)
    return obj


def compile_fmu(cmd, folder, sources, out, kernels=()):
    """Compile ``sources`` (in ``folder``) into the shared library ``out``; the ``kernels``
    among them (csrc/ files) from cached object files.

    Raises
    ------
    RuntimeError
        The compiler failed (its message attached).
    """
    flags = FLAGS + ["-shared"]
    if sys.platform == "darwin":
        flags += ["-undefined", "dynamic_lookup"]
    objs = [_kernel_object(cmd, folder, k) for k in sources if k in kernels]
    _run(cmd + flags + ["-I", folder, "-o", out]
         + [os.path.join(folder, s) for s in sources if s not in kernels] + objs + ["-lm"])
    if not os.path.exists(out):
        raise RuntimeError(f"export_fmu: the compiler wrote no library {out!r}")


def build_description(identifier, sources):
    """sources/buildDescription.xml (FMI 3.0): one C99 file set."""
    files = "".join(f'      <SourceFile name="{s}"/>\n' for s in sources)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<fmiBuildDescription fmiVersion="3.0">\n'
            f'  <BuildConfiguration modelIdentifier="{identifier}">\n'
            f'    <SourceFileSet language="C99">\n{files}    </SourceFileSet>\n'
            '  </BuildConfiguration>\n</fmiBuildDescription>\n')


def write_fmu(path, description, folder, library, bin_dir, identifier, suffix, fmi_version,
              sources):
    """Zip the FMU: modelDescription.xml, binaries/<platform>/<identifier><suffix>,
    sources/ (every file of ``folder``); written beside ``path`` and moved in place."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=".fmu", dir=d)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("modelDescription.xml", description)
            z.write(library, f"binaries/{bin_dir}/{identifier}{suffix}")
            for name in sorted(os.listdir(folder)):
                z.write(os.path.join(folder, name), f"sources/{name}")
            if fmi_version == 3:
                z.writestr("sources/buildDescription.xml", build_description(identifier, sources))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def start_vector(layout, x0, p0, w0):
    """The instance's start values by value reference (derivatives and outputs 0)."""
    s = np.zeros(layout["NR"])
    s[layout["VR_X"]:layout["VR_X"] + layout["nx"]] = x0
    s[layout["VR_P"]:layout["VR_P"] + layout["np"]] = p0
    s[layout["VR_W"]:layout["VR_W"] + layout["nw"]] = w0
    return s
