// Shared by the robots, world and planner bindings: joint vectors and paths from NumPy, file
// checks, and the pair result Python sees for every robot distance query.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <gjk/robots/collision_world.hpp>
#include <gjk/robots/distances.hpp>
#include <gjk/robots/robot_model.hpp>
#include <gjk/robots/scene.hpp>

#include <Eigen/Core>

#include <optional>
#include <string>
#include <vector>

namespace gjk_python {

namespace py = pybind11;

/// A (n,) joint vector: numeric, finite (NaN would reach the kinematics as a silent wrong pose),
/// of `size` entries when size >= 0. ValueError naming `name` otherwise.
Eigen::VectorXd to_joint_vector(py::handle obj, const char* name, long size);
/// A (M, n) array of joint vectors, each finite; ValueError naming the bad row.
std::vector<Eigen::VectorXd> to_joint_rows(py::handle obj, const char* name, long size);
/// (n,) float64 array copied from `v`.
py::array_t<double> from_vector(const Eigen::VectorXd& v);

/// Raises FileNotFoundError (errno ENOENT, filename set) when `path` does not exist, so a
/// missing file is not reported as a parse error of the loader.
void require_file(const std::string& path, const char* what);

/// One robot pair as Python sees it: a robot shape against an obstacle or, for a self pair,
/// against another robot shape; with the names of both parts.
struct PairResult {
  gjk::robots::PairDistance pair;
  bool self = false;
  std::string name_a;   ///< the robot shape's link (or attached object)
  std::string name_b;   ///< the obstacle's name, or the second shape's link
  std::string label_a;  ///< "LINK#K": the shape among its link's shapes
  std::string label_b;  ///< the second shape's label (self pairs) or the obstacle's name
};

/// Names a model/scene pair (robot_scene_distances, minimum_distance).
PairResult name_pair(const gjk::robots::RobotModel& model, const gjk::robots::Scene* scene,
                     const gjk::robots::PairDistance& pair, bool self);
/// Names a world pair (part names from the world's matrix, obstacles from the world).
PairResult name_pair(const gjk::robots::CollisionWorld& world,
                     const gjk::robots::ClosestPair& pair);

/// Columns (dict of arrays) of a list of pairs: distance (N,), shape (N,), other (N,), self (N,),
/// point_a/point_b/normal (N, 3), gradient (N, dof) when `dof` >= 0, status (N,) int8, names.
py::dict pairs_as_arrays(const std::vector<PairResult>& pairs, long dof);

void bind_robots(py::module_& m);
void bind_world(py::module_& m);
void bind_planner(py::module_& m);

}  // namespace gjk_python
