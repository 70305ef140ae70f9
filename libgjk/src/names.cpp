// Enum names and the small Simplex helpers.
#include "gjk/results.hpp"
#include "gjk/simplex.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace gjk {

const char* to_string(Status status) {
  switch (status) {
    case Status::Converged:
      return "converged";
    case Status::MaxIterations:
      return "max_iterations";
    case Status::Degenerate:
      return "degenerate";
    case Status::InvalidInput:
      return "invalid_input";
  }
  return "unknown";
}

const char* to_string(SimplexSolver solver) {
  switch (solver) {
    case SimplexSolver::SignedVolumes:
      return "signed_volumes";
    case SimplexSolver::Johnson:
      return "johnson";
    case SimplexSolver::RefineSet:
      return "refine_set";
    case SimplexSolver::RefineSetFixed:
      return "refine_set_fixed";
  }
  return "unknown";
}

const char* to_string(Feature feature) {
  switch (feature) {
    case Feature::Unknown:
      return "unknown";
    case Feature::Vertex:
      return "vertex";
    case Feature::Edge:
      return "edge";
    case Feature::Face:
      return "face";
    case Feature::Curved:
      return "curved";
  }
  return "unknown";
}

Vec3 Simplex::closest_point() const {
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < size; ++i)
    p += lambda[static_cast<size_t>(i)] * points[static_cast<size_t>(i)].w;
  return p;
}
Vec3 Simplex::point_on_a() const {
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < size; ++i)
    p += lambda[static_cast<size_t>(i)] * points[static_cast<size_t>(i)].a;
  return p;
}
Vec3 Simplex::point_on_b() const {
  Vec3 p = Vec3::Zero();
  for (int i = 0; i < size; ++i)
    p += lambda[static_cast<size_t>(i)] * points[static_cast<size_t>(i)].b;
  return p;
}

namespace {

// Johnson's cofactors are polynomials of degree up to 6 in the coordinates; on slivers (faces
// 1e-9 rad from parallel, nearly parallel edges, triangles 1e-6 wide) their signs are rounding
// noise and it can keep a sub-simplex whose nearest point is not the simplex's: GJK then stopped
// up to 2e-8 from the answer claiming convergence, or called overlapping plates apart (found by
// the adversarial suite, tests/libgjk/test_adversarial.cpp). The nearest point v of a simplex
// satisfies <v, w_i> >= |v|^2 for every vertex w_i; when Johnson's v misses that by more than
// rounding, the step is redone with signed volumes.
bool solve_johnson_checked(Simplex& simplex, Vec3& v) {
  const Simplex input = simplex;
  if (solve_johnson(simplex, v)) return true;
  const double vv = v.squaredNorm();
  double size = 0.0;
  for (int i = 0; i < input.size; ++i)
    size = std::max(size, input.points[static_cast<size_t>(i)].w.norm());
  const double slack = 64.0 * DBL_EPSILON * size * std::sqrt(vv);
  for (int i = 0; i < input.size; ++i) {
    if (input.points[static_cast<size_t>(i)].w.dot(v) < vv - slack) {
      simplex = input;
      return solve_signed_volumes(simplex, v);
    }
  }
  return false;
}

}  // namespace

bool solve_simplex(SimplexSolver solver, Simplex& simplex, Vec3& v) {
  switch (solver) {
    case SimplexSolver::Johnson:
      return solve_johnson_checked(simplex, v);
    case SimplexSolver::RefineSet:
      return solve_refine_set(simplex, v);
    case SimplexSolver::RefineSetFixed:
      return solve_refine_set_fixed(simplex, v);
    case SimplexSolver::SignedVolumes:
      break;
  }
  return solve_signed_volumes(simplex, v);
}

}  // namespace gjk
