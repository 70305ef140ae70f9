// gjk::analysis: clearance of a robot along joint paths among scene obstacles, as a library
// (gjk-clearance is a thin command-line tool over it).
//
// The analysis streams: states are read from a StateSource in fixed-size blocks, the blocks are
// computed by worker threads, and the results reach an AnalysisSink block by block in path order,
// so memory does not grow with the path length. Every block starts with fresh warm starts, so the
// result of a state depends only on its block, never on the thread count or on which thread
// computed it: outputs are byte-identical for any number of threads. The same property lets a
// long path be split into shards at block boundaries (AnalysisOptions::first_index) and analysed
// on several machines with results identical to one run.
#pragma once

#include <gjk/robots/collision_world.hpp>
#include <gjk/robots/distances.hpp>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::analysis {

// ---------------------------------------------------------------------------------------------
// Paths

/// A path file that cannot be used at all (cannot be opened, unusable header, bad --fixed
/// joint). what() names the file and, for header problems, the line and column, e.g.
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
  long line = 0;        ///< line in the path file (1-based)
  std::string message;  ///< what is wrong with the row
};

/// A joint held at one value for the whole path (a joint the path has no column for, e.g. the
/// Panda's fingers in a 7-column arm path).
struct FixedJoint {
  std::string name;    ///< joint name, as in the URDF
  double value = 0.0;  ///< its value: radians or metres
};

/// How a path file is read.
struct PathOptions {
  /// Joints not read from the file. A header must not name them; a headerless file has one
  /// column per remaining joint, in model order.
  std::vector<FixedJoint> fixed;
  /// Receives each bad row as it is found. When empty, bad rows are kept in
  /// PathReader::errors() (and Path::errors).
  std::function<void(const RowError&)> on_error;
};

/// What the outputs say about a path besides its states.
struct PathInfo {
  std::string name;         ///< the file name used in messages
  size_t bad_rows = 0;      ///< rows rejected (each reported once)
  bool has_header = false;  ///< the file started with a row of joint names
  bool has_time = false;    ///< a `t` or `time` column was given
  std::string time_column;  ///< the time column's name as written in the header (`t` or `time`)
};

/// Where the analysis gets its states from, one at a time.
class StateSource {
 public:
  virtual ~StateSource() = default;
  /// The next state; false at the end.
  virtual bool next(PathState& state) = 0;
  /// Fraction of the input consumed so far (0..1), or a negative value when unknown.
  virtual double fraction_done() const { return -1.0; }
};

/// The states of a vector, in order (the vector must outlive the source).
class VectorSource : public StateSource {
 public:
  /// Reads `states` in order; the vector must outlive the source.
  explicit VectorSource(const std::vector<PathState>& states) : states_(states) {}
  bool next(PathState& state) override;
  double fraction_done() const override;

 private:
  const std::vector<PathState>& states_;
  size_t next_ = 0;
};

/// Reads a path one state at a time: CSV (comma or whitespace separated) with an optional header
/// row of joint names (mapped by name onto model.position_names(), in any order; an extra `t` /
/// `time` column is carried along), or an OMPL PathGeometric::printAsMatrix file (one state per
/// line, no header). Without a header the columns are the model's joints in
/// model.position_names() order (the URDF document order of the movable joints) less the fixed
/// ones. Blank lines and lines starting with '#' are skipped. Bad rows (wrong number of values,
/// non-numbers, NaN/Inf, outside the joint limits) are reported (PathOptions::on_error or
/// errors()) and left out. The constructor reads up to the first data row and throws PathError
/// for a bad header or bad fixed joints.
class PathReader : public StateSource {
 public:
  /// Reads the path text from `in`; `name` is the file name used in messages. Throws PathError
  /// for a bad header or bad fixed joints.
  PathReader(std::istream& in, std::string name, const gjk::robots::RobotModel& model,
             PathOptions options = {});
  /// Opens a file; throws PathError naming it when it cannot be read.
  static std::unique_ptr<PathReader> open(const std::string& file,
                                          const gjk::robots::RobotModel& model,
                                          PathOptions options = {});
  ~PathReader() override;
  PathReader(const PathReader&) = delete;
  PathReader& operator=(const PathReader&) = delete;

