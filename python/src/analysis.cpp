// libgjk.analysis (issue 13): the analysis layer's analyse() on one shard of a path (a range of
// states starting at a block boundary), its totals (Analysis) as a picklable object, and
// merge_shard(), so shards computed on different processes or machines merge to the totals of
// the unsharded run. The Python module libgjk/analysis.py schedules the shards on dask.
#include "bindings.hpp"
#include "robots_common.hpp"
#include "world.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <gjk/analysis/clearance.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace gjk_python {

namespace {

namespace ga = gjk::analysis;
using pybind11::arg;

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Analysis <-> dict: plain Python values (ints, floats, lists), so a shard's totals pickle for
// dask and round-trip through JSON exactly (Python writes floats as their shortest repr).

py::list vec_list(const gjk::Vec3& v) {
  return py::cast(std::vector<double>{v.x(), v.y(), v.z()});
}

gjk::Vec3 list_vec(py::handle h, const char* field) {
  const auto v = py::cast<std::vector<double>>(h);
  if (v.size() != 3) throw py::value_error(std::string(field) + ": expected 3 numbers");
  return {v[0], v[1], v[2]};
}

py::dict pair_dict(const ga::PairRecord& p) {
  py::dict d;
  d["shape"] = p.shape;
  d["obstacle"] = p.obstacle;
  d["distance"] = p.distance;
  d["point_on_link"] = vec_list(p.point_on_link);
  d["point_on_obstacle"] = vec_list(p.point_on_obstacle);
  d["normal"] = vec_list(p.normal);
  d["status"] = static_cast<int>(p.status);
  return d;
}

ga::PairRecord dict_pair(const py::dict& d) {
  ga::PairRecord p;
  p.shape = d["shape"].cast<int>();
  p.obstacle = d["obstacle"].cast<int>();
  p.distance = d["distance"].cast<double>();
  p.point_on_link = list_vec(d["point_on_link"], "pair.point_on_link");
  p.point_on_obstacle = list_vec(d["point_on_obstacle"], "pair.point_on_obstacle");
  p.normal = list_vec(d["normal"], "pair.normal");
  p.status = enum_from_py<gjk::Status>(d["status"], 4, "pair.status");
  return p;
}

py::dict minimum_dict(const ga::Minimum& m) {
  py::dict d;
  d["state"] = m.state;
  d["line"] = m.line;
  d["time"] = m.time;
  d["pair"] = pair_dict(m.pair);
  return d;
}

ga::Minimum dict_minimum(const py::dict& d) {
  ga::Minimum m;
  m.state = d["state"].cast<long>();
  m.line = d["line"].cast<long>();
  m.time = d["time"].cast<double>();
  m.pair = dict_pair(d["pair"].cast<py::dict>());
  return m;
}

py::dict ref_dict(const ga::StateRef& r) {
  py::dict d;
  d["state"] = r.state;
  d["line"] = r.line;
  d["time"] = r.time;
  d["distance"] = r.distance;
  return d;
}

ga::StateRef dict_ref(const py::dict& d) {
  ga::StateRef r;
  r.state = d["state"].cast<long>();
  r.line = d["line"].cast<long>();
  r.time = d["time"].cast<double>();
  r.distance = d["distance"].cast<double>();
  return r;
}

py::dict analysis_dict(const ga::Analysis& a) {
  py::dict d;
  d["states"] = a.states;
  d["pairs"] = a.pairs;
  d["pairs_measured"] = a.pairs_measured;
  d["states_in_collision"] = a.states_in_collision;
  d["first_collision"] = ref_dict(a.first_collision);
  d["margin"] = a.margin;
  d["states_below_margin"] = a.states_below_margin;
  d["first_below_margin"] = ref_dict(a.first_below_margin);
  d["overall"] = minimum_dict(a.overall);
  py::list per;
  for (const ga::Minimum& m : a.per_link_obstacle) per.append(minimum_dict(m));
  d["per_link_obstacle"] = per;
  d["num_obstacles"] = a.num_obstacles;
  d["threads"] = a.threads;
  d["blocks"] = a.blocks;
  d["seconds"] = a.seconds;
  d["thread_seconds"] = a.thread_seconds;
  d["thread_cpu_seconds"] = a.thread_cpu_seconds;
  return d;
}

ga::Analysis dict_analysis(const py::dict& d) {
  static const char* const keys[] = {"states",
                                     "pairs",
                                     "states_in_collision",
                                     "first_collision",
                                     "margin",
                                     "states_below_margin",
                                     "first_below_margin",
                                     "overall",
                                     "per_link_obstacle",
                                     "num_obstacles",
                                     "threads",
                                     "blocks",
                                     "seconds",
                                     "thread_seconds",
                                     "thread_cpu_seconds"};
  for (const char* k : keys) {
    if (!d.contains(k))
      throw py::value_error(std::string("Analysis.from_dict: missing key '") + k + "'");
  }
  ga::Analysis a;
  try {
    a.states = d["states"].cast<size_t>();
    a.pairs = d["pairs"].cast<size_t>();
    // Optional: dictionaries saved before the key existed measured every pair.
    a.pairs_measured = d.contains("pairs_measured") ? d["pairs_measured"].cast<size_t>() : a.pairs;
    a.states_in_collision = d["states_in_collision"].cast<size_t>();
    a.first_collision = dict_ref(d["first_collision"].cast<py::dict>());
    a.margin = d["margin"].cast<double>();
    a.states_below_margin = d["states_below_margin"].cast<size_t>();
    a.first_below_margin = dict_ref(d["first_below_margin"].cast<py::dict>());
    a.overall = dict_minimum(d["overall"].cast<py::dict>());
    for (py::handle m : d["per_link_obstacle"].cast<py::list>())
      a.per_link_obstacle.push_back(dict_minimum(m.cast<py::dict>()));
    a.num_obstacles = d["num_obstacles"].cast<size_t>();
    a.threads = d["threads"].cast<int>();
    a.blocks = d["blocks"].cast<size_t>();
    a.seconds = d["seconds"].cast<double>();
    a.thread_seconds = d["thread_seconds"].cast<std::vector<double>>();
    a.thread_cpu_seconds = d["thread_cpu_seconds"].cast<std::vector<double>>();
  } catch (const py::cast_error& e) {
    throw py::value_error(std::string("Analysis.from_dict: a field has the wrong type (") +
                          e.what() + ")");
  }
  if (a.num_obstacles != 0 && a.per_link_obstacle.size() % a.num_obstacles != 0) {
    throw py::value_error(
        "Analysis.from_dict: per_link_obstacle has " + std::to_string(a.per_link_obstacle.size()) +
        " entries, not a multiple of num_obstacles = " + std::to_string(a.num_obstacles));
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// A shard: the states [first_index, first_index + count) of a source.

// Skips the states before the shard (reading them: a path file has no index of its rows) and
// ends after `count` states, without reading on, so a bad row between two shards is counted by
// exactly one of them (the later one, which reads past it while skipping).
class RangeSource : public ga::StateSource {
 public:
  RangeSource(ga::StateSource& inner, size_t first, size_t count, long line_shift = 0)
      : inner_(inner), first_(first), count_(count), line_shift_(line_shift) {}
  bool next(ga::PathState& state) override {
    while (skipped_ < first_) {
      if (!inner_.next(state)) return false;
      ++skipped_;
      // Bad rows before the last skipped state belong to an earlier shard.
      if (errors_) errors_->clear();
    }
    if (given_ >= count_) return false;
    if (!inner_.next(state)) return false;
    state.line += line_shift_;
    ++given_;
    return true;
  }
  double fraction_done() const override { return inner_.fraction_done(); }
  size_t skipped() const { return skipped_; }
  std::vector<ga::RowError>* errors_ = nullptr;

 private:
  ga::StateSource& inner_;
  size_t first_, count_, skipped_ = 0, given_ = 0;
  long line_shift_;  // file line = reader line + shift, for a reader that seeked past rows
};

// Lines (counting '\n') in the first `bytes` bytes of a file.
long lines_before(const std::string& file, std::streamoff bytes) {
  std::ifstream in(file, std::ios::binary);
  long n = 0;
  char buf[4096];
  while (bytes > 0 && in) {
    in.read(buf, static_cast<std::streamsize>(std::min<std::streamoff>(bytes, sizeof buf)));
    const std::streamsize got = in.gcount();
    if (got <= 0) break;
    n += static_cast<long>(std::count(buf, buf + got, '\n'));
    bytes -= got;
  }
  return n;
}

// Keeps the shard's per-state records and, when asked, its pairs (for the arrays Python gets).
struct ShardSink : ga::AnalysisSink {
  bool pairs_wanted = false;
  bool keep_states = true;
  ga::AnalysisSink* also = nullptr;  // the CSV writer, fed the same blocks
  std::vector<ga::StateRecord> states;
  std::vector<ga::PairRecord> pairs;
  std::vector<size_t> pair_state;  // index into `states` of each pair
  bool wants_pairs() const override { return pairs_wanted || (also && also->wants_pairs()); }
  void prepare(const ga::ResultBlock& block, std::vector<std::string>& prepared) const override {
    if (also) also->prepare(block, prepared);
  }
  void on_block(const ga::ResultBlock& block, const std::vector<std::string>& prepared) override {
    if (also) also->on_block(block, prepared);
    for (size_t k = 0; k < block.count; ++k) {
      if (keep_states) states.push_back(block.states[k]);
      if (pairs_wanted && block.pairs) {
        for (size_t p = block.pair_begin[k]; p < block.pair_begin[k + 1]; ++p) {
          pairs.push_back(block.pairs[p]);
          pair_state.push_back(states.size() - 1);
        }
      }
    }
  }
};

py::dict state_arrays(const std::vector<ga::StateRecord>& states) {
  const auto m = static_cast<py::ssize_t>(states.size());
  py::array_t<std::int64_t> index(m), line(m), count(m);
  py::array_t<double> time(m), distance(m), pl({m, py::ssize_t{3}}), po({m, py::ssize_t{3}}),
      normal({m, py::ssize_t{3}});
  py::array_t<std::int32_t> shape(m), obstacle(m);
  py::array_t<std::int8_t> status(m);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (size_t i = 0; i < states.size(); ++i) {
    const ga::StateRecord& s = states[i];
    const bool has = s.has_worst();
    index.mutable_data()[i] = static_cast<std::int64_t>(s.index);
    line.mutable_data()[i] = s.line;
    count.mutable_data()[i] = static_cast<std::int64_t>(s.pairs);
    time.mutable_data()[i] = s.time;
    distance.mutable_data()[i] = has ? s.worst.distance : kInf;
    shape.mutable_data()[i] = has ? s.worst.shape : -1;
    obstacle.mutable_data()[i] = has ? s.worst.obstacle : -1;
    status.mutable_data()[i] = static_cast<std::int8_t>(s.worst.status);
    for (Eigen::Index k = 0; k < 3; ++k) {
      pl.mutable_data()[3 * i + static_cast<size_t>(k)] = has ? s.worst.point_on_link[k] : nan;
      po.mutable_data()[3 * i + static_cast<size_t>(k)] = has ? s.worst.point_on_obstacle[k] : nan;
      normal.mutable_data()[3 * i + static_cast<size_t>(k)] = has ? s.worst.normal[k] : nan;
    }
  }
  py::dict d;
  d["index"] = index;
  d["line"] = line;
  d["time"] = time;
  d["pairs"] = count;
  d["distance"] = distance;
  d["shape"] = shape;
  d["obstacle"] = obstacle;
  d["point_on_link"] = pl;
  d["point_on_obstacle"] = po;
  d["normal"] = normal;
  d["status"] = status;
  return d;
}

py::dict pair_arrays(const ShardSink& sink) {
  const auto m = static_cast<py::ssize_t>(sink.pairs.size());
  py::array_t<std::int64_t> state(m);
  py::array_t<double> distance(m), pl({m, py::ssize_t{3}}), po({m, py::ssize_t{3}}),
      normal({m, py::ssize_t{3}});
  py::array_t<std::int32_t> shape(m), obstacle(m);
  py::array_t<std::int8_t> status(m);
  for (size_t i = 0; i < sink.pairs.size(); ++i) {
    const ga::PairRecord& p = sink.pairs[i];
    state.mutable_data()[i] = static_cast<std::int64_t>(sink.states[sink.pair_state[i]].index);
    distance.mutable_data()[i] = p.distance;
    shape.mutable_data()[i] = p.shape;
    obstacle.mutable_data()[i] = p.obstacle;
    status.mutable_data()[i] = static_cast<std::int8_t>(p.status);
    for (Eigen::Index k = 0; k < 3; ++k) {
      pl.mutable_data()[3 * i + static_cast<size_t>(k)] = p.point_on_link[k];
      po.mutable_data()[3 * i + static_cast<size_t>(k)] = p.point_on_obstacle[k];
      normal.mutable_data()[3 * i + static_cast<size_t>(k)] = p.normal[k];
    }
  }
  py::dict d;
  d["state"] = state;
  d["shape"] = shape;
  d["obstacle"] = obstacle;
  d["distance"] = distance;
  d["point_on_link"] = pl;
  d["point_on_obstacle"] = po;
  d["normal"] = normal;
  d["status"] = status;
  return d;
}

std::optional<std::string> file_arg(py::handle h) {
  if (h.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(h) || py::hasattr(h, "__fspath__")) {
    return py::str(py::module_::import("os").attr("fspath")(h)).cast<std::string>();
  }
  return std::nullopt;
}

py::dict analyse_shard(PyWorld& w, py::object path, size_t first_index, std::optional<size_t> count,
                       const std::map<std::string, double>& fixed, size_t block_size, double cutoff,
                       double margin, int threads, py::object states_csv, py::object pairs_csv,
                       bool collect_states, bool collect_pairs,
                       std::optional<std::pair<std::int64_t, long>> seek) {
  if (threads < 1) throw py::value_error("threads: must be >= 1, got " + std::to_string(threads));
  if (block_size < 1) throw py::value_error("block_size: must be >= 1");
  // A shard must start on a block boundary, or its warm starts (and so its last digits) differ
  // from the unsharded run's.
  if (first_index % block_size != 0) {
    throw py::value_error("first_index: " + std::to_string(first_index) +
                          " is not a multiple of block_size " + std::to_string(block_size));
  }
  if (std::isnan(cutoff) || std::isnan(margin))
    throw py::value_error("cutoff, margin: must not be NaN");
  const std::optional<std::string> path_file = file_arg(path);
  const std::optional<std::string> states_file = file_arg(states_csv);
  const std::optional<std::string> pairs_file = file_arg(pairs_csv);
  if (!states_csv.is_none() && !states_file) throw py::value_error("states_csv: expected a path");
  if (!pairs_csv.is_none() && !pairs_file) throw py::value_error("pairs_csv: expected a path");
  const size_t n_states = count ? *count : std::numeric_limits<size_t>::max();

  // Everything from Python is read before the GIL is released.
  std::vector<ga::PathState> rows;
  ga::PathOptions path_options;
  for (const auto& [name, value] : fixed) path_options.fixed.push_back({name, value});
  if (path_file) {
    require_file(*path_file, "path file");
  } else {
    if (seek) throw py::value_error("seek: only for a path file");
    const long n = static_cast<long>(w.world->model().num_positions());
    std::vector<Eigen::VectorXd> q = to_joint_rows(path, "path", n);
    if (first_index > q.size()) {
      throw py::value_error("first_index: " + std::to_string(first_index) +
                            " is past the end of the path (" + std::to_string(q.size()) + " rows)");
    }
    if (!fixed.empty()) throw py::value_error("fixed: only for a path file (give full rows)");
    // Only the shard's rows are copied; lines are 1-based row numbers, as clearance_along's.
    const size_t end = first_index + std::min(n_states, q.size() - first_index);
    for (size_t i = first_index; i < end; ++i) {
      ga::PathState s;
      s.line = static_cast<long>(i) + 1;
      s.q = std::move(q[i]);
      rows.push_back(std::move(s));
    }
  }

  ShardSink sink;
  sink.pairs_wanted = collect_pairs;
  sink.keep_states = collect_states || collect_pairs;
  ga::Analysis totals;
  ga::PathInfo info;
  std::vector<ga::RowError> errors;
  {
    py::gil_scoped_release release;
    std::shared_lock lock(w.mutex);
    std::unique_ptr<ga::PathReader> reader;
    std::unique_ptr<std::ifstream> seek_stream;
    std::optional<ga::VectorSource> vector_source;
    ga::StateSource* inner = nullptr;
    long line_shift = 0;
    if (path_file) {
      ga::check_fixed_joints(w.world->model(), path_options.fixed);
      path_options.on_error = [&errors, &line_shift](const ga::RowError& e) {
        errors.push_back({e.line + line_shift, e.message});
      };
      if (seek) {
        // The reader reads the header, then goes on at the byte after the last state before the
        // shard (index_path's offset), so the rows before the shard are not parsed again.
        seek_stream = std::make_unique<std::ifstream>(*path_file, std::ios::binary);
        if (!*seek_stream) throw ga::PathError("cannot open path file '" + *path_file + "'");
        reader = std::make_unique<ga::PathReader>(*seek_stream, *path_file, w.world->model(),
                                                  path_options);
        if (!reader->info().has_header) {
          throw py::value_error("seek: " + *path_file +
                                " has no header row (shards of such a file read from its start)");
        }
        const std::streamoff header_end = seek_stream->tellg();
        if (header_end < 0 || seek->first < header_end) {
          throw py::value_error("seek: offset " + std::to_string(seek->first) +
                                " is inside the header of " + *path_file);
        }
        line_shift = seek->second - lines_before(*path_file, header_end);
        seek_stream->seekg(static_cast<std::streamoff>(seek->first));
        if (!*seek_stream) {
          throw py::value_error("seek: offset " + std::to_string(seek->first) +
                                " is past the end of " + *path_file);
        }
      } else {
        reader = ga::PathReader::open(*path_file, w.world->model(), path_options);
      }
      inner = reader.get();
    } else {
      vector_source.emplace(rows);
      inner = &*vector_source;
    }
    RangeSource range(*inner, path_file && !seek ? first_index : 0, n_states, line_shift);
    range.errors_ = &errors;
    std::unique_ptr<ga::AtomicFile> states_out, pairs_out;
    if (states_file) states_out = std::make_unique<ga::AtomicFile>(*states_file);
    if (pairs_file) pairs_out = std::make_unique<ga::AtomicFile>(*pairs_file);
    std::optional<ga::CsvWriter> writer;
    const bool has_time = reader && reader->info().has_time;
    if (states_out || pairs_out) {
      writer.emplace(w.world->model(), w.world->scene(), has_time,
                     pairs_out ? &pairs_out->stream() : nullptr,
                     states_out ? &states_out->stream() : nullptr);
      sink.also = &*writer;
    }
    ga::AnalysisOptions options;
    options.threads = threads;
    options.block_size = block_size;
    options.first_index = first_index;
    options.cutoff = cutoff;
    options.margin = margin;
    totals = ga::analyse(*w.world, range, options, &sink);
    if (path_file && !seek && range.skipped() < first_index) {
      throw py::value_error("first_index: " + std::to_string(first_index) + " is past the end of " +
                            *path_file + " (" + std::to_string(range.skipped()) + " states)");
    }
    // Committed only after the whole shard is computed: a killed shard leaves no file.
    if (states_out) states_out->commit();
    if (pairs_out) pairs_out->commit();
    if (reader) info = reader->info();
    info.bad_rows = errors.size();
  }
  py::dict out;
  out["analysis"] = py::cast(totals);
  out["states"] = collect_states ? py::object(state_arrays(sink.states)) : py::object(py::none());
  out["pairs"] = collect_pairs ? py::object(pair_arrays(sink)) : py::object(py::none());
  py::list err;
  for (const ga::RowError& e : errors) err.append(py::make_tuple(e.line, e.message));
  out["errors"] = err;
  out["has_time"] = info.has_time;
  out["time_column"] = info.time_column;
  return out;
}

}  // namespace

void bind_analysis(py::module_& m) {
  // An output that cannot be written is an OSError (with the file name in the message).
  py::register_exception<ga::OutputError>(m, "OutputError", PyExc_OSError).doc() =
      "An output file could not be written (the message names it).";
  py::class_<ga::Analysis>(m, "Analysis", R"doc(
Totals of an analysis run or shard (gjk::analysis::Analysis): counts, the first colliding state
and the first below the margin, the overall minimum and the minimum per (link, obstacle). Merge
shards in path order with merge_shard(); to_dict()/from_dict() give plain Python values (exact
through JSON), and the object pickles (for dask).)doc")
      .def(py::init<>(), "Empty totals, to merge shards into.")
      .def_readonly("states", &ga::Analysis::states, "States analysed.")
      .def_readonly("pairs", &ga::Analysis::pairs,
                    "Pairs with an exact distance (within the cutoff).")
      .def_readonly("states_in_collision", &ga::Analysis::states_in_collision,
                    "States with a pair at distance < 0.")
      .def_readonly("states_below_margin", &ga::Analysis::states_below_margin,
                    "States with clearance below the margin (collisions included).")
      .def_readonly("margin", &ga::Analysis::margin, "The margin, m (-inf: none).")
      .def_readonly("num_obstacles", &ga::Analysis::num_obstacles,
                    "Obstacles in the scene (stride of per_link_obstacle).")
      .def_readonly("threads", &ga::Analysis::threads, "Worker threads used (maximum over shards).")
      .def_readonly("blocks", &ga::Analysis::blocks, "Blocks computed.")
      .def_readonly("seconds", &ga::Analysis::seconds, "Wall time, s (sum over shards).")
      .def_property_readonly(
          "minimum",
          [](const ga::Analysis& a) { return a.overall.found() ? a.overall.pair.distance : kInf; },
          "The smallest clearance, m (inf when no pair was measured).")
      .def_property_readonly(
          "overall", [](const ga::Analysis& a) { return minimum_dict(a.overall); },
          "Where the smallest clearance is: dict with state, line, time and pair (shape, obstacle, "
          "distance, point_on_link, point_on_obstacle, normal, status); state -1: none.")
      .def_property_readonly(
          "first_collision", [](const ga::Analysis& a) { return ref_dict(a.first_collision); },
          "The first state in collision: dict with state (-1: none), line, time, distance.")
      .def_property_readonly(
          "first_below_margin",
          [](const ga::Analysis& a) { return ref_dict(a.first_below_margin); },
          "The first state below the margin: dict with state (-1: none), line, time, distance.")
      .def_property_readonly(
          "per_link_obstacle",
          [](const ga::Analysis& a) {
            py::list l;
            for (const ga::Minimum& x : a.per_link_obstacle) l.append(minimum_dict(x));
            return l;
          },
          "Minimum per (link, obstacle), index link * num_obstacles + obstacle (dicts as overall).")
      .def("to_dict", &analysis_dict, "All fields as plain Python values (exact through JSON).")
      .def_static("from_dict", &dict_analysis, arg("d"),
                  "The Analysis of to_dict()'s output; ValueError naming a missing or bad key.")
      .def(py::pickle([](const ga::Analysis& a) { return analysis_dict(a); },
                      [](const py::dict& d) { return dict_analysis(d); }))
      .def("__repr__", [](const ga::Analysis& a) {
        return "<Analysis states=" + std::to_string(a.states) + " minimum=" +
               (a.overall.found() ? ga::format_number(a.overall.pair.distance) : "none") +
               " in_collision=" + std::to_string(a.states_in_collision) + ">";
      });

  m.def(
      "merge_shard",
      [](ga::Analysis& total, const ga::Analysis& shard) {
        try {
          ga::merge_shard(total, shard);
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
      },
      arg("total"), arg("shard"), R"doc(
Adds `shard`, the run that follows `total`'s states on the path, to `total` in place (the C++
merge_shard: counts, first failing states, minima with ties to the earlier state). Shards cut
at block boundaries and merged in path order give the totals of the unsharded run (except the
times). ValueError when the shards come from different robots, scenes or margins.)doc");

  m.def(
      "analyse",
      [](std::shared_ptr<PyWorld> w, py::object path, size_t first_index,
         std::optional<size_t> count, const std::map<std::string, double>& fixed, size_t block_size,
         double cutoff, double margin, int threads, py::object states_csv, py::object pairs_csv,
         bool collect_states, bool collect_pairs,
         std::optional<std::pair<std::int64_t, long>> seek) {
        return analyse_shard(*w, std::move(path), first_index, count, fixed, block_size, cutoff,
                             margin, threads, std::move(states_csv), std::move(pairs_csv),
                             collect_states, collect_pairs, seek);
      },
      arg("world"), arg("path"), py::kw_only(), arg("first_index") = 0, arg("count") = py::none(),
      arg("fixed") = std::map<std::string, double>{}, arg("block_size") = 256, arg("cutoff") = kInf,
      arg("margin") = -kInf, arg("threads") = 1, arg("states_csv") = py::none(),
      arg("pairs_csv") = py::none(), arg("collect_states") = true, arg("collect_pairs") = false,
      arg("seek") = py::none(),
      R"doc(
Analyses the shard [first_index, first_index + count) of a path (all of it by default) with the
C++ analysis layer (gjk-clearance's numbers): `path` is a path file (str or os.PathLike, read
as gjk-clearance reads it, `fixed` = {joint: value} for joints it has no column for) or an
(M, num_positions) array; in both cases the whole path, of which the shard's states are
analysed. first_index must be a multiple of block_size (every block starts with fresh warm
starts, so such a shard gives exactly the records of the unsharded run). states_csv and
pairs_csv write gjk-clearance's --states-out / --out CSVs of the shard, atomically (temporary
file + rename after the whole shard). Returns a dict: analysis (Analysis), states (dict of (N,)
and (N, 3) arrays: index, line, time, pairs, distance, shape, obstacle, point_on_link,
point_on_obstacle, normal, status; None unless collect_states), pairs (state, shape, obstacle,
distance, points, normal, status for every measured pair; None unless collect_pairs), errors
[(line, message)] of the bad rows in the shard, has_time and time_column of the file. The GIL
is released during the run. `seek`, (offset, line) from index_path() for this first_index,
starts reading the file there instead of parsing the rows before the shard (files with a
header row only).)doc");

  m.def(
      "index_path",
      [](const std::filesystem::path& file, std::shared_ptr<PyWorld> w,
         const std::map<std::string, double>& fixed, size_t every) {
        if (every < 1) throw py::value_error("every: must be >= 1");
        const std::string name = file.string();
        require_file(name, "path file");
        ga::PathOptions options;
        for (const auto& [k, v] : fixed) options.fixed.push_back({k, v});
        options.on_error = [](const ga::RowError&) {};  // counted by the shards that own them
        size_t n = 0;
        bool header = false;
        std::vector<std::pair<std::int64_t, long>> seeks;
        {
          py::gil_scoped_release release;
          std::shared_lock lock(w->mutex);
          ga::check_fixed_joints(w->world->model(), options.fixed);
          std::ifstream in(name, std::ios::binary);
          if (!in) throw ga::PathError("cannot open path file '" + name + "'");
          ga::PathReader reader(in, name, w->world->model(), options);
          header = reader.info().has_header;
          ga::PathState s;
          while (reader.next(s)) {
            // The reader reads line by line, so the stream stands right after state n's row.
            if (++n % every == 0 && header) seeks.emplace_back(in.tellg(), s.line);
          }
        }
        py::dict out;
        out["states"] = n;
        out["has_header"] = header;
        py::list l;
        for (const auto& [offset, line] : seeks) l.append(py::make_tuple(offset, line));
        out["seeks"] = l;
        return out;
      },
      arg("file"), arg("world"), arg("fixed") = std::map<std::string, double>{},
      arg("every") = 4096, R"doc(
One streamed pass over a path file: states (its number of good states), has_header, and seeks:
for first_index = every, 2 every, ... the (byte offset, line) just after the state before it,
to give analyse(seek=...) so that a shard does not parse the rows before it (empty for a file
without a header row).)doc");

  m.def(
      "count_states",
      [](const std::filesystem::path& file, std::shared_ptr<PyWorld> w,
         const std::map<std::string, double>& fixed) {
        const std::string name = file.string();
        require_file(name, "path file");
        ga::PathOptions options;
        for (const auto& [k, v] : fixed) options.fixed.push_back({k, v});
        options.on_error = [](const ga::RowError&) {};  // counted by the shards that own them
        size_t n = 0;
        py::gil_scoped_release release;
        std::shared_lock lock(w->mutex);
        ga::check_fixed_joints(w->world->model(), options.fixed);
        auto reader = ga::PathReader::open(name, w->world->model(), options);
        ga::PathState s;
        while (reader->next(s)) ++n;
        return n;
      },
      arg("file"), arg("world"), arg("fixed") = std::map<std::string, double>{},
      "Number of good states of a path file (streamed: memory does not grow with the file), to "
      "cut it into shards. FileNotFoundError, or PathError for a bad header or fixed joint.");

  const auto summary = [](PyWorld& w, const ga::Analysis& a, const std::string& path_name,
                          size_t bad_rows, bool has_time, const std::string& time_column,
                          const std::string& urdf, const std::string& scene, int precision,
                          bool json) -> std::string {
    ga::PathInfo info;
    info.name = path_name;
    info.bad_rows = bad_rows;
    info.has_time = has_time;
    info.time_column = time_column;
    ga::SummaryInputs inputs;
    inputs.urdf = urdf;
    inputs.scene = scene;
    inputs.precision = precision;
    std::shared_lock lock(w.mutex);
    const std::size_t links = w.world->model().links().size();
    if (a.per_link_obstacle.size() != links * w.world->scene().obstacles.size()) {
      throw py::value_error("analysis: per_link_obstacle has " +
                            std::to_string(a.per_link_obstacle.size()) +
                            " entries; this world has " + std::to_string(links) + " links x " +
                            std::to_string(w.world->scene().obstacles.size()) + " obstacles");
    }
    return json ? ga::dump_json(
                      ga::summary_json(w.world->model(), w.world->scene(), info, a, inputs))
                : ga::summary_text(w.world->model(), w.world->scene(), info, a, inputs);
  };
  m.def(
      "summary",
      [summary](std::shared_ptr<PyWorld> w, const ga::Analysis& a, const std::string& path_name,
                size_t bad_rows, bool has_time, const std::string& time_column,
                const std::string& urdf, const std::string& scene, int precision, bool json) {
        return summary(*w, a, path_name, bad_rows, has_time, time_column, urdf, scene, precision,
                       json);
      },
      arg("world"), arg("analysis"), py::kw_only(), arg("path_name") = "", arg("bad_rows") = 0,
      arg("has_time") = false, arg("time_column") = "t", arg("urdf") = "", arg("scene") = "",
      arg("precision") = 3, arg("json") = false,
      "gjk-clearance's summary of `analysis` on this world: its text, or with json=True its "
      "--json output (a JSON string; names link and obstacle of every minimum).");
}

}  // namespace gjk_python
