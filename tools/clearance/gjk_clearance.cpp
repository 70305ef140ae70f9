// gjk-clearance: offline clearance analysis of a joint path: a thin command-line tool over
// gjk::analysis. For every state and every (link collision shape, obstacle) pair: signed
// distance, closest points and normal, streamed to CSV files (per pair, per state), then a
// summary of the minimum clearance and where it occurs; optional CI-style checks.
#include <gjk/analysis/clearance.hpp>
#include <gjk/replay/replay.hpp>
#include <gjk/robots/parse_number.hpp>
#include <gjk/robots/srdf.hpp>

#include "base_pose.hpp"
#include "exit_codes.hpp"
#include "link_meshes.hpp"
#include "whole_number.hpp"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gjk::tools;

const char* const kFooter = R"(PATH FORMATS
  CSV: one state per line, values separated by commas or whitespace. An optional first row of
  joint names maps columns by name, in any order; a column named 't' or 'time' is carried to
  the outputs. Without a header the columns are the robot's movable (non-fixed, non-mimic)
  joints in URDF document order (see --list-joints), less those given with --fixed. OMPL paths
  (PathGeometric::printAsMatrix: space-separated numbers, one state per line) are read the same
  way. Blank lines and lines starting with '#' are skipped.

  Bad rows (wrong number of values, non-numbers, NaN/Inf, outside the joint limits) are reported
  on stderr as FILE:LINE: message and left out; the other rows are analysed (exit status 3).

PER-PAIR CSV (--out)
  state,line[,t],link,shape,obstacle,distance,link_x,link_y,link_z,obstacle_x,obstacle_y,
  obstacle_z,normal_x,normal_y,normal_z,status
  state: 0-based index of the analysed state; line: its line in the path file; shape: LINK#K,
  the K-th (from 0) collision shape of the link; distance: signed (negative = penetration depth);
  link_* / obstacle_*: closest points (world frame); normal_*: unit normal from the link towards
  the obstacle. Pairs beyond --cutoff are left out.

PER-STATE CSV (--states-out)
  state,line[,t],pairs,distance,link,shape,obstacle,link_x,...,normal_z,status
  one row per state: its clearance (the smallest distance) and that pair. A state with no pair
  within --cutoff has empty fields from 'distance' on.

REPLAY PAGE (--html)
  One self-contained HTML file (three.js inlined: opens offline, from file://) replaying the
  path in 3D: the link shapes as the engine sees them (hulls, or exact meshes with --link-meshes
  mesh), the obstacles, links coloured by their clearance, the worst pair's closest points, the
  collision and below-margin instants on the timeline and a clearance plot. A path longer than
  --html-max-frames (default 2000; 0: no limit) is thinned to that many frames for the page,
  keeping the worst-clearance state, the first state of every collision and of every stretch
  below --margin, both ends, and states evenly spread over the rest (about 300 bytes a frame for
  a 10-shape arm). The analysis and the CSVs still cover every state; the recording keeps every
  state in memory until the end (some 300 bytes each).

  Both files are streamed (memory does not grow with the path), byte-identical for any --threads
  (every block of 256 states starts with fresh warm starts), and written atomically: to a
  temporary file in the same folder, renamed when complete; a failed or killed run leaves no
  file under the given name.

  Without --out and --html only the closest pair of each state and the (link, obstacle) minima
  are needed: a pair is measured exactly only when its bounds (its last exact distance in the
  block, minus or plus how far its shape can have moved since) leave open that it is one of
  them. The rows and the summary are those of measuring every pair, up to rounding (about
  1e-16 m) and, where the closest features are not unique, other witness points on them.

EXIT STATUS
  0 done, every check passed; 1 a check failed (--fail-on-collision, --margin); 2 usage error;
  3 input error (unreadable or invalid URDF, scene or path, an empty path, bad rows);
  4 an output file could not be written; 5 internal error.)";

// Temporary output files to remove when a signal ends the run (only async-signal-safe calls in
// the handler: unlink, signal, raise).
constexpr int kMaxTemps = 3;
char g_temps[kMaxTemps][4096];
volatile std::sig_atomic_t g_temp_count = 0;

