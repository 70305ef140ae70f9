// README "Planning with OMPL", as a complete program: the Panda among the boxes of
// robots/scenes/panda_boxes.yaml, RRTConnect with libgjk's validity checker and certified motion
// validator, then a check that the path's clearance is positive.
//   planning_with_ompl [panda.urdf] [panda_boxes.yaml]
#include <gjk/planner/ompl.hpp>

#include <ompl/base/ScopedState.h>
#include <ompl/geometric/SimpleSetup.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/util/Console.h>
#include <ompl/util/RandomNumbers.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

using gjk::robots::load_scene;
using gjk::robots::RobotModel;
using gjk::robots::Scene;

int main(int argc, char** argv) try {
  const std::string urdf = argc > 1 ? argv[1] : "../shared/robot-models/panda/panda.urdf";
  const std::string scene_yaml = argc > 2 ? argv[2] : "robots/scenes/panda_boxes.yaml";
  ompl::msg::setLogLevel(ompl::msg::LOG_WARN);
  ompl::RNG::setSeed(1);
  gjk::planner::CollisionSettings settings;
  settings.fixed_positions = {{"panda_finger_joint1", 0.02}};

  // --- README snippet ---
  // clang-format off
  auto model = std::make_shared<const RobotModel>(RobotModel::from_urdf_file(urdf));
  auto scene = std::make_shared<const Scene>(load_scene(scene_yaml));
  auto si = std::make_shared<ompl::base::SpaceInformation>(
      gjk::planner::make_state_space(*model, {{"panda_finger_joint1", 0.02}}));  // fingers fixed
  gjk::planner::install_collision_checking(si, model, scene, settings);  // checker + validator
  // clang-format on
  // --- end of snippet; SimpleSetup as usual: ---

  ompl::geometric::SimpleSetup ss(si);
  ompl::base::ScopedState<> start(si->getStateSpace()), goal(si->getStateSpace());
  const std::vector<double> q0 = {1.5, 0.5, 0.0, -1.6, 0.0, 2.1, 0.8};   // behind the side block
  const std::vector<double> q1 = {-0.2, 0.9, 0.0, -1.0, 0.0, 1.9, 0.8};  // under the shelf
  for (size_t i = 0; i < q0.size(); ++i) {
    start[i] = q0[i];
    goal[i] = q1[i];
  }
  ss.setStartAndGoalStates(start, goal);
  ss.getProblemDefinition()->setOptimizationObjective(
      gjk::planner::make_length_clearance_objective(si));
  ss.setPlanner(std::make_shared<ompl::geometric::RRTConnect>(si));
  if (!ss.solve(20.0) || !ss.haveExactSolutionPath()) {
    std::fprintf(stderr, "planning_with_ompl: no path found in 20 s\n");
    return 1;
  }
  ompl::geometric::PathGeometric path = ss.getSolutionPath();
  path.interpolate(200);
  double minimum = INFINITY;
  for (const ompl::base::State* s : path.getStates())
    minimum = std::fmin(minimum, si->getStateValidityChecker()->clearance(s));
  std::printf("planning_with_ompl: path of %zu states, minimum clearance %.4f m\n",
              path.getStateCount(), minimum);
  return minimum > 0.0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "planning_with_ompl: %s\n", e.what());
  return 3;
}
