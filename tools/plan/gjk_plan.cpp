// gjk-plan: OMPL planning on an arm with the libgjk checkers, then the clearance profile of the
// path. Presets: the 4-DOF arm of seed 002 between two poses on opposite sides of its pyramids,
// and the Franka Panda (7 joints planned, fingers fixed) among the boxes of panda_boxes.yaml.
//
// Every motion the planner accepts is certified collision-free by conservative advancement
// (gjk::planner::CertifiedMotionValidator), and the profile is computed with warm-started
// distance queries along the interpolated path.
#include <gjk/planner/ompl.hpp>
#include "data_paths.hpp"

#include <ompl/base/ScopedState.h>
#include <ompl/geometric/SimpleSetup.h>
#include <ompl/geometric/planners/informedtrees/BITstar.h>
#include <ompl/geometric/planners/prm/PRMstar.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/geometric/planners/rrt/RRTstar.h>
#include <ompl/util/Console.h>
#include <ompl/util/RandomNumbers.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#ifndef GJK_SOURCE_DIR
#error "GJK_SOURCE_DIR must name the source tree"
#endif
#ifndef GJK_SHARED_ROBOT_MODELS_DIR
#error "GJK_SHARED_ROBOT_MODELS_DIR must name ../shared/robot-models"
#endif

namespace fs = std::filesystem;
namespace ob = ompl::base;
namespace og = ompl::geometric;
using namespace gjk;

namespace {

struct Preset {
  std::string urdf, scene;
  std::vector<double> start, goal;
  planner::FixedPositions fixed;
};

Preset preset(const std::string& robot) {
  const std::string src = gjk::tools::data_dir();
  const double deg = M_PI / 180.0;
  if (robot == "four_dof") {
    // From the seed's initial pose (elbow out above pyramid_low, hand in towards the column)
    // to the hand tucked into the gap between the two pyramids, link 3 hanging down outboard
    // of pyramid_low: the straight joint-space motion sweeps the arm through a pyramid.
    return {src + "/robots/models/four_dof/four_dof_arm.urdf",
            src + "/robots/scenes/two_pyramids.yaml",
            {0.0, 90 * deg, -150 * deg, -30 * deg},
            {0.0, 1.2, 1.9, 1.0},
            {}};
  }
  if (robot == "panda") {
    // From behind the side block on the left (joint 1 at 1.5 rad, hand low) to the hand
    // reaching under the front shelf: the straight motion swings the hand through the block.
    return {std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf",
            src + "/robots/scenes/panda_boxes.yaml",
            {1.5, 0.5, 0.0, -1.6, 0.0, 2.1, 0.8},
            {-0.2, 0.9, 0.0, -1.0, 0.0, 1.9, 0.8},
            {{"panda_finger_joint1", 0.02}}};
  }
  throw std::invalid_argument("--robot '" + robot + "': expected four_dof or panda");
}

std::vector<double> parse_vector(const std::string& text, const std::string& what) {
  std::vector<double> v;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      v.push_back(std::stod(item, &used));
      if (item.find_first_not_of(" \t", used) != std::string::npos) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw std::invalid_argument(what + ": '" + item + "' is not a number");
    }
  }
  return v;
}

