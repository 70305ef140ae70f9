"""Shared fixtures: random poses and shapes, and the C++ reference program."""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

import libgjk


def random_pose(rng: np.random.Generator, spread: float = 1.5) -> np.ndarray:
    """A random rigid pose (uniform rotation from a normalised Gaussian quaternion)."""
    q = rng.normal(size=4)
    return libgjk.pose(rng.uniform(-spread, spread, size=3), q / np.linalg.norm(q))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12)


@pytest.fixture(scope="session")
def reference_program() -> str:
    """Path of gjk_python_reference (set by ctest; see python/CMakeLists.txt)."""
    path = os.environ.get("GJK_PYTHON_REFERENCE", "")
    assert path and os.path.exists(path), (
        "GJK_PYTHON_REFERENCE must name the built gjk_python_reference program "
        "(ctest sets it; run the suite with ctest -R PythonPackageTests)"
    )
    return path


def run_reference(program: str, lines: list[str]) -> list[list[float]]:
    """Runs the C++ reference on the cases and returns each answer's numbers."""
    out = subprocess.run(
        [program], input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout
    return [[float(x) for x in line.split()] for line in out.splitlines()]


# ---- robots: paths of the models, scenes and tools (ctest sets them; see python/CMakeLists.txt;
# without ctest they are derived from this file's place in the source tree).
SOURCE_DIR = os.environ.get(
    "GJK_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
)
ROBOT_MODELS_DIR = os.environ.get(
    "GJK_SHARED_ROBOT_MODELS", os.path.join(SOURCE_DIR, "..", "shared", "robot-models")
)
PANDA_URDF = os.path.join(ROBOT_MODELS_DIR, "panda", "panda.urdf")
PANDA_SRDF = os.path.join(ROBOT_MODELS_DIR, "panda", "panda.srdf")
FOUR_DOF_URDF = os.path.join(SOURCE_DIR, "robots", "models", "four_dof", "four_dof_arm.urdf")
SCENES_DIR = os.path.join(SOURCE_DIR, "robots", "scenes")
# The Panda's "ready" pose (SRDF) with the fingers 2 cm apart: 7 arm joints + 1 finger.
PANDA_READY = np.array([0.0, -np.pi / 4, 0.0, -3 * np.pi / 4, 0.0, np.pi / 2, np.pi / 4, 0.02])


@pytest.fixture(scope="session")
def panda() -> "libgjk.robots.RobotModel":
    return libgjk.robots.RobotModel.from_urdf(PANDA_URDF)


@pytest.fixture(scope="session")
def four_dof() -> "libgjk.robots.RobotModel":
    return libgjk.robots.RobotModel.from_urdf(FOUR_DOF_URDF)


@pytest.fixture(scope="session")
def panda_cell(panda: "libgjk.robots.RobotModel") -> "libgjk.robots.CollisionWorld":
    """The Panda in robots/scenes/panda_cell.yaml with the SRDF's allowed-collision matrix."""
    srdf = libgjk.robots.load_srdf(PANDA_SRDF, panda)
    scene = libgjk.robots.load_scene(os.path.join(SCENES_DIR, "panda_cell.yaml"))
    return libgjk.robots.CollisionWorld(panda, scene, libgjk.robots.acm_from_srdf(panda, srdf))
