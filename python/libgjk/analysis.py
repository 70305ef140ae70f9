"""Offline clearance analysis at scale (issue 13): the C++ analysis layer on path shards, and a
dask.distributed driver that shards many paths over a cluster.

The numbers come from the C++ layer (gjk::analysis, the one under gjk-clearance); this module
only cuts paths into shards, runs them and merges the results. Every block of ``block_size``
states starts with fresh warm starts, so a shard that starts on a block boundary gives exactly
the records of the unsharded run, and merge_shard() adds shard totals as one run would.

Library use::

    >>> from libgjk import analysis, robots                          # doctest: +SKIP
    >>> world = analysis.load_world("arm.urdf", "scene.yaml")         # doctest: +SKIP
    >>> part = analysis.analyse(world, "path.csv", first_index=512, count=512)  # doctest: +SKIP
    >>> part["analysis"].minimum, part["states"]["distance"]         # doctest: +SKIP

From the shell (LocalCluster by default; ``--scheduler tcp://HOST:8786`` for a cluster started
with ``dask-scheduler`` and ``dask-worker``; ``--workers 0`` runs in this process)::

    python3 -m libgjk.analysis ROBOT.urdf SCENE.yaml PATHS... --out results/

Each shard writes its CSVs and then its totals (``shards/NAME.K.json``, the marker of a finished
shard) atomically, so a re-run after a failure skips the finished shards; the merge writes
``NAME.states.csv`` (and ``NAME.pairs.csv`` with ``--pairs``), byte-identical to gjk-clearance's
``--states-out`` / ``--out`` on the same path, ``NAME.summary.json`` (gjk-clearance's ``--json``),
``summary.csv`` and, with h5py, ``summary.h5``. ``--html FILE`` also writes the 3D replay page
of the paths (gjk-clearance's --html page; write_replay()).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import importlib
import io
import json
import math
import os
import shutil
import sys
import tempfile
import textwrap
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _core, robots
from ._core import analysis as _analysis

Analysis = _analysis.Analysis
OutputError = _analysis.OutputError
ReplayError = _analysis.ReplayError
analyse = _analysis.analyse
count_states = _analysis.count_states
index_path = _analysis.index_path
merge_shard = _analysis.merge_shard
select_frames = _analysis.select_frames
summary = _analysis.summary
write_replay_page = _analysis.write_replay_page

#: Default of --html-max-frames (the C++ tools' default): frames per path in a replay page.
DEFAULT_MAX_FRAMES: int = _analysis.DEFAULT_MAX_FRAMES
#: Default of --html-max-paths: paths in a replay page (those with the smallest clearance).
DEFAULT_MAX_PATHS = 10

__all__ = [
    "DEFAULT_MAX_FRAMES",
    "DEFAULT_MAX_PATHS",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_OUTPUT",
    "FORMAT_VERSION",
    "SUMMARY_COLUMNS",
    "Analysis",
    "OutputError",
    "PathResult",
    "ReplayError",
    "RunResult",
    "Settings",
    "Shard",
    "analyse",
    "count_states",
    "format_table",
    "index_path",
    "load_world",
    "main",
    "merge_shard",
    "merge_shards",
    "plan_shards",
    "run",
    "run_shard",
    "select_frames",
    "summary",
    "write_hdf5",
    "write_plot",
    "write_replay",
    "write_replay_page",
    "write_summary",
]

#: Exit status of ``python3 -m libgjk.analysis``: done.
EXIT_OK = 0
#: Bad arguments or inputs (an unreadable robot, scene or path, a results folder of another run).
EXIT_USAGE = 2
#: The --html page cannot be written (checked before the analysis too; no file is left).
EXIT_OUTPUT = 4

# Bumped when the shard files change meaning, so an old results folder is not resumed.
FORMAT_VERSION = 1


@functools.lru_cache(maxsize=8)
def load_world(urdf: str, scene: str, srdf: Optional[str] = None) -> robots.CollisionWorld:
    """The collision world of gjk-clearance's --urdf/--scene/--srdf: the robot in the scene,
    pairs filtered by the SRDF's matrix (adjacent links without one). Cached per process (a
    dask worker loads each robot once, not once per shard)."""
    model = robots.RobotModel.from_urdf(urdf)
    world_scene = robots.load_scene(scene)
    if srdf:
        acm = robots.acm_from_srdf(model, robots.load_srdf(srdf, model))
        return robots.CollisionWorld(model, world_scene, acm)
    return robots.CollisionWorld(model, world_scene)


def merge_shards(shards: Iterable[Analysis]) -> Analysis:
    """The totals of shards given in path order (merge_shard into an empty Analysis)."""
    total = Analysis()
    for s in shards:
        merge_shard(total, s)
    return total


@dataclasses.dataclass(frozen=True)
class Shard:
    """One unit of work: the states [first_index, first_index + count) of one path."""

    path: str  #: absolute path file
    name: str  #: output name of the path (its file name without extension)
    index: int  #: shard number within the path
    first_index: int  #: first state (a multiple of the block size)
    count: int  #: states in the shard
    #: byte offset and line just after the state before the shard (index_path), where the
    #: shard starts reading; -1: read from the start of the file and skip
    seek_offset: int = -1
    seek_line: int = 0


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a run computes; a results folder holds one run's settings (run.json)."""

    urdf: str
    scene: str
    srdf: Optional[str] = None
    fixed: Tuple[Tuple[str, float], ...] = ()
    block_size: int = 256
    shard_states: int = 4096
    cutoff: float = math.inf
    margin: float = -math.inf
    pairs: bool = False

    def manifest(self) -> Dict[str, Any]:
        d = dataclasses.asdict(self)
        d["fixed"] = [list(f) for f in self.fixed]
        d["format"] = FORMAT_VERSION
        return d


