// gjk-clearance's work as plain functions (so tests can call them without the executable):
// reading a joint path (CSV or OMPL matrix), the multi-threaded robot-scene distance analysis,
// its summary and the per-pair CSV.
#pragma once

#include <gjk/robots/distances.hpp>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::analysis {

/// A path file that cannot be used at all (cannot be opened, unusable header). what() names the
/// file and, for header problems, the line and column, e.g.
/// "path.csv:1: column 3: unknown joint name 'elbow' (joints: joint1, joint2, joint3, joint4)".
class PathError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One usable row of the path.
struct PathState {
  long line = 0;      ///< 1-based line in the file
  double time = 0.0;  ///< the `t` / `time` column; 0 when the path has none
  Eigen::VectorXd q;  ///< in model.position_names() order
};

/// A row that was rejected; `message` has no file name, e.g.
/// "column 2 (joint2): expected a number, got 'abc'".
struct RowError {
  long line = 0;
  std::string message;
};

struct Path {
  std::string name;  ///< the file name used in messages
  std::vector<PathState> states;
  std::vector<RowError> errors;
  bool has_header = false;
  bool has_time = false;  ///< a `t` or `time` column was given
  std::string time_column;

  /// "NAME:LINE: MESSAGE" for error `i`, the form printed on stderr.
  std::string error_text(size_t i) const;
};

/// Reads a path: CSV (comma or whitespace separated) with an optional header row of joint names
/// (mapped by name onto model.position_names(); an extra `t` / `time` column is carried along),
/// or an OMPL PathGeometric::printAsMatrix file (one state per line, no header). Blank lines and
/// lines starting with '#' are skipped. Bad rows (wrong number of values, non-numbers, NaN/Inf,
/// outside the joint limits) go to Path::errors and are left out. Throws PathError for a bad
/// header.
Path read_path(std::istream& in, const std::string& name, const gjk::robots::RobotModel& model);
/// The same from a file; throws PathError naming the file when it cannot be read.
Path read_path_file(const std::string& path, const gjk::robots::RobotModel& model);

/// One (collision shape, obstacle) pair at one state: what the per-pair CSV holds.
struct PairRecord {
  int shape = -1;     ///< index into model.collision_shapes()
  int obstacle = -1;  ///< index into scene.obstacles
  double distance = 0.0;
  gjk::Vec3 point_on_link = gjk::Vec3::Zero();
  gjk::Vec3 point_on_obstacle = gjk::Vec3::Zero();
  gjk::Status status = gjk::Status::Converged;
};

/// The smallest distance seen and where (state < 0: none seen).
struct Minimum {
  long state = -1;  ///< index into Path::states
  PairRecord pair;
  bool found() const { return state >= 0; }
};

struct AnalysisOptions {
  int threads = 1;  ///< contiguous chunks of states, one per thread
  double cutoff = std::numeric_limits<double>::infinity();
  bool keep_pairs = true;  ///< store every pair (needed for the CSV); off saves memory
  /// Called on the calling thread about every 100 ms with (states done, total); may be empty.
  std::function<void(size_t, size_t)> progress;
};

struct Analysis {
  size_t states = 0;
  size_t pairs = 0;                ///< pairs with an exact distance (within the cutoff)
  size_t states_in_collision = 0;  ///< states with a pair at distance < 0
  Minimum overall;
  /// Per (link, obstacle): index link * num_obstacles + obstacle.
  std::vector<Minimum> per_link_obstacle;
  size_t num_obstacles = 0;
  /// Per state, its pairs (shape-major, then obstacle), when keep_pairs.
  std::vector<std::vector<PairRecord>> pairs_per_state;
  int threads = 1;  ///< threads actually used
  double seconds = 0.0;
  /// Wall time of each thread's chunk: shows an uneven split (overlapping states cost more,
  /// EPA after GJK).
  std::vector<double> chunk_seconds;
  /// CPU time of each chunk's thread (CLOCK_THREAD_CPUTIME_ID): its cost without the waiting on
  /// a shared, busy machine.
  std::vector<double> chunk_cpu_seconds;
};

/// Distances of every (link collision shape, obstacle) pair at every state. Each thread owns a
/// Workspace and a DistanceCache (warm start along its chunk); model and scene are only read.
/// Ties for a minimum go to the earliest state, so the result does not depend on `threads`.
Analysis analyse(const gjk::robots::RobotModel& model, const gjk::robots::Scene& scene,
                 const std::vector<PathState>& states, const AnalysisOptions& options);

/// The name of collision shape `shape` in outputs: "INDEX:DESCRIPTION", e.g.
/// "3:mesh meshes/link2.stl" (the index makes the several boxes of one link distinct).
std::string shape_label(const gjk::robots::RobotModel& model, int shape);

/// Writes the per-pair CSV: header, then one row per pair of every state.
void write_pairs_csv(std::ostream& out, const gjk::robots::RobotModel& model,
                     const gjk::robots::Scene& scene, const Path& path, const Analysis& analysis);

/// The input file names the summary mentions (the path's name and bad rows come from Path).
struct SummaryInputs {
  std::string urdf, scene;
};

/// The summary as text (several lines, for a terminal).
std::string summary_text(const gjk::robots::RobotModel& model, const gjk::robots::Scene& scene,
                         const Path& path, const Analysis& analysis, const SummaryInputs& inputs);

/// The same as one JSON object (keys in a fixed order).
nlohmann::ordered_json summary_json(const gjk::robots::RobotModel& model,
                                    const gjk::robots::Scene& scene, const Path& path,
                                    const Analysis& analysis, const SummaryInputs& inputs);

/// Shortest text that reads back as the same double (std::to_chars).
std::string format_number(double value);

}  // namespace gjk::analysis
