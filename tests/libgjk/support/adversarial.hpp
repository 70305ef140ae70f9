// Adversarial geometry for libgjk and its peers (issue 6, "Hardening"): a deterministic generator
// of hard cases, each with its exact expected answer from an independent reference.
//
// Families (see family_names()):
//   flat        flat and needle-like Minkowski differences: coplanar polygons, segments, plates
//               1e-9 thick, needles 1e-9 wide
//   parallel    near-parallel faces: a box on a box tilted by 1e-9 .. 1e-3 rad
//   contact     separations and overlaps of 1e-12, 1e-9, 1e-6, 1e-3 for box-box (face, edge and
//               vertex down), hull-hull, sphere-box, cylinder-box and capsule-capsule
//   coincident  identical shapes in identical poses, and shifted by 1e-15 .. 1e-9
//   offset      the contact family at 1e-3 size, 1e6 away from the origin
//   coplanar    a hull of 2001 nearly coplanar points (a spherical cap of radius 100 and
//               aperture 1) against boxes, spheres and a second cap
//   cycling     configurations where GJK is known to cycle or stall: a point 1e-15 .. 1e-9 off a
//               face, edge or vertex of a tetrahedron, long thin triangles, edges crossing at
//               1e-9 rad
//
// Expected answers are analytic (closed forms in each pair's local frame, computed before the
// common random rigid motion that every case gets) where possible, else from the qhull reference
// of reference.hpp (explicit Minkowski difference). Nothing here calls the libgjk engine.
//
// Tolerances are absolute, on the distance (apart) or the depth (overlapping), and scale-aware:
// the inputs are rounded once (rotation, translation: ~1 ulp of the largest world coordinate M),
// and a distance or depth is 1-Lipschitz in the vertices, so no algorithm can do better than
// ~M * eps. Every case gets kRoundingUlps * eps * max(1, M), plus, for a cylinder (curved core,
// the only shape where GJK/EPA iterate to a tolerance rather than to an exact vertex set),
// 4 * QueryOptions::tolerance * size for distances and 4 * epa_tolerance * size for depths.
// At M = 1e6 (the offset family) that is 16 * 1e6 * eps = 3.6e-9.
#pragma once

#include "gjk/shapes.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gjk::testing {

/// Rounding allowance in units of eps * max world coordinate (see the file comment).
constexpr double kRoundingUlps = 16.0;

struct AdversarialCase {
  std::string family;  ///< one of family_names()
  std::string name;    ///< unique, e.g. "contact/box-box/vertex/sep=-1e-09/#3"
  Shape a, b;
  Pose pose_a = Pose::Identity(), pose_b = Pose::Identity();
  /// Signed distance: the distance when apart (> 0), minus the penetration depth when the
  /// interiors overlap (< 0), 0 when touching or when flat bodies overlap in their plane.
  double expected = 0.0;
  double tolerance = 0.0;   ///< absolute, on |signed distance - expected|
  double size = 1.0;        ///< sum of the two bodies' radii (for relative error reports)
  bool from_qhull = false;  ///< expected from the qhull reference (else analytic)
  std::string why;          ///< what makes it hard, in a few words
};

/// The family names, in generation order.
const std::vector<std::string>& family_names();

/// All cases. `copies` multiplies the random configurations of every family (each copy uses its
/// own seeds: the copy index is mixed into the seed of every configuration), so the suite is
/// deterministic for a given `copies`. copies = 1 gives ~700 cases.
std::vector<AdversarialCase> adversarial_cases(int copies = 1);

/// The configurations of known peer-library failures (FCL #493, #545, #127, #275, libccd #25,
/// #49, coal #37, #604, MuJoCo #3383), in the threads' own poses where they give them, with
/// exact answers; family "peer". tests/libgjk/test_peer_issues.cpp tests them in more depth.
std::vector<AdversarialCase> peer_issue_cases();

/// World-frame vertices of a polytope or box case body (for the qhull reference and the peers'
/// hulls); empty for curved shapes.
std::vector<Vec3> world_vertices(const Shape& shape, const Pose& pose);

}  // namespace gjk::testing
