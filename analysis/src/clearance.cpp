// Path reading, the threaded clearance analysis and its outputs (see gjk/analysis/clearance.hpp).
#include <gjk/analysis/clearance.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include <time.h>

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

namespace {

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

/// strtod over the whole field (C locale is the program's default).
NumberParse parse_number(const std::string& field, double& value) {
  if (field.empty()) return NumberParse::Empty;
  errno = 0;
  char* end = nullptr;
  value = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size()) return NumberParse::NotANumber;
  // Overflow is an error; underflow to a denormal or zero is an exact-enough number.
  if (errno == ERANGE && std::isinf(value)) return NumberParse::OutOfRange;
  if (!std::isfinite(value)) return NumberParse::NotFinite;
  return NumberParse::Ok;
}

bool is_number(const std::string& field) {
  double v;
  const NumberParse p = parse_number(field, v);
  return p == NumberParse::Ok || p == NumberParse::OutOfRange || p == NumberParse::NotFinite;
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
};

Columns columns_from_header(const std::vector<std::string>& header, const std::string& where,
                            const RobotModel& model) {
  const std::vector<std::string>& joints = model.position_names();
  Columns c;
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
    const auto it = std::find(joints.begin(), joints.end(), h);
    if (it == joints.end()) {
      throw PathError(col + "unknown joint name '" + h + "' (joints of robot '" + model.name() +
                      "': " + join(joints) + "; or 't' / 'time')");
    }
    const size_t j = static_cast<size_t>(it - joints.begin());
    if (column_of[j] >= 0) {
      throw PathError(col + "joint '" + h + "' appears twice (also column " +
                      std::to_string(column_of[j] + 1) + ")");
    }
    column_of[j] = static_cast<int>(k);
    c.q_index.push_back(static_cast<int>(j));
    c.name.push_back(h);
  }
  std::vector<std::string> missing;
  for (size_t j = 0; j < joints.size(); ++j) {
    if (column_of[j] < 0) missing.push_back(joints[j]);
  }
  if (!missing.empty()) {
    throw PathError(where + ": header has no column for joint" + (missing.size() > 1 ? "s " : " ") +
                    join(missing) + " (robot '" + model.name() + "' needs " + join(joints) + ")");
  }
  return c;
}

