// Path reading, the streaming clearance analysis and its outputs (see gjk/analysis/clearance.hpp).
#include <gjk/analysis/clearance.hpp>

#include <gjk/robots/obstacle_queries.hpp>
#include <gjk/robots/parse_number.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <istream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <system_error>
#include <thread>

namespace gjk::analysis {

using gjk::robots::RobotModel;
using gjk::robots::Scene;

// ---------------------------------------------------------------------------------------------
// Numbers and fields

std::string format_number(double value) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, r.ptr);
}

std::string shorten(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes;
  // Back up over UTF-8 continuation bytes (10xxxxxx) so a character is not split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "... (" + std::to_string(text.size()) + " bytes)";
}

namespace {

void append_number(std::string& out, double value) {
  char buffer[32];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, r.ptr);
}

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

/// Splits a row at commas (when it has any) or else at runs of whitespace (OMPL's matrix format).
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  if (line.find(',') != std::string::npos) {
    size_t start = 0;
    for (;;) {
      const size_t comma = line.find(',', start);
      fields.push_back(trim(line.substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    std::istringstream words(line);
    std::string w;
    while (words >> w) fields.push_back(w);
  }
  return fields;
}

enum class NumberParse { Ok, Empty, NotANumber, OutOfRange, NotFinite };

/// The whole field as a number, locale-independently (gjk::robots::parse_double).
NumberParse parse_number(const std::string& field, double& value) {
  if (field.empty()) return NumberParse::Empty;
  const gjk::robots::ParsedNumber p = gjk::robots::parse_double(field);
  value = p.value;
  switch (p.status) {
    case gjk::robots::NumberStatus::NotANumber:
      return NumberParse::NotANumber;
    case gjk::robots::NumberStatus::OutOfRange:
      return NumberParse::OutOfRange;
    case gjk::robots::NumberStatus::Ok:
      break;
  }
  return std::isfinite(value) ? NumberParse::Ok : NumberParse::NotFinite;
}

bool is_number(const std::string& field) {
  return gjk::robots::parse_double(field).status != gjk::robots::NumberStatus::NotANumber;
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

/// Where each column of the file goes.
struct Columns {
  std::vector<int> q_index;       ///< per column: index into q, or -1 for the time column
  std::vector<std::string> name;  ///< per column: joint name or time column name
  int time_column = -1;
  Eigen::VectorXd base;  ///< q before a row is read: the fixed joints' values, else 0
};

int joint_index(const RobotModel& model, const std::string& name) {
  const std::vector<std::string>& joints = model.position_names();
  const auto it = std::find(joints.begin(), joints.end(), name);
  return it == joints.end() ? -1 : static_cast<int>(it - joints.begin());
}

/// The fixed joints checked against the model; returns which joints they are.
std::vector<bool> apply_fixed(const RobotModel& model, const std::vector<FixedJoint>& fixed,
                              Eigen::VectorXd& base) {
  std::vector<bool> is_fixed(static_cast<size_t>(model.num_positions()), false);
  base = Eigen::VectorXd::Zero(model.num_positions());
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  for (const FixedJoint& f : fixed) {
    const int j = joint_index(model, f.name);
    if (j < 0) {
      throw PathError("fixed joint '" + shorten(f.name) + "': robot '" + model.name() +
                      "' has no such joint (joints: " + join(model.position_names()) + ")");
    }
    if (is_fixed[static_cast<size_t>(j)]) {
      throw PathError("fixed joint '" + f.name + "' is given twice");
    }
    if (!std::isfinite(f.value)) {
      throw PathError("fixed joint '" + f.name + "': value " + format_number(f.value) +
                      " is not finite");
    }
    constexpr double kTolerance = 1e-9;  // as RobotModel::check_configuration
    if (f.value < lower[j] - kTolerance || f.value > upper[j] + kTolerance) {
      throw PathError("fixed joint '" + f.name + "': " + format_number(f.value) +
                      " is outside the joint limits [" + format_number(lower[j]) + ", " +
                      format_number(upper[j]) + "]");
    }
    is_fixed[static_cast<size_t>(j)] = true;
    base[j] = f.value;
  }
  return is_fixed;
}

Columns columns_from_header(const std::vector<std::string>& header, const std::string& where,
                            const RobotModel& model, const std::vector<FixedJoint>& fixed) {
  const std::vector<std::string>& joints = model.position_names();
  Columns c;
  const std::vector<bool> is_fixed = apply_fixed(model, fixed, c.base);
  std::vector<int> column_of(joints.size(), -1);
  for (size_t k = 0; k < header.size(); ++k) {
    const std::string& h = header[k];
    const std::string col = where + ": column " + std::to_string(k + 1) + ": ";
    if (h == "t" || h == "time") {
      if (c.time_column >= 0) {
        throw PathError(col + "a second time column '" + h + "' (the first is column " +
                        std::to_string(c.time_column + 1) + ")");
      }
      c.time_column = static_cast<int>(k);
      c.q_index.push_back(-1);
      c.name.push_back(h);
      continue;
    }
    const int j = joint_index(model, h);
    if (j < 0) {
      throw PathError(col + "unknown joint name '" + shorten(h) + "' (joints of robot '" +
                      model.name() + "': " + join(joints) + "; or 't' / 'time')");
    }
    if (is_fixed[static_cast<size_t>(j)]) {
      throw PathError(col + "joint '" + h +
                      "' has a column and is also fixed (--fixed): give one of them");
    }
    if (column_of[static_cast<size_t>(j)] >= 0) {
      throw PathError(col + "joint '" + h + "' appears twice (also column " +
                      std::to_string(column_of[static_cast<size_t>(j)] + 1) + ")");
    }
    column_of[static_cast<size_t>(j)] = static_cast<int>(k);
    c.q_index.push_back(j);
    c.name.push_back(h);
  }
  std::vector<std::string> missing;
  for (size_t j = 0; j < joints.size(); ++j) {
    if (column_of[j] < 0 && !is_fixed[j]) missing.push_back(joints[j]);
  }
  if (!missing.empty()) {
    throw PathError(where + ": header has no column for joint" + (missing.size() > 1 ? "s " : " ") +
                    join(missing) + " (robot '" + model.name() + "' needs " + join(joints) +
                    "; a joint the path lacks can be held with --fixed NAME=VALUE)");
  }
  return c;
}

Columns columns_in_model_order(const RobotModel& model, const std::vector<FixedJoint>& fixed) {
  Columns c;
  const std::vector<bool> is_fixed = apply_fixed(model, fixed, c.base);
  for (int j = 0; j < model.num_positions(); ++j) {
    if (is_fixed[static_cast<size_t>(j)]) continue;
    c.q_index.push_back(j);
    c.name.push_back(model.position_names()[static_cast<size_t>(j)]);
  }
  return c;
}

/// Parses one data row into `state`; returns the problem, empty when the row is good.
std::string parse_row(const std::vector<std::string>& fields, const Columns& columns,
                      const RobotModel& model, const Eigen::VectorXd& lower,
                      const Eigen::VectorXd& upper, PathState& state) {
  if (fields.size() != columns.q_index.size()) {
    return "expected " + std::to_string(columns.q_index.size()) + " values (" + join(columns.name) +
           "), got " + std::to_string(fields.size());
  }
  state.q = columns.base;
  state.time = 0.0;
  for (size_t k = 0; k < fields.size(); ++k) {
    const std::string col = "column " + std::to_string(k + 1) + " (" + columns.name[k] + "): ";
    double v = 0.0;
    switch (parse_number(fields[k], v)) {
      case NumberParse::Ok:
        break;
      case NumberParse::Empty:
        return col + "empty value";
      case NumberParse::NotANumber:
        return col + "expected a number, got '" + shorten(fields[k]) + "'";
      case NumberParse::OutOfRange:
        return col + "number '" + shorten(fields[k]) + "' is out of range of a double";
      case NumberParse::NotFinite:
        return col + "value '" + shorten(fields[k]) + "' is not finite";
    }
    const int j = columns.q_index[k];
    if (j < 0) {
      state.time = v;
      continue;
    }
    // Same tolerance as RobotModel::check_configuration, which is asked below as well.
    constexpr double kTolerance = 1e-9;
    if (v < lower[j] - kTolerance || v > upper[j] + kTolerance) {
      return col + format_number(v) + " is outside the joint limits [" + format_number(lower[j]) +
             ", " + format_number(upper[j]) + "]";
    }
    state.q[j] = v;
  }
  try {
    model.check_configuration(state.q);
  } catch (const gjk::robots::ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

void check_fixed_joints(const RobotModel& model, const std::vector<FixedJoint>& fixed) {
  Eigen::VectorXd base;
  apply_fixed(model, fixed, base);
}

// ---------------------------------------------------------------------------------------------
// Reading a path

bool VectorSource::next(PathState& state) {
  if (next_ >= states_.size()) return false;
  state = states_[next_++];
  return true;
}

double VectorSource::fraction_done() const {
  return states_.empty() ? 1.0 : static_cast<double>(next_) / static_cast<double>(states_.size());
}

struct PathReader::Impl {
  Impl(std::istream& stream, const RobotModel& m, PathOptions o)
      : in(&stream), model(m), options(std::move(o)) {}
  std::unique_ptr<std::istream> owned;
  std::istream* in;
  const RobotModel& model;
  PathOptions options;
  Columns columns;
  Eigen::VectorXd lower, upper;
  long line = 0;
  bool has_pending = false;  ///< the first data row, read while looking for a header
  std::vector<std::string> pending;
  long pending_line = 0;
  double total_bytes = -1.0;  ///< file size when known
  double bytes_read = 0.0;
  std::string raw;

  /// The next line that is not blank or a comment, split into fields; false at the end.
  bool next_fields(std::vector<std::string>& fields) {
    while (std::getline(*in, raw)) {
      ++line;
      bytes_read += static_cast<double>(raw.size() + 1);
      // A UTF-8 byte order mark (spreadsheet exports) would otherwise stick to the first name.
      if (line == 1 && raw.rfind("\xEF\xBB\xBF", 0) == 0) raw.erase(0, 3);
      const std::string text = trim(raw);
      if (text.empty() || text[0] == '#') continue;
      fields = split_fields(text);
      return true;
    }
    return false;
  }
};

PathReader::PathReader(std::istream& in, std::string name, const RobotModel& model,
                       PathOptions options)
    : impl_(std::make_unique<Impl>(in, model, std::move(options))) {
  info_.name = std::move(name);
  impl_->lower = model.lower_limits();
  impl_->upper = model.upper_limits();
  std::vector<std::string> fields;
  if (impl_->next_fields(fields)) {
    // A header is a first row in which no field is a number.
    const bool header = std::none_of(fields.begin(), fields.end(),
                                     [](const std::string& f) { return is_number(f); });
    if (header) {
      impl_->columns = columns_from_header(fields, info_.name + ":" + std::to_string(impl_->line),
                                           model, impl_->options.fixed);
      info_.has_header = true;
      info_.has_time = impl_->columns.time_column >= 0;
      if (info_.has_time)
        info_.time_column = impl_->columns.name[static_cast<size_t>(impl_->columns.time_column)];
      return;
    }
    impl_->has_pending = true;
    impl_->pending = std::move(fields);
    impl_->pending_line = impl_->line;
  }
  if (in.bad()) throw PathError(info_.name + ": read error");
  impl_->columns = columns_in_model_order(model, impl_->options.fixed);
}

PathReader::~PathReader() = default;

std::unique_ptr<PathReader> PathReader::open(const std::string& file, const RobotModel& model,
                                             PathOptions options) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw PathError("cannot read path file '" + file + "': it is a directory");
  }
  auto in = std::make_unique<std::ifstream>(file, std::ios::binary);
  if (!*in) throw PathError("cannot open path file '" + file + "': " + std::strerror(errno));
  const auto size = std::filesystem::file_size(file, ec);
  auto reader = std::make_unique<PathReader>(*in, file, model, std::move(options));
  reader->impl_->owned = std::move(in);
  if (!ec) reader->impl_->total_bytes = static_cast<double>(size);
  return reader;
}

bool PathReader::next(PathState& state) {
  Impl& m = *impl_;
  std::vector<std::string> fields;
  for (;;) {
    long line = 0;
    if (m.has_pending) {
      m.has_pending = false;
      fields = std::move(m.pending);
      line = m.pending_line;
    } else if (m.next_fields(fields)) {
      line = m.line;
    } else {
      if (m.in->bad()) throw PathError(info_.name + ": read error");
      return false;
    }
    state.line = line;
    std::string problem = parse_row(fields, m.columns, m.model, m.lower, m.upper, state);
    if (problem.empty()) return true;
    ++info_.bad_rows;
    RowError error{line, std::move(problem)};
    if (m.options.on_error) {
      m.options.on_error(error);
    } else {
      errors_.push_back(std::move(error));
    }
  }
}

double PathReader::fraction_done() const {
  if (impl_->total_bytes <= 0.0) return -1.0;
  return std::min(1.0, impl_->bytes_read / impl_->total_bytes);
}

std::string Path::error_text(size_t i) const {
  return name + ":" + std::to_string(errors[i].line) + ": " + errors[i].message;
}

PathInfo Path::info() const {
  PathInfo p;
  p.name = name;
  p.bad_rows = errors.size();
  p.has_header = has_header;
  p.has_time = has_time;
  p.time_column = time_column;
  return p;
}

namespace {

Path read_all(PathReader& reader) {
  Path path;
  PathState state;
  while (reader.next(state)) path.states.push_back(state);
  const PathInfo& info = reader.info();
  path.name = info.name;
  path.errors = reader.errors();
  path.has_header = info.has_header;
  path.has_time = info.has_time;
  path.time_column = info.time_column;
  return path;
}

}  // namespace

Path read_path(std::istream& in, const std::string& name, const RobotModel& model,
               const PathOptions& options) {
  PathOptions o = options;
  o.on_error = nullptr;  // Path keeps its errors
  PathReader reader(in, name, model, o);
  return read_all(reader);
}

Path read_path_file(const std::string& path, const RobotModel& model, const PathOptions& options) {
  PathOptions o = options;
  o.on_error = nullptr;
  const std::unique_ptr<PathReader> reader = PathReader::open(path, model, o);
  return read_all(*reader);
}

FixedJoint parse_fixed_joint(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw PathError("expected NAME=VALUE (e.g. panda_finger_joint1=0.02), got '" + shorten(text) +
                    "'");
  }
  FixedJoint f;
  f.name = trim(text.substr(0, eq));
  const std::string value = trim(text.substr(eq + 1));
  const gjk::robots::ParsedNumber p = gjk::robots::parse_double(value);
  if (p.status != gjk::robots::NumberStatus::Ok || !std::isfinite(p.value)) {
    throw PathError("joint '" + shorten(f.name) + "': expected a finite number, got '" +
                    shorten(value) + "'");
  }
  f.value = p.value;
  return f;
}

// ---------------------------------------------------------------------------------------------
// Analysis

void AnalysisSink::on_block(const ResultBlock& block, const std::vector<std::string>& prepared) {
  (void)prepared;
  const bool pairs = wants_pairs() && block.pairs != nullptr;
  for (size_t k = 0; k < block.count; ++k) {
    on_state(block.states[k]);
    if (!pairs) continue;
    for (size_t p = block.pair_begin[k]; p < block.pair_begin[k + 1]; ++p) {
      on_pair(block.states[k], block.pairs[p]);
    }
  }
}

void CollectingSink::on_state(const StateRecord& state) {
  states.push_back(state);
  pairs.emplace_back();
}

void CollectingSink::on_pair(const StateRecord& state, const PairRecord& pair) {
  (void)state;
  pairs.back().push_back(pair);
}

namespace {

void keep_smaller(Minimum& best, const StateRecord& state, const PairRecord& pair) {
  // Strict: ties keep the earlier state (and, within a state, the earlier pair).
  if (!best.found() || pair.distance < best.pair.distance) {
    best.state = static_cast<long>(state.index);
    best.line = state.line;
    best.time = state.time;
    best.pair = pair;
  }
}

void merge(Minimum& best, const Minimum& other) {
  // Blocks are merged in path order, so `other` is later than `best`: strict again.
  if (other.found() && (!best.found() || other.pair.distance < best.pair.distance)) best = other;
}

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// A block of states and, once computed, its results.
struct Block {
  size_t first = 0;  ///< index (within this run) of its first state
  std::vector<PathState> states;
  std::vector<StateRecord> records;
  std::vector<PairRecord> pairs;
  std::vector<size_t> pair_begin;
  std::vector<Minimum> per_link_obstacle;
  std::vector<std::string> prepared;
  double fraction = -1.0;  ///< of the input read when the block was complete
  bool done = false;
  std::exception_ptr error;
};

/// What one thread needs to compute blocks, reused from block to block.
struct Worker {
  Worker(const RobotModel& model, const Scene& scene) : ws(model) {
    const size_t obstacles = scene.obstacles.size();
    for (const gjk::robots::CollisionShape& c : model.collision_shapes()) {
      balls.push_back(gjk::robots::shape_ball(c.shape));  // a mesh element's hull holds it
      for (const gjk::robots::Obstacle& o : scene.obstacles)
        convex.push_back(gjk::robots::convex_pair(c, o) ? 1 : 0);
    }
    const size_t pairs = model.collision_shapes().size() * obstacles;
    last_pose.resize(pairs);
    lower.resize(pairs);
    upper.resize(pairs);
  }
  gjk::robots::Workspace ws;
  std::vector<gjk::robots::ClosestPair> distances;
  // Without pair output (see measure_state_bounded), per (shape, obstacle): the last exact
  // distance in the block (NaN: none yet) and the shape's pose then; and the bounds of a state.
  std::vector<gjk::robots::ObstacleBall> balls;  ///< per robot shape, shape frame
  std::vector<double> last_distance;
  std::vector<Pose> last_pose;
  std::vector<double> lower, upper;
  std::vector<std::uint8_t> convex;  ///< per pair: both convex (bounds hold in penetration)
  gjk::robots::ClosestPair one;
  size_t measured = 0;  ///< exact pair queries run (Analysis::pairs_measured)
  double seconds = 0.0, cpu_seconds = 0.0;
};

struct Context {
  const gjk::robots::CollisionWorld& world;
  const RobotModel& model;  ///< world.model(): the robot with its attached objects
  const Scene& scene;       ///< world.scene()
  const AnalysisOptions& options;
  AnalysisSink* sink;
  bool keep_pairs;
};

PairRecord record_of(const gjk::robots::PairDistance& d) {
  return PairRecord{d.shape,  d.obstacle, d.distance, d.point_on_link, d.point_on_obstacle,
                    d.normal, d.status};
}

/// A pair within the cutoff: the state's closest so far (the first on a tie) and its (link,
/// obstacle) minimum.
void take_pair(StateRecord& r, Minimum& minimum, const PairRecord& p) {
  if (!r.has_worst() || p.distance < r.worst.distance) r.worst = p;
  keep_smaller(minimum, r, p);
}

/// One state's record and its (link, obstacle) minima when no sink wants every pair: only the
/// closest pair and the minima must be exact, so a pair is measured only when it could change
/// them. Its last exact distance in the block, less how far its shape can have moved since
/// (ball_motion_bound), is a lower bound L; the same plus the motion an upper bound U. For two
/// convex shapes this holds through contact: the signed distance is max over unit u of -h(u),
/// h the support function of A - B, and moving A's points by at most m changes h by at most m,
/// so penetrating pairs are bounded too; a mesh pair only while apart. A pair is skipped when
/// L > 0 (or the pair is convex), L exceeds the smallest U of the state (not the closest pair)
/// and L exceeds its (link, obstacle) minimum so far (so it does not lower it), and the cutoff
/// decides it (L > cutoff: beyond; U < cutoff: within). Strict inequalities with a nanometre of
/// slack for rounding: a skipped pair is strictly farther than the state's closest and than
/// its minimum, which therefore come out as with every pair measured. (Issue 18 item 4: the
/// same certified skipping as VelocityInversion::solve's exact_below.)
void measure_state_bounded(const Context& c, gjk::robots::WorldContext& world, Worker& w,
                           std::vector<Minimum>& per_link_obstacle, StateRecord& r) {
  const auto& shapes = c.model.collision_shapes();
  const size_t obstacles = c.scene.obstacles.size();
  const double cutoff = c.options.cutoff;
  const std::vector<Pose>& poses = world.shape_poses();
  constexpr double kSlack = 1e-9;  // metres: GJK's answers are exact to ~1e-15 at robot scale
  double state_upper = std::numeric_limits<double>::infinity();
  for (size_t s = 0; s < shapes.size(); ++s) {
    for (size_t o = 0; o < obstacles; ++o) {
      const size_t k = s * obstacles + o;
      const double last = w.last_distance[k];
      if (std::isnan(last) || !c.world.checked(static_cast<int>(s), static_cast<int>(o))) {
        w.lower[k] = -std::numeric_limits<double>::infinity();
        w.upper[k] = std::numeric_limits<double>::infinity();
        continue;
      }
      const double moved = gjk::robots::ball_motion_bound(w.balls[s], w.last_pose[k], poses[s]);
      w.lower[k] = last - moved - kSlack;
      w.upper[k] = (w.convex[k] ? last : std::max(last, 0.0)) + moved + kSlack;
      state_upper = std::min(state_upper, w.upper[k]);
    }
  }
  const QueryOptions query{};
  for (size_t s = 0; s < shapes.size(); ++s) {
    const size_t link = static_cast<size_t>(shapes[s].link);
    for (size_t o = 0; o < obstacles; ++o) {
      if (!c.world.checked(static_cast<int>(s), static_cast<int>(o))) continue;
      const size_t k = s * obstacles + o;
      Minimum& minimum = per_link_obstacle[link * obstacles + o];
      const double lower = w.lower[k];
      const bool beyond = lower > cutoff, within = w.upper[k] < cutoff;
      if ((lower > 0.0 || w.convex[k]) && lower > state_upper &&
          (!minimum.found() || lower > minimum.pair.distance) && (beyond || within)) {
        if (within) ++r.pairs;
        continue;
      }
      // As distances(): a threshold query first when there is a cutoff. A pair beyond it, or
      // whose query failed, leaves no history and is measured again next time.
      if (!world.pair_distance(static_cast<int>(s), static_cast<int>(o), cutoff, false, query,
                               w.one)) {
        w.last_distance[k] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      ++w.measured;
      w.last_distance[k] = w.one.pair.status == Status::InvalidInput
                               ? std::numeric_limits<double>::quiet_NaN()
                               : w.one.pair.distance;
      w.last_pose[k] = poses[s];
      ++r.pairs;
      take_pair(r, minimum, record_of(w.one.pair));
    }
  }
}

void compute_block(const Context& c, Block& block, Worker& w) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  try {
    const RobotModel& model = c.model;
    // Fresh warm starts at every block: a state's result depends on its block only, whichever
    // thread computes it (byte-identical outputs for any thread count).
    gjk::robots::WorldContext world(c.world);
    const size_t obstacles = c.scene.obstacles.size();
    block.records.assign(block.states.size(), StateRecord{});
    block.pairs.clear();
    block.pair_begin.assign(1, 0);
    block.per_link_obstacle.assign(model.links().size() * obstacles, Minimum{});
    if (!c.keep_pairs) {
      w.last_distance.assign(model.collision_shapes().size() * obstacles,
                             std::numeric_limits<double>::quiet_NaN());
    }
    for (size_t k = 0; k < block.states.size(); ++k) {
      const PathState& s = block.states[k];
      StateRecord& r = block.records[k];
      r.index = c.options.first_index + block.first + k;
      r.line = s.line;
      r.time = s.time;
      world.update(s.q);
      if (!c.keep_pairs) {
        measure_state_bounded(c, world, w, block.per_link_obstacle, r);
        block.pair_begin.push_back(block.pairs.size());
        continue;
      }
      // The checked (robot part, obstacle) pairs within the cutoff, in (shape, obstacle) order.
      world.distances(c.options.cutoff, false, false, QueryOptions{}, w.distances);
      r.pairs = w.distances.size();
      w.measured += w.distances.size();
      for (const gjk::robots::ClosestPair& pair : w.distances) {
        const gjk::robots::PairDistance& d = pair.pair;
        const PairRecord p = record_of(d);
        const size_t link =
            static_cast<size_t>(model.collision_shapes()[static_cast<size_t>(d.shape)].link);
        take_pair(r, block.per_link_obstacle[link * obstacles + static_cast<size_t>(d.obstacle)],
                  p);
        block.pairs.push_back(p);
      }
      block.pair_begin.push_back(block.pairs.size());
    }
    if (c.sink != nullptr) {
      c.sink->prepare(
          ResultBlock{block.records.data(), block.records.size(),
                      c.keep_pairs ? block.pairs.data() : nullptr, block.pair_begin.data()},
          block.prepared);
    }
  } catch (...) {
    block.error = std::current_exception();
  }
  w.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  w.cpu_seconds += thread_cpu_seconds() - cpu_start;
}

/// The worker threads and the queue of blocks waiting for one. The destructor stops and joins
/// the threads, so an exception on the calling thread never leaves them running.
class Pool {
 public:
  Pool(const Context& context, size_t threads) : context_(context) {
    workers_.reserve(threads);
    for (size_t t = 0; t < threads; ++t) workers_.emplace_back(context.model, context.scene);
    threads_.reserve(threads);
    for (size_t t = 0; t < threads; ++t) {
      try {
        threads_.emplace_back([this, t] { run(workers_[t]); });
      } catch (const std::system_error&) {
        // Out of threads (e.g. --threads 100000): go on with those that started.
        break;
      }
    }
    // The workers of threads that did not start are unused (one stays for inline mode).
    workers_.erase(
        workers_.begin() + static_cast<std::ptrdiff_t>(std::max<size_t>(threads_.size(), 1)),
        workers_.end());
  }
  ~Pool() { stop(); }

  /// No thread could be started: the caller computes blocks itself.
  bool inline_mode() const { return threads_.empty(); }
  size_t size() const { return threads_.size(); }

  void submit(Block* block) {
    if (inline_mode()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_.push_back(block);
    }
    work_cv_.notify_one();
  }

  /// Waits until `block` is computed (computes it here in inline mode).
  void wait(Block& block) {
    if (inline_mode()) {
      compute_block(context_, block, workers_[0]);
      block.done = true;
      return;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [&] { return block.done; });
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  const std::vector<Worker>& workers() const { return workers_; }

 private:
  void run(Worker& w) {
    for (;;) {
      Block* block = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
        if (stopping_) return;
        block = pending_.front();
        pending_.pop_front();
      }
      compute_block(context_, *block, w);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        block->done = true;
      }
      done_cv_.notify_all();
    }
  }

  const Context& context_;
  std::vector<Worker> workers_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Block*> pending_;
  bool stopping_ = false;
};

/// How many worker threads are useful.
size_t worker_count(int requested, size_t known_states, size_t block_size) {
  size_t n = static_cast<size_t>(std::max(requested, 1));
  const unsigned hw = std::thread::hardware_concurrency();
  // More threads than cores only adds switching; 4x leaves room for machines that under-report.
  n = std::min<size_t>(n, 4 * static_cast<size_t>(std::max(hw, 1u)));
  if (known_states != static_cast<size_t>(-1)) {
    n = std::min<size_t>(n, std::max<size_t>(1, (known_states + block_size - 1) / block_size));
  }
  return n;
}

void count_state(Analysis& a, const StateRecord& r) {
  ++a.states;
  a.pairs += r.pairs;
  if (!r.has_worst()) return;
  const double d = r.worst.distance;
  const StateRef ref{static_cast<long>(r.index), r.line, r.time, d};
  if (d < 0.0) {
    if (a.states_in_collision++ == 0) a.first_collision = ref;
  }
  if (d < a.margin) {
    if (a.states_below_margin++ == 0) a.first_below_margin = ref;
  }
  keep_smaller(a.overall, r, r.worst);
}

Analysis run(const gjk::robots::CollisionWorld& world, StateSource& source,
             const AnalysisOptions& options, AnalysisSink* sink, size_t known_states) {
  const RobotModel& model = world.model();
  const Scene& scene = world.scene();
  const auto start = std::chrono::steady_clock::now();
  if (options.block_size == 0) throw std::invalid_argument("AnalysisOptions::block_size is 0");
  if (std::isnan(options.cutoff) || options.cutoff < 0.0) {
    throw std::invalid_argument("AnalysisOptions::cutoff must be >= 0 (infinity: no cutoff), got " +
                                format_number(options.cutoff));
  }
  if (std::isnan(options.margin) || options.margin > options.cutoff) {
    throw std::invalid_argument("AnalysisOptions::margin (" + format_number(options.margin) +
                                ") must not exceed the cutoff (" + format_number(options.cutoff) +
                                "): pairs beyond the cutoff are not measured");
  }
  Analysis analysis;
  analysis.margin = options.margin;
  analysis.num_obstacles = scene.obstacles.size();
  analysis.per_link_obstacle.assign(model.links().size() * scene.obstacles.size(), Minimum{});

  const Context context{world, model, scene, options, sink, sink != nullptr && sink->wants_pairs()};
  // Blocks outlive the pool (declared first, destroyed last): the threads are joined before the
  // blocks they may be computing go away.
  std::deque<std::unique_ptr<Block>> in_flight;
  std::vector<std::unique_ptr<Block>> free_blocks;
  Pool pool(context, worker_count(options.threads, known_states, options.block_size));
  analysis.threads = static_cast<int>(std::max<size_t>(pool.size(), 1));
  // Two blocks per thread keep every thread busy while the calling thread drains the front one;
  // memory is bounded by this many blocks whatever the path length.
  const size_t max_in_flight = 2 * std::max<size_t>(pool.size(), 1);

  bool source_done = false;
  size_t states_read = 0;
  auto last_report = std::chrono::steady_clock::now();
  for (;;) {
    while (!source_done && in_flight.size() < max_in_flight) {
      std::unique_ptr<Block> block;
      if (free_blocks.empty()) {
        block = std::make_unique<Block>();
      } else {
        block = std::move(free_blocks.back());
        free_blocks.pop_back();
      }
      block->done = false;
      block->error = nullptr;
      block->first = states_read;
      block->states.resize(options.block_size);
      size_t n = 0;
      while (n < options.block_size && source.next(block->states[n])) ++n;
      block->states.resize(n);
      states_read += n;
      // Taken now: reported when the block is done, the bar then shows finished work only.
      block->fraction = source.fraction_done();
      if (n < options.block_size) source_done = true;
      if (n == 0) {
        free_blocks.push_back(std::move(block));
        break;
      }
      pool.submit(block.get());
      in_flight.push_back(std::move(block));
    }
    if (in_flight.empty()) break;
    Block& front = *in_flight.front();
    pool.wait(front);
    if (front.error) std::rethrow_exception(front.error);
    ++analysis.blocks;
    for (const StateRecord& r : front.records) count_state(analysis, r);
    for (size_t k = 0; k < front.per_link_obstacle.size(); ++k) {
      merge(analysis.per_link_obstacle[k], front.per_link_obstacle[k]);
    }
    if (sink != nullptr) {
      sink->on_block(
          ResultBlock{front.records.data(), front.records.size(),
                      context.keep_pairs ? front.pairs.data() : nullptr, front.pair_begin.data()},
          front.prepared);
    }
    const double last_fraction = front.fraction;
    free_blocks.push_back(std::move(in_flight.front()));
    in_flight.pop_front();
    if (options.progress) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last_report >= std::chrono::milliseconds(100)) {
        last_report = now;
        options.progress(Progress{analysis.states, last_fraction});
      }
    }
  }
  pool.stop();
  if (options.progress) options.progress(Progress{analysis.states, 1.0});
  for (const Worker& w : pool.workers()) {
    analysis.thread_seconds.push_back(w.seconds);
    analysis.thread_cpu_seconds.push_back(w.cpu_seconds);
    analysis.pairs_measured += w.measured;
  }
  analysis.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return analysis;
}

}  // namespace

