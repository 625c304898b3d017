"""The 3-D page of a run (Result.animate("run.html")): self-contained (meshcat's viewer
embedded, no server, no network), its keyframes are the configurations the run computed
(checked against the closed form of a spherical top's center of mass), and it loads and
draws in a real headless Chromium without console errors (slow)."""
import base64
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import mechdae as md
from mechdae.components import spatial as sp

umsgpack = pytest.importorskip("umsgpack")
pytest.importorskip("meshcat")

MODELS = os.path.join(os.path.dirname(__file__), "..", "models")


def _top(t_final=0.4):
    m = md.Model("top")
    w = m.add(sp.World("world"))
    j = m.add(sp.Spherical("j", n=(1.0, 0.0, 0.0), angle0=0.3))
    b = m.add(sp.Body("b", m=1.0, I=(0.02, 0.02, 0.03), r_cm=(0.0, 0.0, 0.1)))
    m.connect(w.frame, j.frame_a)
    m.connect(j.frame_b, b.frame_a)
    return m.compile().simulate(t_final, v0={"j.wz": 40.0}, progress=False)


def _commands(html):
    return [umsgpack.unpackb(base64.b64decode(s))
            for s in re.findall(r"handle_command_bytearray\(_b64\('([A-Za-z0-9+/=]+)'\)\)", html)]


def test_page_is_self_contained_and_its_keyframes_are_the_computed_motion(tmp_path):
    res = _top()
    page = res.animate(tmp_path / "top.html", fps=20)
    html = open(page.path, encoding="utf-8").read()
    assert page.html == html and "<iframe srcdoc=" in page._repr_html_()
    # no external resource: the viewer's bundle is inline, nothing is fetched
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=|https?://[^\"' ]+\.js", html)
    assert "MeshCat.Viewer" in html and len(html) > 500_000
    cmds = _commands(html)
    objects = [c for c in cmds if c["type"] == "set_object"]
    assert {c["path"].split("/")[-1] for c in objects} >= {"s0", "s1", "s2", "s3"}
    (anim,) = [c for c in cmds if c["type"] == "set_animation"]
    clips = {a["path"]: a["clip"] for a in anim["animations"]}
    # shape 3 is the body's sphere (axes, ball joint, rod, sphere): its keyframes sit at
    # the center of mass, 0.1 m from the pivot along the top's axis R e_z
    sphere = clips["/mechdae/s3"]
    assert sphere["fps"] == 20
    (track,) = [t for t in sphere["tracks"] if t["name"] == ".position"]
    P = np.array([k["value"] for k in track["keys"]])
    assert len(P) == 9                                 # 0.4 s at 20 frames per second
    assert np.allclose(np.linalg.norm(P, axis=1), 0.1, atol=1e-9)
    from mechdae.simulate.animate import frame_indices
    idx = frame_indices(res.t, 20, 1.0)
    q = np.stack([res[f"j.q{k}"] for k in range(4)], axis=1)[idx]
    q /= np.linalg.norm(q, axis=1)[:, None]
    q0, q1, q2, q3 = q.T
    ez = np.stack([2 * (q1 * q3 + q0 * q2), 2 * (q2 * q3 - q0 * q1),
                   1 - 2 * (q1 ** 2 + q2 ** 2)], axis=1)
    assert np.allclose(P, 0.1 * ez, atol=1e-9)