extern "C" void on_signal(int sig) {
  for (int i = 0; i < g_temp_count; ++i) ::unlink(g_temps[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void register_temp(const std::string& path) {
  if (g_temp_count >= kMaxTemps || path.size() >= sizeof g_temps[0]) return;
  std::memcpy(g_temps[g_temp_count], path.c_str(), path.size() + 1);
  g_temp_count = g_temp_count + 1;
}

void forget_temps() {
  g_temp_count = 0;
}

/// Progress bar on stderr, redrawn in place.
void draw_progress(const gjk::analysis::Progress& p) {
  constexpr int kWidth = 40;
  const double f = std::clamp(p.fraction < 0.0 ? 0.0 : p.fraction, 0.0, 1.0);
  std::string bar(static_cast<size_t>(f * kWidth), '#');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %3.0f%% %zu states", bar.c_str(), 100.0 * f, p.states_done);
  std::fflush(stderr);
}

/// Whether two output names are the same file (they would overwrite each other).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  const auto full = [&](const std::string& p) {
    return std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
  };
  return full(a) == full(b);
}

struct UsageError {
  std::string message;
};

int parse_threads(const std::string& text) {
  unsigned long long n = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ptr != end || text.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) ||
      (ec == std::errc() && n == 0)) {
    throw UsageError{"--threads: expected a whole number of threads, at least 1, got '" +
                     gjk::analysis::shorten(text) + "'"};
  }
  // Huge counts are capped by the analysis (hardware threads, blocks); INT_MAX is plenty here.
  if (ec == std::errc::result_out_of_range || n > static_cast<unsigned long long>(INT_MAX)) {
    return INT_MAX;
  }
  return static_cast<int>(n);
}

double parse_distance(const std::string& option, const std::string& text, bool allow_infinity) {
  const gjk::robots::ParsedNumber p = gjk::robots::parse_double(text);
  const std::string expected = allow_infinity
                                   ? "expected a distance in metres, at least 0, or 'inf'"
                                   : "expected a finite distance in metres";
  if (p.status == gjk::robots::NumberStatus::NotANumber) {
    throw UsageError{option + ": " + expected + ", got '" + gjk::analysis::shorten(text) + "'"};
  }
  if (p.status == gjk::robots::NumberStatus::OutOfRange) {
    throw UsageError{option + ": '" + gjk::analysis::shorten(text) +
                     "' is out of the range of a double (" + expected + ")"};
  }
  if (std::isnan(p.value) || (!allow_infinity && std::isinf(p.value)) ||
      (allow_infinity && p.value < 0.0)) {
    throw UsageError{option + ": " + expected + ", got '" + gjk::analysis::shorten(text) + "'"};
  }
  return p.value;
}

int parse_precision(const std::string& text) {
  int n = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (ptr != end || ec != std::errc() || n < 0 || n > 17) {
    throw UsageError{"--precision: expected a number of decimals from 0 to 17, got '" +
                     gjk::analysis::shorten(text) + "'"};
  }
  return n;
}

void print_joints(const gjk::robots::RobotModel& model, bool json) {
  const auto& names = model.position_names();
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  if (json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (size_t k = 0; k < names.size(); ++k) {
      const auto i = static_cast<Eigen::Index>(k);
      j.push_back({{"name", names[k]}, {"lower", lower[i]}, {"upper", upper[i]}});
    }
    std::cout << gjk::analysis::dump_json(j) << '\n';
    return;
  }
  // One name per line, in the order of a headerless path's columns.
  for (const std::string& n : names) std::cout << n << '\n';
}