def plan_shards(paths: Sequence[str], counts: Sequence[int], shard_states: int,
                block_size: int,
                seeks: Optional[Sequence[Sequence[Tuple[int, int]]]] = None) -> List[Shard]:
    """Cuts each path into shards of shard_states states (the last one shorter). shard_states
    must be a multiple of block_size, so every shard starts on a block boundary. seeks: per
    path, index_path(every=shard_states)["seeks"], so that shards start reading at their rows."""
    if block_size < 1:
        raise ValueError(f"block_size: must be >= 1, got {block_size}")
    if shard_states < 1 or shard_states % block_size != 0:
        raise ValueError(
            f"shard_states: {shard_states} is not a positive multiple of block_size {block_size}"
        )
    names: Dict[str, str] = {}
    shards: List[Shard] = []
    for p, (path, n) in enumerate(zip(paths, counts)):
        name = os.path.splitext(os.path.basename(path))[0]
        if name in names:
            raise ValueError(
                f"PATHS: {names[name]} and {path} both give the output name '{name}'; rename one"
            )
        names[name] = path
        at = list(seeks[p]) if seeks else []
        for k, first in enumerate(range(0, max(n, 1), shard_states)):
            offset, line = at[k - 1] if 0 < k <= len(at) else (-1, 0)
            shards.append(Shard(os.path.abspath(path), name, k, first,
                                min(shard_states, n - first), offset, line))
    return shards


def _shard_base(out: str, shard: Shard) -> str:
    return os.path.join(out, "shards", f"{shard.name}.{shard.index:05d}")


