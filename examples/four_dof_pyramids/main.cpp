// four_dof_pyramids: the project's main example. The 4-DOF arm of seed 002 section 4.4 follows
// the seed's end-effector path past two pyramids by velocity inversion with obstacle avoidance
// (eq. 6, k = -1, d0 = 0.5), and the same path without avoidance (k = 0) for comparison.
// Writes CSVs and PNG plots into the output folder and prints a summary.
#include "data_paths.hpp"
#include "exit_codes.hpp"
#include "scenario.hpp"
#include "spawn.hpp"
#include "whole_number.hpp"
#include "written_files.hpp"

#include <gjk/replay/replay.hpp>
#include <gjk/shapes.hpp>

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;
using gjk::examples::FourDofScenario;

namespace {

struct Run {
  double k = 0.0;
  std::string tag;  // file-name part: "k-1", "k0"
  gjk::planner::SimulationResult result;
};

std::string tag_for(double k) {
  std::ostringstream s;
  s << "k" << k;
  return s.str();
}

std::ofstream open_for_writing(const fs::path& path) {
  std::ofstream out(path);
  if (!out) throw gjk::tools::OutputError("cannot write " + path.string());
  out << std::setprecision(10);
  return out;
}

void write_trajectory_csv(const fs::path& path, const FourDofScenario& s, const Run& run) {
  std::ofstream out = open_for_writing(path);
  out << "t";
  for (const std::string& name : s.model.position_names()) out << ',' << name;
  out << ",ee_x,ee_y,ee_z,desired_x,desired_y,desired_z,tracking_error,potential";
  for (const gjk::robots::Link& link : s.model.links()) {
    for (const gjk::robots::Obstacle& o : s.scene.obstacles) {
      out << ",d_" << link.name << '_' << o.name;
    }
  }
  out << ",min_distance\n";
  for (const gjk::planner::SimulationSample& p : run.result.samples) {
    out << p.t;
    for (int j = 0; j < p.q.size(); ++j) out << ',' << p.q[j];
    for (int i = 0; i < 3; ++i) out << ',' << p.end_effector[i];
    for (int i = 0; i < 3; ++i) out << ',' << p.desired[i];
    out << ',' << p.tracking_error << ',' << p.potential;
    double min_distance = std::numeric_limits<double>::infinity();
    for (double d : p.link_obstacle_distance) {
      out << ',';
      if (std::isfinite(d)) out << d;  // empty cell: the link has no collision shape
      min_distance = std::min(min_distance, d);
    }
    out << ',' << min_distance << '\n';
  }
}

/// The closest (link, obstacle) pair over a run's recorded samples.
std::string closest_pair(const FourDofScenario& s, const Run& run, double* t_out) {
  const size_t obstacles = s.scene.obstacles.size();
  double best = std::numeric_limits<double>::infinity();
  std::string name = "none";
  for (const auto& p : run.result.samples) {
    for (size_t i = 0; i < p.link_obstacle_distance.size(); ++i) {
      if (p.link_obstacle_distance[i] < best) {
        best = p.link_obstacle_distance[i];
        name = s.model.links()[i / obstacles].name + " / " + s.scene.obstacles[i % obstacles].name;
        *t_out = p.t;
      }
    }
  }
  return name;
}

/// The 3D replay page of the runs (issue 14): the clearance analysis of each run's recorded
/// states gives the per-link clearance and the worst pair's closest points.
void write_replay(const std::string& path, const FourDofScenario& s, const std::vector<Run>& runs,
                  size_t max_frames) {
  const gjk::robots::CollisionWorld world(s.model, s.scene);
  gjk::replay::Replay replay =
      gjk::replay::replay_of_world(world, "four_dof_pyramids: seed 002 section 4.4");
  for (const Run& run : runs) {
    std::vector<gjk::analysis::PathState> states;
    for (const gjk::planner::SimulationSample& p : run.result.samples) {
      states.push_back({static_cast<long>(states.size()) + 1, p.t, p.q});
    }
    gjk::analysis::VectorSource source(states);
    gjk::replay::ReplayRecorder recorder(world, source, true);
    gjk::analysis::analyse(world, recorder.source(), {}, &recorder);
    std::ostringstream name;
    name << "k = " << run.k;
    const gjk::replay::Run recorded = recorder.take_run(name.str());
    replay.runs.push_back(gjk::replay::keep_frames(
        recorded, gjk::replay::select_frames(recorded.clearance, max_frames, replay.margin)));
  }
  gjk::replay::write_replay_html(path, replay);
}

/// Removes a file when it goes out of scope (the frames picture's page when --html is not given).
struct RemoveOnExit {
  std::string path;
  ~RemoveOnExit() {
    std::error_code ec;
    if (!path.empty()) fs::remove(path, ec);
  }
};

/// A coordinate for the 4-decimal summary: rounding noise around 0 (the arm moves in the y-z
/// plane, x stays within 1e-16 of 0) prints as 0.0000, not as a signed -0.0000.
double shown(double v) {
  return std::abs(v) < 5e-5 ? 0.0 : v;
}

/// Comma-separated numbers for replay_screenshot.py's --times.
std::string number_list(const std::vector<double>& values) {
  std::ostringstream s;
  s << std::setprecision(10);
  for (size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "The 4-DOF arm of seed 002 section 4.4 avoiding two pyramids by velocity inversion "
      "(eq. 6): runs k (default -1) and k = 0, writes CSVs and PNG plots to the output folder: "
      "four_dof_clearance.png and four_dof_joints.png (matplotlib), four_dof_frames.png (the 3D "
      "replay at three instants, by headless Chromium)."};
  std::string out_dir = "out";
  std::string urdf = FourDofScenario::default_urdf();
  std::string scene_path = FourDofScenario::default_scene();
  double k = -1.0;
  double dt = 1e-3;
  double gain = 0.0;
  double record_ms = 10.0;
  bool compare = true;
  bool plots = true;
  std::string html;
  app.add_option("-o,--out", out_dir, "output folder (created if missing)")->capture_default_str();
  app.add_option("-k", k, "null-space gain of eq. 6 (negative avoids)")->capture_default_str();
  // Ranges checked after parsing, with messages in the user's terms (CLI11's range checks print
  // the limits of a double).
  app.add_option("--dt", dt, "integration step, s (0 < dt <= 16.7, at most 1e8 steps)")
      ->capture_default_str();
  app.add_option("--gain", gain, "closed-loop position gain K, 1/s (0 = eq. 6 exactly as printed)")
      ->capture_default_str();
  app.add_option("--record-ms", record_ms, "CSV sample spacing, ms (rounded to steps)")
      ->capture_default_str();
  app.add_option("--urdf", urdf, "arm description")->capture_default_str();
  app.add_option("--scene", scene_path, "obstacle scene (YAML)")->capture_default_str();
  app.add_flag("!--no-compare", compare,
               "skip the k = 0 run and the engine variants of seed 002 Fig. 15");
  app.add_flag("!--no-plots", plots, "write the CSVs only");
  app.add_option("--html", html,
                 "also write an interactive 3D replay of the runs (one self-contained HTML page: "
                 "open it in a browser, offline) to this file")
      ->type_name("FILE");
  size_t html_max_frames = gjk::replay::kDefaultMaxFrames;
  app.add_option("--html-max-frames", html_max_frames,
                 "at most this many frames per run in the --html page (0: every recorded "
                 "sample); a longer run keeps its worst-clearance instant, the first instant of "
                 "every collision, both ends and instants evenly spread")
      ->capture_default_str()
      ->check(gjk::tools::whole_number())
      ->type_name("N");
  app.footer(
      "EXIT STATUS\n"
      "  0 done; 2 usage error (unknown option, a value out of range); 3 input error (URDF or\n"
      "  scene unreadable or invalid); 4 an output could not be written, or the plot program or\n"
      "  the snapshot of the replay failed (the CSVs are kept; four_dof_frames.png needs headless\n"
      "  Chromium: Debian chromium, chromium-driver, python3-selenium, python3-pil); 5 internal\n"
      "  error. A run that collides (k = 0 does, by design) still exits 0: the collision is the\n"
      "  example's result, not a failure.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? gjk::tools::kExitOk : gjk::tools::kExitUsage;
  }
  const auto usage = [](const std::string& what) {
    std::cerr << "four_dof_pyramids: " << what << '\n';
    return gjk::tools::kExitUsage;
  };
  if (!(dt > 0) || !std::isfinite(dt))
    return usage("--dt " + CLI::detail::to_string(dt) +
                 ": the step must be a positive number of seconds");
  if (!(gain >= 0) || !std::isfinite(gain))
    return usage("--gain " + CLI::detail::to_string(gain) +
                 ": the gain must be a finite number >= 0");
  if (!(record_ms > 0) || !std::isfinite(record_ms))
    return usage("--record-ms " + CLI::detail::to_string(record_ms) +
                 ": the spacing must be a positive number of milliseconds");

  try {
    const FourDofScenario s = FourDofScenario::load(urdf, scene_path);
    fs::create_directories(out_dir);
    const int record_every = std::max(1, static_cast<int>(std::lround(record_ms * 1e-3 / dt)));

    std::vector<Run> runs;
    runs.push_back({k, tag_for(k), s.run(k, dt, gain, record_every)});
    if (compare && k != 0.0)
      runs.push_back({0.0, tag_for(0.0), s.run(0.0, dt, gain, record_every)});

    std::vector<std::string> written;
    for (const Run& run : runs) {
      const fs::path p = fs::path(out_dir) / ("four_dof_" + run.tag + ".csv");
      write_trajectory_csv(p, s, run);
      written.push_back(p.string());
    }
    if (!html.empty()) {
      write_replay(html, s, runs, html_max_frames);
      written.push_back(html);
    }

    std::cout << std::fixed << std::setprecision(4);
    std::cout
        << "4-DOF arm, seed 002 section 4.4: start pose (0, 90, -150, -30) deg, end effector "
        << "at (" << s.x0.x() << ", " << s.x0.y() << ", " << s.x0.z() << ")\n"
        << "path: 0.1 m/s along -y until t = 6.7 s, then along +z until t = 16.7 s; d0 = 0.5, "
        << "dt = " << dt * 1e3 << " ms, position gain " << gain << " /s\n";
    for (const Run& run : runs) {
      const auto& r = run.result;
      double t_closest = 0.0;
      const std::string pair = closest_pair(s, run, &t_closest);
      const auto& last = r.samples.back();
      std::cout << "\nk = " << run.k << (r.collided ? "  COLLIDES" : "  collision-free") << '\n'
                << "  minimum clearance   " << r.min_clearance << " m (" << pair
                << ", t = " << std::setprecision(2) << t_closest << std::setprecision(4) << " s)\n"
                << "  max tracking error  " << std::scientific << std::setprecision(2)
                << r.max_tracking_error << std::fixed << std::setprecision(4) << " m\n"
                << "  end effector at end (" << shown(last.end_effector.x()) << ", "
                << shown(last.end_effector.y()) << ", " << shown(last.end_effector.z()) << ")\n"
                << "  " << r.steps << " steps in " << r.total_seconds * 1e3 << " ms, "
                << std::setprecision(1) << 100.0 * r.distance_seconds / r.total_seconds
                << std::setprecision(4) << "% of it in distance queries\n";
    }

    if (compare) {
      // Seed 002 Fig. 15: the first run again with the engine's two enhancements switched on
      // and off, Cameron's support evaluation by hill climbing (seed 004 section 3.2) and the
      // warm start from the last simplex (seed 002 section 3). Same steps, same answers.
      struct Variant {
        const char* name;
        gjk::SupportMethod support;
        bool warm_start;
      };
      const Variant variants[] = {
          {"original GJK (every vertex scanned, cold start)", gjk::SupportMethod::BruteForce,
           false},
          {"hill climbing, cold start", gjk::SupportMethod::HillClimbing, false},
          {"every vertex scanned, warm start", gjk::SupportMethod::BruteForce, true},
          {"hill climbing and warm start", gjk::SupportMethod::HillClimbing, true}};
      std::cout << "\nDistance engine variants, k = " << k
                << " (seed 002 Fig. 15; one run each, wall time):\n";
      double original = 0.0;
      for (const Variant& v : variants) {
        gjk::planner::VelocityInversionOptions o = s.options(k, gain);
        o.query.support = v.support;
        o.warm_start = v.warm_start;
        const gjk::planner::SimulationResult r = s.run(o, dt, record_every);
        if (original == 0.0) original = r.distance_seconds;
        std::cout << "  " << std::left << std::setw(50) << v.name << std::right
                  << std::setprecision(1) << std::setw(8) << r.total_seconds * 1e3 << " ms, "
                  << std::setw(7) << r.distance_seconds * 1e3 << " ms in distances ("
                  << std::setprecision(2) << original / r.distance_seconds
                  << "x the original's speed), minimum clearance " << std::setprecision(4)
                  << r.min_clearance << " m\n";
      }
    }

    bool plot_failed = false;
    if (plots) {
      // An argument vector, no shell: the output folder may hold any character.
      const std::vector<std::string> command = {
          "/usr/bin/python3", gjk::tools::data_dir() + "/scripts/plot_four_dof.py", out_dir};
      std::cout.flush();  // the plotter writes to the same terminal
      const gjk::tools::ChildOutcome plot = gjk::tools::run_child(command);
      if (!plot.ok()) {
        std::cerr << "four_dof_pyramids: the plot program " << plot.describe() << " ("
                  << gjk::tools::quote_command(command)
                  << "); the CSVs are written. Plots need /usr/bin/python3 with matplotlib "
                     "(Debian: python3-matplotlib); --no-plots skips them.\n";
        plot_failed = true;
      } else {
        for (const char* png : {"four_dof_clearance.png", "four_dof_joints.png"})
          written.push_back((fs::path(out_dir) / png).string());
      }
      // The arm at three instants, as the 3D replay draws it (links with their width, the
      // worst pair's closest points, ghosted past poses): the start, the last run's closest
      // approach (k = 0's collision) and the end. From the --html page, or a temporary one.
      RemoveOnExit temporary;
      std::string page = html;
      if (page.empty()) {
        page = temporary.path = (fs::path(out_dir) / ".four_dof_frames.html").string();
        write_replay(page, s, runs, html_max_frames);
      }
      double t_closest = 0.0;
      closest_pair(s, runs.back(), &t_closest);
      const std::string frames_png = (fs::path(out_dir) / "four_dof_frames.png").string();
      std::error_code ec;
      fs::remove(frames_png, ec);  // a failed snapshot must not leave an older run's picture
      // "--" before the file names: a name starting with '-' is not read as an option.
      const std::vector<std::string> snapshot = {
          "/usr/bin/python3",
          gjk::tools::data_dir() + "/scripts/replay_screenshot.py",
          "--times",
          number_list({0.0, t_closest, runs.back().result.samples.back().t}),
          "--ghosts",
          "--quiet",
          "--",
          page,
          frames_png};
      const gjk::tools::ChildOutcome shot = gjk::tools::run_child(snapshot);
      if (!shot.ok()) {
        std::cerr << "four_dof_pyramids: the snapshot of the replay " << shot.describe() << " ("
                  << gjk::tools::quote_command(snapshot)
                  << "); four_dof_frames.png is not written. It needs headless Chromium (Debian "
                     "chromium, chromium-driver, python3-selenium, python3-pil: bash "
                     "scripts/install-deps.sh installs them); --no-plots skips the pictures.\n";
        plot_failed = true;
      } else {
        written.push_back(frames_png);
      }
    }
    std::cout << '\n';
    if (!gjk::tools::print_written("four_dof_pyramids", written) || plot_failed)
      return gjk::tools::kExitOutputError;
    return 0;
  } catch (const gjk::planner::PlannerError& e) {  // option values the simulation rejects
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitUsage;
  } catch (const gjk::robots::ModelError& e) {
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitInputError;
  } catch (const gjk::robots::SceneError& e) {
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitInputError;
  } catch (const gjk::replay::ReplayError& e) {
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitOutputError;
  } catch (const fs::filesystem_error& e) {
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitOutputError;
  } catch (const gjk::tools::OutputError& e) {
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitOutputError;
  } catch (const std::exception& e) {
    std::cerr << "four_dof_pyramids: " << e.what() << '\n';
    return gjk::tools::kExitInternalError;
  }
}
