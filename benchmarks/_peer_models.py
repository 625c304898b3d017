"""The benchmark models rebuilt in the peers (Pinocchio, MuJoCo), with checks that they are
the same systems as mechdae's, and the C++ harness that times Pinocchio's ABA without Python.

The n-link chain of models/nlink_chain.py (point mass ``m`` at the tip of each massless
link of length ``L``, gravity ``g``, absolute angles ``theta_i`` from the downward vertical):

* Pinocchio: revolute joints about y (motion in the x-z plane, gravity along -z), joint i
  at the tip of link i-1, body i a point mass at ``(0, 0, -L)`` in joint i's frame (no
  rotational inertia). Its angles are relative, ``theta_i = q_1 + ... + q_i`` (likewise
  velocities and accelerations: a cumulative sum). The chain swings in the mirror image
  of mechdae's (``x -> -x``): the Lagrangian in ``theta`` is the same.
* MuJoCo: the same tree in MJCF (hinges about y, RK4 at dt = 1 ms). MuJoCo refuses a
  body with zero rotational inertia (``mjMINVAL``): each point mass carries
  ``MJ_INERTIA`` = 1e-13 kg m^2 about its centre, 1e-13 of ``m L^2`` (the acceleration
  check below still holds to 1e-9).

The column of beads of models/column_of_beads.py in MuJoCo: spheres of radius ``R`` on
vertical slide joints above a ground plane (one degree of freedom each, as mechdae's),
dt = 1 ms, MuJoCo's soft contacts with a damping chosen for the restitution ``e`` (see
:func:`mj_column`).
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

import numpy as np

MJ_INERTIA = 1e-13


# ----------------------------------------------------------------------------- Pinocchio
def pin_chain(pin, n, L=1.0, m=1.0, g=9.81):
    """The n-link chain as a ``pinocchio.Model`` (relative angles; see the module doc)."""
    model = pin.Model()
    model.gravity = pin.Motion(np.array([0.0, 0.0, -g, 0.0, 0.0, 0.0]))
    parent = 0
    for i in range(n):
        at = pin.SE3(np.eye(3), np.array([0.0, 0.0, 0.0 if i == 0 else -L]))
        parent = model.addJoint(parent, pin.JointModelRY(), at, f"joint{i + 1}")
        model.appendBodyToJoint(parent, pin.Inertia(m, np.array([0.0, 0.0, -L]),
                                                    np.zeros((3, 3))), pin.SE3.Identity())
    return model


def relative(theta):
    """Absolute angles (or their rates) -> the peers' relative joint coordinates."""
    return np.diff(theta, prepend=0.0, axis=-1)


def check_same(what, acc_md, acc_peer, tol=1e-9):
    """Assert the accelerations agree (``|a - b| <= tol max(1, |a|)``); returns the error."""
    err = float(np.max(np.abs(acc_md - acc_peer) / np.maximum(1.0, np.abs(acc_md))))
    assert err <= tol, (f"{what}: accelerations differ from mechdae's by {err:.1e} "
                        f"(> {tol:g}): the peer's model is not the same chain")
    return err


# ----------------------------------------------------------------------------- MuJoCo
def mj_chain_xml(n, L=1.0, m=1.0, g=9.81, dt=1e-3):
    """MJCF of the n-link chain, RK4 at ``dt``."""
    L, m, g, dt = (float(a) for a in (L, m, g, dt))       # repr: full precision
    body = ""
    for i in reversed(range(n)):
        body = (f'<body name="b{i + 1}" pos="0 0 {0.0 if i == 0 else -L!r}">'
                f'<joint name="j{i + 1}" type="hinge" axis="0 1 0"/>'
                f'<inertial pos="0 0 {-L!r}" mass="{m!r}" '
                f'diaginertia="{MJ_INERTIA} {MJ_INERTIA} {MJ_INERTIA}"/>{body}</body>')
    return (f'<mujoco model="chain{n}"><option timestep="{dt!r}" gravity="0 0 {-g!r}" '
            f'integrator="RK4"/><worldbody>{body}</worldbody></mujoco>')


def mj_acc(mujoco, model, data, q, v):
    """MuJoCo's joint accelerations at ``(q, v)`` (relative coordinates)."""
    data.qpos[:] = q
    data.qvel[:] = v
    mujoco.mj_forward(model, data)
    return data.qacc.copy()