Analysis analyse(const RobotModel& model, const Scene& scene, StateSource& source,
                 const AnalysisOptions& options, AnalysisSink* sink) {
  const gjk::robots::CollisionWorld world(model, scene);
  return run(world, source, options, sink, static_cast<size_t>(-1));
}

Analysis analyse(const RobotModel& model, const Scene& scene, const std::vector<PathState>& states,
                 const AnalysisOptions& options, AnalysisSink* sink) {
  const gjk::robots::CollisionWorld world(model, scene);
  VectorSource source(states);
  return run(world, source, options, sink, states.size());
}

Analysis analyse(const gjk::robots::CollisionWorld& world, StateSource& source,
                 const AnalysisOptions& options, AnalysisSink* sink) {
  return run(world, source, options, sink, static_cast<size_t>(-1));
}

Analysis analyse(const gjk::robots::CollisionWorld& world, const std::vector<PathState>& states,
                 const AnalysisOptions& options, AnalysisSink* sink) {
  VectorSource source(states);
  return run(world, source, options, sink, states.size());
}

void merge_shard(Analysis& total, const Analysis& shard) {
  if (total.per_link_obstacle.empty()) {
    total.per_link_obstacle.assign(shard.per_link_obstacle.size(), Minimum{});
    total.num_obstacles = shard.num_obstacles;
    total.margin = shard.margin;
  }
  if (total.per_link_obstacle.size() != shard.per_link_obstacle.size() ||
      total.margin != shard.margin) {
    throw std::invalid_argument(
        "merge_shard: the shards come from different robots, scenes or "
        "margins");
  }
  if (!total.first_collision.found()) total.first_collision = shard.first_collision;
  if (!total.first_below_margin.found()) total.first_below_margin = shard.first_below_margin;
  total.states += shard.states;
  total.pairs += shard.pairs;
  total.pairs_measured += shard.pairs_measured;
  total.states_in_collision += shard.states_in_collision;
  total.states_below_margin += shard.states_below_margin;
  merge(total.overall, shard.overall);
  for (size_t k = 0; k < shard.per_link_obstacle.size(); ++k) {
    merge(total.per_link_obstacle[k], shard.per_link_obstacle[k]);
  }
  total.blocks += shard.blocks;
  total.threads = std::max(total.threads, shard.threads);
  total.seconds += shard.seconds;
  total.thread_seconds.insert(total.thread_seconds.end(), shard.thread_seconds.begin(),
                              shard.thread_seconds.end());
  total.thread_cpu_seconds.insert(total.thread_cpu_seconds.end(), shard.thread_cpu_seconds.begin(),
                                  shard.thread_cpu_seconds.end());
}

