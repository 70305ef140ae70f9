"""Type stub of libgjk.analysis (hand-written; keep in step with python/src/analysis.cpp and
python/libgjk/analysis.py)."""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

from .robots import CollisionWorld

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
I8 = npt.NDArray[np.int8]
PathLike = Union[str, "os.PathLike[str]"]

FORMAT_VERSION: int
SUMMARY_COLUMNS: List[str]
DEFAULT_MAX_FRAMES: int
DEFAULT_MAX_PATHS: int
EXIT_OK: int
EXIT_USAGE: int
EXIT_OUTPUT: int

class OutputError(OSError): ...
class ReplayError(OSError): ...

class Analysis:
    def __init__(self) -> None: ...
    @property
    def states(self) -> int: ...
    @property
    def pairs(self) -> int: ...
    @property
    def states_in_collision(self) -> int: ...
    @property
    def states_below_margin(self) -> int: ...
    @property
    def margin(self) -> float: ...
    @property
    def num_obstacles(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def blocks(self) -> int: ...
    @property
    def seconds(self) -> float: ...
    @property
    def minimum(self) -> float: ...
    @property
    def overall(self) -> Dict[str, Any]: ...
    @property
    def first_collision(self) -> Dict[str, Any]: ...
    @property
    def first_below_margin(self) -> Dict[str, Any]: ...
    @property
    def per_link_obstacle(self) -> List[Dict[str, Any]]: ...
    def to_dict(self) -> Dict[str, Any]: ...
    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Analysis: ...

class _StateArrays(TypedDict):
    index: I64
    line: I64
    time: F64
    pairs: I64
    distance: F64
    shape: I32
    obstacle: I32
    point_on_link: F64
    point_on_obstacle: F64
    normal: F64
    status: I8

class _PairArrays(TypedDict):
    state: I64
    shape: I32
    obstacle: I32
    distance: F64
    point_on_link: F64
    point_on_obstacle: F64
    normal: F64
    status: I8

class _ShardOutput(TypedDict):
    analysis: Analysis
    states: Optional[_StateArrays]
    pairs: Optional[_PairArrays]
    errors: List[Tuple[int, str]]
    has_time: bool
    time_column: str

def analyse(
    world: CollisionWorld,
    path: Union[PathLike, npt.ArrayLike],
    *,
    first_index: int = 0,
    count: Optional[int] = None,
    fixed: Mapping[str, float] = ...,
    block_size: int = 256,
    cutoff: float = ...,
    margin: float = ...,
    threads: int = 1,
    states_csv: Optional[PathLike] = None,
    pairs_csv: Optional[PathLike] = None,
    collect_states: bool = True,
    collect_pairs: bool = False,
    seek: Optional[Tuple[int, int]] = None,
) -> _ShardOutput: ...
def index_path(
    file: PathLike, world: CollisionWorld, fixed: Mapping[str, float] = ..., every: int = 4096
) -> Dict[str, Any]: ...
def count_states(file: PathLike, world: CollisionWorld, fixed: Mapping[str, float] = ...) -> int: ...
def merge_shard(total: Analysis, shard: Analysis) -> None: ...
def select_frames(
    clearance: npt.ArrayLike, max_frames: int, margin: float = ...
) -> I64: ...

class _ReplayRun(TypedDict, total=False):
    name: str
    path: PathLike
    frames: Optional[Sequence[int]]

def write_replay_page(
    world: CollisionWorld,
    html: str,
    runs: Sequence[_ReplayRun],
    *,
    title: str = "libgjk replay",
    margin: float = ...,
    cutoff: float = ...,
    fixed: Mapping[str, float] = ...,
    max_frames: int = ...,
    threads: int = 1,
) -> List[int]: ...
def summary(
    world: CollisionWorld,
    analysis: Analysis,
    *,
    path_name: str = "",
    bad_rows: int = 0,
    has_time: bool = False,
    time_column: str = "t",
    urdf: str = "",
    scene: str = "",
    precision: int = 3,
    json: bool = False,
) -> str: ...
def load_world(urdf: str, scene: str, srdf: Optional[str] = None) -> CollisionWorld: ...
def merge_shards(shards: Iterable[Analysis]) -> Analysis: ...

class Shard:
    path: str
    name: str
    index: int
    first_index: int
    count: int
    seek_offset: int
    seek_line: int
    def __init__(
        self,
        path: str,
        name: str,
        index: int,
        first_index: int,
        count: int,
        seek_offset: int = -1,
        seek_line: int = 0,
    ) -> None: ...

class Settings:
    urdf: str
    scene: str
    srdf: Optional[str]
    fixed: Tuple[Tuple[str, float], ...]
    block_size: int
    shard_states: int
    cutoff: float
    margin: float
    pairs: bool
    def __init__(
        self,
        urdf: str,
        scene: str,
        srdf: Optional[str] = None,
        fixed: Tuple[Tuple[str, float], ...] = (),
        block_size: int = 256,
        shard_states: int = 4096,
        cutoff: float = ...,
        margin: float = ...,
        pairs: bool = False,
    ) -> None: ...
    def manifest(self) -> Dict[str, Any]: ...

class PathResult:
    name: str
    path: str
    analysis: Analysis
    bad_rows: int
    has_time: bool
    time_column: str
    summary: Dict[str, Any]
    time_below_margin_s: float

class RunResult:
    paths: List[PathResult]
    shards: int
    shards_skipped: int
    states: int
    seconds: float
    files: List[str]
    cpu_seconds: float
    states_computed: int
    startup_seconds: float
    @property
    def states_per_second(self) -> float: ...
    @property
    def states_per_cpu_second(self) -> float: ...

def plan_shards(
    paths: Sequence[str],
    counts: Sequence[int],
    shard_states: int,
    block_size: int,
    seeks: Optional[Sequence[Sequence[Tuple[int, int]]]] = None,
) -> List[Shard]: ...
def run_shard(settings: Settings, out: str, shard: Shard) -> Dict[str, Any]: ...
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
    cutoff: float = ...,
    margin: float = ...,
    pairs: bool = False,
    progress: bool = False,
) -> RunResult: ...
def write_summary(
    results: Sequence[PathResult], world: CollisionWorld, settings: Settings, out: str
) -> List[str]: ...
def write_hdf5(
    results: Sequence[PathResult],
    world: CollisionWorld,
    settings: Settings,
    out: str,
    target: str,
) -> None: ...
def format_table(result: RunResult, margin: float) -> str: ...
def write_plot(
    result: RunResult, out: str, png: str, margin: float = ..., worst: int = 3
) -> str: ...
def write_replay(
    result: RunResult,
    out: str,
    html: str,
    *,
    max_frames: int = ...,
    max_paths: int = ...,
    threads: int = 1,
) -> List[Tuple[str, int]]: ...
def main(argv: Optional[Sequence[str]] = None) -> int: ...
