// gjk-clearance: offline clearance analysis of a joint path. For every state of the path and every
// (link collision shape, obstacle) pair: signed distance and closest points (optional CSV), then a
// summary of the minimum clearance and where it occurs.
#include <gjk/analysis/clearance.hpp>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kExitBadRows = 1;
constexpr int kExitUsage = 2;

const char* const kFooter = R"(PATH FORMATS
  CSV: one state per line, values separated by commas or whitespace. An optional first row of
  joint names (the URDF's non-fixed, non-mimic joints) maps columns by name, in any order; a
  column named 't' or 'time' is carried to the output. Without a header the values are the
  joints in URDF order. OMPL paths (PathGeometric::printAsMatrix: space-separated numbers, one
  state per line) are read the same way. Blank lines and lines starting with '#' are skipped.

  Bad rows (wrong number of values, non-numbers, NaN/Inf, outside the joint limits) are reported
  on stderr as FILE:LINE: message, and left out; the other rows are analysed.

PER-PAIR CSV (--out)
  state,line[,t],link,shape,obstacle,distance,link_x,link_y,link_z,obstacle_x,obstacle_y,
  obstacle_z,status
  state: 0-based index of the analysed state; line: its line in the path file; shape:
  INDEX:DESCRIPTION of the link's collision shape; distance: signed (negative = penetration
  depth); link_* / obstacle_*: closest points (world frame). Pairs beyond --cutoff are left out.

EXIT STATUS
  0 all rows analysed, 1 some rows were bad (the rest analysed), 2 usage or file error.)";

/// Progress bar on stderr, redrawn in place.
void draw_progress(size_t done, size_t total) {
  constexpr int kWidth = 40;
  const double f = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(f * kWidth);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, ' ');
  std::fprintf(stderr, "\r[%s] %3.0f%% %zu/%zu states", bar.c_str(), 100.0 * f, done, total);
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::ios::sync_with_stdio(false);
    CLI::App app{
        "gjk-clearance: clearance of a robot along a joint path among scene obstacles.\n"
        "Writes a summary (minimum clearance and where) to stdout, and every (state, link "
        "shape,\nobstacle) signed distance with closest points to --out as CSV.",
        "gjk-clearance"};
    std::string urdf, scene_file, path_file, out_file;
    std::vector<std::string> package_dirs;
    const unsigned hw = std::thread::hardware_concurrency();
    int threads = hw > 0 ? static_cast<int>(hw) : 1;
    double cutoff = std::numeric_limits<double>::infinity();
    bool progress = ::isatty(STDERR_FILENO) == 1;
    bool json = false;
    app.add_option("--urdf", urdf, "robot URDF file (meshes become convex hulls)")->required();
    app.add_option("--package-dir", package_dirs,
                   "folder holding ROS packages, for package:// URIs (repeatable)");
    app.add_option("--scene", scene_file, "obstacle scene YAML (robots/scenes/README.md)")
        ->required();
    app.add_option("--path", path_file, "joint path: CSV or OMPL matrix (see below)")->required();
    app.add_option("--out", out_file, "write the per-pair CSV to this file");
    app.add_option("--threads", threads, "worker threads (default: hardware concurrency)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--cutoff", cutoff, "leave out pairs farther apart than this (metres)")
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--progress,!--no-progress", progress,
                 "progress bar on stderr (default: on when stderr is a terminal)");
    app.add_flag("--json", json, "summary as one JSON object instead of text");
    app.footer(kFooter);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? 0 : kExitUsage;
    }

    // Inputs: any file that cannot be used is a usage error naming the file.
    gjk::robots::RobotModel model;
    gjk::robots::Scene scene;
    gjk::analysis::Path path;
    try {
      model = gjk::robots::RobotModel::from_urdf_file(urdf, package_dirs);
      scene = gjk::robots::load_scene(scene_file);
      path = gjk::analysis::read_path_file(path_file, model);
    } catch (const std::exception& e) {
      std::cerr << "gjk-clearance: " << e.what() << '\n';
      return kExitUsage;
    }
    for (size_t i = 0; i < path.errors.size(); ++i) std::cerr << path.error_text(i) << '\n';

    std::ofstream out;
    if (!out_file.empty()) {
      out.open(out_file);
      if (!out) {
        std::cerr << "gjk-clearance: cannot open output file '" << out_file
                  << "': " << std::strerror(errno) << '\n';
        return kExitUsage;
      }
    }

    gjk::analysis::AnalysisOptions options;
    options.threads = threads;
    options.cutoff = cutoff;
    options.keep_pairs = !out_file.empty();
    if (progress) options.progress = draw_progress;
    const gjk::analysis::Analysis analysis =
        gjk::analysis::analyse(model, scene, path.states, options);
    if (progress) std::fputc('\n', stderr);

    if (!out_file.empty()) {
      gjk::analysis::write_pairs_csv(out, model, scene, path, analysis);
      out.close();
      if (!out) {
        std::cerr << "gjk-clearance: error writing output file '" << out_file << "'\n";
        return kExitUsage;
      }
    }
    const gjk::analysis::SummaryInputs inputs{urdf, scene_file};
    if (json) {
      std::cout << gjk::analysis::summary_json(model, scene, path, analysis, inputs).dump(2)
                << '\n';
    } else {
      std::cout << gjk::analysis::summary_text(model, scene, path, analysis, inputs);
    }
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "gjk-clearance: error writing the summary\n";
      return kExitUsage;
    }
    return path.errors.empty() ? 0 : kExitBadRows;
  } catch (const std::exception& e) {
    std::cerr << "gjk-clearance: fatal error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "gjk-clearance: fatal error\n";
  }
  return kExitUsage;
}
