// libgjk.analysis's replay pages (issue 14): the gjk::replay page writer, frame selection and
// recorder, so `python3 -m libgjk.analysis --html` writes the same page as gjk-clearance --html.
// The sharded run has measured every state already; the page re-analyses only the states it
// shows (at most --html-max-frames), chosen from the merged per-state clearance.
#include "bindings.hpp"
#include "robots_common.hpp"
#include "world.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <gjk/analysis/clearance.hpp>
#include <gjk/replay/replay.hpp>

#include <cmath>
#include <cstdint>
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
namespace gr = gjk::replay;
using pybind11::arg;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The states of `inner` whose index (0-based, counting good states as the analysis does) is in
// `wanted` (increasing); an untimed path's state carries its index as its time, so the page's
// timeline reads "state N" as gjk-clearance's does.
class SelectedStates : public ga::StateSource {
 public:
  SelectedStates(ga::StateSource& inner, const std::vector<size_t>* wanted, bool timed)
      : inner_(inner), wanted_(wanted), timed_(timed) {}
  bool next(ga::PathState& state) override {
    for (;;) {
      if (wanted_ && next_ >= wanted_->size()) return false;
      if (!inner_.next(state)) return false;
      const size_t index = read_++;
      if (wanted_ && index != (*wanted_)[next_]) continue;
      ++next_;
      if (!timed_) state.time = static_cast<double>(index);
      return true;
    }
  }
  double fraction_done() const override { return inner_.fraction_done(); }
  size_t read() const { return read_; }
  size_t given() const { return next_; }

 private:
  ga::StateSource& inner_;
  const std::vector<size_t>* wanted_;
  bool timed_;
  size_t read_ = 0, next_ = 0;
};

struct RunSpec {
  std::string name;
  std::string path;
  std::optional<std::vector<size_t>> frames;
};

RunSpec run_spec(py::handle h) {
  const py::dict d = py::cast<py::dict>(h);
  for (const char* key : {"name", "path"}) {
    if (!d.contains(key)) throw py::value_error(std::string("runs: a run has no '") + key + "'");
  }
  RunSpec r;
  r.name = d["name"].cast<std::string>();
  r.path = py::str(py::module_::import("os").attr("fspath")(d["path"])).cast<std::string>();
  if (d.contains("frames") && !d["frames"].is_none()) {
    r.frames = d["frames"].cast<std::vector<size_t>>();
    for (size_t i = 1; i < r.frames->size(); ++i) {
      if ((*r.frames)[i] <= (*r.frames)[i - 1]) {
        throw py::value_error("runs: frames of '" + r.name + "' must increase (state " +
                              std::to_string((*r.frames)[i]) + " after " +
                              std::to_string((*r.frames)[i - 1]) + ")");
      }
    }
  }
  return r;
}

}  // namespace

