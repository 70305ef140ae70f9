#!/usr/bin/env python3
"""Generate the 4-DOF arm of seed 002, section 4.4, as a URDF with binary STL collision meshes.

Seed 002, 4.4: "a 4-dof articulated robot with link lengths 2, 1, 0.6, and 0.4 and all rotary
joints ... A hexadecagonal cylinder is used to model each link and joint." Initial pose (joint
angles 0, 90, -150, -30 degrees) and destination (0, -0.0804, 2.3) of the end effector.

Writes (relative to the repository root):
  robots/models/four_dof/four_dof_arm.urdf
  robots/models/four_dof/meshes/{link1..link4,joint1..joint4}.stl

Usage:
  python3 scripts/make_four_dof_arm.py           write the files, run all checks
  python3 scripts/make_four_dof_arm.py --check   verify the committed files are up to date
                                                 (exit 1 with a message otherwise)

Output is deterministic: stdlib only, fixed ordering, fixed STL header, no timestamps.

Checks run every time (on the bytes that are / would be written):
  - every STL is closed (each undirected edge shared by exactly two triangles, once in each
    direction), every triangle faces outward, the signed volume is positive and equals the
    analytic volume of the 16-gon prism;
  - forward kinematics computed from the URDF text (4x4 matrices from the joint origins/axes
    parsed back with xml.etree): q = 0 puts the end effector at (0, 0, 4); q = (0, 90, -150, -30)
    degrees puts it at (0, -0.0804, 2.3), the destination listed in the seed.
"""

import math
import pathlib
import struct
import sys
import xml.etree.ElementTree as ET

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "robots" / "models" / "four_dof"
URDF_NAME = "four_dof_arm.urdf"
SIDES = 16  # hexadecagon

# Link k: (length along its +z, circumradius of its 16-gon cross section).
LINKS = [
    ("link1", 2.0, 0.08),
    ("link2", 1.0, 0.07),
    ("link3", 0.6, 0.06),
    ("link4", 0.4, 0.05),
]
# Joint housings: (name, axis 'z' or 'x', circumradius, length along the axis).
# joint1 housing sits on the floor, z in [0, 0.2]; joints 2-4 are centred on the joint axis.
JOINT_HOUSINGS = [
    ("joint1", "z", 0.12, 0.2),
    ("joint2", "x", 0.10, 0.2),
    ("joint3", "x", 0.09, 0.18),
    ("joint4", "x", 0.08, 0.16),
]
VELOCITY = 2.0  # rad/s, not from the paper (it fixes only the end-effector speed, 0.1)
EFFORT = 100.0  # N m, not from the paper
LIMIT = math.pi  # all four joints: [-pi, pi]; the paper lists no limits


# ----------------------------------------------------------------------------------------------
# Meshes


def prism_z(radius, z0, z1):
    """Closed 16-gon prism along +z, z in [z0, z1]. Returns (vertices, triangles), outward CCW."""
    verts = []
    for z in (z0, z1):
        for k in range(SIDES):
            a = 2.0 * math.pi * k / SIDES
            verts.append((radius * math.cos(a), radius * math.sin(a), z))
    tris = []
    for k in range(SIDES):
        b0, b1 = k, (k + 1) % SIDES
        t0, t1 = b0 + SIDES, b1 + SIDES
        tris.append((b0, b1, t1))
        tris.append((b0, t1, t0))
    # Caps as fans from vertex 0 (no centre vertex: every mesh vertex is a hull vertex).
    for k in range(1, SIDES - 1):
        tris.append((SIDES, SIDES + k, SIDES + k + 1))  # top, normal +z
        tris.append((0, k + 1, k))  # bottom, normal -z
    return verts, tris


def prism(axis, radius, lo, hi):
    verts, tris = prism_z(radius, lo, hi)
    if axis == "x":
        # Cyclic permutation (x, y, z) -> (z, x, y): a proper rotation taking +z to +x,
        # so triangle orientation is preserved.
        verts = [(z, x, y) for (x, y, z) in verts]
    return verts, tris


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def stl_bytes(name, verts, tris):
    header = f"libgjk four_dof_arm {name} (scripts/make_four_dof_arm.py)".encode("ascii")
    assert len(header) <= 80 and not header.startswith(b"solid")
    out = [header.ljust(80, b" "), struct.pack("<I", len(tris))]
    for t in tris:
        p = [verts[i] for i in t]
        n = cross(sub(p[1], p[0]), sub(p[2], p[0]))
        length = math.sqrt(dot(n, n))
        n = tuple(c / length for c in n)
        out.append(struct.pack("<12fH", *n, *p[0], *p[1], *p[2], 0))
    return b"".join(out)