  /// Next good state; false at the end. Throws PathError on a read error.
  bool next(PathState& state) override;
  double fraction_done() const override;

  /// Name, header and bad-row count of the path read so far.
  const PathInfo& info() const { return info_; }
  /// Bad rows so far, when PathOptions::on_error is empty.
  const std::vector<RowError>& errors() const { return errors_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  PathInfo info_;
  std::vector<RowError> errors_;
};

/// A whole path in memory (for short paths and tests; long paths go through PathReader).
struct Path {
  std::string name;               ///< the file name used in messages
  std::vector<PathState> states;  ///< the good states, in file order
  std::vector<RowError> errors;   ///< the rejected rows
  bool has_header = false;        ///< the file started with a row of joint names
  bool has_time = false;          ///< a `t` or `time` column was given
  std::string time_column;        ///< the time column's name as written in the header

  /// "NAME:LINE: MESSAGE" for error `i`, the form printed on stderr.
  std::string error_text(size_t i) const;
  /// The PathInfo of this path (for the outputs).
  PathInfo info() const;
};

/// Reads all of a path (PathReader's format and rules). Throws PathError for a bad header.
Path read_path(std::istream& in, const std::string& name, const gjk::robots::RobotModel& model,
               const PathOptions& options = {});
/// The same from a file; throws PathError naming the file when it cannot be read.
Path read_path_file(const std::string& path, const gjk::robots::RobotModel& model,
                    const PathOptions& options = {});

/// Parses "NAME=VALUE" (the --fixed option); throws PathError with a readable message.
FixedJoint parse_fixed_joint(const std::string& text);

/// Checks fixed joints against the model (known names, each once, finite, within the limits);
/// throws PathError naming the joint.
void check_fixed_joints(const gjk::robots::RobotModel& model, const std::vector<FixedJoint>& fixed);

/// At most `max_bytes` of `text` for an error message; longer text is cut (at a UTF-8 character
/// boundary) and gets "... (N bytes)", so a 100 MB field is never echoed whole.
std::string shorten(const std::string& text, size_t max_bytes = 80);

// ---------------------------------------------------------------------------------------------
// Results

/// One (collision shape, obstacle) pair at one state.
struct PairRecord {
  int shape = -1;     ///< index into model.collision_shapes(); -1: no pair
  int obstacle = -1;  ///< index into scene.obstacles
  double distance = std::numeric_limits<double>::infinity();  ///< signed: < 0 is penetration
  gjk::Vec3 point_on_link = gjk::Vec3::Zero();                ///< world frame
  gjk::Vec3 point_on_obstacle = gjk::Vec3::Zero();            ///< world frame
  gjk::Vec3 normal = gjk::Vec3::Zero();         ///< unit, from the link towards the obstacle
  gjk::Status status = gjk::Status::Converged;  ///< the engine's status for this pair
};

/// One analysed state: its clearance is the distance of its worst (closest) pair.
struct StateRecord {
  size_t index = 0;   ///< 0-based state index (AnalysisOptions::first_index + position in run)
  long line = 0;      ///< line in the path file
  double time = 0.0;  ///< value of the path's time column (0 without one)
  size_t pairs = 0;   ///< pairs within the cutoff
  /// The closest pair (the first in (shape, obstacle) order on a tie); shape < 0 when no pair is
  /// within the cutoff.
  PairRecord worst;
  /// Whether any pair was within the cutoff (worst is meaningful).
  bool has_worst() const { return worst.shape >= 0; }
};

/// The smallest distance seen and where (state < 0: none seen).
struct Minimum {
  long state = -1;    ///< state index
  long line = 0;      ///< line in the path file
  double time = 0.0;  ///< time column value
  PairRecord pair;    ///< the pair at the minimum
  /// Whether a minimum was seen.
  bool found() const { return state >= 0; }
};

/// A state that failed a check (state < 0: none did).
struct StateRef {
  long state = -1;        ///< state index; < 0 when no state failed
  long line = 0;          ///< line in the path file
  double time = 0.0;      ///< time column value
  double distance = 0.0;  ///< its clearance (signed distance of its worst pair)
  /// Whether a state failed the check.
  bool found() const { return state >= 0; }
};

/// The results of a block of consecutive states.
struct ResultBlock {
  const StateRecord* states = nullptr;  ///< the block's states, in path order
  size_t count = 0;                     ///< number of states
  /// All pairs of the block (when the sink wants_pairs()), state after state; those of state k
  /// are [pair_begin[k], pair_begin[k + 1]).
  const PairRecord* pairs = nullptr;
  const size_t* pair_begin = nullptr;  ///< count + 1 offsets into `pairs`
};

/// Receives the results as they are computed, block by block in path order, on the thread that
/// called analyse() (never concurrently). The default on_block() calls on_state() for each state
/// and then, when wants_pairs(), on_pair() for each of its pairs in (shape, obstacle) order. An
/// exception thrown by a sink stops the analysis and propagates from analyse().
class AnalysisSink {
 public:
  virtual ~AnalysisSink() = default;
  /// Whether pairs are wanted; when false the workers keep only each state's worst pair.
  virtual bool wants_pairs() const { return false; }
  /// Optional work done on the worker threads, concurrently for different blocks (so it may only
  /// read the sink's fixed state), before the block reaches on_block(): e.g. formatting text.
  /// `prepared` is the block's own scratch space, passed on to on_block().
  virtual void prepare(const ResultBlock& block, std::vector<std::string>& prepared) const {
    (void)block;
    (void)prepared;
  }
  /// Receives one block in path order; the default calls on_state() and on_pair().
  virtual void on_block(const ResultBlock& block, const std::vector<std::string>& prepared);
  /// Receives one analysed state (from the default on_block()).
  virtual void on_state(const StateRecord& state) { (void)state; }
  /// Receives one pair of `state` (from the default on_block(), when wants_pairs()).
  virtual void on_pair(const StateRecord& state, const PairRecord& pair) {
    (void)state;
    (void)pair;
  }
};

/// Keeps everything in memory (for short paths and tests).
class CollectingSink : public AnalysisSink {
 public:
  bool wants_pairs() const override { return true; }
  /// Appends the state to `states`.
  void on_state(const StateRecord& state) override;
  /// Appends the pair to `pairs` of its state.
  void on_pair(const StateRecord& state, const PairRecord& pair) override;
  std::vector<StateRecord> states;             ///< every state, in path order
  std::vector<std::vector<PairRecord>> pairs;  ///< per state
};

/// Progress of a run.
struct Progress {
  size_t states_done = 0;  ///< states analysed so far
  double fraction = -1.0;  ///< of the input consumed (StateSource::fraction_done), < 0: unknown
};

/// Settings of analyse().
struct AnalysisOptions {
  /// Worker threads computing blocks (the calling thread reads states and feeds the sink).
  /// Capped at 4 x std::thread::hardware_concurrency() and at the number of blocks when the
  /// source's size is known; when threads cannot be created the run goes on with those that
  /// were (or on the calling thread alone).
  int threads = 1;
  /// States per block: each block starts with fresh warm starts (a fixed boundary, whatever the
  /// thread count). 256 states keep the warm-start benefit (>99% of states are warm).
  size_t block_size = 256;
  /// Index of the first state of this run, for shards of a longer path. A shard that starts at
  /// a multiple of block_size gives the same records as the unsharded run.
  size_t first_index = 0;
  double cutoff =
      std::numeric_limits<double>::infinity();  ///< pairs farther apart than this (metres) are not
                                                ///< measured exactly; +inf: none
  /// States whose clearance is below this are counted (Analysis::states_below_margin);
  /// -infinity: no margin. Must not exceed the cutoff (farther pairs are not measured).
  double margin = -std::numeric_limits<double>::infinity();
  /// Called on the calling thread about every 100 ms, and once at the end; may be empty.
  std::function<void(const Progress&)> progress;
};

/// Totals of a run: collisions, margin violations and minima (per state and per (link,
/// obstacle)).
struct Analysis {
  size_t states = 0;  ///< states analysed
  size_t pairs = 0;   ///< pairs within the cutoff, over all states
  /// Exact pair queries run. Without pair output (no sink wants_pairs()), a pair whose bounds
  /// show it can neither be a state's closest pair nor lower its (link, obstacle) minimum is
  /// not measured; with pair output every pair is.
  size_t pairs_measured = 0;
  size_t states_in_collision = 0;                            ///< states with a pair at distance < 0
  StateRef first_collision;                                  ///< the first state in collision
  double margin = -std::numeric_limits<double>::infinity();  ///< AnalysisOptions::margin
  size_t states_below_margin = 0;  ///< states with clearance < margin (collisions included)
  StateRef first_below_margin;     ///< the first state below the margin
  Minimum overall;                 ///< the smallest clearance over the path and where
  /// Per (link, obstacle): index link * num_obstacles + obstacle.
  std::vector<Minimum> per_link_obstacle;
  size_t num_obstacles = 0;  ///< obstacles in the scene (stride of per_link_obstacle)
  int threads = 1;           ///< worker threads actually used
  size_t blocks = 0;         ///< blocks computed
  double seconds = 0.0;      ///< wall time of the run, s
  /// Per worker thread: wall time spent computing blocks, and its CPU time
  /// (CLOCK_THREAD_CPUTIME_ID: the cost without the waiting on a shared, busy machine).
  std::vector<double> thread_seconds;      ///< wall time per worker thread, s
  std::vector<double> thread_cpu_seconds;  ///< CPU time per worker thread, s
};

/// Distances of every (link collision shape, obstacle) pair at every state of `source`, streamed
/// to `sink` (may be null: only the totals). Model and scene are only read. Ties for a minimum
/// go to the earliest state. Deterministic: the same results for any `threads`.
Analysis analyse(const gjk::robots::RobotModel& model, const gjk::robots::Scene& scene,
                 StateSource& source, const AnalysisOptions& options, AnalysisSink* sink = nullptr);

/// The same over a vector of states.
Analysis analyse(const gjk::robots::RobotModel& model, const gjk::robots::Scene& scene,
                 const std::vector<PathState>& states, const AnalysisOptions& options,
                 AnalysisSink* sink = nullptr);

/// The same over a collision world: its robot with the attached objects, its obstacles (convex,
/// meshes, cells), and only the (robot part, obstacle) pairs its allowed-collision matrix checks.
/// The overloads above use CollisionWorld(model, scene).
Analysis analyse(const gjk::robots::CollisionWorld& world, StateSource& source,
                 const AnalysisOptions& options, AnalysisSink* sink = nullptr);

/// The same over a vector of states.
Analysis analyse(const gjk::robots::CollisionWorld& world, const std::vector<PathState>& states,
                 const AnalysisOptions& options, AnalysisSink* sink = nullptr);

/// Adds the totals of `shard`, the run that follows `total`'s states on the path (shards merged
/// in path order), to `total`: counts, the first failing states, the minima (ties keep the
/// earlier state, as in one run), the per-thread times. Shards cut at block boundaries merge to
/// the totals of the unsharded run (except the times). Both must come from the same model, scene
/// and options.
void merge_shard(Analysis& total, const Analysis& shard);

// ---------------------------------------------------------------------------------------------
// Outputs

/// The name of collision shape `shape` in outputs: "LINK#K", K its 0-based index among the
/// collision shapes of its link (so the several boxes of one link are distinct, and the name
/// does not change when another link gains a shape), e.g. "panda_hand#0".
std::string shape_label(const gjk::robots::RobotModel& model, int shape);

/// Streams the CSV outputs (either stream may be null):
///   pairs:  state,line[,t],link,shape,obstacle,distance,link_x,link_y,link_z,
///           obstacle_x,obstacle_y,obstacle_z,normal_x,normal_y,normal_z,status
///   states: state,line[,t],pairs,distance,link,shape,obstacle,link_x,link_y,link_z,
///           obstacle_x,obstacle_y,obstacle_z,normal_x,normal_y,normal_z,status
/// (a state with no pair within the cutoff has empty fields from `distance` on). Numbers are
/// the shortest text that reads back as the same double. The header is written at construction.
class CsvWriter : public AnalysisSink {
 public:
  /// Writes the per-pair CSV to `pairs` and the per-state CSV to `states` (either may be null),
  /// with a `t` column when `time_column`.
  CsvWriter(const gjk::robots::RobotModel& model, const gjk::robots::Scene& scene, bool time_column,
            std::ostream* pairs, std::ostream* states);
  bool wants_pairs() const override { return pairs_ != nullptr; }
  /// Formats the block's rows (on the worker threads).
  void prepare(const ResultBlock& block, std::vector<std::string>& prepared) const override;
  /// Writes the formatted rows.
  void on_block(const ResultBlock& block, const std::vector<std::string>& prepared) override;

