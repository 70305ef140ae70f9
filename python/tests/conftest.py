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