def parse_stl(data):
    (count,) = struct.unpack_from("<I", data, 80)
    assert len(data) == 84 + 50 * count, "binary STL size does not match its triangle count"
    tris = []
    for i in range(count):
        v = struct.unpack_from("<12f", data, 84 + 50 * i)
        tris.append((v[0:3], (v[3:6], v[6:9], v[9:12])))
    return tris


def check_stl(name, data, expected_volume):
    """Closed, outward, positive volume. Works on the float32 data as written."""
    tris = parse_stl(data)
    index = {}
    directed = {}
    for _, pts in tris:
        ids = [index.setdefault(p, len(index)) for p in pts]
        for a, b in ((ids[0], ids[1]), (ids[1], ids[2]), (ids[2], ids[0])):
            directed[(a, b)] = directed.get((a, b), 0) + 1
    undirected = {}
    for (a, b), c in directed.items():
        assert c == 1, f"{name}: directed edge {a}->{b} used {c} times (inconsistent orientation)"
        key = (min(a, b), max(a, b))
        undirected[key] = undirected.get(key, 0) + 1
    bad = [e for e, c in undirected.items() if c != 2]
    assert not bad, f"{name}: {len(bad)} edges not shared by exactly two triangles"
    nv, ne, nf = len(index), len(undirected), len(tris)
    assert nv - ne + nf == 2, f"{name}: Euler characteristic {nv - ne + nf} != 2"

    centroid = [0.0, 0.0, 0.0]
    for p in index:
        for j in range(3):
            centroid[j] += p[j] / nv
    volume = 0.0
    for normal, (p0, p1, p2) in tris:
        volume += dot(p0, cross(p1, p2)) / 6.0
        n = cross(sub(p1, p0), sub(p2, p0))
        c = tuple((p0[j] + p1[j] + p2[j]) / 3.0 - centroid[j] for j in range(3))
        assert dot(n, c) > 0.0, f"{name}: triangle faces inward"
        assert dot(n, normal) > 0.0, f"{name}: stored normal disagrees with winding"
    assert volume > 0.0, f"{name}: signed volume {volume} is not positive"
    assert abs(volume - expected_volume) < 1e-6 * max(1.0, expected_volume), (
        f"{name}: volume {volume} != analytic {expected_volume}"
    )
    return nv, nf, volume


def polygon_area(radius):
    return 0.5 * SIDES * radius * radius * math.sin(2.0 * math.pi / SIDES)


def build_meshes():
    """name -> (stl bytes, analytic volume). Each mesh is expressed in the frame of the link that
    carries it, so every collision <origin> in the URDF is the identity."""
    meshes = {}
    for name, length, radius in LINKS:
        v, t = prism("z", radius, 0.0, length)
        meshes[name] = (stl_bytes(name, v, t), polygon_area(radius) * length)
    for name, axis, radius, length in JOINT_HOUSINGS:
        lo, hi = (0.0, length) if axis == "z" else (-0.5 * length, 0.5 * length)
        v, t = prism(axis, radius, lo, hi)
        meshes[name] = (stl_bytes(name, v, t), polygon_area(radius) * length)
    return meshes


# ----------------------------------------------------------------------------------------------
# URDF


def num(x):
    return repr(float(x))