Columns columns_in_model_order(const RobotModel& model) {
  Columns c;
  for (int j = 0; j < model.num_positions(); ++j) {
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
  state.q.resize(model.num_positions());
  for (size_t k = 0; k < fields.size(); ++k) {
    const std::string col = "column " + std::to_string(k + 1) + " (" + columns.name[k] + "): ";
    double v = 0.0;
    switch (parse_number(fields[k], v)) {
      case NumberParse::Ok:
        break;
      case NumberParse::Empty:
        return col + "empty value";
      case NumberParse::NotANumber:
        return col + "expected a number, got '" + fields[k] + "'";
      case NumberParse::OutOfRange:
        return col + "number '" + fields[k] + "' is out of range of a double";
      case NumberParse::NotFinite:
        return col + "value '" + fields[k] + "' is not finite";
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

// ---------------------------------------------------------------------------------------------
// Reading a path

std::string Path::error_text(size_t i) const {
  return name + ":" + std::to_string(errors[i].line) + ": " + errors[i].message;
}

Path read_path(std::istream& in, const std::string& name, const RobotModel& model) {
  Path path;
  path.name = name;
  const Eigen::VectorXd lower = model.lower_limits(), upper = model.upper_limits();
  Columns columns;
  bool first = true;
  std::string raw;
  long line = 0;
  while (std::getline(in, raw)) {
    ++line;
    // A UTF-8 byte order mark (spreadsheet exports) would otherwise stick to the first name.
    if (line == 1 && raw.rfind("\xEF\xBB\xBF", 0) == 0) raw.erase(0, 3);
    const std::string text = trim(raw);
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string> fields = split_fields(text);
    if (first) {
      first = false;
      // A header is a first row in which no field is a number.
      const bool header = std::none_of(fields.begin(), fields.end(),
                                       [](const std::string& f) { return is_number(f); });
      if (header) {
        columns = columns_from_header(fields, name + ":" + std::to_string(line), model);
        path.has_header = true;
        path.has_time = columns.time_column >= 0;
        if (path.has_time)
          path.time_column = columns.name[static_cast<size_t>(columns.time_column)];
        continue;
      }
      columns = columns_in_model_order(model);
    }
    PathState state;
    state.line = line;
    std::string problem = parse_row(fields, columns, model, lower, upper, state);
    if (problem.empty()) {
      path.states.push_back(std::move(state));
    } else {
      path.errors.push_back({line, std::move(problem)});
    }
  }
  if (in.bad()) throw PathError(name + ": read error");
  return path;
}

Path read_path_file(const std::string& path, const RobotModel& model) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw PathError("cannot read path file '" + path + "': it is a directory");
  }
  std::ifstream in(path);
  if (!in) throw PathError("cannot open path file '" + path + "': " + std::strerror(errno));
  return read_path(in, path, model);
}

// ---------------------------------------------------------------------------------------------
// Analysis

namespace {

void keep_smaller(Minimum& best, long state, const PairRecord& pair) {
  // Strict: ties keep the earlier state (and, within a state, the earlier pair).
  if (!best.found() || pair.distance < best.pair.distance) {
    best.state = state;
    best.pair = pair;
  }
}

void merge(Minimum& best, const Minimum& other) {
  if (other.found()) keep_smaller(best, other.state, other.pair);
}

/// What one thread found on its chunk.
struct ChunkResult {
  size_t pairs = 0;
  size_t states_in_collision = 0;
  Minimum overall;
  std::vector<Minimum> per_link_obstacle;
  double seconds = 0.0, cpu_seconds = 0.0;
  std::exception_ptr error;
};

double thread_cpu_seconds() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void analyse_chunk(const RobotModel& model, const Scene& scene,
                   const std::vector<PathState>& states, size_t begin, size_t end,
                   const AnalysisOptions& options, Analysis& analysis, ChunkResult& result,
                   std::atomic<size_t>& done) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  try {
    gjk::robots::Workspace ws(model);
    gjk::robots::DistanceCache cache(model, scene);  // warm start from the previous state
    gjk::robots::DistanceOptions distance_options;
    distance_options.cutoff = options.cutoff;
    distance_options.gradients = false;
    std::vector<gjk::robots::PairDistance> pairs;
    const size_t obstacles = scene.obstacles.size();
    result.per_link_obstacle.assign(model.links().size() * obstacles, Minimum{});
    for (size_t i = begin; i < end; ++i) {
      gjk::robots::forward_kinematics(model, states[i].q, ws);
      gjk::robots::robot_scene_distances(model, ws, scene, distance_options, &cache, pairs);
      std::vector<PairRecord>* keep = options.keep_pairs ? &analysis.pairs_per_state[i] : nullptr;
      if (keep != nullptr) keep->reserve(pairs.size());
      bool collision = false;
      for (const gjk::robots::PairDistance& d : pairs) {
        const PairRecord r{d.shape,         d.obstacle,          d.distance,
                           d.point_on_link, d.point_on_obstacle, d.status};
        const long state = static_cast<long>(i);
        keep_smaller(result.overall, state, r);
        const size_t link =
            static_cast<size_t>(model.collision_shapes()[static_cast<size_t>(d.shape)].link);
        keep_smaller(result.per_link_obstacle[link * obstacles + static_cast<size_t>(d.obstacle)],
                     state, r);
        collision = collision || d.distance < 0.0;
        if (keep != nullptr) keep->push_back(r);
      }
      result.pairs += pairs.size();
      if (collision) ++result.states_in_collision;
      done.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (...) {
    result.error = std::current_exception();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpu_seconds = thread_cpu_seconds() - cpu_start;
}

}  // namespace

Analysis analyse(const RobotModel& model, const Scene& scene, const std::vector<PathState>& states,
                 const AnalysisOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Analysis analysis;
  analysis.states = states.size();
  analysis.num_obstacles = scene.obstacles.size();
  analysis.per_link_obstacle.assign(model.links().size() * scene.obstacles.size(), Minimum{});
  if (options.keep_pairs) analysis.pairs_per_state.resize(states.size());
  const size_t threads =
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(options.threads, 1)),
                                           std::max<size_t>(states.size(), 1)));
  analysis.threads = static_cast<int>(threads);

  std::vector<ChunkResult> results(threads);
  std::atomic<size_t> done{0};
  std::mutex mutex;
  std::condition_variable finished_cv;
  size_t finished = 0;
  std::vector<std::thread> workers;
  const size_t chunk = (states.size() + threads - 1) / threads;
  for (size_t t = 0; t < threads; ++t) {
    const size_t begin = std::min(states.size(), t * chunk);
    const size_t end = std::min(states.size(), begin + chunk);
    workers.emplace_back([&, t, begin, end] {
      analyse_chunk(model, scene, states, begin, end, options, analysis, results[t], done);
      std::lock_guard<std::mutex> lock(mutex);
      ++finished;
      finished_cv.notify_one();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    while (finished < threads) {
      finished_cv.wait_for(lock, std::chrono::milliseconds(100));
      if (options.progress) {
        lock.unlock();
        options.progress(done.load(std::memory_order_relaxed), states.size());
        lock.lock();
      }
    }
  }
  // The loop may end between reports (or before the first): the last report is the total.
  if (options.progress) options.progress(done.load(), states.size());
  for (std::thread& w : workers) w.join();

  // Chunks merged in path order: the same minima as one thread going through the whole path.
  for (const ChunkResult& r : results) {
    if (r.error) std::rethrow_exception(r.error);
    analysis.pairs += r.pairs;
    analysis.chunk_seconds.push_back(r.seconds);
    analysis.chunk_cpu_seconds.push_back(r.cpu_seconds);
    analysis.states_in_collision += r.states_in_collision;
    merge(analysis.overall, r.overall);
    for (size_t k = 0; k < r.per_link_obstacle.size(); ++k) {
      merge(analysis.per_link_obstacle[k], r.per_link_obstacle[k]);
    }
  }
  analysis.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return analysis;
}

// ---------------------------------------------------------------------------------------------
// Outputs

std::string shape_label(const RobotModel& model, int shape) {
  return std::to_string(shape) + ":" +
         model.collision_shapes()[static_cast<size_t>(shape)].description;
}

namespace {

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

const std::string& link_name(const RobotModel& model, int shape) {
  const int link = model.collision_shapes()[static_cast<size_t>(shape)].link;
  return model.links()[static_cast<size_t>(link)].name;
}

}  // namespace

void write_pairs_csv(std::ostream& out, const RobotModel& model, const Scene& scene,
                     const Path& path, const Analysis& analysis) {
  out << "state,line," << (path.has_time ? "t," : "")
      << "link,shape,obstacle,distance,link_x,link_y,link_z,obstacle_x,obstacle_y,obstacle_z,"
         "status\n";
  // Labels once, not per row.
  std::vector<std::string> shape_prefix;
  for (int s = 0; s < static_cast<int>(model.collision_shapes().size()); ++s) {
    shape_prefix.push_back(csv_field(link_name(model, s)) + "," + csv_field(shape_label(model, s)) +
                           ",");
  }
  std::vector<std::string> obstacle_names;
  for (const auto& o : scene.obstacles) obstacle_names.push_back(csv_field(o.name) + ",");
  std::string row;
  for (size_t i = 0; i < analysis.pairs_per_state.size(); ++i) {
    std::string state_prefix = std::to_string(i) + "," + std::to_string(path.states[i].line) + ",";
    if (path.has_time) state_prefix += format_number(path.states[i].time) + ",";
    for (const PairRecord& r : analysis.pairs_per_state[i]) {
      row = state_prefix;
      row += shape_prefix[static_cast<size_t>(r.shape)];
      row += obstacle_names[static_cast<size_t>(r.obstacle)];
      row += format_number(r.distance);
      for (int k = 0; k < 3; ++k) row += "," + format_number(r.point_on_link[k]);
      for (int k = 0; k < 3; ++k) row += "," + format_number(r.point_on_obstacle[k]);
      row += ",";
      row += gjk::to_string(r.status);
      row += "\n";
      out << row;
    }
  }
}

namespace {

std::string vec_text(const gjk::Vec3& v) {
  return "(" + format_number(v.x()) + ", " + format_number(v.y()) + ", " + format_number(v.z()) +
         ")";
}

nlohmann::ordered_json vec_json(const gjk::Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

/// "state 3 (line 7, t = 0.3)".
std::string where_text(const Path& path, long state) {
  const PathState& s = path.states[static_cast<size_t>(state)];
  std::string w = "state " + std::to_string(state) + " (line " + std::to_string(s.line);
  if (path.has_time) w += ", " + path.time_column + " = " + format_number(s.time);
  return w + ")";
}

nlohmann::ordered_json minimum_json(const RobotModel& model, const Scene& scene, const Path& path,
                                    const Minimum& m) {
  if (!m.found()) return nullptr;
  const PathState& s = path.states[static_cast<size_t>(m.state)];
  nlohmann::ordered_json j;
  j["distance"] = m.pair.distance;
  j["state"] = m.state;
  j["line"] = s.line;
  if (path.has_time) j["t"] = s.time;
  j["link"] = link_name(model, m.pair.shape);
  j["shape"] = shape_label(model, m.pair.shape);
  j["obstacle"] = scene.obstacles[static_cast<size_t>(m.pair.obstacle)].name;
  j["point_on_link"] = vec_json(m.pair.point_on_link);
  j["point_on_obstacle"] = vec_json(m.pair.point_on_obstacle);
  j["status"] = gjk::to_string(m.pair.status);
  return j;
}

double states_per_second(const Analysis& a) {
  return a.seconds > 0.0 ? static_cast<double>(a.states) / a.seconds : 0.0;
}

}  // namespace

std::string summary_text(const RobotModel& model, const Scene& scene, const Path& path,
                         const Analysis& analysis, const SummaryInputs& inputs) {
  std::ostringstream o;
  o << "robot '" << model.name() << "' (" << inputs.urdf << "): " << model.collision_shapes().size()
    << " collision shapes; scene " << inputs.scene << ": " << scene.obstacles.size()
    << " obstacles\n";
  o << "path " << path.name << ": " << analysis.states << " states analysed, " << path.errors.size()
    << " bad rows skipped\n";
  o << "pairs with a distance: " << analysis.pairs << "\n";
  const Minimum& m = analysis.overall;
  if (m.found()) {
    o << "minimum clearance: " << format_number(m.pair.distance) << " at "
      << where_text(path, m.state) << ", link " << link_name(model, m.pair.shape) << " (shape "
      << shape_label(model, m.pair.shape) << "), obstacle "
      << scene.obstacles[static_cast<size_t>(m.pair.obstacle)].name << "\n";
    o << "  point on link:     " << vec_text(m.pair.point_on_link) << "\n";
    o << "  point on obstacle: " << vec_text(m.pair.point_on_obstacle) << "\n";
  } else {
    o << "minimum clearance: none ("
      << (analysis.states == 0 ? "no states analysed" : "no pair within the cutoff") << ")\n";
  }
  o << "states in collision (distance < 0): " << analysis.states_in_collision << "\n";
  o << "minimum per (link, obstacle):\n";
  for (size_t k = 0; k < analysis.per_link_obstacle.size(); ++k) {
    const Minimum& p = analysis.per_link_obstacle[k];
    if (!p.found()) continue;
    o << "  " << link_name(model, p.pair.shape) << " / "
      << scene.obstacles[static_cast<size_t>(p.pair.obstacle)].name << ": "
      << format_number(p.pair.distance) << " at " << where_text(path, p.state) << "\n";
  }
  char timing[160];
  std::snprintf(timing, sizeof timing, "wall time: %.4f s, %.0f states/s (%d thread%s)\n",
                analysis.seconds, states_per_second(analysis), analysis.threads,
                analysis.threads == 1 ? "" : "s");
  o << timing;
  return o.str();
}

nlohmann::ordered_json summary_json(const RobotModel& model, const Scene& scene, const Path& path,
                                    const Analysis& analysis, const SummaryInputs& inputs) {
  nlohmann::ordered_json j;
  j["robot"] = model.name();
  j["urdf"] = inputs.urdf;
  j["scene"] = inputs.scene;
  j["path"] = path.name;
  j["collision_shapes"] = model.collision_shapes().size();
  j["obstacles"] = scene.obstacles.size();
  j["states"] = analysis.states;
  j["bad_rows"] = path.errors.size();
  j["pairs"] = analysis.pairs;
  j["minimum"] = minimum_json(model, scene, path, analysis.overall);
  j["states_in_collision"] = analysis.states_in_collision;
  nlohmann::ordered_json per = nlohmann::ordered_json::array();
  for (const Minimum& p : analysis.per_link_obstacle) {
    if (p.found()) per.push_back(minimum_json(model, scene, path, p));
  }
  j["per_link_obstacle"] = per;
  j["threads"] = analysis.threads;
  j["seconds"] = analysis.seconds;
  j["chunk_seconds"] = analysis.chunk_seconds;
  j["chunk_cpu_seconds"] = analysis.chunk_cpu_seconds;
  j["states_per_second"] = states_per_second(analysis);
  return j;
}

}  // namespace gjk::analysis