def _file_mode() -> int:
    """0666 less the umask: what open() would give (mkstemp makes 0600 files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _write_atomic(path: str, text: str) -> None:
    """Writes text to path through a temporary file in the same folder and a rename, so readers
    see the old file or the whole new one, never a part (also when two workers race)."""
    folder = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".tmp.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read_marker(base: str, shard: Shard) -> Optional[Dict[str, Any]]:
    """The finished shard's record, or None when it has not finished (or is another run's)."""
    try:
        with open(base + ".json", encoding="utf-8") as f:
            record = json.load(f)
    except FileNotFoundError:
        return None
    if record.get("shard") != dataclasses.asdict(shard):
        raise ValueError(
            f"{base}.json: records shard {record.get('shard')}, expected {dataclasses.asdict(shard)}"
            " (a results folder of another run? use another --out)"
        )
    return record


def run_shard(settings: Settings, out: str, shard: Shard) -> Dict[str, Any]:
    """Analyses one shard into out/shards/ unless it is finished already; returns its record
    (analysis as a dict, bad rows, time column, seconds, skipped). Runs on a dask worker;
    idempotent: a re-run, or the same shard run twice at once after a worker was lost, writes
    the same bytes under the same names."""
    base = _shard_base(out, shard)
    record = _read_marker(base, shard)
    if record is not None:
        record["skipped"] = True
        return record
    world = load_world(settings.urdf, settings.scene, settings.srdf)
    start = time.perf_counter()
    result = analyse(
        world,
        shard.path,
        first_index=shard.first_index,
        count=shard.count,
        fixed=dict(settings.fixed),
        block_size=settings.block_size,
        cutoff=settings.cutoff,
        margin=settings.margin,
        states_csv=base + ".states.csv",
        pairs_csv=(base + ".pairs.csv") if settings.pairs else None,
        collect_states=False,
        seek=(shard.seek_offset, shard.seek_line) if shard.seek_offset >= 0 else None,
    )
    record = {
        "shard": dataclasses.asdict(shard),
        "analysis": result["analysis"].to_dict(),
        "errors": [list(e) for e in result["errors"]],
        "has_time": result["has_time"],
        "time_column": result["time_column"],
        "seconds": time.perf_counter() - start,
        "version": _core.version(),
    }
    # The marker is written last: it exists only when the shard's CSVs are complete.
    _write_atomic(base + ".json", json.dumps(record))
    record["skipped"] = False
    return record


@dataclasses.dataclass
class PathResult:
    """The merged result of one path."""

    name: str
    path: str
    analysis: Analysis
    bad_rows: int
    has_time: bool
    time_column: str
    summary: Dict[str, Any]  #: gjk-clearance's --json summary
    #: seconds spent below the margin (each such state counts until the next state's time); NaN
    #: when the path has no time column or the margin is not finite
    time_below_margin_s: float = math.nan


@dataclasses.dataclass
class RunResult:
    """What run() did: the merged paths, shard counts and timing."""

    paths: List[PathResult]
    shards: int
    shards_skipped: int
    states: int
    seconds: float  #: wall time of the shard phase (scheduling included, cluster start-up not)
    files: List[str]
    #: CPU time of the analysis itself, summed over the shards (their worker threads): the cost
    #: without the waiting on a shared machine, and without dask's overhead.
    cpu_seconds: float = 0.0
    #: states of the shards computed by this run (not skipped as finished)
    states_computed: int = 0
    #: seconds spent starting the LocalCluster or connecting to the scheduler
    startup_seconds: float = 0.0

    @property
    def states_per_second(self) -> float:
        return self.states_computed / self.seconds if self.seconds > 0 else 0.0

    @property
    def states_per_cpu_second(self) -> float:
        return self.states / self.cpu_seconds if self.cpu_seconds > 0 else 0.0


def _concat_csv(parts: Sequence[str], target: str) -> None:
    """One CSV from the shards' CSVs: the first header, then every shard's rows in order;
    streamed (bounded memory) into a temporary file renamed over target."""
    folder = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".tmp.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            for k, part in enumerate(parts):
                with open(part, "rb") as src:
                    header = src.readline()
                    if k == 0:
                        f.write(header)
                    shutil.copyfileobj(src, f, 1 << 20)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _file_mode())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _execute(
    tasks: List[Shard],
    settings: Settings,
    out: str,
    scheduler: Optional[str],
    workers: Optional[int],
    on_done: Callable[[Dict[str, Any]], None],
) -> float:
    """Runs the shards in this process (workers == 0) or on dask; returns the seconds spent
    starting the LocalCluster or connecting to the scheduler."""
    if workers == 0 and not scheduler:
        for t in tasks:
            on_done(run_shard(settings, out, t))
        return 0.0
    from distributed import Client, LocalCluster, as_completed

    start = time.perf_counter()

    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="30s")
    else:
        n = workers if workers else (os.cpu_count() or 1)
        # One single-threaded process per core: the analysis is CPU-bound C++ without the GIL,
        # but processes keep one worker's crash from taking the others with it.
        cluster = LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    startup = time.perf_counter() - start
    try:
        # Keys name the shard, so a resubmitted shard is the same task to the scheduler.
        futures = [
            client.submit(
                run_shard, settings, out, t, key=f"libgjk-shard-{t.name}-{t.index}",
                pure=False, retries=3,
            )
            for t in tasks
        ]
        for future in as_completed(futures):
            on_done(future.result())
        return startup
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run(
    urdf: str,
    scene: str,
    paths: Sequence[str],
    out: str,
    *,
    srdf: Optional[str] = None,
    fixed: Optional[Mapping[str, float]] = None,
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    block_size: int = 256,
    shard_states: int = 4096,
    cutoff: float = math.inf,
    margin: float = -math.inf,
    pairs: bool = False,
    progress: bool = False,
) -> RunResult:
    """Analyses every path, sharded, into the folder out (see the module's doc), and merges."""
    settings = Settings(
        urdf=os.path.abspath(urdf),
        scene=os.path.abspath(scene),
        srdf=os.path.abspath(srdf) if srdf else None,
        fixed=tuple(sorted((fixed or {}).items())),
        block_size=block_size,
        shard_states=shard_states,
        cutoff=cutoff,
        margin=margin,
        pairs=pairs,
    )
    if not paths:
        raise ValueError("PATHS: no path files given")
    world = load_world(settings.urdf, settings.scene, settings.srdf)
    # One pass over each path: its states and where each shard's rows start, so a shard of a
    # long path does not parse the rows before it (2.7 us a row on the Panda).
    indexes = [index_path(p, world, dict(settings.fixed), max(shard_states, 1)) for p in paths]
    counts = [ix["states"] for ix in indexes]
    shards = plan_shards(paths, counts, shard_states, block_size, [ix["seeks"] for ix in indexes])
    os.makedirs(os.path.join(out, "shards"), exist_ok=True)

    manifest = settings.manifest()
    # Size and modification time too: a path file edited between a run and its re-run would
    # otherwise mix shards of two versions.
    manifest["paths"] = [
        [os.path.abspath(p), n, os.stat(p).st_size, os.stat(p).st_mtime_ns]
        for p, n in zip(paths, counts)
    ]
    manifest_file = os.path.join(out, "run.json")
    if os.path.exists(manifest_file):
        with open(manifest_file, encoding="utf-8") as f:
            old = json.load(f)
        for key in sorted(set(old) | set(manifest)):
            if old.get(key) != manifest.get(key):
                raise ValueError(
                    f"{manifest_file}: field '{key}' is {old.get(key)!r} there and "
                    f"{manifest.get(key)!r} now: the folder holds another run; use another --out"
                )
    else:
        _write_atomic(manifest_file, json.dumps(manifest, indent=1) + "\n")

    records: Dict[Tuple[str, int], Dict[str, Any]] = {}
    todo = []
    for s in shards:
        r = _read_marker(_shard_base(out, s), s)
        if r is None:
            todo.append(s)
        else:
            records[(s.name, s.index)] = r
    skipped = len(shards) - len(todo)

    bar = None
    if progress and todo:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(shards), initial=skipped, unit="shard", file=sys.stderr)
        except ImportError:
            bar = None

    def done(r: Dict[str, Any]) -> None:
        records[(r["shard"]["name"], r["shard"]["index"])] = r
        if bar is not None:
            bar.update(1)

    start = time.perf_counter()
    startup = 0.0
    try:
        if todo:
            startup = _execute(todo, settings, out, scheduler, workers, done)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start - startup

    by_path: Dict[str, List[Shard]] = {}
    for s in shards:
        by_path.setdefault(s.name, []).append(s)  # in path order: plan_shards made them so
    results: List[PathResult] = []
    files: List[str] = []
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        mine = by_path[name]
        recs = [records[(s.name, s.index)] for s in mine]
        total = merge_shards(Analysis.from_dict(r["analysis"]) for r in recs)
        bad_rows = sum(len(r["errors"]) for r in recs)
        has_time, time_column = recs[0]["has_time"], recs[0]["time_column"]
        states_file = os.path.join(out, f"{name}.states.csv")
        _concat_csv([_shard_base(out, s) + ".states.csv" for s in mine], states_file)
        files.append(states_file)
        if pairs:
            pairs_file = os.path.join(out, f"{name}.pairs.csv")
            _concat_csv([_shard_base(out, s) + ".pairs.csv" for s in mine], pairs_file)
            files.append(pairs_file)
        text = summary(
            world, total, path_name=path, bad_rows=bad_rows, has_time=has_time,
            time_column=time_column, urdf=urdf, scene=scene, json=True,
        )
        summary_file = os.path.join(out, f"{name}.summary.json")
        _write_atomic(summary_file, text + "\n")
        files.append(summary_file)
        below_s = (_time_below(states_file, margin) if has_time and math.isfinite(margin)
                   else math.nan)
        results.append(PathResult(name, path, total, bad_rows, has_time, time_column,
                                  json.loads(text), below_s))
    files += write_summary(results, world, settings, out)
    total_states = sum(r.analysis.states for r in results)
    cpu = sum(sum(r.analysis.to_dict()["thread_cpu_seconds"]) for r in results)
    computed = sum(s.count for s in todo)
    return RunResult(
        results, len(shards), skipped, total_states, seconds, files, cpu, computed, startup
    )