ob::PlannerPtr make_planner(const std::string& name, const ob::SpaceInformationPtr& si) {
  if (name == "rrtconnect") return std::make_shared<og::RRTConnect>(si);
  if (name == "rrtstar") return std::make_shared<og::RRTstar>(si);
  if (name == "bitstar") return std::make_shared<og::BITstar>(si);
  if (name == "prmstar") return std::make_shared<og::PRMstar>(si);
  throw std::invalid_argument("--planner '" + name +
                              "': expected rrtconnect, rrtstar, bitstar or prmstar");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Plans a collision-free arm motion with OMPL and the libgjk checkers, then reports "
      "the clearance profile along the path (CSV + plot in the output folder)."};
  std::string robot = "four_dof", planner_name = "rrtconnect", out_dir = "out";
  std::string urdf, scene_path, start_text, goal_text;
  double time_limit = 5.0, margin = 0.0;
  int profile_states = 1000;
  unsigned seed = 1;
  bool plots = true;
  app.add_option("--robot", robot, "preset: four_dof or panda")->capture_default_str();
  app.add_option("--urdf", urdf, "override the preset's URDF");
  app.add_option("--scene", scene_path, "override the preset's scene (YAML)");
  app.add_option("--start", start_text, "start joint vector, radians, comma-separated");
  app.add_option("--goal", goal_text, "goal joint vector, radians, comma-separated");
  app.add_option("--planner", planner_name, "rrtconnect, rrtstar, bitstar or prmstar")
      ->capture_default_str();
  app.add_option("--time", time_limit, "planning time limit, s (optimizing planners use it all)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--margin", margin, "required clearance, m")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--profile-states", profile_states, "states of the interpolated path profile")
      ->capture_default_str()
      ->check(CLI::Range(2, 10000000));
  app.add_option("--seed", seed, "OMPL random seed (reproducible runs)")->capture_default_str();
  app.add_option("-o,--out", out_dir, "output folder")->capture_default_str();
  app.add_flag("!--no-plots", plots, "write the CSV only");
  CLI11_PARSE(app, argc, argv);

  try {
    Preset p = preset(robot);
    if (!urdf.empty()) p.urdf = urdf;
    if (!scene_path.empty()) p.scene = scene_path;
    if (!start_text.empty()) p.start = parse_vector(start_text, "--start");
    if (!goal_text.empty()) p.goal = parse_vector(goal_text, "--goal");

    ompl::msg::setLogLevel(ompl::msg::LOG_WARN);
    ompl::RNG::setSeed(seed);
    auto model =
        std::make_shared<const robots::RobotModel>(robots::RobotModel::from_urdf_file(p.urdf));
    auto scene = std::make_shared<const robots::Scene>(robots::load_scene(p.scene));
    auto space = planner::make_state_space(*model, p.fixed);
    auto si = std::make_shared<ob::SpaceInformation>(space);
    planner::CollisionSettings settings;
    settings.margin = margin;
    settings.fixed_positions = p.fixed;
    const auto collision = planner::install_collision_checking(si, model, scene, settings);
    const auto checker =
        std::static_pointer_cast<planner::StateValidityChecker>(si->getStateValidityChecker());

    const unsigned dim = space->getDimension();
    if (p.start.size() != dim || p.goal.size() != dim) {
      throw std::invalid_argument("start and goal need " + std::to_string(dim) +
                                  " values (the planned joints of '" + model->name() + "'), got " +
                                  std::to_string(p.start.size()) + " and " +
                                  std::to_string(p.goal.size()));
    }
    ob::ScopedState<> start(space), goal(space);
    for (unsigned i = 0; i < dim; ++i) {
      start[i] = p.start[i];
      goal[i] = p.goal[i];
    }
    for (auto [state, name] : {std::pair{&start, "start"}, std::pair{&goal, "goal"}}) {
      if (!si->satisfiesBounds(state->get()))
        throw std::invalid_argument(std::string(name) + " is outside the joint limits");
      if (!si->isValid(state->get())) {
        const planner::ClosestPair c = checker->closest(checker->to_vector(state->get()));
        const auto& shapes = model->collision_shapes();
        const std::string a = model->links()[size_t(shapes[size_t(c.pair.shape)].link)].name;
        const std::string b =
            c.self ? model->links()[size_t(shapes[size_t(c.pair.obstacle)].link)].name
                   : scene->obstacles[size_t(c.pair.obstacle)].name;
        throw std::invalid_argument(std::string(name) + " is in collision: " + a + " / " + b +
                                    " at signed distance " + std::to_string(c.pair.distance) +
                                    " m");
      }
    }

    og::SimpleSetup ss(si);
    ss.setStartAndGoalStates(start, goal);
    ss.setPlanner(make_planner(planner_name, si));
    if (planner_name != "rrtconnect")
      ss.getProblemDefinition()->setOptimizationObjective(
          planner::make_length_clearance_objective(si));
    const auto t0 = std::chrono::steady_clock::now();
    const ob::PlannerStatus status = ss.solve(time_limit);
    const double plan_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (status != ob::PlannerStatus::EXACT_SOLUTION) {
      std::cerr << "gjk-plan: no path found in " << time_limit << " s (" << status.asString()
                << ")\n";
      return 1;
    }
    const auto t1 = std::chrono::steady_clock::now();
    ss.simplifySolution();
    const double simplify_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    og::PathGeometric path = ss.getSolutionPath();
    const size_t waypoints = path.getStateCount();
    const double length = path.length();

    // Every segment certified (the planner already used the certified validator; this is the
    // check a user would run on a path from elsewhere).
    planner::CertifiedMotionValidator certifier(si, collision);
    int certified = 0, steps = 0, pair_queries = 0;
    for (size_t i = 0; i + 1 < waypoints; ++i) {
      const auto cert = certifier.certify(checker->to_vector(path.getState(i)),
                                          checker->to_vector(path.getState(i + 1)));
      certified += cert.valid;
      steps += cert.steps;
      pair_queries += cert.pair_queries;
    }

    // Clearance profile: warm-started distances along the interpolated path (seed 004 sec. 4).
    path.interpolate(static_cast<unsigned>(profile_states));
    fs::create_directories(out_dir);
    const std::string base = (fs::path(out_dir) / ("plan_" + robot)).string();
    {
      std::ofstream matrix(base + "_path.txt");
      if (!matrix) throw std::runtime_error("cannot write " + base + "_path.txt");
      path.printAsMatrix(matrix);
    }
    std::ofstream csv(base + "_clearance.csv");
    if (!csv) throw std::runtime_error("cannot write " + base + "_clearance.csv");
    csv << std::setprecision(10) << "state,arc_length,clearance,link,obstacle\n";
    robots::Workspace ws(*model);
    robots::DistanceCache cache(*model, *scene);
    robots::DistanceOptions options;
    options.gradients = false;
    std::vector<robots::PairDistance> pairs;
    double arc = 0.0, min_clearance = std::numeric_limits<double>::infinity(), min_arc = 0.0;
    std::string min_where = "none";
    double query_seconds = 0.0;
    for (size_t i = 0; i < path.getStateCount(); ++i) {
      if (i > 0) arc += si->distance(path.getState(i - 1), path.getState(i));
      robots::forward_kinematics(*model, checker->to_vector(path.getState(i)), ws);
      const auto tq = std::chrono::steady_clock::now();
      robots::robot_scene_distances(*model, ws, *scene, options, &cache, pairs);
      query_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tq).count();
      const robots::PairDistance* best = nullptr;
      for (const auto& d : pairs) {
        // Links that no planned joint moves (the base on its table) keep a constant distance
        // that says nothing about the path.
        if (collision->levers()[static_cast<size_t>(d.shape)].sum() == 0.0) continue;
        if (!best || d.distance < best->distance) best = &d;
      }
      if (!best) continue;
      const std::string link =
          model->links()[static_cast<size_t>(model->collision_shapes()[best->shape].link)].name;
      const std::string& obstacle = scene->obstacles[static_cast<size_t>(best->obstacle)].name;
      csv << i << ',' << arc << ',' << best->distance << ',' << link << ',' << obstacle << '\n';
      if (best->distance < min_clearance) {
        min_clearance = best->distance;
        min_arc = arc;
        min_where = link + " / " + obstacle;
      }
    }
    csv.close();

    std::cout << std::fixed << std::setprecision(4) << model->name() << " (" << dim
              << " joints planned) in " << p.scene << ", " << planner_name << ":\n"
              << "  solved in " << plan_seconds << " s, simplified in " << simplify_seconds
              << " s: " << waypoints << " waypoints, joint-space length " << length << " rad\n"
              << "  certified segments   " << certified << " of " << waypoints - 1 << " (" << steps
              << " configurations, " << pair_queries
              << " pair distance queries by conservative advancement)\n"
              << "  motions checked while planning: "
              << si->getMotionValidator()->getValidMotionCount() << " valid, "
              << si->getMotionValidator()->getInvalidMotionCount() << " invalid\n"
              << "  clearance of the moving links to obstacles along " << path.getStateCount()
              << " interpolated states: minimum " << min_clearance << " m (" << min_where
              << ", at arc length " << min_arc << " rad), " << std::setprecision(2)
              << 1e6 * query_seconds / path.getStateCount() << " us per state (warm-started)\n";
    std::vector<std::string> written = {base + "_path.txt", base + "_clearance.csv"};
    if (plots) {
      const std::string command = "/usr/bin/python3 '" + gjk::tools::data_dir() +
                                  "/scripts/plot_clearance_profile.py' '" + base +
                                  "_clearance.csv' '" + base + "_clearance.png'";
      std::cout.flush();
      if (std::system(command.c_str()) != 0) {
        std::cerr << "gjk-plan: plotting failed (" << command
                  << "); needs /usr/bin/python3 with matplotlib (Debian: python3-matplotlib)\n";
        return 1;
      }
      written.push_back(base + "_clearance.png");
    }
    std::cout << "wrote:";
    for (const auto& f : written) std::cout << ' ' << f;
    std::cout << '\n';
    return certified == static_cast<int>(waypoints - 1) && min_clearance > margin ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return 2;
  }
}
