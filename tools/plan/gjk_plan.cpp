// gjk-plan: OMPL planning on an arm with the libgjk checkers, then the clearance profile of the
// path. Presets: the 4-DOF arm of seed 002 between two poses on opposite sides of its pyramids,
// and the Franka Panda (7 joints planned, fingers fixed) among the boxes of panda_boxes.yaml.
//
// Every motion the planner accepts is certified collision-free by conservative advancement
// (gjk::planner::CertifiedMotionValidator), and the profile is computed with warm-started
// distance queries along the interpolated path.
#include <gjk/planner/ompl.hpp>
#include <gjk/planner/plan.hpp>
#include <gjk/replay/replay.hpp>
#include <gjk/robots/parse_number.hpp>
#include <gjk/robots/srdf.hpp>
#include "base_pose.hpp"
#include "data_paths.hpp"
#include "exit_codes.hpp"
#include "link_meshes.hpp"
#include "number_list.hpp"
#include "progress.hpp"
#include "spawn.hpp"
#include "whole_number.hpp"
#include "written_files.hpp"

#include <ompl/geometric/PathGeometric.h>
#include <ompl/util/Console.h>
#include <CLI/CLI.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
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

/// A bad command line (exit 2): wrong option values the user typed.
struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct Preset {
  std::string urdf, scene;
  std::vector<double> start, goal;
  planner::FixedPositions fixed;
  std::string srdf{};                       ///< empty: adjacent links are the only allowed pairs
  std::string start_state{}, goal_state{};  ///< SRDF group states, used when start/goal are empty
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
  if (robot == "panda_cell") {
    // The Panda holding a part (robots/scenes/panda_cell.yaml): from the SRDF's ready pose to
    // the part pushed into the shelf's middle-left compartment, gripper level and pointing into
    // it (tool point at (0.62, 0.2, 0.52) m; found by damped least-squares IK on the hand's
    // pose, then checked free in the cell).
    Preset p{std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.urdf",
             src + "/robots/scenes/panda_cell.yaml",
             {},
             {-1.31375, 0.598241, 1.87271, -2.14201, -2.44697, 2.27424, -0.731623},
             {{"panda_finger_joint1", 0.02}}};
    p.srdf = std::string(GJK_SHARED_ROBOT_MODELS_DIR) + "/panda/panda.srdf";
    p.start_state = "ready";
    return p;
  }
  throw UsageError("--robot '" + robot + "': expected four_dof, panda or panda_cell");
}