 private:
  std::ostream *pairs_, *states_;
  bool time_column_;
  std::vector<std::string> shape_prefix_;  ///< "link,shape," per shape, quoted as needed
  std::vector<std::string> obstacle_;      ///< "obstacle," per obstacle
};

/// An output file written atomically: the text goes to a temporary file in the same folder
/// (".NAME.tmp.XXXXXX"), and commit() renames it over NAME. Until then NAME is untouched; the
/// destructor removes the temporary file of an uncommitted run, so a failed run leaves nothing.
class AtomicFile {
 public:
  /// Creates the temporary file; throws OutputError naming NAME and the reason.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  /// The stream writing to the temporary file.
  std::ostream& stream();
  /// The final file name.
  const std::string& path() const { return path_; }
  /// The temporary file name (same folder).
  const std::string& temp_path() const { return temp_; }
  /// Flushes, closes and renames; throws OutputError on any write error.
  void commit();
  /// Removes the temporary file (also done by the destructor).
  void discard() noexcept;

 private:
  std::string path_, temp_;
  std::unique_ptr<std::ofstream> out_;
  std::unique_ptr<char[]> buffer_;
  bool done_ = false;
};

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What the summary mentions besides the analysis.
struct SummaryInputs {
  std::string urdf;   ///< the robot file, as given
  std::string scene;  ///< the scene file, as given
  /// Decimals of distances and coordinates in the text summary: 3 = millimetres for metres.
  int precision = 3;
};

/// The summary as text (several lines, for a terminal).
std::string summary_text(const gjk::robots::RobotModel& model, const gjk::robots::Scene& scene,
                         const PathInfo& path, const Analysis& analysis,
                         const SummaryInputs& inputs);

/// The same as one JSON object (keys in a fixed order; numbers round-trip). Dump it with
/// dump_json: names that are not UTF-8 are replaced (U+FFFD) instead of failing.
nlohmann::ordered_json summary_json(const gjk::robots::RobotModel& model,
                                    const gjk::robots::Scene& scene, const PathInfo& path,
                                    const Analysis& analysis, const SummaryInputs& inputs);

/// `j.dump(indent)` with invalid UTF-8 replaced by U+FFFD (never throws for bad text).
std::string dump_json(const nlohmann::ordered_json& j, int indent = 2);

/// Shortest text that reads back as the same double (std::to_chars).
std::string format_number(double value);

}  // namespace gjk::analysis
