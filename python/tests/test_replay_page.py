"""python3 -m libgjk.analysis --html (issue 14): the sharded analysis writes gjk-clearance's 3D
replay page (the C++ gjk::replay writer, bound), thinned to --html-max-frames states per path
that keep the worst state and every collision onset; a page that cannot be written is exit 4
with nothing left behind. The page in a browser: tests/replay/test_replay_browser.py."""

from __future__ import annotations

import base64
import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

from conftest import FOUR_DOF_URDF, SCENES_DIR

from libgjk import analysis

SCENE = os.path.join(SCENES_DIR, "two_pyramids.yaml")
START = np.radians([0.0, 90.0, -150.0, -30.0])
# The four-DOF example's k = 0 pose at t = 7 s: link3 0.058 m inside pyramid_low.
THROUGH = np.array([0.0, 2.2585, -2.0655, -0.5433])
CLEAR_GOAL = np.radians([30.0, 60.0, -120.0, 10.0])


def write_path(file: Path, waypoints: List[np.ndarray], states: int, timed: bool = True) -> None:
    """A piecewise-straight joint path through the waypoints, with a t column when timed."""
    s = np.linspace(0.0, len(waypoints) - 1, states)
    rows = []
    for x in s:
        k = min(int(x), len(waypoints) - 2)
        q = waypoints[k] + (x - k) * (waypoints[k + 1] - waypoints[k])
        rows.append(q)
    lines = ["t,joint1,joint2,joint3,joint4"] if timed else []
    for i, q in enumerate(rows):
        values = ([i * 0.01] if timed else []) + [float(v) for v in q]
        lines.append(",".join(repr(v) for v in values))
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")


def page_data(page: Path) -> Dict[str, Any]:
    """The JSON a replay page carries, with the runs' arrays decoded."""
    text = page.read_text(encoding="utf-8")
    start = text.index('<script id="replay-data" type="application/json">')
    start = text.index(">", start) + 1
    data = json.loads(text[start:text.index("</script>", start)])
    types = {"times": np.float64, "poses": np.float32, "link_clearance": np.float32,
             "clearance": np.float64, "worst": np.int32, "witness": np.float32}
    for run in data["runs"]:
        for key, dtype in types.items():
            run[key] = np.frombuffer(base64.b64decode(run[key]), dtype=dtype)
    return data