SUMMARY_COLUMNS = [
    "path", "states", "bad_rows", "minimum_m", "state", "line", "shape", "obstacle",
    "states_in_collision", "states_below_margin", "fraction_below_margin", "time_below_margin_s",
]


def _time_below(states_csv: str, margin: float) -> float:
    """Seconds a timed path spends below `margin`: a state below it counts until the next
    state's time (the last state counts nothing)."""
    total = 0.0
    previous: Optional[Tuple[float, bool]] = None
    with open(states_csv, newline="") as f:
        for row in csv.DictReader(f):
            t = float(row["t"])
            below = bool(row["distance"]) and float(row["distance"]) < margin
            if previous is not None and previous[1]:
                total += t - previous[0]
            previous = (t, below)
    return total


def _summary_row(r: PathResult) -> List[Any]:
    m = r.summary.get("minimum") or {}
    below = r.analysis.states_below_margin
    return [
        r.name, r.analysis.states, r.bad_rows,
        m.get("distance", math.inf), m.get("state", -1), m.get("line", 0),
        m.get("shape", ""), m.get("obstacle", ""),
        r.analysis.states_in_collision, below,
        below / r.analysis.states if r.analysis.states else 0.0,
        r.time_below_margin_s,
    ]


def write_summary(results: Sequence[PathResult], world: robots.CollisionWorld,
                  settings: Settings, out: str) -> List[str]:
    """summary.csv (one row per path) and, when h5py is installed, summary.h5; returns the
    files written."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(SUMMARY_COLUMNS)
    for r in results:
        w.writerow([repr(x) if isinstance(x, float) else x for x in _summary_row(r)])
    csv_file = os.path.join(out, "summary.csv")
    _write_atomic(csv_file, buf.getvalue())
    files = [csv_file]
    try:
        import h5py  # noqa: F401  (optional: Debian python3-h5py)
    except ImportError:
        return files
    h5_file = os.path.join(out, "summary.h5")
    write_hdf5(results, world, settings, out, h5_file)
    files.append(h5_file)
    return files


def _states_columns(path: str, has_time: bool, labels: Dict[str, int],
                    obstacles: Dict[str, int], statuses: Dict[str, int],
                    rows: int = 65536) -> Iterable[Dict[str, np.ndarray]]:
    """The merged states CSV in chunks of columns (bounded memory for any path length)."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        next(reader)
        off = 1 if has_time else 0
        while True:
            chunk = [row for _, row in zip(range(rows), reader)]
            if not chunk:
                return
            n = len(chunk)
            cols: Dict[str, np.ndarray] = {
                "state": np.empty(n, np.int64), "line": np.empty(n, np.int64),
                "time": np.zeros(n), "pairs": np.empty(n, np.int64),
                "distance": np.full(n, np.inf), "shape": np.full(n, -1, np.int32),
                "obstacle": np.full(n, -1, np.int32), "status": np.full(n, -1, np.int8),
                "point_on_link": np.full((n, 3), np.nan),
                "point_on_obstacle": np.full((n, 3), np.nan), "normal": np.full((n, 3), np.nan),
            }
            for i, row in enumerate(chunk):
                cols["state"][i] = int(row[0])
                cols["line"][i] = int(row[1])
                if has_time:
                    cols["time"][i] = float(row[2])
                cols["pairs"][i] = int(row[2 + off])
                if row[3 + off] == "":
                    continue  # no pair within the cutoff
                cols["distance"][i] = float(row[3 + off])
                cols["shape"][i] = labels[row[5 + off]]
                cols["obstacle"][i] = obstacles[row[6 + off]]
                xyz = [float(x) for x in row[7 + off:16 + off]]
                cols["point_on_link"][i] = xyz[0:3]
                cols["point_on_obstacle"][i] = xyz[3:6]
                cols["normal"][i] = xyz[6:9]
                cols["status"][i] = statuses.setdefault(row[16 + off], len(statuses))
            yield cols


