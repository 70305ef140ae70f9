// 3D replay pages (issue 14): one self-contained HTML file (three.js inlined, no network) that
// shows a robot's collision geometry as the engine sees it, the obstacles, one or more joint
// trajectories, and the clearance along them: links coloured by clearance, the worst pair's
// closest points, collision and below-margin instants, a clearance-over-time plot.
//
// The data model is independent of how the trajectory was made; ReplayRecorder fills it from a
// clearance analysis (gjk::analysis::analyse), which gjk-clearance, gjk-plan and the examples run.
#pragma once

#include <gjk/analysis/clearance.hpp>
#include <gjk/robots/collision_world.hpp>
#include <gjk/shapes.hpp>

#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::replay {

/// A replay that cannot be written: what() names the file and the reason.
class ReplayError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Triangles in some frame: float coordinates, three per vertex, and three indices per triangle.
struct TriangleSoup {
  std::vector<float> vertices;           ///< x, y, z per vertex
  std::vector<std::uint32_t> triangles;  ///< three vertex indices per triangle
};

/// One robot collision shape (a body of the page): its triangles in its own frame.
struct RobotBody {
  std::string name;       ///< e.g. "panda_link3#0" (gjk::analysis::shape_label)
  int link = -1;          ///< index into Replay::links
  TriangleSoup geometry;  ///< in the shape frame; placed per frame by Run::poses
};

/// One obstacle, its triangles already in the world frame (obstacles do not move).
struct ObstacleBody {
  std::string name;       ///< the scene's name
  std::string kind;       ///< "convex", "mesh" or "cells" (occupied cells drawn as boxes)
  TriangleSoup geometry;  ///< world frame
};

/// One trajectory: its instants, the robot bodies' poses and the clearance at each instant.
struct Run {
  std::string name;           ///< shown in the page's run selector, e.g. "k = 0"
  std::vector<double> times;  ///< one per frame: the path's time column, or the state index
  /// Per frame, per robot body: position x, y, z then rotation quaternion x, y, z, w (world).
  std::vector<float> poses;
  /// Per frame, per link: the link's clearance (+inf when no pair of it was measured).
  std::vector<float> link_clearance;
  /// Per frame: the worst pair's signed distance (+inf when no pair was measured).
  std::vector<double> clearance;
  /// Per frame: the worst pair as (robot body, obstacle) indices; -1, -1 when none.
  std::vector<std::int32_t> worst;
  /// Per frame: the worst pair's closest points, on the body then on the obstacle (world).
  std::vector<float> witness;

  /// Number of frames.
  size_t frames() const { return times.size(); }
};

/// Everything a replay page shows.
struct Replay {
  std::string title;                 ///< the page's heading
  std::string time_label = "t (s)";  ///< what Run::times are
  /// Clearance below which an instant is marked on the timeline (-inf: no margin).
  double margin = -std::numeric_limits<double>::infinity();
  std::vector<std::string> links;       ///< link names (colour is per link)
  std::vector<RobotBody> bodies;        ///< the robot's collision shapes
  std::vector<ObstacleBody> obstacles;  ///< in the scene's order
  std::vector<Run> runs;                ///< at least one to have something to play
};

/// Options of the tessellation of curved shapes.
struct TessellationOptions {
  int segments = 24;  ///< around a circle (spheres, capsules, cylinders, inflations)
};

/// Triangles of a convex shape as the engine sees it, in the shape's frame: a hull's own
/// triangles; boxes exactly; spheres, capsules, cylinders and inflated shapes as the convex hull
/// of points on their surface (segments around each circle). A flat hull (no triangles) yields
/// an empty soup.
TriangleSoup tessellate(const gjk::Shape& shape, const TessellationOptions& options = {});