def restitution_damping(e, k):
    """Damping ``b`` of ``r'' + b r' + k r = 0`` whose bounce has restitution ``e``:
    ``e = exp(-zeta pi / sqrt(1 - zeta^2))``, ``b = 2 zeta sqrt(k)``."""
    a = np.log(1.0 / e) / np.pi
    zeta = a / np.sqrt(1.0 + a * a)
    return 2.0 * zeta * float(np.sqrt(k))


def mj_column(n=10, R=0.1, m=1.0, g=9.81, e=0.9, dt=1e-3, k=1e5):
    """MJCF of the column of beads: spheres on vertical slide joints above a plane.

    Contacts are MuJoCo's soft ones, ``solref = (-k, -b)`` (stiffness ``k`` in
    acceleration units, ``b`` from :func:`restitution_damping`) with ``solimp`` near 1
    (nearly all of that stiffness at once): a bounce with restitution close to ``e``, a
    penetration of about ``g / k`` per bead of load at rest. Frictionless (``condim=1``),
    as mechdae's column.
    """
    R, m, g, dt = (float(a) for a in (R, m, g, dt))
    b = float(restitution_damping(e, k))
    soft = f'solref="{-k:.17g} {-b:.17g}" solimp="0.99 0.999 0.001" condim="1"'
    beads = "".join(
        f'<body name="bead{i}" pos="0 0 0"><joint name="y{i}" type="slide" axis="0 0 1"/>'
        f'<geom type="sphere" size="{R!r}" mass="{m!r}" {soft}/></body>' for i in range(n))
    return (f'<mujoco model="column{n}"><option timestep="{dt!r}" gravity="0 0 {-g!r}"/>'
            f'<worldbody><geom type="plane" size="5 5 .1" {soft}/>{beads}</worldbody>'
            '</mujoco>')


# ----------------------------------------------------------------------------- C++ harness
_CXX = r"""
#if __has_include(<pinocchio/multibody/model.hpp>)
#include <pinocchio/multibody/model.hpp>
#include <pinocchio/multibody/data.hpp>
#else
#include <pinocchio/multibody.hpp>
#endif
#include <pinocchio/algorithm/aba.hpp>
#include <chrono>
#include <string>
#include <vector>

static double now_s() {
  return std::chrono::duration<double>(
      std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* Pinocchio's ABA on the chain: accelerations at (q, v) into a; best seconds per call
   over `repeat` loops of `reps` calls (q[0] nudged by 1e-300 so no call is hoisted). */
extern "C" double pin_chain_aba(int n, double L, double m, double g, const double* q,
                                const double* v, double* a, long reps, int repeat) {
  pinocchio::Model model;
  model.gravity.linear(Eigen::Vector3d(0, 0, -g));
  pinocchio::JointIndex parent = 0;
  for (int i = 0; i < n; ++i) {
    pinocchio::SE3 at(Eigen::Matrix3d::Identity(), Eigen::Vector3d(0, 0, i ? -L : 0.0));
    parent = model.addJoint(parent, pinocchio::JointModelRY(), at,
                            "joint" + std::to_string(i + 1));
    model.appendBodyToJoint(parent, pinocchio::Inertia(m, Eigen::Vector3d(0, 0, -L),
                            Eigen::Matrix3d::Zero()), pinocchio::SE3::Identity());
  }
  pinocchio::Data data(model);
  Eigen::VectorXd Q = Eigen::Map<const Eigen::VectorXd>(q, n);
  Eigen::VectorXd V = Eigen::Map<const Eigen::VectorXd>(v, n);
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(n);
  Eigen::Map<Eigen::VectorXd>(a, n) = pinocchio::aba(model, data, Q, V, tau);
  double best = 1e300;
  volatile double sink = 0;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now_s();
    for (long k = 0; k < reps; ++k) {
      Q[0] += 1e-300;
      sink = sink + pinocchio::aba(model, data, Q, V, tau)[n - 1];
    }
    double t = (now_s() - t0) / (double)reps;
    if (t < best) best = t;
  }
  return best;
}

/* A CasADi generated function f(x, t, p) -> out called in a C loop (no CasADi, no
   Python between calls): best seconds per call. */
typedef int (*casadi_fn)(const double**, double**, long long*, double*, int);
extern "C" double casadi_loop(void* f, int sz_arg, int sz_res, int sz_iw, int sz_w,
                              const double* x, const double* t, const double* p,
                              double* out, long reps, int repeat) {
  casadi_fn fn = (casadi_fn)f;
  std::vector<const double*> arg(sz_arg > 3 ? sz_arg : 3);
  std::vector<double*> res(sz_res > 1 ? sz_res : 1);
  std::vector<long long> iw(sz_iw + 1);
  std::vector<double> w(sz_w + 1);
  arg[0] = x; arg[1] = t; arg[2] = p; res[0] = out;
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now_s();
    for (long k = 0; k < reps; ++k)
      if (fn(arg.data(), res.data(), iw.data(), w.data(), 0)) return -1.0;
    double tt = (now_s() - t0) / (double)reps;
    if (tt < best) best = tt;
  }
  return best;
}
"""
CXX_FLAGS = ["-O3", "-DNDEBUG", "-std=c++17"]
# what Pinocchio's CMake targets pass (its joint variant has more than 20 types)
_PIN_DEFINES = ["-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
                "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS",
                "-DBOOST_FUSION_INVOKE_MAX_ARITY=12"]