// ---------------------------------------------------------------------------------------------
// Outputs

namespace {

/// Each shape's index among the collision shapes of its link.
int index_in_link(const RobotModel& model, int shape) {
  const auto& shapes = model.collision_shapes();
  const int link = shapes[static_cast<size_t>(shape)].link;
  int k = 0;
  for (int s = 0; s < shape; ++s) {
    if (shapes[static_cast<size_t>(s)].link == link) ++k;
  }
  return k;
}

const std::string& link_name(const RobotModel& model, int shape) {
  const int link = model.collision_shapes()[static_cast<size_t>(shape)].link;
  return model.links()[static_cast<size_t>(link)].name;
}

/// RFC 4180 quoting, only when needed.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

void append_vec(std::string& out, const gjk::Vec3& v) {
  for (int k = 0; k < 3; ++k) {
    out += ',';
    append_number(out, v[k]);
  }
}

}  // namespace

std::string shape_label(const RobotModel& model, int shape) {
  const auto& shapes = model.collision_shapes();
  const std::string& object = shapes[static_cast<size_t>(shape)].attached_object;
  if (!object.empty()) {  // a held object's pieces: OBJECT#K
    int k = 0;
    for (int s = 0; s < shape; ++s) k += shapes[static_cast<size_t>(s)].attached_object == object;
    return object + "#" + std::to_string(k);
  }
  return link_name(model, shape) + "#" + std::to_string(index_in_link(model, shape));
}

