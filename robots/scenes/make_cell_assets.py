#!/usr/bin/env python3
"""Writes the assets of panda_cell.yaml: a shelf with compartments (binary STL, one closed box
per panel: a non-convex mesh whose shells are convex pieces) and a depth-camera-like point cloud
of a parts bin (ASCII PCD). Deterministic; rerun after editing and commit the outputs."""
from __future__ import annotations

import random
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent

Box = tuple[tuple[float, float, float], tuple[float, float, float]]  # (min corner, max corner)


def shelf_panels() -> list[Box]:
    """Panels in the shelf's frame: x is depth (0 at the open front), y across, z up from the
    floor. No two panels share a vertex, so each panel stays a separate shell."""
    depth, half_width, height, t = 0.35, 0.40, 1.0, 0.02
    panels: list[Box] = [
        ((0.0, -half_width, 0.0), (depth, -half_width + t, height)),  # right side
        ((0.0, half_width - t, 0.0), (depth, half_width, height)),  # left side
        ((depth - t, -half_width + t, 0.005), (depth, half_width - t, height - 0.005)),  # back
    ]
    for z in (0.0, 0.35, 0.70, 1.0 - t):  # boards: floor, two shelves, top
        panels.append(((0.01, -half_width + t, z), (depth - t, half_width - t, z + t)))
    # A divider splits the middle level into two compartments.
    panels.append(((0.01, -t / 2, 0.35 + t), (depth - t, t / 2, 0.70)))
    return panels


def box_triangles(box: Box) -> list[tuple[tuple[float, ...], ...]]:
    (x0, y0, z0), (x1, y1, z1) = box
    v = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    # Outward-facing quads as vertex indices (bit 2 = x, bit 1 = y, bit 0 = z).
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = []
    for a, b, c, d in quads:
        tris.append((v[a], v[b], v[c]))
        tris.append((v[a], v[c], v[d]))
    return tris


def write_binary_stl(path: Path, triangles: list[tuple[tuple[float, ...], ...]]) -> None:
    with path.open("wb") as f:
        f.write(b"libgjk shelf with compartments".ljust(80, b" "))
        f.write(struct.pack("<I", len(triangles)))
        for a, b, c in triangles:
            u = [b[i] - a[i] for i in range(3)]
            w = [c[i] - a[i] for i in range(3)]
            n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
            f.write(struct.pack("<3f", *n))
            for p in (a, b, c):
                f.write(struct.pack("<3f", *p))
            f.write(b"\0\0")


def bin_cloud(count: int = 2500) -> list[tuple[float, float, float]]:
    """Points on the floor and four walls of an open bin (0.30 x 0.20 x 0.15 m, in its own
    frame with the floor at z = 0), with 2 mm sensor noise."""
    rng = random.Random(17)
    hx, hy, h = 0.15, 0.10, 0.15
    faces = [  # (area, sampler)
        (4 * hx * hy, lambda: (rng.uniform(-hx, hx), rng.uniform(-hy, hy), 0.0)),
        (2 * hy * h, lambda: (hx, rng.uniform(-hy, hy), rng.uniform(0, h))),
        (2 * hy * h, lambda: (-hx, rng.uniform(-hy, hy), rng.uniform(0, h))),
        (2 * hx * h, lambda: (rng.uniform(-hx, hx), hy, rng.uniform(0, h))),
        (2 * hx * h, lambda: (rng.uniform(-hx, hx), -hy, rng.uniform(0, h))),
    ]
    total = sum(a for a, _ in faces)
    points = []
    for _ in range(count):
        r = rng.uniform(0, total)
        for area, sample in faces:
            if r <= area:
                x, y, z = sample()
                points.append(tuple(c + rng.gauss(0, 0.002) for c in (x, y, z)))
                break
            r -= area
    return points


def write_pcd(path: Path, points: list[tuple[float, float, float]]) -> None:
    lines = [
        "# .PCD v0.7 - parts bin seen by a depth camera (libgjk robots/scenes)",
        "VERSION 0.7",
        "FIELDS x y z",
        "SIZE 4 4 4",
        "TYPE F F F",
        "COUNT 1 1 1",
        f"WIDTH {len(points)}",
        "HEIGHT 1",
        "VIEWPOINT 0 0 0 1 0 0 0",
        f"POINTS {len(points)}",
        "DATA ascii",
    ]
    lines += [f"{x:.4f} {y:.4f} {z:.4f}" for x, y, z in points]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def main() -> None:
    triangles = [t for box in shelf_panels() for t in box_triangles(box)]
    write_binary_stl(HERE / "meshes" / "shelf.stl", triangles)
    write_pcd(HERE / "clouds" / "parts_bin.pcd", bin_cloud())


if __name__ == "__main__":
    main()
