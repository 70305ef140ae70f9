"""libgjk.analysis (issue 13): shards of the C++ analysis merge to the unsharded run, and the
dask driver gives the single-process results on a LocalCluster, with a worker killed mid-run
(real dask-scheduler and dask-worker processes) and after the whole run was killed and resumed.
Everything is real (no mocks); the 4-DOF arm and its two pyramids keep it to seconds."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import FOUR_DOF_URDF, SCENES_DIR

from libgjk import analysis

SCENE = os.path.join(SCENES_DIR, "two_pyramids.yaml")
START = np.radians([0.0, 90.0, -150.0, -30.0])
GOALS = [np.radians(g) for g in ([0, 40, -40, -60], [30, 60, -120, 10], [-45, 100, -90, -80])]

# Timing fields differ between runs; everything else must be equal.
TIMING = {"threads", "blocks", "seconds", "thread_seconds", "thread_cpu_seconds",
          "states_per_second"}


def write_path(file: str, goal: np.ndarray, states: int, bad_row: int | None = None) -> None:
    """A joint path from START to goal with a t column, optionally with one unreadable row."""
    s = np.linspace(0.0, 1.0, states)[:, None]
    q = START + s * (goal - START)
    lines = ["t,joint1,joint2,joint3,joint4"]
    for i, row in enumerate(q):
        if i == bad_row:
            lines.append("0.5,abc,0,0,0")
        lines.append(",".join(repr(float(x)) for x in [i * 0.01, *row]))
    with open(file, "w") as f:
        f.write("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def world():
    return analysis.load_world(FOUR_DOF_URDF, SCENE)


@pytest.fixture(scope="module")
def small_paths(tmp_path_factory) -> list[str]:
    """Three paths: 1100 states with a bad row, 600 and 300 (10 shards of 256)."""
    d = tmp_path_factory.mktemp("paths")
    files = []
    for k, (n, bad) in enumerate([(1100, 700), (600, None), (300, None)]):
        f = str(d / f"path{k}.csv")
        write_path(f, GOALS[k], n, bad)
        files.append(f)
    return files


@pytest.fixture(scope="module")
def long_paths(tmp_path_factory) -> list[str]:
    """Paths long enough that a run lasts a few seconds on 2 workers (24 shards of 4096)."""
    d = tmp_path_factory.mktemp("long")
    files = []
    for k in range(3):
        f = str(d / f"long{k}.csv")
        write_path(f, GOALS[k], 8 * 4096)
        files.append(f)
    return files


def read_outputs(out: str) -> dict[str, object]:
    """The results of a run that must not depend on how it was run: the CSVs byte for byte, the
    summaries without their timing fields (and the HDF5 tables)."""
    files: dict[str, object] = {}
    for name in sorted(os.listdir(out)):
        full = os.path.join(out, name)
        if name.endswith(".csv"):
            with open(full, "rb") as f:
                files[name] = f.read()
        elif name.endswith(".summary.json"):
            with open(full) as f:
                files[name] = {k: v for k, v in json.load(f).items() if k not in TIMING}
        elif name == "summary.h5":
            import h5py

            with h5py.File(full) as h:
                data = {}
                h.visititems(lambda k, v: data.__setitem__(k, v[()]) if hasattr(v, "shape") else None)
                # repr: NaN ("not applicable", e.g. time below an infinite margin) equals itself
                files[name] = {k: repr(v.tolist() if hasattr(v, "tolist") else v)
                               for k, v in data.items()}
    return files


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "libgjk.analysis", FOUR_DOF_URDF, SCENE, *args]


# ---- the bindings

def test_shards_equal_unsharded_run(world, small_paths):
    path = small_paths[0]
    whole = analysis.analyse(world, path, collect_pairs=True)
    assert whole["analysis"].states == 1100
    assert [e[0] for e in whole["errors"]] == [702]  # header + 700 rows before it
    parts = [analysis.analyse(world, path, first_index=f, count=256, collect_pairs=True)
             for f in range(0, 1100, 256)]
    for key, value in whole["states"].items():
        np.testing.assert_array_equal(np.concatenate([p["states"][key] for p in parts]), value)
    for key, value in whole["pairs"].items():
        np.testing.assert_array_equal(np.concatenate([p["pairs"][key] for p in parts]), value)
    # Each bad row is reported by exactly one shard.
    assert sum(len(p["errors"]) for p in parts) == 1
    merged = analysis.merge_shards(p["analysis"] for p in parts)
    strip = lambda a: {k: v for k, v in a.to_dict().items() if k not in TIMING}  # noqa: E731
    assert strip(merged) == strip(whole["analysis"])
    assert merged.minimum == whole["analysis"].minimum
    # An array path gives the same records as the file.
    arr = np.loadtxt(small_paths[1], delimiter=",", skiprows=1)[:, 1:]
    a = analysis.analyse(world, arr, first_index=256, count=256)
    f = analysis.analyse(world, small_paths[1], first_index=256, count=256)
    for key in ("index", "distance", "shape", "obstacle", "point_on_link", "normal"):
        np.testing.assert_array_equal(a["states"][key], f["states"][key])


def test_seek_equals_skip(world, tmp_path):
    """Shards that seek to their rows (index_path) equal shards that skip the rows before them
    and the whole run, also for a bad row right after a shard boundary."""
    path = str(tmp_path / "p.csv")
    write_path(path, GOALS[1], 700, bad_row=256)  # the bad row follows state 255
    whole = analysis.analyse(world, path, collect_pairs=True)
    index = analysis.index_path(path, world, every=256)
    assert index["states"] == 700 and index["has_header"] and len(index["seeks"]) == 2
    errors = []
    for k, first in enumerate(range(0, 700, 256)):
        seek = index["seeks"][k - 1] if k else None
        a = analysis.analyse(world, path, first_index=first, count=256, seek=seek)
        b = analysis.analyse(world, path, first_index=first, count=256)
        for key, value in a["states"].items():
            np.testing.assert_array_equal(value, b["states"][key])
            np.testing.assert_array_equal(value, whole["states"][key][first:first + 256])
        assert a["errors"] == b["errors"]
        errors += a["errors"]
    assert errors == whole["errors"] and [e[0] for e in errors] == [258]
    with pytest.raises(ValueError, match="inside the header"):
        analysis.analyse(world, path, first_index=256, seek=(3, 1))


def test_analysis_pickles_and_checks(world, small_paths):
    a = analysis.analyse(world, small_paths[2], collect_states=False)["analysis"]
    b = pickle.loads(pickle.dumps(a))
    assert b.to_dict() == a.to_dict()
    assert analysis.Analysis.from_dict(json.loads(json.dumps(a.to_dict()))).to_dict() == a.to_dict()
    d = a.to_dict()
    del d["overall"]
    with pytest.raises(ValueError, match="missing key 'overall'"):
        analysis.Analysis.from_dict(d)
    with pytest.raises(ValueError, match="first_index: 100 is not a multiple of block_size 256"):
        analysis.analyse(world, small_paths[2], first_index=100)
    with pytest.raises(ValueError, match="past the end"):
        analysis.analyse(world, small_paths[2], first_index=512)
    with pytest.raises(ValueError, match="shard_states: 300 is not a positive multiple"):
        analysis.plan_shards(small_paths, [1, 1, 1], 300, 256)
    other = analysis.analyse(world, small_paths[2], margin=0.1, collect_states=False)["analysis"]
    with pytest.raises(ValueError, match="different robots, scenes or margins"):
        analysis.merge_shards([a, other])


# ---- the dask driver

@pytest.fixture(scope="module")
def reference(tmp_path_factory, small_paths):
    """The single-process run (no dask) of the small paths."""
    out = str(tmp_path_factory.mktemp("reference"))
    analysis.run(FOUR_DOF_URDF, SCENE, small_paths, out, workers=0, shard_states=256,
                 margin=0.5, pairs=True)
    return read_outputs(out)


def test_single_process_equals_gjk_clearance(reference, small_paths, tmp_path):
    tool = os.environ.get("GJK_CLEARANCE")
    if not tool:
        pytest.skip("GJK_CLEARANCE (set by ctest) names the gjk-clearance tool")
    for k, path in enumerate(small_paths):
        states, pairs = str(tmp_path / "s.csv"), str(tmp_path / "p.csv")
        r = subprocess.run([tool, "--urdf", FOUR_DOF_URDF, "--scene", SCENE, "--path", path,
                            "--margin", "0.5", "--out", pairs, "--states-out", states, "--json"],
                           capture_output=True, text=True)
        # 1: below the margin, 3: a bad row left out; the outputs are written either way.
        assert r.returncode in (0, 1, 3), r.stderr
        with open(states, "rb") as f:
            assert f.read() == reference[f"path{k}.states.csv"]
        with open(pairs, "rb") as f:
            assert f.read() == reference[f"path{k}.pairs.csv"]
        summary = {k2: v for k2, v in json.loads(r.stdout).items() if k2 not in TIMING}
        assert summary == reference[f"path{k}.summary.json"]


def test_local_cluster_equals_single_process(reference, small_paths, tmp_path):
    out = str(tmp_path / "dask")
    r = subprocess.run(cli(*small_paths, "--out", out, "--workers", "2", "--shard-states", "256",
                           "--margin", "0.5", "--pairs"), capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "10 shards (0 already done), 2000 states" in r.stdout
    assert r.stdout.splitlines()[0].split()[:3] == ["path", "states", "bad"]
    assert read_outputs(out) == reference
    # A second run finds every shard done and rewrites the same results.
    r = subprocess.run(cli(*small_paths, "--out", out, "--workers", "0", "--shard-states", "256",
                           "--margin", "0.5", "--pairs"), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and "10 shards (10 already done)" in r.stdout, r.stderr
    assert read_outputs(out) == reference
    # Other settings in the same folder are refused, naming the field.
    r = subprocess.run(cli(*small_paths, "--out", out, "--workers", "0", "--shard-states", "512",
                           "--margin", "0.5", "--pairs"), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "field 'shard_states'" in r.stderr


@pytest.fixture(scope="module")
def long_reference(tmp_path_factory, long_paths):
    out = str(tmp_path_factory.mktemp("long-reference"))
    analysis.run(FOUR_DOF_URDF, SCENE, long_paths, out, workers=0, shard_states=4096)
    return read_outputs(out)


def shard_markers(out: str) -> list[str]:
    folder = os.path.join(out, "shards")
    return sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []


def wait_for(predicate, timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_worker_killed_mid_run(long_reference, long_paths, tmp_path):
    env = dict(os.environ)
    sched_file = str(tmp_path / "scheduler.json")
    procs = []
    try:
        procs.append(subprocess.Popen(
            ["dask-scheduler", "--scheduler-file", sched_file, "--port", "0", "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        wait_for(lambda: os.path.exists(sched_file), 30, "the scheduler file")
        time.sleep(0.1)  # written, then read by the workers: let it be complete
        for _ in range(2):
            procs.append(subprocess.Popen(
                ["dask-worker", "--scheduler-file", sched_file, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env))
        with open(sched_file) as f:
            address = json.load(f)["address"]
        from distributed import Client

        with Client(address, timeout="30s") as c:
            c.wait_for_workers(2, timeout=60)
        out = str(tmp_path / "out")
        run = subprocess.Popen(cli(*long_paths, "--out", out, "--scheduler", address,
                                   "--shard-states", "4096"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        procs.append(run)
        wait_for(lambda: len(shard_markers(out)) >= 2 or run.poll() is not None, 60,
                 "the first finished shards")
        done_at_kill = len(shard_markers(out))
        procs[1].send_signal(signal.SIGKILL)
        stdout, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
        # The worker died with work left: the other one finished it.
        assert done_at_kill < 24, "the run ended before the kill; make the paths longer"
        assert "24 shards (0 already done), 98304 states" in stdout
        assert len(shard_markers(out)) == 24
        assert read_outputs(out) == long_reference
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)


def test_killed_run_resumes(long_reference, long_paths, tmp_path):
    out = str(tmp_path / "out")
    args = cli(*long_paths, "--out", out, "--shard-states", "4096")
    # The run and its LocalCluster's workers in their own process group, killed together.
    run = subprocess.Popen(args + ["--workers", "1"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: len(shard_markers(out)) >= 3 or run.poll() is not None, 90,
                 "the first finished shards")
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
    done = shard_markers(out)
    assert 3 <= len(done) < 24, "the run ended before the kill; make the paths longer"
    before = {f: os.stat(os.path.join(out, "shards", f)).st_mtime_ns for f in done}
    r = subprocess.run(args + ["--workers", "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # Finished shards were skipped (not rewritten); the others were computed once more.
    skipped = int(r.stdout.split("shards (")[1].split()[0])
    assert skipped >= len(done)
    assert {f: os.stat(os.path.join(out, "shards", f)).st_mtime_ns for f in done} == before
    assert len(shard_markers(out)) == 24
    assert read_outputs(out) == long_reference


def test_plot_shows_the_histogram_and_the_worst_paths(small_paths, tmp_path):
    """--plot: a real PNG (read back with matplotlib) whose two panels are not blank; a run with
    nothing within the cutoff is an error naming the file, and leaves no file."""
    pytest.importorskip("matplotlib")
    import matplotlib.image

    out = str(tmp_path / "out")
    result = analysis.run(FOUR_DOF_URDF, SCENE, small_paths, out, workers=0, shard_states=256,
                          margin=0.5)
    png = analysis.write_plot(result, out, str(tmp_path / "clearance.png"), margin=0.5)
    # Time below the margin: positive exactly when some state before the last is below it, and
    # at most the path's duration; a column of summary.csv.
    assert any(r.analysis.states_below_margin > 0 for r in result.paths)
    for r in result.paths:
        with open(r.path) as f:
            times = [float(line.split(",")[0]) for line in f.readlines()[1:] if line.strip()]
        assert 0.0 <= r.time_below_margin_s <= times[-1] - times[0] + 1e-9
        assert (r.time_below_margin_s > 0) == (r.analysis.states_below_margin > 0)
    with open(os.path.join(out, "summary.csv")) as f:
        assert f.readline().rstrip().endswith(",time_below_margin_s")
    image = matplotlib.image.imread(png)
    assert image.shape[0] == 450 and image.shape[1] == 1200  # 12 x 4.5 in at 100 dpi
    for half in (image[:, :600], image[:, 600:]):  # each panel draws something
        assert half[..., :3].std() > 0.05
    assert [f for f in os.listdir(tmp_path) if f.startswith(".plot.")] == []
    # The command line: the same run (every shard already done) with --plot.
    cli_png = str(tmp_path / "cli.png")
    r = subprocess.run(cli(*small_paths, "--out", out, "--workers", "0", "--shard-states", "256",
                           "--margin", "0.5", "--plot", cli_png), capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].split()[:3] == ["path", "states", "bad"]
    assert matplotlib.image.imread(cli_png).shape == image.shape
    far = str(tmp_path / "far")
    none = analysis.run(FOUR_DOF_URDF, SCENE, small_paths[:1], far, workers=0, cutoff=1e-9)
    with pytest.raises(ValueError, match="nothing to plot"):
        analysis.write_plot(none, far, str(tmp_path / "none.png"))
    assert not os.path.exists(tmp_path / "none.png")


def test_planned_panda_paths_example(tmp_path):
    """examples/clearance/make_planned_paths.py (the README's 100-path example, here 2 short
    paths): deterministic files that the analysis reads, every state collision-free (the
    planner certifies each segment and the states lie on the segments)."""
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "clearance",
                          "make_planned_paths.py")
    runs = []
    for k in range(2):
        out = str(tmp_path / f"paths{k}")
        r = subprocess.run([sys.executable, script, "2", out, "--states", "50", "--seed", "3"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        runs.append({f: open(os.path.join(out, f), "rb").read() for f in sorted(os.listdir(out))})
    assert runs[0] == runs[1] and sorted(runs[0]) == ["panda_000.csv", "panda_001.csv"]
    from conftest import PANDA_SRDF, PANDA_URDF

    paths = [str(tmp_path / "paths0" / f) for f in sorted(runs[0])]
    result = analysis.run(PANDA_URDF, os.path.join(SCENES_DIR, "panda_cell.yaml"), paths,
                          str(tmp_path / "out"), srdf=PANDA_SRDF, workers=0)
    assert result.states == 100
    assert all(r.analysis.states_in_collision == 0 and r.analysis.minimum > 0
               for r in result.paths)
