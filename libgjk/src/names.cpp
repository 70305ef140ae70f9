// Enum names and the small Simplex helpers.
#include "gjk/results.hpp"
#include "gjk/simplex.hpp"

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

bool solve_simplex(SimplexSolver solver, Simplex& simplex, Vec3& v) {
  switch (solver) {
    case SimplexSolver::Johnson:
      return solve_johnson(simplex, v);
    case SimplexSolver::RefineSet:
      return solve_refine_set(simplex, v);
    case SimplexSolver::SignedVolumes:
      break;
  }
  return solve_signed_volumes(simplex, v);
}

}  // namespace gjk