CsvWriter::CsvWriter(const RobotModel& model, const Scene& scene, bool time_column,
                     std::ostream* pairs, std::ostream* states)
    : pairs_(pairs), states_(states), time_column_(time_column) {
  for (int s = 0; s < static_cast<int>(model.collision_shapes().size()); ++s) {
    shape_prefix_.push_back(csv_field(link_name(model, s)) + "," +
                            csv_field(shape_label(model, s)) + ",");
  }
  for (const auto& o : scene.obstacles) obstacle_.push_back(csv_field(o.name) + ",");
  const std::string t = time_column ? "t," : "";
  const std::string xyz =
      "link_x,link_y,link_z,obstacle_x,obstacle_y,obstacle_z,normal_x,normal_y,normal_z,status\n";
  if (pairs_ != nullptr) *pairs_ << "state,line," << t << "link,shape,obstacle,distance," << xyz;
  if (states_ != nullptr)
    *states_ << "state,line," << t << "pairs,distance,link,shape,obstacle," << xyz;
}

void CsvWriter::prepare(const ResultBlock& block, std::vector<std::string>& prepared) const {
  // Cleared, not replaced: the strings keep their capacity from block to block.
  prepared.resize(2);
  prepared[0].clear();
  prepared[1].clear();
  std::string& pairs = prepared[0];
  std::string& states = prepared[1];
  std::string prefix;
  for (size_t k = 0; k < block.count; ++k) {
    const StateRecord& s = block.states[k];
    prefix = std::to_string(s.index) + "," + std::to_string(s.line) + ",";
    if (time_column_) {
      append_number(prefix, s.time);
      prefix += ',';
    }
    if (states_ != nullptr) {
      states += prefix;
      states += std::to_string(s.pairs);
      if (s.has_worst()) {
        const PairRecord& w = s.worst;
        states += ',';
        append_number(states, w.distance);
        states += ',';
        states += shape_prefix_[static_cast<size_t>(w.shape)];
        states += obstacle_[static_cast<size_t>(w.obstacle)];
        states.pop_back();  // the obstacle's trailing comma: append_vec adds its own
        append_vec(states, w.point_on_link);
        append_vec(states, w.point_on_obstacle);
        append_vec(states, w.normal);
        states += ',';
        states += gjk::to_string(w.status);
        states += '\n';
      } else {
        states.append(14, ',');  // empty fields: distance .. status
        states += '\n';
      }
    }
    if (pairs_ != nullptr && block.pairs != nullptr) {
      for (size_t p = block.pair_begin[k]; p < block.pair_begin[k + 1]; ++p) {
        const PairRecord& r = block.pairs[p];
        pairs += prefix;
        pairs += shape_prefix_[static_cast<size_t>(r.shape)];
        pairs += obstacle_[static_cast<size_t>(r.obstacle)];
        append_number(pairs, r.distance);
        append_vec(pairs, r.point_on_link);
        append_vec(pairs, r.point_on_obstacle);
        append_vec(pairs, r.normal);
        pairs += ',';
        pairs += gjk::to_string(r.status);
        pairs += '\n';
      }
    }
  }
}