/// Comma-separated joint values (tools/common/number_list.hpp) as a usage error.
std::vector<double> parse_vector(const std::string& text, const std::string& what) {
  try {
    return gjk::tools::parse_number_list(text, what);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

/// The usage error of an unknown --planner (plan_arm would report it as bad input).
void check_planner_name(const std::string& name) {
  const auto& names = planner::planner_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    throw UsageError("--planner '" + name + "': expected rrtconnect, rrtstar, bitstar or prmstar");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Plans a collision-free arm motion with OMPL and the libgjk checkers, then reports "
      "the clearance profile along the path (CSV + plot in the output folder)."};
  std::string robot = "four_dof", planner_name = "rrtconnect", out_dir = "out";
  std::string urdf, scene_path, srdf_path, start_text, goal_text, base_pose_text, html;
  gjk::tools::LinkMeshOptions link_meshes;
  double time_limit = 5.0, margin = 0.0;
  int profile_states = 1000;
  unsigned seed = 1, max_iterations = 0;
  bool plots = true;
  bool progress = ::isatty(STDERR_FILENO) == 1;
  app.add_option("--robot", robot, "preset: four_dof, panda or panda_cell")->capture_default_str();
  app.add_option("--urdf", urdf, "override the preset's URDF");
  gjk::tools::add_link_mesh_options(app, link_meshes);
  app.add_option("--scene", scene_path, "override the preset's scene (YAML)");
  app.add_option("--srdf", srdf_path,
                 "SRDF of the robot: its disable_collisions become allowed pairs, its group "
                 "states are names for --start/--goal");
  app.add_option("--base-pose", base_pose_text,
                 "where the robot's root link stands in the world: X,Y,Z,ROLL,PITCH,YAW (m, rad); "
                 "checked against the SRDF's virtual joint (fixed: identity only; planar: z = 0, "
                 "yaw only); default: the --start group state's virtual joint values, else the "
                 "identity");
  app.add_option("--start", start_text,
                 "start joint vector (radians, comma-separated) or an SRDF group state name");
  app.add_option("--goal", goal_text,
                 "goal joint vector (radians, comma-separated) or an SRDF group state name");
  app.add_option("--planner", planner_name, "rrtconnect, rrtstar, bitstar or prmstar")
      ->capture_default_str();
  app.add_option("--time", time_limit, "planning time limit, s (optimizing planners use it all)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-iterations", max_iterations,
                 "also stop after this many planner iterations (0: no limit); with --seed, the "
                 "outcome does not depend on the machine's load as --time alone does")
      ->capture_default_str()
      ->check(gjk::tools::whole_number());
  app.add_option("--margin", margin, "required clearance, m")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--profile-states", profile_states, "states of the interpolated path profile")
      ->capture_default_str()
      ->check(CLI::Range(2, 10000000));
  app.add_option("--seed", seed, "OMPL random seed (reproducible runs)")->capture_default_str();
  app.add_option("-o,--out", out_dir, "output folder")->capture_default_str();
  app.add_flag("!--no-plots", plots, "write the CSV only");
  app.add_option("--html", html,
                 "also write an interactive 3D replay of the interpolated path (one "
                 "self-contained HTML page: open it in a browser, offline) to this file")
      ->type_name("FILE");
  size_t html_max_frames = gjk::replay::kDefaultMaxFrames;
  app.add_option("--html-max-frames", html_max_frames,
                 "at most this many frames in the --html page (0: every profile state); a longer "
                 "profile keeps its worst-clearance state, the first state of every collision "
                 "and of every stretch below --margin, both ends and states evenly spread")
      ->capture_default_str()
      ->check(gjk::tools::whole_number())
      ->type_name("N");
  app.add_flag("--progress,!--no-progress", progress,
               "progress line on stderr while planning, certifying and profiling (default: on "
               "when stderr is a terminal)");
  app.footer(
      "OUTPUT (in --out)\n"
      "  plan_ROBOT_path.txt: a header row of the planned joint names, then one state per line\n"
      "  (OMPL printAsMatrix); gjk-clearance reads it directly (give the joints held fixed, e.g.\n"
      "  the Panda's fingers, with --fixed panda_finger_joint1=0.02).\n"
      "  plan_ROBOT_clearance.csv and .png: the clearance profile along the path.\n"
      "  The plot runs /usr/bin/python3 with matplotlib, without a shell.\n\n"
      "EXIT STATUS\n"
      "  0 planned and certified; 1 no path found in the time, or a segment not certified or\n"
      "  below --margin; 2 usage error (unknown option, bad --start/--goal: not numbers, not\n"
      "  finite, wrong count, outside the joint limits); 3 input error (URDF or scene unreadable\n"
      "  or invalid, start or goal in collision or closer than --margin); 4 an output could not\n"
      "  be written or the plot program failed; 5 internal error.");
  bool list_joints = false;
  app.add_flag(
      "--list-joints", list_joints,
      "print the planned joints (the columns of --start, --goal and the path file) and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? gjk::tools::kExitOk : gjk::tools::kExitUsage;
  }

  try {
    Preset p = preset(robot);
    if (!urdf.empty()) p.urdf = urdf;
    if (!scene_path.empty()) p.scene = scene_path;
    if (!srdf_path.empty()) p.srdf = srdf_path;
    // A value that starts like a number is a joint vector; anything else names a group state.
    const auto is_state_name = [](const std::string& text) {
      const size_t i = text.find_first_not_of(" \t");
      return i != std::string::npos &&
             (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') &&
             text.substr(i, 3) != "nan" && text.substr(i, 3) != "inf";
    };
    if (!start_text.empty()) {
      if (is_state_name(start_text)) {
        p.start.clear();
        p.start_state = start_text;
      } else {
        p.start = parse_vector(start_text, "--start");
        p.start_state.clear();
      }
    }
    if (!goal_text.empty()) {
      if (is_state_name(goal_text)) {
        p.goal.clear();
        p.goal_state = goal_text;
      } else {
        p.goal = parse_vector(goal_text, "--goal");
        p.goal_state.clear();
      }
    }

    ompl::msg::setLogLevel(ompl::msg::LOG_WARN);
    planner::seed_rng_once(seed);  // before any OMPL object draws a random number
    robots::UrdfOptions urdf_options;
    try {
      gjk::tools::apply_link_mesh_options(link_meshes, urdf_options);
    } catch (const robots::ModelError& e) {
      throw UsageError(e.what());
    }
    robots::RobotModel robot_model = robots::RobotModel::from_urdf_file(p.urdf, urdf_options);
    auto scene = std::make_shared<const robots::Scene>(robots::load_scene(p.scene));
    std::optional<robots::Srdf> srdf;
    if (!p.srdf.empty()) srdf = robots::load_srdf(p.srdf, robot_model);
    if ((!p.start_state.empty() || !p.goal_state.empty()) && !srdf)
      throw UsageError("--start/--goal name a group state ('" +
                       (p.start_state.empty() ? p.goal_state : p.start_state) +
                       "'): give the SRDF that defines it with --srdf");
    // The base stays where it is during the motion: from --base-pose, else from the group
    // states' virtual joint values (start and goal must then agree), else the identity.
    std::optional<Pose> base_pose;
    try {
      if (!base_pose_text.empty()) {
        base_pose = gjk::tools::parse_base_pose(base_pose_text);
      } else if (srdf) {
        std::optional<Pose> from_start, from_goal;
        if (!p.start_state.empty())
          from_start = robots::named_base_pose(robot_model, *srdf, p.start_state);
        if (!p.goal_state.empty())
          from_goal = robots::named_base_pose(robot_model, *srdf, p.goal_state);
        if (from_start && from_goal && !from_start->isApprox(*from_goal, 1e-12))
          throw UsageError("--start '" + p.start_state + "' and --goal '" + p.goal_state +
                           "' put the base at different poses; a moving base is not planned: "
                           "give --base-pose");
        base_pose = from_start ? from_start : from_goal;
      }
      if (base_pose && srdf) robots::check_base_pose(robot_model, *srdf, *base_pose);
    } catch (const UsageError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    if (base_pose) robot_model.set_base_pose(*base_pose);
    // The world: obstacles (convex, meshes, cells), attached objects, the SRDF's allowed pairs.
    auto world = std::make_shared<const robots::CollisionWorld>(
        robot_model, *scene,
        srdf ? robots::acm_from_srdf(robot_model, *srdf)
             : robots::AllowedCollisionMatrix::from_adjacency(robot_model));
    // The planned joints and their limits; the checkers come after planning, so that the
    // planner's random generators get the same seeds as when gjk-plan set up OMPL itself.
    auto space = planner::make_state_space(world->model(), p.fixed);
    const robots::RobotModel* model = &world->model();

    const unsigned dim = space->getDimension();
    std::vector<std::string> planned;  // the state space's joints, in its order
    for (unsigned i = 0; i < dim; ++i)
      planned.push_back(space->as<ob::RealVectorStateSpace>()->getDimensionName(i));
    if (list_joints) {
      for (unsigned i = 0; i < dim; ++i) {
        const auto* bounds = &space->as<ob::RealVectorStateSpace>()->getBounds();
        std::cout << planned[i] << ' ' << bounds->low[i] << ' ' << bounds->high[i] << '\n';
      }
      return gjk::tools::kExitOk;
    }
    // Group states: the SRDF's values for the planned joints it names; the others keep the
    // configuration the checkers fill in (fixed positions, or 0).
    for (auto [state_name, values] :
         {std::pair{&p.start_state, &p.start}, std::pair{&p.goal_state, &p.goal}}) {
      if (state_name->empty()) continue;
      Eigen::VectorXd base = Eigen::VectorXd::Zero(model->num_positions());
      for (const auto& [joint, value] : p.fixed)
        for (int k = 0; k < model->num_positions(); ++k)
          if (model->position_names()[size_t(k)] == joint) base[k] = value;
      Eigen::VectorXd q;
      try {
        q = robots::named_state(*model, *srdf, *state_name, &base);
      } catch (const std::exception& e) {
        throw UsageError(e.what());
      }
      values->clear();
      for (unsigned i = 0; i < dim; ++i)
        for (int k = 0; k < model->num_positions(); ++k)
          if (model->position_names()[size_t(k)] == planned[i]) values->push_back(q[k]);
    }
    if (p.start.size() != dim || p.goal.size() != dim) {
      throw UsageError("start and goal need " + std::to_string(dim) +
                       " values (the planned joints of '" + model->name() +
                       "', see --list-joints), got " + std::to_string(p.start.size()) + " and " +
                       std::to_string(p.goal.size()));
    }
    const auto& bounds = space->as<ob::RealVectorStateSpace>()->getBounds();
    for (auto [values, name] : {std::pair{&p.start, "--start"}, std::pair{&p.goal, "--goal"}}) {
      for (unsigned i = 0; i < dim; ++i) {
        const double v = (*values)[i];
        if (!(v >= bounds.low[i] && v <= bounds.high[i])) {
          std::ostringstream msg;
          msg << name << ": joint " << planned[i] << " = " << v << " is outside its limits ["
              << bounds.low[i] << ", " << bounds.high[i] << "]";
          throw UsageError(msg.str());
        }
      }
    }
    check_planner_name(planner_name);

    // Start and goal in collision (exit 3 as a PlannerError), planning and simplification.
    planner::PlanOptions options;
    options.planner = planner_name;
    options.time_limit = time_limit;
    options.max_iterations = max_iterations;
    options.margin = margin;
    options.fixed = p.fixed;
    const Eigen::VectorXd start_q = Eigen::Map<const Eigen::VectorXd>(p.start.data(), dim);
    const Eigen::VectorXd goal_q = Eigen::Map<const Eigen::VectorXd>(p.goal.data(), dim);
    gjk::tools::ProgressLine bar(progress);
    planner::PlanResult plan;
    try {
      plan = bar.timed("planning (" + planner_name + ")", time_limit,
                       [&] { return planner::plan_arm(world, start_q, goal_q, options); });
    } catch (...) {
      bar.clear();  // the message goes on a line of its own
      throw;
    }
    if (!plan.solved) {
      bar.clear();
      std::cerr << "gjk-plan: no path found in " << time_limit << " s";
      if (max_iterations > 0) std::cerr << " or " << max_iterations << " iterations";
      std::cerr << " (" << plan.status << ")\n";
      return gjk::tools::kExitCheckFailed;
    }
    const double plan_seconds = plan.plan_seconds, simplify_seconds = plan.simplify_seconds;
    auto si = std::make_shared<ob::SpaceInformation>(space);
    planner::CollisionSettings settings;
    settings.margin = margin;
    settings.fixed_positions = p.fixed;
    const auto collision = planner::install_collision_checking(si, world, settings);
    const auto checker =
        std::static_pointer_cast<planner::StateValidityChecker>(si->getStateValidityChecker());
    og::PathGeometric path(si);
    {
      ob::State* state = si->allocState();
      for (const Eigen::VectorXd& v : plan.path) {
        for (unsigned i = 0; i < dim; ++i)
          state->as<ob::RealVectorStateSpace::StateType>()->values[i] = v[i];
        path.append(state);  // copies the state
      }
      si->freeState(state);
    }
    const size_t waypoints = path.getStateCount();
    const double length = plan.length;

    // Every segment certified (the planner already used the certified validator; this is the
    // check a user would run on a path from elsewhere).
    planner::CertifiedMotionValidator certifier(si, collision);
    int certified = 0, steps = 0, pair_queries = 0;
    for (size_t i = 0; i + 1 < waypoints; ++i) {
      bar.draw("certifying", double(i) / double(waypoints - 1),
               "segment " + std::to_string(i + 1) + " / " + std::to_string(waypoints - 1));
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
      if (!matrix) throw gjk::tools::OutputError("cannot write " + base + "_path.txt");
      // A header row naming the planned joints: gjk-clearance maps its columns by name.
      for (unsigned i = 0; i < dim; ++i) matrix << (i ? " " : "") << planned[i];
      matrix << '\n';
      path.printAsMatrix(matrix);
      if (!matrix.flush())
        throw gjk::tools::OutputError("could not write all of " + base + "_path.txt");
    }
    std::ofstream csv(base + "_clearance.csv");
    if (!csv) throw gjk::tools::OutputError("cannot write " + base + "_clearance.csv");
    csv << std::setprecision(10) << "state,arc_length,clearance,link,obstacle\n";
    // The profile is the clearance of the moving links to the obstacles: a copy of the world
    // whose matrix also allows every robot-robot pair and the links that no planned joint moves
    // (the base on its table keeps a constant distance that says nothing about the path), so
    // closest() prunes to the answer instead of computing every pair.
    robots::CollisionWorld profile_world = *world;
    {
      robots::AllowedCollisionMatrix allowed = profile_world.allowed_collisions();
      const size_t shapes = profile_world.model().collision_shapes().size();
      for (size_t a = 0; a < shapes; ++a) {
        const std::string& part = profile_world.part_name(static_cast<int>(a));
        for (size_t b = a + 1; b < shapes; ++b)
          allowed.set_allowed(part, profile_world.part_name(static_cast<int>(b)), true);
        if (collision->levers()[a].sum() == 0.0)
          for (const robots::Obstacle& o : profile_world.obstacles())
            allowed.set_allowed(part, o.object, true);
      }
      profile_world.set_allowed_collisions(std::move(allowed));
    }
    robots::WorldContext profile(profile_world);  // warm-started along the path
    double arc = 0.0, min_clearance = std::numeric_limits<double>::infinity(), min_arc = 0.0;
    std::string min_where = "none";
    double query_seconds = 0.0;
    const size_t profile_count = path.getStateCount();
    std::vector<gjk::analysis::PathState> replay_states;  // --html: the profile's states
    for (size_t i = 0; i < profile_count; ++i) {
      if (i % 64 == 0)
        bar.draw("clearance profile", double(i) / double(profile_count),
                 std::to_string(i) + " / " + std::to_string(profile_count) + " states");
      if (i > 0) arc += si->distance(path.getState(i - 1), path.getState(i));
      const auto tq = std::chrono::steady_clock::now();
      profile.update(checker->to_vector(path.getState(i)));
      if (!html.empty())
        replay_states.push_back(
            {static_cast<long>(i) + 1, arc, checker->to_vector(path.getState(i))});
      const robots::ClosestPair closest =
          profile.closest(std::numeric_limits<double>::infinity(), settings.query);
      query_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - tq).count();
      if (closest.pair.shape < 0) continue;  // no obstacle, or every pair allowed
      const robots::PairDistance* best = &closest.pair;
      const std::string& link = world->part_name(best->shape);
      const std::string& obstacle = world->obstacles()[static_cast<size_t>(best->obstacle)].name;
      csv << i << ',' << arc << ',' << best->distance << ',' << link << ',' << obstacle << '\n';
      if (best->distance < min_clearance) {
        min_clearance = best->distance;
        min_arc = arc;
        min_where = link + " / " + obstacle;
      }
    }
    csv.close();
    bar.clear();
    if (!html.empty()) {
      // The replay shows every (robot part, obstacle) pair the world checks, over the same
      // interpolated states, timed by their arc length.
      gjk::replay::Replay replay = gjk::replay::replay_of_world(
          *world, "gjk-plan: " + model->name() + " in " + fs::path(p.scene).filename().string() +
                      ", " + planner_name);
      replay.margin = margin > 0.0 ? margin : -std::numeric_limits<double>::infinity();
      replay.time_label = "arc length (rad)";
      gjk::analysis::VectorSource source(replay_states);
      gjk::replay::ReplayRecorder recorder(*world, source, true);
      gjk::analysis::AnalysisOptions replay_options;
      replay_options.threads = 2;
      gjk::analysis::analyse(*world, recorder.source(), replay_options, &recorder);
      const gjk::replay::Run run = recorder.take_run(planner_name);
      replay.runs.push_back(gjk::replay::keep_frames(
          run, gjk::replay::select_frames(run.clearance, html_max_frames, replay.margin)));
      gjk::replay::write_replay_html(html, replay);
    }

    std::cout << std::fixed << std::setprecision(4) << model->name() << " (" << dim
              << " joints planned) in " << p.scene << ", " << planner_name << ":\n"
              << "  solved in " << plan_seconds << " s, simplified in " << simplify_seconds
              << " s: " << waypoints << " waypoints, joint-space length " << length << " rad\n"
              << "  certified segments   " << certified << " of " << waypoints - 1 << " (" << steps
              << " configurations, " << pair_queries
              << " pair distance queries by conservative advancement)\n"
              << "  motions checked while planning: " << plan.valid_motions << " valid, "
              << plan.invalid_motions << " invalid\n"
              << "  clearance of the moving links to obstacles along " << path.getStateCount()
              << " interpolated states: minimum " << min_clearance << " m (" << min_where
              << ", at arc length " << min_arc << " rad), " << std::setprecision(2)
              << 1e6 * query_seconds / path.getStateCount() << " us per state (warm-started)\n";
    std::vector<std::string> written = {base + "_path.txt", base + "_clearance.csv"};
    if (!html.empty()) written.push_back(html);
    bool plot_failed = false;
    if (plots) {
      // An argument vector, no shell: the output path may hold any character.
      const std::vector<std::string> command = {
          "/usr/bin/python3", gjk::tools::data_dir() + "/scripts/plot_clearance_profile.py",
          base + "_clearance.csv", base + "_clearance.png"};
      std::cout.flush();  // the plotter writes to the same terminal
      const gjk::tools::ChildOutcome plot = gjk::tools::run_child(command);
      if (!plot.ok()) {
        std::cerr << "gjk-plan: the plot program " << plot.describe() << " ("
                  << gjk::tools::quote_command(command)
                  << "); the CSV files are written. Plots need /usr/bin/python3 with matplotlib "
                     "(Debian: python3-matplotlib); --no-plots skips them.\n";
        plot_failed = true;
      } else {
        written.push_back(base + "_clearance.png");
      }
    }
    if (!gjk::tools::print_written("gjk-plan", written) || plot_failed)
      return gjk::tools::kExitOutputError;
    return certified == static_cast<int>(waypoints - 1) && min_clearance > margin
               ? gjk::tools::kExitOk
               : gjk::tools::kExitCheckFailed;
  } catch (const UsageError& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitUsage;
  } catch (const robots::ModelError& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitInputError;
  } catch (const robots::SceneError& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitInputError;
  } catch (const robots::SrdfError& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitInputError;
  } catch (const planner::PlannerError& e) {  // also a start or goal in collision
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitInputError;
  } catch (const gjk::tools::OutputError& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitOutputError;
  } catch (const gjk::replay::ReplayError& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitOutputError;
  } catch (const fs::filesystem_error& e) {
    std::cerr << "gjk-plan: " << e.what() << '\n';
    return gjk::tools::kExitOutputError;
  } catch (const std::exception& e) {
    std::cerr << "gjk-plan: internal error: " << e.what() << '\n';
    return gjk::tools::kExitInternalError;
  }
}