def _pin_prefix(pin):
    """The install prefix holding include/pinocchio (the wheel's cmeel.prefix), or None."""
    d = os.path.dirname(os.path.abspath(pin.__file__))
    while d != os.path.dirname(d):
        if os.path.isdir(os.path.join(d, "include", "pinocchio")):
            return d
        d = os.path.dirname(d)
    return None


def _eigen_include(prefix):
    """A folder holding Eigen/ (Pinocchio's wheel has none: CasADi's wheel ships one)."""
    import casadi
    cands = [os.path.join(prefix, "include", "eigen3"), "/usr/include/eigen3",
             "/usr/local/include/eigen3",
             os.path.join(os.path.dirname(casadi.__file__), "include", "eigen3")]
    return next((c for c in cands if os.path.isfile(os.path.join(c, "Eigen", "Core"))), None)


def cxx_harness(pin):
    """``(ctypes.CDLL, None)`` of the C++ harness (Pinocchio header-only at ``CXX_FLAGS``,
    built once and cached beside mechdae's generated code), or ``(None, reason)``."""
    from mechdae.codegen import cache_dir
    prefix = _pin_prefix(pin)
    if prefix is None:
        return None, "the pinocchio package ships no C++ headers here"
    eigen = _eigen_include(prefix)
    if eigen is None:
        return None, "no Eigen headers found (pinocchio's wheel has none)"
    cxx = os.environ.get("CXX", "g++").split()
    if shutil.which(cxx[0]) is None:
        return None, f"no C++ compiler ({cxx[0]!r} not found; set CXX)"
    cmd = cxx + CXX_FLAGS + _PIN_DEFINES + ["-I", os.path.join(prefix, "include"), "-I",
                                            eigen, "-fPIC", "-shared"]
    key = hashlib.sha256("\0".join([_CXX, " ".join(cmd), pin.__version__]).encode())
    so = os.path.join(cache_dir(), f"bench_pin_{key.hexdigest()[:16]}.so")
    if not os.path.exists(so):
        print(f"  building the Pinocchio C++ harness once ({' '.join(cxx + CXX_FLAGS)}, "
              "header-only; some minutes on 2 cores) ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "harness.cpp")
            with open(src, "w") as fh:
                fh.write(_CXX)
            out = os.path.join(tmp, "harness.so")
            p = subprocess.run(cmd + ["-o", out, src], capture_output=True, text=True)
            if p.returncode:
                return None, f"the C++ harness did not compile: {p.stderr[-300:]}"
            os.replace(out, so)
    lib = ctypes.CDLL(so)
    dp, lg, i = ctypes.POINTER(ctypes.c_double), ctypes.c_long, ctypes.c_int
    lib.pin_chain_aba.restype = ctypes.c_double
    lib.pin_chain_aba.argtypes = [i, ctypes.c_double, ctypes.c_double, ctypes.c_double,
                                  dp, dp, dp, lg, i]
    lib.casadi_loop.restype = ctypes.c_double
    lib.casadi_loop.argtypes = [ctypes.c_void_p, i, i, i, i, dp, dp, dp, dp, lg, i]
    return lib, None


def ptr(a):
    """A float64 numpy array as a ctypes double pointer (the array must stay alive)."""
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