def write_hdf5(results: Sequence[PathResult], world: robots.CollisionWorld, settings: Settings,
               out: str, target: str) -> None:
    """summary.h5: the per-path table and every path's per-state records (chunked, gzip),
    with the joint, link, shape and obstacle names, units and version as attributes; written
    to a temporary file and renamed."""
    import h5py

    model = world.model
    labels = {model.shape_label(s): s for s in range(len(model.collision_shapes))}
    obstacles = {o.name: k for k, o in enumerate(world.obstacles)}
    statuses: Dict[str, int] = {}
    fd, tmp = tempfile.mkstemp(prefix=".summary.h5.tmp.", dir=out)
    os.close(fd)
    try:
        with h5py.File(tmp, "w") as h:
            h.attrs["version"] = _core.version()
            h.attrs["format"] = FORMAT_VERSION
            h.attrs["robot"] = model.name
            h.attrs["urdf"] = settings.urdf
            h.attrs["scene"] = settings.scene
            h.attrs["joint_names"] = list(model.position_names)
            h.attrs["link_names"] = [link.name for link in model.links]
            h.attrs["shape_labels"] = list(labels)
            h.attrs["obstacle_names"] = list(obstacles)
            h.attrs["units"] = "distances, points: m; joints: rad (revolute) or m (prismatic); time: s"
            h.attrs["block_size"] = settings.block_size
            h.attrs["cutoff_m"] = settings.cutoff
            h.attrs["margin_m"] = settings.margin
            table = h.create_group("paths")
            rows = [_summary_row(r) for r in results]
            for k, col in enumerate(SUMMARY_COLUMNS):
                values = [row[k] for row in rows]
                if isinstance(values[0], str):
                    table.create_dataset(col, data=np.array(values, dtype=h5py.string_dtype()))
                else:
                    table.create_dataset(col, data=np.array(values))
            table["minimum_m"].attrs["units"] = "m"
            states = h.create_group("states")
            for r in results:
                g = states.create_group(r.name)
                g.attrs["path"] = os.path.abspath(r.path)
                g.attrs["units"] = "distance, points: m; time: s"
                made: Dict[str, Any] = {}
                n = 0
                for cols in _states_columns(os.path.join(out, f"{r.name}.states.csv"),
                                            r.has_time, labels, obstacles, statuses):
                    m = len(cols["state"])
                    for key, a in cols.items():
                        if key not in made:
                            made[key] = g.create_dataset(
                                key, shape=(0,) + a.shape[1:], maxshape=(None,) + a.shape[1:],
                                dtype=a.dtype, chunks=(4096,) + a.shape[1:],
                                compression="gzip", compression_opts=4, shuffle=True,
                            )
                        made[key].resize(n + m, axis=0)
                        made[key][n:n + m] = a
                    n += m
                if "shape" in made:
                    made["shape"].attrs["labels"] = list(labels)
                    made["obstacle"].attrs["names"] = list(obstacles)
            h.attrs["status_names"] = list(statuses) if statuses else [""]
        os.chmod(tmp, _file_mode())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def format_table(result: RunResult, margin: float) -> str:
    """The run's summary as a text table: one row per path and a total."""
    head = ["path", "states", "bad", "min [m]", "state", "shape / obstacle", "colliding"]
    if math.isfinite(margin):
        head.append(f"< {margin:g} m")
    rows = []
    for r in result.paths:
        m = r.summary.get("minimum") or {}
        row = [
            r.name, str(r.analysis.states), str(r.bad_rows),
            f"{m['distance']:.4f}" if m else "none", str(m.get("state", "")),
            f"{m.get('shape', '')} / {m.get('obstacle', '')}" if m else "",
            str(r.analysis.states_in_collision),
        ]
        if math.isfinite(margin):
            row.append(str(r.analysis.states_below_margin))
        rows.append(row)
    best = min(result.paths, key=lambda r: r.analysis.minimum)
    total = [
        "ALL", str(result.states), str(sum(r.bad_rows for r in result.paths)),
        f"{best.analysis.minimum:.4f}" if math.isfinite(best.analysis.minimum) else "none",
        "", f"(in {best.name})", str(sum(r.analysis.states_in_collision for r in result.paths)),
    ]
    if math.isfinite(margin):
        total.append(str(sum(r.analysis.states_below_margin for r in result.paths)))
    rows.append(total)
    widths = [max(len(x[k]) for x in [head] + rows) for k in range(len(head))]
    line = lambda x: "  ".join(v.ljust(wd) if k in (0, 5) else v.rjust(wd)  # noqa: E731
                               for k, (v, wd) in enumerate(zip(x, widths))).rstrip()
    return "\n".join([line(head)] + [line(x) for x in rows]) + "\n"