int run(int argc, char** argv) {
  CLI::App app{
      "gjk-clearance: clearance of a robot along a joint path among scene obstacles.\n"
      "Writes a summary (minimum clearance and where) to stdout, every (state, link shape, "
      "obstacle)\nsigned distance to --out and every state's clearance to --states-out as CSV.",
      "gjk-clearance"};
  std::string urdf, scene_file, srdf_file, path_file, out_file, states_file, html_file,
      base_pose_text;
  std::vector<std::string> package_dirs, fixed_texts;
  gjk::tools::LinkMeshOptions link_meshes;
  const unsigned hw = std::thread::hardware_concurrency();
  std::string threads_text = std::to_string(hw > 0 ? hw : 1);
  std::string cutoff_text = "inf", margin_text, precision_text = "3";
  bool progress = ::isatty(STDERR_FILENO) == 1;
  bool json = false, fail_on_collision = false, list_joints = false;
  app.add_option("--urdf", urdf,
                 "robot URDF file (meshes become convex hulls unless --link-meshes)")
      ->required()
      ->type_name("FILE");
  gjk::tools::add_link_mesh_options(app, link_meshes);
  app.add_option("--package-dir", package_dirs,
                 "folder holding ROS packages, for package://PKG/PATH meshes (repeatable); "
                 "searched first, then ROS_PACKAGE_PATH, AMENT_PREFIX_PATH (PREFIX/share/PKG) "
                 "and last the URDF's own folder (PATH relative to it)");
  app.add_option("--scene", scene_file,
                 "obstacle scene YAML (robots/scenes/README.md); required unless --list-joints")
      ->type_name("FILE");
  app.add_option("--srdf", srdf_file,
                 "the robot's SRDF: pairs its disable_collisions name (and matrix entries naming "
                 "obstacles) are not reported")
      ->type_name("FILE");
  app.add_option("--base-pose", base_pose_text,
                 "where the robot's root link stands in the world: X,Y,Z,ROLL,PITCH,YAW (m, rad; "
                 "default: the identity); checked against the SRDF's virtual joint")
      ->type_name("X,Y,Z,R,P,Y");
  app.add_option("--path", path_file,
                 "joint path: CSV or OMPL matrix (see below); required unless --list-joints")
      ->type_name("FILE");
  app.add_option("--fixed", fixed_texts,
                 "NAME=VALUE: hold a joint the path has no column for (repeatable), e.g. "
                 "panda_finger_joint1=0.02")
      ->type_name("NAME=VALUE");
  app.add_flag("--list-joints", list_joints,
               "print the robot's movable joints (a headerless path's columns) and exit");
  app.add_option("--out", out_file, "write the per-pair CSV to this file")->type_name("FILE");
  app.add_option("--states-out", states_file, "write the per-state CSV to this file")
      ->type_name("FILE");
  app.add_option("--html", html_file,
                 "write an interactive 3D replay of the path (one self-contained HTML page, see "
                 "below) to this file")
      ->type_name("FILE");
  size_t html_max_frames = gjk::replay::kDefaultMaxFrames;
  app.add_option("--html-max-frames", html_max_frames,
                 "at most this many frames in the --html page (0: every state); see below")
      ->capture_default_str()
      ->check(gjk::tools::whole_number())
      ->type_name("N");
  app.add_option("--threads", threads_text,
                 "worker threads (default: hardware concurrency; capped at what is useful)")
      ->capture_default_str()
      ->type_name("N");
  app.add_option("--cutoff", cutoff_text,
                 "leave out pairs farther apart than this, in metres (default: inf, none)")
      ->type_name("METRES");
  app.add_flag("--fail-on-collision", fail_on_collision,
               "exit 1 when any state is in collision (distance < 0)");
  app.add_option("--margin", margin_text,
                 "exit 1 when any state's clearance is below this distance, in metres")
      ->type_name("METRES");
  app.add_option("--precision", precision_text,
                 "decimals of distances in the text summary (default 3: millimetres)")
      ->type_name("N");
  app.add_flag("--progress,!--no-progress", progress,
               "progress bar on stderr (default: on when stderr is a terminal)");
  app.add_flag("--json", json, "summary (or --list-joints) as JSON instead of text");
  app.footer(kFooter);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  int threads = 1, precision = 3;
  double cutoff = 0.0;
  std::optional<double> margin;
  std::vector<gjk::analysis::FixedJoint> fixed;
  std::optional<gjk::Pose> base_pose;
  gjk::robots::UrdfOptions urdf_options;
  urdf_options.package_dirs = package_dirs;
  try {
    threads = parse_threads(threads_text);
    try {
      gjk::tools::apply_link_mesh_options(link_meshes, urdf_options);
    } catch (const gjk::robots::ModelError& e) {
      throw UsageError{e.what()};
    }
    if (!base_pose_text.empty()) {
      try {
        base_pose = gjk::tools::parse_base_pose(base_pose_text);
      } catch (const std::invalid_argument& e) {
        throw UsageError{e.what()};
      }
    }
    cutoff = parse_distance("--cutoff", cutoff_text, true);
    if (!margin_text.empty()) margin = parse_distance("--margin", margin_text, false);
    precision = parse_precision(precision_text);
    if (margin && *margin > cutoff) {
      throw UsageError{"--margin " + margin_text + " is larger than --cutoff " + cutoff_text +
                       ": pairs between them would not be measured"};
    }
    for (const std::string& f : fixed_texts) {
      try {
        fixed.push_back(gjk::analysis::parse_fixed_joint(f));
      } catch (const gjk::analysis::PathError& e) {
        throw UsageError{"--fixed: " + std::string(e.what())};
      }
    }
    if (!out_file.empty() && !states_file.empty() && same_file(out_file, states_file)) {
      throw UsageError{"--out and --states-out name the same file '" + out_file + "'"};
    }
    for (const auto& [option, other] :
         {std::pair{"--out", &out_file}, {"--states-out", &states_file}}) {
      if (!html_file.empty() && !other->empty() && same_file(html_file, *other)) {
        throw UsageError{std::string("--html and ") + option + " name the same file '" + html_file +
                         "'"};
      }
    }
    if (!list_joints && (scene_file.empty() || path_file.empty())) {
      throw UsageError{std::string(scene_file.empty() ? "--scene" : "--path") +
                       " is required (run with --help for the options)"};
    }
  } catch (const UsageError& e) {
    std::cerr << "gjk-clearance: " << e.message << '\n';
    return kExitUsage;
  }

  // Inputs: a file that cannot be used is an input error naming the file.
  gjk::robots::RobotModel model;
  try {
    model = gjk::robots::RobotModel::from_urdf_file(urdf, urdf_options);
  } catch (const std::exception& e) {
    std::cerr << "gjk-clearance: " << e.what() << '\n';
    return kExitInputError;
  }
  if (list_joints) {
    print_joints(model, json);
    std::cout.flush();
    return std::cout ? kExitOk : kExitOutputError;
  }
  try {
    gjk::analysis::check_fixed_joints(model, fixed);
  } catch (const gjk::analysis::PathError& e) {
    std::cerr << "gjk-clearance: --" << e.what() << '\n';
    return kExitUsage;
  }
  gjk::robots::Scene scene;
  std::optional<gjk::robots::CollisionWorld> world;
  std::unique_ptr<gjk::analysis::PathReader> reader;
  try {
    scene = gjk::robots::load_scene(scene_file);
    std::optional<gjk::robots::Srdf> srdf;
    if (!srdf_file.empty()) srdf = gjk::robots::load_srdf(srdf_file, model);
    if (base_pose) {
      if (srdf) {
        try {
          gjk::robots::check_base_pose(model, *srdf, *base_pose);
        } catch (const std::invalid_argument& e) {
          std::cerr << "gjk-clearance: --base-pose: " << e.what() << '\n';
          return kExitUsage;
        }
      }
      model.set_base_pose(*base_pose);
    }
    // The world: attached objects join the robot, the SRDF's matrix filters pairs.
    world.emplace(model, scene,
                  srdf ? gjk::robots::acm_from_srdf(model, *srdf)
                       : gjk::robots::AllowedCollisionMatrix::from_adjacency(model));
    gjk::analysis::PathOptions path_options;
    path_options.fixed = fixed;
    // On a terminal the error line replaces the progress bar (which is redrawn after it).
    const bool clear_line = progress && ::isatty(STDERR_FILENO) == 1;
    path_options.on_error = [&, clear_line](const gjk::analysis::RowError& e) {
      std::cerr << (clear_line ? "\r\033[K" : "") << path_file << ":" << e.line << ": " << e.message
                << '\n';
    };
    reader = gjk::analysis::PathReader::open(path_file, model, path_options);
  } catch (const std::exception& e) {
    std::cerr << "gjk-clearance: " << e.what() << '\n';
    return kExitInputError;
  }

  // Outputs: temporary files until the run is complete.
  std::unique_ptr<gjk::analysis::AtomicFile> pairs_out, states_out, html_out;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_signal);
  try {
    if (!out_file.empty()) {
      pairs_out = std::make_unique<gjk::analysis::AtomicFile>(out_file);
      register_temp(pairs_out->temp_path());
    }
    if (!states_file.empty()) {
      states_out = std::make_unique<gjk::analysis::AtomicFile>(states_file);
      register_temp(states_out->temp_path());
    }
    if (!html_file.empty()) {
      html_out = std::make_unique<gjk::analysis::AtomicFile>(html_file);
      register_temp(html_out->temp_path());
    }
  } catch (const gjk::analysis::OutputError& e) {
    std::cerr << "gjk-clearance: " << e.what() << '\n';
    return kExitOutputError;
  }
  // Temporary files go whatever way this function is left before the commit.
  struct Cleanup {
    ~Cleanup() { forget_temps(); }
  } cleanup;

  gjk::analysis::AnalysisOptions options;
  options.threads = threads;
  options.cutoff = cutoff;
  if (margin) options.margin = *margin;
  if (progress) options.progress = draw_progress;
  std::optional<gjk::analysis::CsvWriter> writer;
  if (pairs_out || states_out) {
    writer.emplace(world->model(), world->scene(), reader->info().has_time,
                   pairs_out ? &pairs_out->stream() : nullptr,
                   states_out ? &states_out->stream() : nullptr);
  }
  // The replay records the states as the analysis reads them, and passes the results on to the
  // CSV writer: the path is analysed once for every output.
  std::optional<gjk::replay::ReplayRecorder> recorder;
  if (html_out) {
    recorder.emplace(*world, *reader, reader->info().has_time, writer ? &*writer : nullptr);
  }
  gjk::analysis::Analysis analysis;
  try {
    if (recorder) {
      analysis = gjk::analysis::analyse(*world, recorder->source(), options, &*recorder);
    } else {
      analysis = gjk::analysis::analyse(*world, *reader, options, writer ? &*writer : nullptr);
    }
  } catch (const gjk::analysis::PathError& e) {
    if (progress) std::fputc('\n', stderr);
    std::cerr << "gjk-clearance: " << e.what() << '\n';
    return kExitInputError;
  } catch (const gjk::analysis::OutputError& e) {
    if (progress) std::fputc('\n', stderr);
    std::cerr << "gjk-clearance: " << e.what() << '\n';
    return kExitOutputError;
  }
  if (progress) std::fputc('\n', stderr);
  const gjk::analysis::PathInfo& info = reader->info();
  if (analysis.states == 0) {
    std::cerr << "gjk-clearance: " << path_file << ": no states to analyse ("
              << (info.bad_rows > 0 ? std::to_string(info.bad_rows) + " bad rows"
                                    : std::string("the path is empty"))
              << ")\n";
    return kExitInputError;
  }
  try {
    if (html_out) {
      gjk::replay::Replay replay = gjk::replay::replay_of_world(
          *world, "gjk-clearance: " + world->model().name() + " in " +
                      std::filesystem::path(scene_file).filename().string());
      if (margin) replay.margin = *margin;
      replay.time_label = info.has_time ? info.time_column + " (s)" : "state";
      const gjk::replay::Run run =
          recorder->take_run(std::filesystem::path(path_file).filename().string());
      replay.runs.push_back(gjk::replay::keep_frames(
          run, gjk::replay::select_frames(run.clearance, html_max_frames, replay.margin)));
      const std::string page = gjk::replay::replay_html(replay);
      html_out->stream().write(page.data(), static_cast<std::streamsize>(page.size()));
    }
    if (pairs_out) pairs_out->commit();
    if (states_out) states_out->commit();
    if (html_out) html_out->commit();
  } catch (const gjk::analysis::OutputError& e) {
    std::cerr << "gjk-clearance: " << e.what() << '\n';
    return kExitOutputError;
  }
  forget_temps();

  gjk::analysis::SummaryInputs inputs;
  inputs.urdf = urdf;
  inputs.scene = scene_file;
  inputs.precision = precision;
  if (json) {
    std::cout << gjk::analysis::dump_json(gjk::analysis::summary_json(
                     world->model(), world->scene(), info, analysis, inputs))
              << '\n';
  } else {
    std::cout << gjk::analysis::summary_text(world->model(), world->scene(), info, analysis,
                                             inputs);
  }
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "gjk-clearance: error writing the summary\n";
    return kExitOutputError;
  }

  // Checks, after the outputs: a failed check still leaves the full record to inspect.
  int status = kExitOk;
  const auto where = [&](const gjk::analysis::StateRef& r, const char* what) {
    std::string w = "first: state " + std::to_string(r.state) + ", line " + std::to_string(r.line);
    if (info.has_time) w += ", " + info.time_column + " = " + gjk::analysis::format_number(r.time);
    char d[64];
    std::snprintf(d, sizeof d, "%.*f", precision, r.distance);
    return w + ", " + what + " " + d + " m";
  };
  if (fail_on_collision && analysis.states_in_collision > 0) {
    std::cerr << "gjk-clearance: check failed: " << analysis.states_in_collision << " of "
              << analysis.states << " states in collision ("
              << where(analysis.first_collision, "distance") << ")\n";
    status = kExitCheckFailed;
  }
  if (margin && analysis.states_below_margin > 0) {
    char m[64];
    std::snprintf(m, sizeof m, "%.*f", precision, *margin);
    std::cerr << "gjk-clearance: check failed: " << analysis.states_below_margin << " of "
              << analysis.states << " states closer than the margin " << m << " m ("
              << where(analysis.first_below_margin, "clearance");
    if (analysis.states_in_collision > 0) {
      std::cerr << "; " << analysis.states_in_collision << " of them colliding";
    }
    std::cerr << ")\n";
    status = kExitCheckFailed;
  }
  // Bad rows: the checks above covered only part of the path.
  if (info.bad_rows > 0) {
    std::cerr << "gjk-clearance: " << info.bad_rows << " bad row" << (info.bad_rows > 1 ? "s" : "")
              << " in " << path_file << " left out\n";
    status = kExitInputError;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::ios::sync_with_stdio(false);
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "gjk-clearance: internal error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "gjk-clearance: internal error\n";
  }
  return kExitInternalError;
}
