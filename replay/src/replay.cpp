#include "gjk/replay/replay.hpp"

#include "assets.hpp"

#include <nlohmann/json.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>
#include <variant>

namespace gjk::replay {
namespace {

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------
// Geometry

/// Unit directions on a sphere: rings of `segments` points from pole to pole.
std::vector<Vec3> sphere_directions(int segments) {
  std::vector<Vec3> d;
  const int rings = std::max(2, segments / 2);
  d.emplace_back(0.0, 0.0, 1.0);
  d.emplace_back(0.0, 0.0, -1.0);
  for (int r = 1; r < rings; ++r) {
    const double phi = kPi * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double theta = 2.0 * kPi * s / segments;
      d.emplace_back(std::sin(phi) * std::cos(theta), std::sin(phi) * std::sin(theta),
                     std::cos(phi));
    }
  }
  return d;
}

/// Points whose hull is the core geometry (exact for boxes and hulls, sampled for round parts).
std::vector<Vec3> core_points(const Geometry& g, int segments) {
  std::vector<Vec3> p;
  const auto circle = [&](double radius, double z) {
    for (int s = 0; s < segments; ++s) {
      const double theta = 2.0 * kPi * s / segments;
      p.emplace_back(radius * std::cos(theta), radius * std::sin(theta), z);
    }
  };
  if (const auto* sphere = std::get_if<Sphere>(&g)) {
    for (const Vec3& d : sphere_directions(segments)) p.push_back(sphere->radius * d);
  } else if (const auto* box = std::get_if<Box>(&g)) {
    for (int i = 0; i < 8; ++i) {
      p.emplace_back((i & 1 ? 1 : -1) * box->half_extents.x(),
                     (i & 2 ? 1 : -1) * box->half_extents.y(),
                     (i & 4 ? 1 : -1) * box->half_extents.z());
    }
  } else if (const auto* capsule = std::get_if<Capsule>(&g)) {
    for (const Vec3& d : sphere_directions(segments)) {
      const double z = d.z() >= 0.0 ? capsule->half_length : -capsule->half_length;
      p.push_back(capsule->radius * d + Vec3(0.0, 0.0, z));
    }
  } else if (const auto* cylinder = std::get_if<Cylinder>(&g)) {
    circle(cylinder->radius, cylinder->half_length);
    circle(cylinder->radius, -cylinder->half_length);
  } else {
    p = std::get<ConvexPolytope>(g).vertices();
  }
  return p;
}

void append(TriangleSoup& soup, const std::vector<Vec3>& vertices,
            const std::vector<std::array<std::uint32_t, 3>>& triangles, const Pose& pose) {
  const auto base = static_cast<std::uint32_t>(soup.vertices.size() / 3);
  for (const Vec3& v : vertices) {
    const Vec3 w = pose * v;
    for (int i = 0; i < 3; ++i) soup.vertices.push_back(static_cast<float>(w[i]));
  }
  for (const auto& t : triangles) {
    for (std::uint32_t i : t) soup.triangles.push_back(base + i);
  }
}

TriangleSoup mesh_soup(const TriangleMesh& mesh, const Pose& pose) {
  TriangleSoup soup;
  append(soup, mesh.vertices(), mesh.triangles(), pose);
  return soup;
}

/// Occupied cells as boxes (12 triangles each).
TriangleSoup cells_soup(const BoxSet& cells, const Pose& pose) {
  TriangleSoup soup;
  static const std::vector<std::array<std::uint32_t, 3>> kBoxFaces = {
      {0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
      {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  std::vector<Vec3> corners(8);
  for (size_t b = 0; b < cells.centres().size(); ++b) {
    const Vec3& c = cells.centres()[b];
    const Vec3& h = cells.half_extents()[b];
    for (int i = 0; i < 8; ++i) {
      corners[static_cast<size_t>(i)] =
          c + Vec3((i & 1 ? 1 : -1) * h.x(), (i & 2 ? 1 : -1) * h.y(), (i & 4 ? 1 : -1) * h.z());
    }
    append(soup, corners, kBoxFaces, pose);
  }
  return soup;
}

// ---------------------------------------------------------------------------------------------
// Encoding

std::string base64(const void* data, size_t bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* in = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((bytes + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes; i += 3) {
    const unsigned v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes) {
    const unsigned v = (in[i] << 16) | (i + 1 < bytes ? in[i + 1] << 8 : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

/// Little-endian typed arrays, read in the page as Float32Array etc. (x86 and ARM are
/// little-endian; a big-endian host would need a byte swap here).
template <class T>
std::string encode(const std::vector<T>& v) {
  static_assert(std::is_arithmetic_v<T>);
  return base64(v.data(), v.size() * sizeof(T));
}

nlohmann::json soup_json(const TriangleSoup& soup) {
  return {{"vertices", encode(soup.vertices)}, {"triangles", encode(soup.triangles)}};
}

/// A number for JSON: null for infinities and NaN (JSON has none).
nlohmann::json number(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

void check_run(const Replay& replay, const Run& run) {
  const size_t n = run.frames();
  const auto check = [&](size_t got, size_t per_frame, const char* what) {
    if (got != n * per_frame) {
      throw ReplayError("replay run '" + run.name + "': " + what + " has " + std::to_string(got) +
                        " values, expected " + std::to_string(n * per_frame) + " (" +
                        std::to_string(n) + " frames)");
    }
  };
  check(run.poses.size(), replay.bodies.size() * 7, "poses");
  check(run.link_clearance.size(), replay.links.size(), "link_clearance");
  check(run.clearance.size(), 1, "clearance");
  check(run.worst.size(), 2, "worst");
  check(run.witness.size(), 6, "witness");
}

std::string data_json(const Replay& replay) {
  nlohmann::json j;
  j["format"] = 1;
  j["title"] = replay.title;
  j["time_label"] = replay.time_label;
  j["margin"] = number(replay.margin);
  j["links"] = replay.links;
  j["bodies"] = nlohmann::json::array();
  for (const RobotBody& b : replay.bodies) {
    if (b.link < 0 || static_cast<size_t>(b.link) >= replay.links.size()) {
      throw ReplayError("replay body '" + b.name + "': link index " + std::to_string(b.link) +
                        " is not one of the " + std::to_string(replay.links.size()) + " links");
    }
    nlohmann::json body = soup_json(b.geometry);
    body["name"] = b.name;
    body["link"] = b.link;
    j["bodies"].push_back(body);
  }
  j["obstacles"] = nlohmann::json::array();
  for (const ObstacleBody& o : replay.obstacles) {
    nlohmann::json body = soup_json(o.geometry);
    body["name"] = o.name;
    body["kind"] = o.kind;
    j["obstacles"].push_back(body);
  }
  j["runs"] = nlohmann::json::array();
  for (const Run& run : replay.runs) {
    check_run(replay, run);
    j["runs"].push_back({{"name", run.name},
                         {"frames", run.frames()},
                         {"times", encode(run.times)},
                         {"poses", encode(run.poses)},
                         {"link_clearance", encode(run.link_clearance)},
                         {"clearance", encode(run.clearance)},
                         {"worst", encode(run.worst)},
                         {"witness", encode(run.witness)}});
  }
  // Non-ASCII names stay UTF-8. No '<' at all inside the <script> element that holds the JSON
  // ("</script" would end it, "<!--" would change how it is parsed): '<' only occurs in strings,
  // where "\u003c" is the same character.
  const std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      safe += "\\u003c";
    } else {
      safe += c;
    }
  }
  return safe;
}

/// The template cut at its markers, in order; a template without them is a build bug.
std::vector<std::string> cut(std::string page, const std::vector<std::string>& markers) {
  std::vector<std::string> pieces;
  size_t from = 0;
  for (const std::string& m : markers) {
    const size_t at = page.find(m, from);
    if (at == std::string::npos) {
      throw std::logic_error("replay page template: marker " + m + " missing or out of order");
    }
    pieces.push_back(page.substr(from, at - from));
    from = at + m.size();
  }
  pieces.push_back(page.substr(from));
  return pieces;
}

}  // namespace

TriangleSoup tessellate(const gjk::Shape& shape, const TessellationOptions& options) {
  const int segments = std::max(options.segments, 6);
  TriangleSoup soup;
  if (shape.inflation == 0.0) {
    if (const auto* hull = std::get_if<ConvexPolytope>(&shape.geometry)) {
      append(soup, hull->vertices(), hull->triangles(), Pose::Identity());
      return soup;
    }
    if (std::holds_alternative<Box>(shape.geometry)) {
      // The hull of the corners below is the box; its own triangles need no qhull.
      static const std::vector<std::array<std::uint32_t, 3>> kBoxFaces = {
          {0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
          {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
      append(soup, core_points(shape.geometry, segments), kBoxFaces, Pose::Identity());
      return soup;
    }
  }
  // Round parts and inflation: the hull of surface points (an inflated shape is the core swept
  // by a ball: the core's points pushed out along sphere directions).
  std::vector<Vec3> points = core_points(shape.geometry, segments);
  if (shape.inflation > 0.0) {
    std::vector<Vec3> swept;
    const std::vector<Vec3> dirs = sphere_directions(std::max(8, segments / 2));
    swept.reserve(points.size() * dirs.size());
    for (const Vec3& p : points) {
      for (const Vec3& d : dirs) swept.push_back(p + shape.inflation * d);
    }
    points = std::move(swept);
  }
  const ConvexPolytope hull = ConvexPolytope::from_points(points);
  append(soup, hull.vertices(), hull.triangles(), Pose::Identity());
  return soup;
}

Replay replay_of_world(const gjk::robots::CollisionWorld& world, const std::string& title,
                       const TessellationOptions& options) {
  Replay r;
  r.title = title;
  const gjk::robots::RobotModel& model = world.model();
  for (const gjk::robots::Link& link : model.links()) r.links.push_back(link.name);
  for (size_t s = 0; s < model.collision_shapes().size(); ++s) {
    const gjk::robots::CollisionShape& c = model.collision_shapes()[s];
    RobotBody body;
    body.name = gjk::analysis::shape_label(model, static_cast<int>(s));
    body.link = c.link;
    body.geometry = c.mesh ? mesh_soup(*c.mesh, Pose::Identity()) : tessellate(c.shape, options);
    r.bodies.push_back(std::move(body));
  }
  for (const gjk::robots::Obstacle& o : world.obstacles()) {
    ObstacleBody body;
    body.name = o.name;
    switch (o.kind()) {
      case gjk::robots::ObstacleKind::Mesh:
        body.kind = "mesh";
        body.geometry = mesh_soup(*o.mesh, o.pose);
        break;
      case gjk::robots::ObstacleKind::Cells:
        body.kind = "cells";
        body.geometry = cells_soup(*o.cells, o.pose);
        break;
      case gjk::robots::ObstacleKind::Convex: {
        body.kind = "convex";
        const TriangleSoup local = tessellate(o.shape, options);
        for (size_t i = 0; i + 2 < local.vertices.size(); i += 3) {
          const Vec3 w =
              o.pose * Vec3(local.vertices[i], local.vertices[i + 1], local.vertices[i + 2]);
          for (int k = 0; k < 3; ++k) body.geometry.vertices.push_back(static_cast<float>(w[k]));
        }
        body.geometry.triangles = local.triangles;
        break;
      }
    }
    r.obstacles.push_back(std::move(body));
  }
  return r;
}

std::string replay_html(const Replay& replay) {
  std::string page = assets::page_template();
  for (size_t at = page.find("@THREE_VERSION@"); at != std::string::npos;
       at = page.find("@THREE_VERSION@", at)) {
    page.replace(at, std::strlen("@THREE_VERSION@"), assets::three_version());
  }
  const std::vector<std::string> pieces =
      cut(std::move(page), {"<!--@IMPORTMAP@-->", "<!--@DATA@-->", "<!--@VIEWER@-->"});
  const nlohmann::json imports = {
      {"imports",
       {{"three", "data:text/javascript;base64," +
                      base64(assets::three_js().data(), assets::three_js().size())},
        {"three/addons/controls/OrbitControls.js",
         "data:text/javascript;base64," +
             base64(assets::orbit_controls_js().data(), assets::orbit_controls_js().size())}}}};
  return pieces[0] + "<script type=\"importmap\">" + imports.dump() + "</script>" + pieces[1] +
         "<script id=\"replay-data\" type=\"application/json\">" + data_json(replay) + "</script>" +
         pieces[2] + "<script type=\"module\">\n" + assets::viewer_js() + "</script>" + pieces[3];
}

void write_replay_html(const std::string& path, const Replay& replay) {
  std::string page;
  try {
    page = replay_html(replay);
  } catch (const ReplayError& e) {
    throw ReplayError("cannot write replay '" + path + "': " + e.what());
  }
  try {
    gjk::analysis::AtomicFile file(path);
    file.stream().write(page.data(), static_cast<std::streamsize>(page.size()));
    file.commit();
  } catch (const gjk::analysis::OutputError& e) {
    throw ReplayError(e.what());
  }
}

// ---------------------------------------------------------------------------------------------
// Decimation

std::vector<size_t> select_frames(const std::vector<double>& clearance, size_t max_frames,
                                  double margin) {
  const size_t n = clearance.size();
  std::vector<size_t> kept;
  if (max_frames == 0 || n <= max_frames) {
    kept.resize(n);
    for (size_t f = 0; f < n; ++f) kept[f] = f;
    return kept;
  }
  std::vector<char> chosen(n, 0);
  size_t count = 0;
  const auto take = [&](size_t f) {
    if (count < max_frames && !chosen[f]) {
      chosen[f] = 1;
      ++count;
    }
  };
  // Candidates that do not all fit: evenly spread over them, ends included.
  const auto take_spread = [&](const std::vector<size_t>& candidates) {
    std::vector<size_t> fresh;
    for (size_t f : candidates) {
      if (!chosen[f]) fresh.push_back(f);
    }
    const size_t room = max_frames - count;
    if (fresh.size() <= room) {
      for (size_t f : fresh) take(f);
      return;
    }
    for (size_t i = 0; i < room; ++i) {
      const size_t at = room == 1 ? 0 : (i * (fresh.size() - 1) + (room - 1) / 2) / (room - 1);
      take(fresh[at]);
    }
  };
  size_t worst = n;
  for (size_t f = 0; f < n; ++f) {
    if (clearance[f] < (worst == n ? std::numeric_limits<double>::infinity() : clearance[worst])) {
      worst = f;
    }
  }
  if (worst < n) take(worst);
  const auto onsets = [&](double below) {
    std::vector<size_t> v;
    for (size_t f = 0; f < n; ++f) {
      if (clearance[f] < below && (f == 0 || !(clearance[f - 1] < below))) v.push_back(f);
    }
    return v;
  };
  take_spread(onsets(0.0));
  take_spread(onsets(margin));
  take(0);
  take(n - 1);
  std::vector<size_t> rest;
  rest.reserve(n - count);
  for (size_t f = 0; f < n; ++f) {
    if (!chosen[f]) rest.push_back(f);
  }
  take_spread(rest);
  kept.reserve(count);
  for (size_t f = 0; f < n; ++f) {
    if (chosen[f]) kept.push_back(f);
  }
  return kept;
}

Run keep_frames(const Run& run, const std::vector<size_t>& frames) {
  const size_t n = run.frames();
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i] >= n || (i > 0 && frames[i] <= frames[i - 1])) {
      throw std::invalid_argument("keep_frames: frame " + std::to_string(frames[i]) +
                                  " is out of range (" + std::to_string(n) +
                                  " frames) or not after the one before it");
    }
  }
  // Every per-frame array is a whole number of values per frame (check_run enforces it when
  // the page is written); copy each frame's slice.
  const auto pick = [&](const auto& values) {
    std::decay_t<decltype(values)> out;
    if (n == 0) return out;
    const size_t per = values.size() / n;
    out.reserve(per * frames.size());
    for (size_t f : frames) {
      out.insert(out.end(), values.begin() + static_cast<std::ptrdiff_t>(f * per),
                 values.begin() + static_cast<std::ptrdiff_t>((f + 1) * per));
    }
    return out;
  };
  Run out;
  out.name = run.name;
  out.times = pick(run.times);
  out.poses = pick(run.poses);
  out.link_clearance = pick(run.link_clearance);
  out.clearance = pick(run.clearance);
  out.worst = pick(run.worst);
  out.witness = pick(run.witness);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Recording an analysis

bool ReplayRecorder::Recording::next(gjk::analysis::PathState& state) {
  if (!inner_.next(state)) return false;
  pending.push_back(state);
  return true;
}

ReplayRecorder::ReplayRecorder(const gjk::robots::CollisionWorld& world,
                               gjk::analysis::StateSource& source, bool use_time,
                               gjk::analysis::AnalysisSink* inner)
    : world_(world),
      recording_(source),
      use_time_(use_time),
      inner_(inner),
      workspace_(world.model()) {}

void ReplayRecorder::prepare(const gjk::analysis::ResultBlock& block,
                             std::vector<std::string>& prepared) const {
  if (inner_) inner_->prepare(block, prepared);
}

void ReplayRecorder::on_block(const gjk::analysis::ResultBlock& block,
                              const std::vector<std::string>& prepared) {
  const gjk::robots::RobotModel& model = world_.model();
  const size_t links = model.links().size();
  const size_t shapes = model.collision_shapes().size();
  for (size_t k = 0; k < block.count; ++k) {
    if (recording_.pending.empty()) {
      throw std::logic_error("replay recorder: a state was analysed that was not read");
    }
    const gjk::analysis::PathState state = std::move(recording_.pending.front());
    recording_.pending.pop_front();
    const gjk::analysis::StateRecord& record = block.states[k];
    run_.times.push_back(use_time_ ? state.time : static_cast<double>(record.index));
    gjk::robots::forward_kinematics(model, state.q, workspace_);
    for (size_t s = 0; s < shapes; ++s) {
      const Pose pose = gjk::robots::collision_pose(model, workspace_, static_cast<int>(s));
      const Eigen::Quaterniond q(pose.rotation());
      const Vec3 t = pose.translation();
      for (double v : {t.x(), t.y(), t.z(), q.x(), q.y(), q.z(), q.w()}) {
        run_.poses.push_back(static_cast<float>(v));
      }
    }
    std::vector<float> per_link(links, std::numeric_limits<float>::infinity());
    if (block.pairs) {
      for (size_t p = block.pair_begin[k]; p < block.pair_begin[k + 1]; ++p) {
        const gjk::analysis::PairRecord& pair = block.pairs[p];
        const auto link =
            static_cast<size_t>(model.collision_shapes()[static_cast<size_t>(pair.shape)].link);
        per_link[link] = std::min(per_link[link], static_cast<float>(pair.distance));
      }
    }
    run_.link_clearance.insert(run_.link_clearance.end(), per_link.begin(), per_link.end());
    const gjk::analysis::PairRecord& w = record.worst;
    run_.clearance.push_back(record.has_worst() ? w.distance
                                                : std::numeric_limits<double>::infinity());
    run_.worst.push_back(record.has_worst() ? w.shape : -1);
    run_.worst.push_back(record.has_worst() ? w.obstacle : -1);
    for (const Vec3* p : {&w.point_on_link, &w.point_on_obstacle}) {
      for (int i = 0; i < 3; ++i) run_.witness.push_back(static_cast<float>((*p)[i]));
    }
  }
  if (inner_) inner_->on_block(block, prepared);
}

Run ReplayRecorder::take_run(const std::string& name) {
  Run run = std::move(run_);
  run_ = Run{};
  run.name = name;
  return run;
}

}  // namespace gjk::replay