def _read_clearance(states_csv: str) -> Tuple[List[float], List[float], bool]:
    """The per-state minimum clearance of a merged NAME.states.csv: (x, distance, x is time).
    x is the path's time column when it has one, else the state index; states with no pair
    within the cutoff (an empty distance) are left out."""
    xs: List[float] = []
    ds: List[float] = []
    with open(states_csv, newline="") as f:
        reader = csv.DictReader(f)
        timed = reader.fieldnames is not None and "t" in reader.fieldnames
        for row in reader:
            if not row["distance"]:
                continue
            xs.append(float(row["t"]) if timed and row["t"] else float(row["state"]))
            ds.append(float(row["distance"]))
    return xs, ds, timed


def write_plot(result: "RunResult", out: str, png: str, margin: float = -math.inf,
               worst: int = 3) -> str:
    """A PNG of the run: the histogram of every state's minimum clearance over all paths, and
    the clearance over time of the `worst` paths (smallest minimum), with the margin when it is
    finite. Written atomically (temporary file, then rename); needs matplotlib (Debian
    python3-matplotlib). Returns `png`."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display
    import matplotlib.pyplot as plt

    curves = {r.name: _read_clearance(os.path.join(out, f"{r.name}.states.csv"))
              for r in result.paths}
    every = [d for _, ds, _ in curves.values() for d in ds]
    if not every:
        raise ValueError(f"{png}: no state has a pair within the cutoff: nothing to plot")
    ranked = sorted(result.paths, key=lambda r: min(curves[r.name][1], default=math.inf))
    fig, (hist, over_time) = plt.subplots(1, 2, figsize=(12, 4.5))
    hist.hist(every, bins=min(60, max(10, len(every) // 20)), color="#4477aa")
    hist.set_xlabel("minimum clearance per state (m)")
    hist.set_ylabel("states")
    hist.set_title(f"{len(every)} states of {len(result.paths)} path(s)")
    timed = False
    for r in ranked[:worst]:
        xs, ds, is_time = curves[r.name]
        timed = timed or is_time
        over_time.plot(xs, ds, label=f"{r.name} (min {min(ds):.4f} m)" if ds else r.name)
    for axis in (hist, over_time):
        if math.isfinite(margin):
            (axis.axvline if axis is hist else axis.axhline)(
                margin, color="#cc3311", linestyle="--", label=f"margin {margin:g} m")
        (axis.axvline if axis is hist else axis.axhline)(0.0, color="black", linewidth=0.8)
    over_time.set_xlabel("t (s)" if timed else "state")
    over_time.set_ylabel("minimum clearance (m)")
    over_time.set_title(f"the {min(worst, len(ranked))} path(s) with the smallest clearance")
    over_time.legend(fontsize="small")
    fig.tight_layout()
    folder = os.path.dirname(os.path.abspath(png))
    fd, tmp = tempfile.mkstemp(prefix=".plot.", suffix=".png", dir=folder)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=100)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, png)
    except BaseException:
        os.unlink(tmp)
        raise
    finally:
        plt.close(fig)
    return png


def _state_distances(states_csv: str) -> np.ndarray:
    """Every state's clearance from a merged NAME.states.csv, in state order (inf where no pair
    was within the cutoff)."""
    with open(states_csv, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return np.array([float(row["distance"]) if row["distance"] else math.inf
                         for row in reader], dtype=np.float64)


def write_replay(result: RunResult, out: str, html: str, *,
                 max_frames: int = DEFAULT_MAX_FRAMES, max_paths: int = DEFAULT_MAX_PATHS,
                 threads: int = 1) -> List[Tuple[str, int]]:
    """The 3D replay page of a run (gjk-clearance's --html page): one self-contained HTML file
    with the robot, the obstacles and, for each of the `max_paths` paths with the smallest
    clearance (0: all; in the order given), at most `max_frames` states (0: all) chosen from the
    merged per-state clearance by select_frames(): the worst state, every collision onset and
    below-margin onset, both ends, the rest evenly spread. Only those states are analysed again
    (with every pair, for the per-link colours; `threads` threads). Written atomically; raises
    ReplayError (an OSError) naming the file when it cannot be written. Returns (path name,
    frames) per path in the page."""
    if max_frames < 0 or max_paths < 0:
        raise ValueError(f"max_frames, max_paths: must be >= 0, got {max_frames}, {max_paths}")
    with open(os.path.join(out, "run.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    settings = Settings(
        urdf=manifest["urdf"], scene=manifest["scene"], srdf=manifest["srdf"],
        fixed=tuple((name, float(value)) for name, value in manifest["fixed"]),
        cutoff=manifest["cutoff"], margin=manifest["margin"],
    )
    world = load_world(settings.urdf, settings.scene, settings.srdf)
    chosen = result.paths
    if max_paths and len(chosen) > max_paths:
        ranked = sorted(range(len(chosen)), key=lambda k: chosen[k].analysis.minimum)
        keep = set(ranked[:max_paths])
        chosen = [r for k, r in enumerate(chosen) if k in keep]
    runs: List[Dict[str, Any]] = []
    for r in chosen:
        distances = _state_distances(os.path.join(out, f"{r.name}.states.csv"))
        frames = select_frames(distances, max_frames, settings.margin)
        runs.append({"name": r.name, "path": os.path.abspath(r.path), "frames": frames.tolist()})
    title = f"libgjk.analysis: {world.model.name} in {os.path.basename(settings.scene)}"
    counts = write_replay_page(
        world, html, runs, title=title, margin=settings.margin, cutoff=settings.cutoff,
        fixed=dict(settings.fixed), max_frames=max_frames, threads=threads,
    )
    return [(run["name"], n) for run, n in zip(runs, counts)]


def _check_writable(html: str) -> None:
    """Fails early (before a long analysis) when the page could not be written: creates and
    removes a temporary file beside it. OSError naming the file otherwise."""
    if os.path.isdir(html):
        raise OSError(f"cannot write replay '{html}': it is a folder")
    folder = os.path.dirname(os.path.abspath(html))
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(html) + ".check.", dir=folder)
    except OSError as e:
        raise OSError(f"cannot write replay '{html}': {e.strerror or e}") from None
    os.close(fd)
    os.unlink(tmp)


def _fixed(text: str) -> Tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--fixed: expected NAME=VALUE, got '{text}'") from None


def _count(option: str) -> Callable[[str], int]:
    """An argparse type: a whole number >= 0, with the option in the message."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = -1
        if n < 0:
            raise argparse.ArgumentTypeError(
                f"{option}: expected a whole number >= 0, got '{text}'")
        return n
    return parse


_EPILOG = "\n\n".join(textwrap.fill(p, 78, break_on_hyphens=False) for p in (
    "replay page (--html FILE): one self-contained HTML file (three.js inlined: opens offline, "
    "from file://) replaying the paths in 3D, as gjk-clearance --html does: the link shapes as "
    "the engine sees them, the obstacles, links coloured by their clearance, the worst pair's "
    "closest points, collision and below-margin instants, a clearance plot. It shows the "
    f"--html-max-paths paths (default {DEFAULT_MAX_PATHS}; 0: all) with the smallest clearance, "
    f"each with at most --html-max-frames states (default {DEFAULT_MAX_FRAMES}; 0: all): the "
    "worst state, the first state of every collision and of every stretch below --margin, both "
    "ends, the rest evenly spread; those states are analysed again for the page (every pair, "
    "for the colours).",
    f"exit status: {EXIT_OK} done; {EXIT_USAGE} bad arguments or inputs (robot, scene, paths, a "
    f"results folder of another run); {EXIT_OUTPUT} the --html page cannot be written (checked "
    "before the analysis as well; no file is left under its name).",
))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python3 -m libgjk.analysis: exit EXIT_OK (0) on success, EXIT_USAGE (2) for bad arguments
    or inputs, EXIT_OUTPUT (4) when the --html page cannot be written."""
    p = argparse.ArgumentParser(
        prog="python3 -m libgjk.analysis",
        description="Clearance of a robot along joint paths (gjk-clearance's analysis), sharded "
        "over dask.distributed; resumable: a re-run skips the finished shards.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("robot", help="URDF file")
    p.add_argument("scene", help="scene YAML file")
    p.add_argument("paths", nargs="+", help="path files (gjk-clearance's formats)")
    p.add_argument("--out", required=True, help="results folder (created; resumed when it exists)")
    p.add_argument("--scheduler", help="address of a running dask-scheduler (tcp://HOST:8786)")
    p.add_argument("--workers", type=int, help="LocalCluster worker processes (default: one per "
                   "core); 0 runs the shards in this process")
    p.add_argument("--srdf", help="SRDF whose disabled collisions filter the pairs")
    p.add_argument("--fixed", type=_fixed, action="append", default=[], metavar="NAME=VALUE",
                   help="hold a joint the path files have no column for")
    p.add_argument("--block-size", type=int, default=256,
                   help="states per warm-start block (gjk-clearance: 256)")
    p.add_argument("--shard-states", type=int, default=4096,
                   help="states per shard, a multiple of --block-size")
    p.add_argument("--cutoff", type=float, default=math.inf, help="pairs farther than this (m) "
                   "are not measured")
    p.add_argument("--margin", type=float, default=-math.inf, help="count states closer than this (m)")
    p.add_argument("--pairs", action="store_true", help="also write every pair (NAME.pairs.csv)")
    p.add_argument("--plot", metavar="FILE.png",
                   help="write the clearance histogram and the worst paths' clearance over time")
    p.add_argument("--html", metavar="FILE.html",
                   help="write an interactive 3D replay of the paths (see below)")
    p.add_argument("--html-max-frames", type=_count("--html-max-frames"),
                   default=DEFAULT_MAX_FRAMES, metavar="N",
                   help=f"at most N states per path in the --html page (default "
                   f"{DEFAULT_MAX_FRAMES}; 0: every state)")
    p.add_argument("--html-max-paths", type=_count("--html-max-paths"),
                   default=DEFAULT_MAX_PATHS, metavar="N",
                   help=f"the N paths with the smallest clearance in the --html page (default "
                   f"{DEFAULT_MAX_PATHS}; 0: every path)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on stderr (default: when stderr is a terminal)")
    a = p.parse_args(argv)
    if a.workers is not None and a.workers < 0:
        p.error(f"--workers: must be >= 0, got {a.workers}")
    progress = sys.stderr.isatty() if a.progress is None else a.progress
    if a.html:
        try:
            _check_writable(a.html)
        except OSError as e:
            print(f"libgjk.analysis: --html: {e}", file=sys.stderr)
            return EXIT_OUTPUT
    try:
        result = run(
            a.robot, a.scene, a.paths, a.out, srdf=a.srdf, fixed=dict(a.fixed),
            scheduler=a.scheduler, workers=a.workers, block_size=a.block_size,
            shard_states=a.shard_states, cutoff=a.cutoff, margin=a.margin, pairs=a.pairs,
            progress=progress,
        )
    except (ValueError, OSError) as e:
        print(f"libgjk.analysis: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as e:
        print(
            f"libgjk.analysis: {e}: dask.distributed (Debian python3-distributed) runs the shards; "
            "--workers 0 runs them in this process without it",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if a.plot:
        try:
            write_plot(result, a.out, a.plot, a.margin)
        except (ValueError, OSError) as e:
            print(f"libgjk.analysis: --plot: {e}", file=sys.stderr)
            return EXIT_USAGE
    if a.html:
        try:
            shown = write_replay(result, a.out, a.html, max_frames=a.html_max_frames,
                                 max_paths=a.html_max_paths, threads=os.cpu_count() or 1)
        except OSError as e:
            print(f"libgjk.analysis: --html: {e} (the results in {a.out} are complete)",
                  file=sys.stderr)
            return EXIT_OUTPUT
        except ValueError as e:
            print(f"libgjk.analysis: --html: {e}", file=sys.stderr)
            return EXIT_USAGE
        left_out = len(result.paths) - len(shown)
        print(f"replay page {a.html}: " + ", ".join(f"{name} ({n} frames)" for name, n in shown)
              + (f"; {left_out} path(s) with more clearance left out (--html-max-paths)"
                 if left_out else ""))
    sys.stdout.write(format_table(result, a.margin))
    print(
        f"{result.shards} shards ({result.shards_skipped} already done), {result.states} states, "
        f"{result.states_computed} computed in {result.seconds:.2f} s, "
        f"{result.states_per_second:.0f} states/s "
        f"({result.states_per_cpu_second:.0f} per CPU-second of analysis; "
        f"{result.startup_seconds:.2f} s to start or reach the cluster); results in {a.out}"
    )
    return EXIT_OK


if __name__ == "__main__":
    # Run as libgjk.analysis, not __main__: dask then pickles the shard function and classes by
    # reference (workers import them) instead of by value, which loses dataclass fields.
    sys.exit(importlib.import_module("libgjk.analysis").main())
