// The stateful GJK_EPA class of seed 000 section 4: a thin facade over the query functions
// that remembers the last answers until a shape changes (state machine of Fig. 14).
#pragma once

#include "gjk/queries.hpp"

#include <optional>
#include <vector>

namespace gjk {

/// XYZ rotation angles (radians) to a rotation matrix, seed 000 Appendix B eq. (38):
/// R = Rx(gx) * Ry(gy) * Rz(gz) (rotate about x, then the new y, then the new z).
Eigen::Matrix3d rotation_xyz(double gamma_x, double gamma_y, double gamma_z);

/// Pose from a position and seed-000 XYZ angles.
Pose pose_from_xyz(const Vec3& position, const Vec3& angles_xyz);

/// The stateful GJK_EPA class of seed 000: two shapes set from vertex lists (or any Shape),
/// queried for collision, distance and penetration; keeps the Fig. 14 state of the last query.
class GjkEpa {
 public:
  /// Fig. 14: 0 nothing known; 1 in collision; 2 penetration known; 3 not in collision;
  /// 4 closest points known. Any setter returns to Unknown.
  enum class State {
    Unknown = 0,
    Collision = 1,
    PenetrationKnown = 2,
    Separated = 3,
    ClosestPointsKnown = 4
  };

  /// Closest points of two separated shapes.
  struct ClosestPoints {
    Vec3 point_on_a;  ///< on A, world frame
    Vec3 point_on_b;  ///< on B, world frame
    double distance;  ///< their distance
  };
  /// Penetration of two overlapping shapes (EPA).
  struct Penetration {
    Vec3 vector;      ///< rho = rho_A - rho_B (eq. 33): translate B by this to end the overlap
    Vec3 point_on_a;  ///< deepest point of A inside B, world frame
    Vec3 point_on_b;  ///< deepest point of B inside A, world frame
    double depth;     ///< depth: the translation of B along the normal that separates them
  };

  /// A pair with no shapes yet; `options` apply to every query.
  explicit GjkEpa(QueryOptions options = {}) : options_(options) {}

  /// Vertices in the absolute frame (local frame = absolute frame).
  void set_shape_a(const std::vector<Vec3>& vertices);
  /// Sets B to the hull of `vertices` (world frame); throws std::invalid_argument for NaN.
  void set_shape_b(const std::vector<Vec3>& vertices);
  /// Vertices in the local frame, placed by XYZ angles (eq. 38) and the frame's position.
  void set_shape_a_transformed(const std::vector<Vec3>& vertices, const Vec3& angles_xyz,
                               const Vec3& position);
  /// Sets B to the hull of `vertices` rotated by the XYZ angles (seed 000 eq. 38) and moved to
  /// `position`.
  void set_shape_b_transformed(const std::vector<Vec3>& vertices, const Vec3& angles_xyz,
                               const Vec3& position);
  /// Any shape with any pose (the same facade for primitives).
  void set_shape_a(const Shape& shape, const Pose& pose);
  /// Sets B to any shape at `pose`.
  void set_shape_b(const Shape& shape, const Pose& pose);

  /// Algorithm 2. Throws std::logic_error when a shape has not been set.
  bool are_in_collision();
  /// Closest points (Algorithm 1, eqs. 29-31); std::nullopt when the shapes collide.
  std::optional<ClosestPoints> get_distance();
  /// Penetration vector (Algorithm 3); std::nullopt when the shapes do not collide.
  std::optional<Penetration> get_penetration();

  /// The state of the last query (seed 000 Fig. 14).
  State state() const { return state_; }
  /// Status of the last algorithm run (Converged unless it hit a cap or a degeneracy).
  Status last_status() const { return last_status_; }

 private:
  void require_shapes() const;
  void shape_changed() { state_ = State::Unknown; }

  QueryOptions options_;
  std::optional<Shape> shape_a_, shape_b_;
  Pose pose_a_ = Pose::Identity(), pose_b_ = Pose::Identity();
  State state_ = State::Unknown;
  Status last_status_ = Status::Converged;
  ClosestPoints closest_{};
  Penetration penetration_{};
};

}  // namespace gjk