void bind_replay(py::module_& m) {
  // A page that cannot be written (the message names the file) is an OSError.
  py::register_exception<gr::ReplayError>(m, "ReplayError", PyExc_OSError).doc() =
      "A replay page could not be written (the message names the file and why).";
  m.attr("DEFAULT_MAX_FRAMES") = gr::kDefaultMaxFrames;

  m.def(
      "select_frames",
      [](const std::vector<double>& clearance, size_t max_frames, double margin) {
        if (std::isnan(margin)) throw py::value_error("margin: must not be NaN");
        for (double d : clearance) {
          if (std::isnan(d)) throw py::value_error("clearance: must not hold NaN (use inf)");
        }
        const std::vector<size_t> kept = gr::select_frames(clearance, max_frames, margin);
        py::array_t<std::int64_t> out(static_cast<py::ssize_t>(kept.size()));
        for (size_t i = 0; i < kept.size(); ++i) {
          out.mutable_data()[i] = static_cast<std::int64_t>(kept[i]);
        }
        return out;
      },
      arg("clearance"), arg("max_frames"), arg("margin") = -kInf, R"doc(
The frames a replay page keeps of a run whose per-state clearance is `clearance` (inf: no pair
measured) when it may hold at most `max_frames` (0: no limit): increasing int64 indices, all of
them when the run fits; otherwise the worst-clearance state, the first state of every collision
(clearance < 0) and of every stretch below `margin`, both ends, then states evenly spread
(gjk::replay::select_frames, as the tools' --html-max-frames).)doc");

  m.def(
      "write_replay_page",
      [](std::shared_ptr<PyWorld> w, const std::string& html, const py::list& runs_list,
         const std::string& title, double margin, double cutoff,
         const std::map<std::string, double>& fixed, size_t max_frames, int threads) {
        if (threads < 1) throw py::value_error("threads: must be >= 1");
        if (std::isnan(margin) || std::isnan(cutoff))
          throw py::value_error("margin, cutoff: must not be NaN");
        std::vector<RunSpec> specs;
        for (py::handle h : runs_list) specs.push_back(run_spec(h));
        if (specs.empty()) throw py::value_error("runs: no run to write");
        for (const RunSpec& r : specs) require_file(r.path, "path file");
        ga::PathOptions path_options;
        for (const auto& [name, value] : fixed) path_options.fixed.push_back({name, value});
        path_options.on_error = [](const ga::RowError&) {};  // the analysis reported them
        std::vector<size_t> frames;
        {
          py::gil_scoped_release release;
          std::shared_lock lock(w->mutex);
          const gjk::robots::CollisionWorld& world = *w->world;
          ga::check_fixed_joints(world.model(), path_options.fixed);
          // One time axis for the page: the paths' time column when every path has one.
          std::vector<std::unique_ptr<ga::PathReader>> readers;
          bool timed = true;
          for (const RunSpec& r : specs) {
            readers.push_back(ga::PathReader::open(r.path, world.model(), path_options));
            timed = timed && readers.back()->info().has_time;
          }
          gr::Replay replay = gr::replay_of_world(world, title);
          replay.margin = margin;
          replay.time_label = timed ? readers.front()->info().time_column + " (s)" : "state";
          for (size_t k = 0; k < specs.size(); ++k) {
            const RunSpec& r = specs[k];
            SelectedStates source(*readers[k], r.frames ? &*r.frames : nullptr, timed);
            gr::ReplayRecorder recorder(world, source, true);
            ga::AnalysisOptions options;
            options.threads = threads;
            options.cutoff = cutoff;
            options.margin = margin;
            ga::analyse(world, recorder.source(), options, &recorder);
            if (r.frames && source.given() < r.frames->size()) {
              throw std::invalid_argument("runs: state " +
                                          std::to_string((*r.frames)[source.given()]) + " of '" +
                                          r.name + "' is past the end of " + r.path + " (" +
                                          std::to_string(source.read()) + " states)");
            }
            gr::Run run = recorder.take_run(r.name);
            if (!r.frames)
              run = gr::keep_frames(run, gr::select_frames(run.clearance, max_frames, margin));
            frames.push_back(run.frames());
            replay.runs.push_back(std::move(run));
          }
          gr::write_replay_html(html, replay);
        }
        return frames;
      },
      arg("world"), arg("html"), arg("runs"), py::kw_only(), arg("title") = "libgjk replay",
      arg("margin") = -kInf, arg("cutoff") = kInf, arg("fixed") = std::map<std::string, double>{},
      arg("max_frames") = gr::kDefaultMaxFrames, arg("threads") = 1, R"doc(
Writes the replay page `html` (one self-contained HTML file, three.js inlined; atomically: on
error no file is left) of `world`'s robot along each run: runs is a list of dicts with name
(shown in the page), path (a path file, read as analyse() reads it, `fixed` = {joint: value} for
joints it has no column for) and optionally frames, the increasing state indices to show (from
select_frames() over the run's per-state clearance); without frames every state is analysed and
the run is thinned to max_frames (0: no limit). The states shown are analysed again with every
pair (the per-link colours need them), with `cutoff` and `margin` as the run's. Returns the
number of frames of each run. ReplayError (an OSError) when the page cannot be written,
ValueError for a frame past the end of its path, PathError for a bad path file.)doc");
}

}  // namespace gjk_python