/// The robot (with its attached objects) and the obstacles of a collision world, with no run.
/// Robot bodies are the collision shapes of world.model(), drawn as their exact triangles when
/// CollisionShape::mesh is set (--link-meshes mesh) and as their convex shape otherwise.
Replay replay_of_world(const gjk::robots::CollisionWorld& world, const std::string& title,
                       const TessellationOptions& options = {});

/// The page: HTML with the data, three.js and the viewer inlined.
std::string replay_html(const Replay& replay);

/// Writes replay_html(replay) to `path` atomically (a temporary file in the same folder, renamed
/// when complete): on error nothing is left under either name. Throws ReplayError naming `path`.
void write_replay_html(const std::string& path, const Replay& replay);

/// Default of the tools' --html-max-frames: a run of at most this many frames makes a page of
/// at most about 1 MB of run data (some 300 bytes a frame for a 10-shape arm, plus three.js).
constexpr size_t kDefaultMaxFrames = 2000;

/// The frames to keep of a run whose per-frame clearance is `clearance` (+inf: none measured)
/// when its page may hold at most `max_frames` frames (0: no limit). Increasing indices; all of
/// them when the run fits. Otherwise, in this order of priority: the worst-clearance frame (the
/// first one on ties), the first frame of every collision interval (clearance < 0), the first
/// frame of every interval below `margin`, the first and last frames, then frames evenly spread
/// over the rest. When the onsets of one kind do not all fit, those kept are evenly spread.
std::vector<size_t> select_frames(const std::vector<double>& clearance, size_t max_frames,
                                  double margin = -std::numeric_limits<double>::infinity());

/// The run with only `frames` (increasing indices into it, as select_frames() gives), in order.
/// Throws std::invalid_argument for an index out of range or out of order.
Run keep_frames(const Run& run, const std::vector<size_t>& frames);

/// Records a run from a clearance analysis: pass source() to gjk::analysis::analyse() instead of
/// the path's own source, and this object as the sink; it forwards every block to `inner` (the
/// CSV writer, or null), so the tool analyses the path once for both. The recorder asks for every
/// pair (per-link clearance), and keeps 7 floats per robot body and frame (memory grows with the
/// path: about 300 bytes per frame for a 10-shape arm).
class ReplayRecorder : public gjk::analysis::AnalysisSink {
 public:
  /// Records states read from `source` (which must outlive the recorder) for `world`'s robot.
  /// `use_time`: Run::times from the path's time column, otherwise the state index.
  ReplayRecorder(const gjk::robots::CollisionWorld& world, gjk::analysis::StateSource& source,
                 bool use_time, gjk::analysis::AnalysisSink* inner = nullptr);
  /// The source to analyse: the original one, remembering each state's configuration.
  gjk::analysis::StateSource& source() { return recording_; }
  /// Always true: the per-link clearance needs every pair.
  bool wants_pairs() const override { return true; }
  /// Forwards to the inner sink (its formatting on the worker threads).
  void prepare(const gjk::analysis::ResultBlock& block,
               std::vector<std::string>& prepared) const override;
  /// Records the block's frames, then forwards it to the inner sink.
  void on_block(const gjk::analysis::ResultBlock& block,
                const std::vector<std::string>& prepared) override;
  /// The run recorded so far, named `name`.
  Run take_run(const std::string& name);

 private:
  /// Remembers the configurations read, until their block is recorded.
  class Recording : public gjk::analysis::StateSource {
   public:
    explicit Recording(gjk::analysis::StateSource& inner) : inner_(inner) {}
    bool next(gjk::analysis::PathState& state) override;
    double fraction_done() const override { return inner_.fraction_done(); }
    std::deque<gjk::analysis::PathState> pending;  ///< read, not yet recorded

   private:
    gjk::analysis::StateSource& inner_;
  };

  const gjk::robots::CollisionWorld& world_;
  Recording recording_;
  bool use_time_;
  gjk::analysis::AnalysisSink* inner_;
  gjk::robots::Workspace workspace_;
  Run run_;
};

}  // namespace gjk::replay