def states_csv(out: Path, name: str) -> List[Dict[str, str]]:
    with open(out / f"{name}.states.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def cli(*args: str) -> List[str]:
    return [sys.executable, "-m", "libgjk.analysis", FOUR_DOF_URDF, SCENE, *args]


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> List[Path]:
    """A 3000-state path into pyramid_low twice (timed) and a 700-state clear one (untimed)."""
    d = tmp_path_factory.mktemp("replay_paths")
    through, clear = d / "through.csv", d / "clear.csv"
    write_path(through, [START, THROUGH, START, THROUGH, START], 3000)
    write_path(clear, [START, CLEAR_GOAL], 700, timed=False)
    return [through, clear]


@pytest.fixture(scope="module")
def run_with_page(paths: List[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CLI's results folder, with page.html of at most 100 frames per path."""
    out = tmp_path_factory.mktemp("replay_out")
    r = subprocess.run(cli(*map(str, paths), "--out", str(out / "res"), "--workers", "0",
                           "--shard-states", "512", "--margin", "0.05",
                           "--html", str(out / "page.html"), "--html-max-frames", "100"),
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == analysis.EXIT_OK, r.stderr
    assert "replay page" in r.stdout and "through (100 frames)" in r.stdout, r.stdout
    return out


def test_page_is_self_contained_and_thinned(run_with_page: Path) -> None:
    """One file, three.js inlined; each path at most 100 frames (the short one whole)."""
    page = run_with_page / "page.html"
    text = page.read_text(encoding="utf-8")
    assert '"three":"data:text/javascript;base64,' in text
    assert 'src="http' not in text and 'href="http' not in text  # nothing to fetch
    print(f"analysis page: {page.stat().st_size} bytes")
    assert page.stat().st_size < 2 * 1024 * 1024
    data = page_data(page)
    assert [r["name"] for r in data["runs"]] == ["through", "clear"]
    assert [r["frames"] for r in data["runs"]] == [100, 100]
    assert data["margin"] == 0.05
    assert not list(run_with_page.glob(".page.html*")), "a temporary file was left"


def test_page_keeps_the_instants_that_matter(run_with_page: Path) -> None:
    """The worst state, every collision onset and the ends are frames of the page, with the
    clearance the sharded run measured (the same state analysed again, to 1e-12)."""
    data = page_data(run_with_page / "page.html")
    rows = states_csv(run_with_page / "res", "through")
    distance = np.array([float(r["distance"]) for r in rows])
    assert len(rows) == 3000
    assert distance.min() < 0, "the path must go into pyramid_low"
    run = data["runs"][0]
    # Timed only when every path is: here one is not, so times are state indices.
    frames = run["times"].astype(int)
    assert data["time_label"] == "state"
    assert np.all(np.diff(frames) > 0) and frames[0] == 0 and frames[-1] == 2999
    onsets = [i for i in range(len(distance))
              if distance[i] < 0 and (i == 0 or distance[i - 1] >= 0)]
    worst = int(np.argmin(distance))
    assert len(onsets) == 2 and set(onsets + [worst]) <= set(frames.tolist()), (onsets, worst)
    np.testing.assert_allclose(run["clearance"], distance[frames], rtol=0, atol=1e-12)
    # The per-link colours: the worst pair's link has the frame's clearance.
    at = frames.tolist().index(worst)
    assert run["clearance"][at] < 0
    assert np.isclose(run["link_clearance"].reshape(100, -1)[at].min(), distance[worst],
                      atol=1e-6)


def test_html_max_paths(run_with_page: Path, paths: List[Path]) -> None:
    """--html-max-paths 1 on the finished results folder (every shard skipped): the page holds
    only the path with the smallest clearance, and says the other is left out."""
    page = run_with_page / "one.html"
    r = subprocess.run(cli(*map(str, paths), "--out", str(run_with_page / "res"), "--workers",
                           "0", "--shard-states", "512", "--margin", "0.05", "--html", str(page),
                           "--html-max-paths", "1", "--html-max-frames", "0"),
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == analysis.EXIT_OK, r.stderr
    assert "through (3000 frames); 1 path(s) with more clearance left out" in r.stdout, r.stdout
    assert re.search(r"(\d+) shards \(\1 already done\)", r.stdout), r.stdout  # resumed
    assert [(run["name"], run["frames"]) for run in page_data(page)["runs"]] == [("through", 3000)]


def test_html_unwritable_is_exit_4_and_leaves_nothing(paths: List[Path], tmp_path: Path) -> None:
    """A page in a missing folder, or a folder as the page: exit 4 before the analysis (no
    results folder), the file named; a bad --html-max-frames is a usage error (exit 2)."""
    for html in (tmp_path / "missing" / "page.html", tmp_path):
        out = tmp_path / "res"
        r = subprocess.run(cli(str(paths[1]), "--out", str(out), "--workers", "0",
                               "--html", str(html)),
                           capture_output=True, text=True, timeout=120, check=False)
        assert r.returncode == analysis.EXIT_OUTPUT == 4, r.stderr
        assert f"cannot write replay '{html}'" in r.stderr, r.stderr
        assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    r = subprocess.run(cli(str(paths[1]), "--out", str(tmp_path / "res"), "--html",
                           str(tmp_path / "p.html"), "--html-max-frames", "-3"),
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == analysis.EXIT_USAGE == 2
    assert "--html-max-frames: expected a whole number >= 0, got '-3'" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_write_replay_page_errors(paths: List[Path], tmp_path: Path) -> None:
    """The binding names the problem; an unwritable page is a ReplayError (an OSError) and
    leaves no file."""
    world = analysis.load_world(FOUR_DOF_URDF, SCENE)
    page = tmp_path / "p.html"
    with pytest.raises(ValueError, match="state 700 of 'clear' is past the end"):
        analysis.write_replay_page(world, str(page), [
            {"name": "clear", "path": paths[1], "frames": [0, 700]}])
    with pytest.raises(ValueError, match="must increase"):
        analysis.write_replay_page(world, str(page), [
            {"name": "clear", "path": paths[1], "frames": [5, 5]}])
    with pytest.raises(analysis.ReplayError, match="missing") as e:
        analysis.write_replay_page(world, str(tmp_path / "missing" / "p.html"), [
            {"name": "clear", "path": paths[1]}])
    assert isinstance(e.value, OSError)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    # Without frames: every state analysed, thinned to max_frames.
    assert analysis.write_replay_page(world, str(page), [
        {"name": "clear", "path": paths[1]}], max_frames=50) == [50]
    assert page_data(page)["runs"][0]["frames"] == 50


def test_select_frames() -> None:
    """The C++ selection, bound: all frames when they fit, else N with the worst first."""
    d = np.linspace(1.0, 2.0, 1000)
    d[400:420] = -0.01
    d[410] = -0.5
    assert analysis.select_frames(d, 0).tolist() == list(range(1000))
    kept = analysis.select_frames(d, 10, 0.05)
    assert kept.dtype == np.int64 and len(kept) == 10
    assert {0, 400, 410, 999} <= set(kept.tolist())
    with pytest.raises(ValueError, match="NaN"):
        analysis.select_frames([1.0, float("nan")], 1)