def urdf_text():
    lines = []
    w = lines.append
    w('<?xml version="1.0"?>')
    w("<!--")
    w("  GENERATED by scripts/make_four_dof_arm.py - do not edit by hand; rerun the script.")
    w("")
    w("  The 4-DOF articulated arm of seed 002, section 4.4: link lengths 2, 1, 0.6, 0.4, all")
    w("  joints revolute, each link and each joint modelled as a hexadecagonal (16-sided) prism.")
    w("  Units: metres, radians.")
    w("")
    w("  Kinematics (zero configuration = straight up, every link along +z):")
    w("    joint1  base_link -> link1  at (0, 0, 0),   axis +z (yaw of the whole arm)")
    w("    joint2  link1 -> link2      at (0, 0, 2),   axis +x (pitch, top of link 1)")
    w("    joint3  link2 -> link3      at (0, 0, 1),   axis +x (pitch, top of link 2)")
    w("    joint4  link3 -> link4      at (0, 0, 0.6), axis +x (pitch, top of link 3)")
    w("    end_effector_joint (fixed) link4 -> end_effector at (0, 0, 0.4), the tip of link 4")
    w("  q = 0 puts the end effector at (0, 0, 4); q = (0, 90, -150, -30) deg (the seed's initial")
    w("  pose) puts it at (0, -0.0804, 2.3) (the seed's 'destination'); both asserted by the script.")
    w("")
    w("  Geometry (16-gon radii are circumradii: the distance from the axis to a prism's vertices;")
    w("  vertex k of every 16-gon is at angle 2*pi*k/16 from the local +x, or +y for x-axis prisms):")
    for name, length, radius in LINKS:
        w(f"    {name}: link prism radius {num(radius)}, z in [0, {num(length)}] of its own frame")
    for name, axis, radius, length in JOINT_HOUSINGS:
        if axis == "z":
            span = f"z in [0, {num(length)}]"
        else:
            span = f"x in [{num(-length / 2)}, {num(length / 2)}]"
        w(f"    {name}: housing radius {num(radius)}, axis {axis}, {span}")
    w("  Each joint housing belongs to the CHILD link (the link the joint moves): link k carries")
    w("  meshes/jointk.stl and meshes/linkk.stl as two separate convex collision elements.")
    w("  base_link and end_effector have no geometry.")
    w("  Mesh frames: every STL is written directly in the frame of the link that carries it, so all")
    w("  collision/visual <origin> elements are the identity.")
    w("")
    w("  Joint limits [-pi, pi], velocity and effort are placeholders (the seed lists none).")
    w("  No <inertial> elements: the model is for kinematics and distance queries only.")
    w("-->")
    w('<robot name="four_dof_arm">')
    w("")
    w("  <!-- Root link: fixed to the world at the origin (the loader treats the root as fixed). -->")
    w('  <link name="base_link"/>')
    for k, (name, _, _) in enumerate(LINKS):
        housing = JOINT_HOUSINGS[k][0]
        w("")
        w(f'  <link name="{name}">')
        for tag in ("visual", "collision"):
            for mesh in (housing, name):
                w(f'    <{tag} name="{mesh}">')
                w('      <origin xyz="0 0 0" rpy="0 0 0"/>')
                w(f'      <geometry><mesh filename="meshes/{mesh}.stl"/></geometry>')
                w(f"    </{tag}>")
        w("  </link>")
    w("")
    w('  <link name="end_effector"/>')
    parents = ["base_link"] + [n for n, _, _ in LINKS[:-1]]
    offsets = [0.0] + [length for _, length, _ in LINKS[:-1]]
    for k, (name, _, _) in enumerate(LINKS):
        axis = "0 0 1" if JOINT_HOUSINGS[k][1] == "z" else "1 0 0"
        w("")
        w(f'  <joint name="joint{k + 1}" type="revolute">')
        w(f'    <parent link="{parents[k]}"/>')
        w(f'    <child link="{name}"/>')
        w(f'    <origin xyz="0 0 {num(offsets[k])}" rpy="0 0 0"/>')
        w(f'    <axis xyz="{axis}"/>')
        w(
            f'    <limit lower="{num(-LIMIT)}" upper="{num(LIMIT)}"'
            f' velocity="{num(VELOCITY)}" effort="{num(EFFORT)}"/>'
        )
        w("  </joint>")
    w("")
    w('  <joint name="end_effector_joint" type="fixed">')
    w(f'    <parent link="{LINKS[-1][0]}"/>')
    w('    <child link="end_effector"/>')
    w(f'    <origin xyz="0 0 {num(LINKS[-1][1])}" rpy="0 0 0"/>')
    w("  </joint>")
    w("")
    w("</robot>")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# Forward kinematics from the URDF text (independent of the tables above)


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def rotation(axis, angle):
    """Rodrigues: 4x4 rotation by angle about the unit vector axis."""
    x, y, z = axis
    c, s, t = math.cos(angle), math.sin(angle), 1.0 - math.cos(angle)
    return [
        [t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0.0],
        [t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0.0],
        [t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]


def origin_matrix(elem):
    """URDF <origin xyz rpy>: translation * Rz(yaw) * Ry(pitch) * Rx(roll)."""
    xyz = [0.0, 0.0, 0.0]
    rpy = [0.0, 0.0, 0.0]
    if elem is not None:
        xyz = [float(v) for v in elem.get("xyz", "0 0 0").split()]
        rpy = [float(v) for v in elem.get("rpy", "0 0 0").split()]
    m = rotation((1, 0, 0), rpy[0])
    m = matmul(rotation((0, 1, 0), rpy[1]), m)
    m = matmul(rotation((0, 0, 1), rpy[2]), m)
    for i in range(3):
        m[i][3] = xyz[i]
    return m


def fk_end_effector(urdf, q):
    """Position of the end_effector link origin for joint values q (dict name -> radians)."""
    root = ET.fromstring(urdf)
    by_child = {j.find("child").get("link"): j for j in root.findall("joint")}
    chain = []
    link = "end_effector"
    while link in by_child:
        joint = by_child[link]
        chain.append(joint)
        link = joint.find("parent").get("link")
    assert link == "base_link", f"kinematic chain ends at {link}, expected base_link"
    m = [[float(i == j) for j in range(4)] for i in range(4)]
    for joint in reversed(chain):
        m = matmul(m, origin_matrix(joint.find("origin")))
        if joint.get("type") == "revolute":
            axis = [float(v) for v in joint.find("axis").get("xyz").split()]
            m = matmul(m, rotation(axis, q[joint.get("name")]))
        else:
            assert joint.get("type") == "fixed"
    return (m[0][3], m[1][3], m[2][3])


def check_fk(urdf):
    cases = [
        ((0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 4.0), "zero configuration"),
        ((0.0, 90.0, -150.0, -30.0), (0.0, -0.0804, 2.3), "seed 002 4.4 initial pose -> destination"),
    ]
    for q_deg, expected, label in cases:
        q = {f"joint{i + 1}": math.radians(a) for i, a in enumerate(q_deg)}
        p = fk_end_effector(urdf, q)
        err = max(abs(p[i] - expected[i]) for i in range(3))
        print(
            f"FK {label}: q = {q_deg} deg -> end effector "
            f"({p[0]:.6f}, {p[1]:.6f}, {p[2]:.6f}), expected {expected}, max error {err:.2e}"
        )
        assert err < 1e-4, f"FK check failed for {label}"


# ----------------------------------------------------------------------------------------------


def main(argv):
    check_only = "--check" in argv[1:]
    unknown = [a for a in argv[1:] if a != "--check"]
    if unknown:
        print(f"usage: {argv[0]} [--check]", file=sys.stderr)
        return 2

    urdf = urdf_text()
    meshes = build_meshes()
    for name, (data, volume) in meshes.items():
        nv, nf, vol = check_stl(name, data, volume)
        print(f"mesh {name}.stl: {nv} vertices, {nf} triangles, closed, outward, volume {vol:.6f}")
    check_fk(urdf)

    files = {OUT_DIR / URDF_NAME: urdf.encode("utf-8")}
    for name, (data, _) in meshes.items():
        files[OUT_DIR / "meshes" / f"{name}.stl"] = data

    if check_only:
        problems = []
        for path, data in files.items():
            rel = path.relative_to(REPO)
            if not path.exists():
                problems.append(f"missing: {rel}")
            elif path.read_bytes() != data:
                problems.append(f"out of date: {rel}")
        mesh_dir = OUT_DIR / "meshes"
        if mesh_dir.is_dir():
            for path in sorted(mesh_dir.iterdir()):
                if path not in files:
                    problems.append(f"not generated by this script: {path.relative_to(REPO)}")
        if problems:
            print(
                "four_dof_arm model is NOT up to date; run python3 scripts/make_four_dof_arm.py",
                file=sys.stderr,
            )
            for p in problems:
                print(f"  {p}", file=sys.stderr)
            return 1
        print("four_dof_arm model is up to date")
        return 0

    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
            print(f"wrote {path.relative_to(REPO)}")
        else:
            print(f"unchanged {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