void CsvWriter::on_block(const ResultBlock& block, const std::vector<std::string>& prepared) {
  (void)block;
  if (prepared.size() != 2) return;
  for (size_t k = 0; k < 2; ++k) {
    std::ostream* out = k == 0 ? pairs_ : states_;
    if (out == nullptr) continue;
    out->write(prepared[k].data(), static_cast<std::streamsize>(prepared[k].size()));
    // Stop at the first failed write (disk full) instead of computing the rest for nothing.
    if (!*out)
      throw OutputError(std::string("error writing the per-") + (k == 0 ? "pair" : "state") +
                        " CSV (disk full?)");
  }
}

// ---------------------------------------------------------------------------------------------
// Atomic output files

namespace {

mode_t current_umask() {
  // umask can only be read by setting it; done once, before any thread of ours writes files.
  static const mode_t mask = [] {
    const mode_t m = ::umask(022);
    ::umask(m);
    return m;
  }();
  return mask;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  const std::filesystem::path final_path(path_);
  const std::filesystem::path dir = final_path.parent_path();
  const std::string base = final_path.filename().string();
  if (base.empty() || base == "." || base == "..") {
    throw OutputError("cannot write output file '" + path_ + "': not a file name");
  }
  std::error_code ec;
  if (std::filesystem::is_directory(final_path, ec)) {
    throw OutputError("cannot write output file '" + path_ + "': it is a directory");
  }
  // In the same folder as the final file: rename() is atomic only within one file system.
  std::string pattern =
      ((dir.empty() ? std::filesystem::path(".") : dir) / ("." + base + ".tmp.XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    throw OutputError("cannot write output file '" + path_ + "': " + std::strerror(errno));
  }
  temp_ = name.data();
  // mkstemp makes the file 0600; the result should get the usual permissions.
  ::fchmod(fd, 0666 & ~current_umask());
  ::close(fd);
  buffer_ = std::make_unique<char[]>(1 << 20);
  out_ = std::make_unique<std::ofstream>();
  // A large buffer: the outputs can be gigabytes.
  out_->rdbuf()->pubsetbuf(buffer_.get(), 1 << 20);
  out_->open(temp_, std::ios::binary | std::ios::trunc);
  if (!*out_) {
    const int error = errno;
    discard();
    throw OutputError("cannot write output file '" + path_ + "': " + std::strerror(error));
  }
}

AtomicFile::~AtomicFile() {
  discard();
}

std::ostream& AtomicFile::stream() {
  return *out_;
}

void AtomicFile::commit() {
  if (done_) throw OutputError("output file '" + path_ + "' was already closed");
  out_->flush();
  const bool written = static_cast<bool>(*out_);
  out_->close();
  if (!written || !*out_) {
    discard();
    throw OutputError("error writing output file '" + path_ + "' (disk full?)");
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    discard();
    throw OutputError("cannot write output file '" + path_ + "': " + std::strerror(error));
  }
  done_ = true;
}

void AtomicFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  if (out_ && out_->is_open()) out_->close();
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

// ---------------------------------------------------------------------------------------------
// Summaries

namespace {

std::string fixed(double value, int precision) {
  if (!std::isfinite(value)) return format_number(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", precision, value);
  return buffer;
}

std::string vec_text(const gjk::Vec3& v, int precision) {
  return "(" + fixed(v.x(), precision) + ", " + fixed(v.y(), precision) + ", " +
         fixed(v.z(), precision) + ")";
}

nlohmann::ordered_json vec_json(const gjk::Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

/// "state 3 (line 7, t = 0.3)".
std::string where_text(const PathInfo& path, long state, long line, double time) {
  std::string w = "state " + std::to_string(state) + " (line " + std::to_string(line);
  if (path.has_time) w += ", " + path.time_column + " = " + format_number(time);
  return w + ")";
}

nlohmann::ordered_json minimum_json(const RobotModel& model, const Scene& scene,
                                    const PathInfo& path, const Minimum& m) {
  if (!m.found()) return nullptr;
  nlohmann::ordered_json j;
  j["distance"] = m.pair.distance;
  j["state"] = m.state;
  j["line"] = m.line;
  if (path.has_time) j["t"] = m.time;
  j["link"] = link_name(model, m.pair.shape);
  j["shape"] = shape_label(model, m.pair.shape);
  j["shape_description"] = model.collision_shapes()[static_cast<size_t>(m.pair.shape)].description;
  j["obstacle"] = scene.obstacles[static_cast<size_t>(m.pair.obstacle)].name;
  j["point_on_link"] = vec_json(m.pair.point_on_link);
  j["point_on_obstacle"] = vec_json(m.pair.point_on_obstacle);
  j["normal"] = vec_json(m.pair.normal);
  j["status"] = gjk::to_string(m.pair.status);
  return j;
}

nlohmann::ordered_json state_ref_json(const PathInfo& path, const StateRef& r) {
  if (!r.found()) return nullptr;
  nlohmann::ordered_json j;
  j["state"] = r.state;
  j["line"] = r.line;
  if (path.has_time) j["t"] = r.time;
  j["distance"] = r.distance;
  return j;
}

double states_per_second(const Analysis& a) {
  return a.seconds > 0.0 ? static_cast<double>(a.states) / a.seconds : 0.0;
}

}  // namespace

std::string summary_text(const RobotModel& model, const Scene& scene, const PathInfo& path,
                         const Analysis& analysis, const SummaryInputs& inputs) {
  const int p = std::clamp(inputs.precision, 0, 17);
  std::ostringstream o;
  o << "robot '" << model.name() << "' (" << inputs.urdf << "): " << model.collision_shapes().size()
    << " collision shapes; scene " << inputs.scene << ": " << scene.obstacles.size()
    << " obstacles\n";
  o << "path " << path.name << ": " << analysis.states << " states analysed, " << path.bad_rows
    << " bad rows skipped\n";
  o << "pairs with a distance: " << analysis.pairs;
  if (analysis.pairs_measured != analysis.pairs)
    o << " (" << analysis.pairs_measured << " measured exactly, the others bounded)";
  o << "\n";
  const Minimum& m = analysis.overall;
  if (m.found()) {
    o << "minimum clearance: " << fixed(m.pair.distance, p) << " m at "
      << where_text(path, m.state, m.line, m.time) << ", link " << link_name(model, m.pair.shape)
      << " (shape " << shape_label(model, m.pair.shape) << ": "
      << model.collision_shapes()[static_cast<size_t>(m.pair.shape)].description << "), obstacle "
      << scene.obstacles[static_cast<size_t>(m.pair.obstacle)].name << "\n";
    o << "  point on link:     " << vec_text(m.pair.point_on_link, p) << "\n";
    o << "  point on obstacle: " << vec_text(m.pair.point_on_obstacle, p) << "\n";
  } else {
    o << "minimum clearance: none ("
      << (analysis.states == 0 ? "no states analysed" : "no pair within the cutoff") << ")\n";
  }
  // Worded so that "in collision" appears only where a state collides.
  o << "colliding states (distance < 0): " << analysis.states_in_collision << "\n";
  if (std::isfinite(analysis.margin)) {
    o << "states closer than the margin " << fixed(analysis.margin, p)
      << " m: " << analysis.states_below_margin << "\n";
  }
  o << "minimum per (link, obstacle):\n";
  for (size_t k = 0; k < analysis.per_link_obstacle.size(); ++k) {
    const Minimum& q = analysis.per_link_obstacle[k];
    if (!q.found()) continue;
    o << "  " << link_name(model, q.pair.shape) << " / "
      << scene.obstacles[static_cast<size_t>(q.pair.obstacle)].name << ": "
      << fixed(q.pair.distance, p) << " m at " << where_text(path, q.state, q.line, q.time) << "\n";
  }
  char timing[160];
  std::snprintf(timing, sizeof timing, "wall time: %.3f s, %.0f states/s (%d thread%s)\n",
                analysis.seconds, states_per_second(analysis), analysis.threads,
                analysis.threads == 1 ? "" : "s");
  o << timing;
  return o.str();
}

nlohmann::ordered_json summary_json(const RobotModel& model, const Scene& scene,
                                    const PathInfo& path, const Analysis& analysis,
                                    const SummaryInputs& inputs) {
  nlohmann::ordered_json j;
  j["robot"] = model.name();
  j["urdf"] = inputs.urdf;
  j["scene"] = inputs.scene;
  j["path"] = path.name;
  j["collision_shapes"] = model.collision_shapes().size();
  j["obstacles"] = scene.obstacles.size();
  j["states"] = analysis.states;
  j["bad_rows"] = path.bad_rows;
  j["pairs"] = analysis.pairs;
  j["pairs_measured"] = analysis.pairs_measured;
  j["minimum"] = minimum_json(model, scene, path, analysis.overall);
  j["states_in_collision"] = analysis.states_in_collision;
  j["first_collision"] = state_ref_json(path, analysis.first_collision);
  if (std::isfinite(analysis.margin)) {
    j["margin"] = analysis.margin;
    j["states_below_margin"] = analysis.states_below_margin;
    j["first_below_margin"] = state_ref_json(path, analysis.first_below_margin);
  }
  nlohmann::ordered_json per = nlohmann::ordered_json::array();
  for (const Minimum& q : analysis.per_link_obstacle) {
    if (q.found()) per.push_back(minimum_json(model, scene, path, q));
  }
  j["per_link_obstacle"] = per;
  j["threads"] = analysis.threads;
  j["blocks"] = analysis.blocks;
  j["seconds"] = analysis.seconds;
  j["thread_seconds"] = analysis.thread_seconds;
  j["thread_cpu_seconds"] = analysis.thread_cpu_seconds;
  j["states_per_second"] = states_per_second(analysis);
  return j;
}

std::string dump_json(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace gjk::analysis