def test_planar_and_contact_models_write_pages(tmp_path):
    from mechdae.cli import main
    out = tmp_path / "block.html"
    rc = main(["run", os.path.join(MODELS, "rocking_block.py"), "--t-final", "0.3",
               "--no-plot", "--animate", str(out), "--no-progress"])
    assert rc == 0
    cmds = _commands(out.read_text(encoding="utf-8"))
    # the plane (x, y) is shown as (x, z): the root turns y into z
    (root,) = [c for c in cmds if c["type"] == "set_transform" and c["path"] == "/mechdae"]
    M = np.array(root["matrix"]).reshape(4, 4).T
    assert np.allclose(M[:3, :3] @ [0.0, 1.0, 0.0], [0.0, 0.0, 1.0])
    # a contact point has a red twin, visible exactly while the contact is closed
    (anim,) = [c for c in cmds if c["type"] == "set_animation"]
    vis = [t for a in anim["animations"] for t in a["clip"]["tracks"] if t["name"] == ".visible"]
    assert vis and all(isinstance(k["value"], bool) for t in vis for k in t["keys"])


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.slow
def test_page_loads_and_draws_in_headless_chromium(tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("no Chromium on this machine (apt-get install chromium)")
    page = _top(0.3).animate(tmp_path / "top.html", fps=20)
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--use-gl=swiftshader",
             "--enable-unsafe-swiftshader", "--window-size=800,600",
             "--virtual-time-budget=4000"]
    url = "file://" + os.path.abspath(page.path)
    dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True,
                         timeout=120).stdout
    m = re.search(r'<div id="mechdae-status"[^>]*>([^<]*)</div>', dom)
    assert m, "the page's script did not run"
    status = json.loads(m.group(1).replace("&quot;", '"'))
    assert status["errors"] == []
    assert status["objects"] == 4 and status["duration"] == pytest.approx(0.3, abs=0.06)
    assert status["canvas"][0] > 100 and status["canvas"][1] > 100
    # it draws: the same view without the model's objects differs where the top is
    from mechdae.simulate.animate import scene_of
    from mechdae.simulate.view3d import html_page
    scene = scene_of(page_res := _top(0.3))
    scene.shapes = []
    blank = tmp_path / "blank.html"
    blank.write_text(html_page(scene, fps=20), encoding="utf-8")
    from PIL import Image
    shots = []
    for name, src in (("shot", page.path), ("blank", blank)):
        png = tmp_path / f"{name}.png"
        subprocess.run(flags + [f"--screenshot={png}", "file://" + os.path.abspath(src)],
                       capture_output=True, timeout=120)
        with Image.open(png) as im:
            shots.append(np.asarray(im.convert("RGB"), float))
    changed = np.abs(shots[0] - shots[1]).max(axis=2) > 40
    assert page_res.t[-1] == pytest.approx(0.3)
    assert 50 < changed.sum() < 0.5 * changed.size


def test_robot_visuals_from_the_file_are_drawn_on_their_links(tmp_path):
    robots = pytest.importorskip("mechdae.robots")
    data = os.path.join(os.path.dirname(__file__), "data", "robots", "two_link_arm.urdf")
    m = robots.load_urdf(data)
    page = m.compile().simulate(0.1, progress=False).animate(tmp_path / "arm.html", fps=20)
    cmds = _commands(page.html)
    # the base's <visual>: a cylinder of radius 0.05 and length 1 centred 0.5 above the
    # base frame, its axis (z in the file, y in three.js) turned to the world's z
    cyl = [c for c in cmds if c["type"] == "set_object" and
           c["object"]["geometries"][0].get("type") == "CylinderGeometry" and
           c["object"]["geometries"][0]["radiusTop"] == 0.05]
    assert len(cyl) == 1
    geo = cyl[0]["object"]["geometries"][0]
    assert geo["height"] == 1.0 and geo["radiusBottom"] == 0.05
    (anim,) = [c for c in cmds if c["type"] == "set_animation"]
    clip = {a["path"]: a["clip"] for a in anim["animations"]}[cyl[0]["path"]]
    tracks = {t["name"]: t["keys"] for t in clip["tracks"]}
    assert np.allclose([k["value"] for k in tracks[".position"]], [0.0, 0.0, 0.5])
    x, y, z, w = tracks[".quaternion"][0]["value"]
    # rotation of the quaternion applied to e_y
    ey = [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)]
    assert np.allclose(ey, [0.0, 0.0, 1.0], atol=1e-12)
