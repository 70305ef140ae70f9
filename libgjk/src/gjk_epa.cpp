// The GJK_EPA facade of seed 000 section 4 over the query functions.
#include "gjk/gjk_epa.hpp"

#include <stdexcept>

namespace gjk {

Eigen::Matrix3d rotation_xyz(double gamma_x, double gamma_y, double gamma_z) {
  // Seed 000 eq. (38): R = Rx * Ry * Rz.
  return (Eigen::AngleAxisd(gamma_x, Vec3::UnitX()) * Eigen::AngleAxisd(gamma_y, Vec3::UnitY()) *
          Eigen::AngleAxisd(gamma_z, Vec3::UnitZ()))
      .toRotationMatrix();
}

Pose pose_from_xyz(const Vec3& position, const Vec3& angles_xyz) {
  Pose pose = Pose::Identity();
  pose.linear() = rotation_xyz(angles_xyz.x(), angles_xyz.y(), angles_xyz.z());
  pose.translation() = position;
  return pose;
}

void GjkEpa::set_shape_a(const std::vector<Vec3>& vertices) {
  set_shape_a(ConvexPolytope::from_points(vertices), Pose::Identity());
}
void GjkEpa::set_shape_b(const std::vector<Vec3>& vertices) {
  set_shape_b(ConvexPolytope::from_points(vertices), Pose::Identity());
}

void GjkEpa::set_shape_a_transformed(const std::vector<Vec3>& vertices, const Vec3& angles_xyz,
                                     const Vec3& position) {
  set_shape_a(ConvexPolytope::from_points(vertices), pose_from_xyz(position, angles_xyz));
}
void GjkEpa::set_shape_b_transformed(const std::vector<Vec3>& vertices, const Vec3& angles_xyz,
                                     const Vec3& position) {
  set_shape_b(ConvexPolytope::from_points(vertices), pose_from_xyz(position, angles_xyz));
}

void GjkEpa::set_shape_a(const Shape& shape, const Pose& pose) {
  validate(shape);
  shape_a_ = shape;
  pose_a_ = pose;
  shape_changed();
}
void GjkEpa::set_shape_b(const Shape& shape, const Pose& pose) {
  validate(shape);
  shape_b_ = shape;
  pose_b_ = pose;
  shape_changed();
}

void GjkEpa::require_shapes() const {
  if (!shape_a_ || !shape_b_) throw std::logic_error("GjkEpa: set both shapes before querying");
}

bool GjkEpa::are_in_collision() {
  require_shapes();
  if (state_ == State::Unknown) {  // Fig. 14: 0 -> 1 or 0 -> 3 (Algorithm 2)
    const CollisionResult r = collide(*shape_a_, pose_a_, *shape_b_, pose_b_, options_);
    last_status_ = r.status;
    if (r.status == Status::InvalidInput)
      throw std::invalid_argument("GjkEpa: invalid pose or shape");
    state_ = r.collision ? State::Collision : State::Separated;
  }
  return state_ == State::Collision || state_ == State::PenetrationKnown;
}

std::optional<GjkEpa::ClosestPoints> GjkEpa::get_distance() {
  if (are_in_collision()) return std::nullopt;  // state 1 or 2: no closest points
  if (state_ == State::Separated) {             // 3 -> 4 (Algorithm 1)
    const DistanceResult r = distance(*shape_a_, pose_a_, *shape_b_, pose_b_, options_);
    last_status_ = r.status;
    closest_ = {r.point_on_a, r.point_on_b, r.distance};
    state_ = State::ClosestPointsKnown;
  }
  return closest_;
}

std::optional<GjkEpa::Penetration> GjkEpa::get_penetration() {
  if (!are_in_collision()) return std::nullopt;  // state 3 or 4: no penetration
  if (state_ == State::Collision) {              // 1 -> 2 (Algorithm 3)
    const PenetrationResult r = penetration(*shape_a_, pose_a_, *shape_b_, pose_b_, options_);
    last_status_ = r.status;
    penetration_ = {r.point_on_a - r.point_on_b, r.point_on_a, r.point_on_b, r.depth};
    state_ = State::PenetrationKnown;
  }
  return penetration_;
}

}  // namespace gjk
