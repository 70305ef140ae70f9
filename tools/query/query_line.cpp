// gjk-query's per-line work: the input schema (see kSchemaHelp), its validation with messages
// that name the offending field, and the answer built from gjk::distance / gjk::penetration.
#include "query_line.hpp"

#include <gjk/gjk_epa.hpp>
#include <gjk/queries.hpp>
#include <gjk/robots/parse_number.hpp>
#include <gjk/shapes.hpp>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gjk_query {

const char* const kSchemaHelp =
    R"(INPUT: one JSON object per line (JSON lines), each a pair of shapes:
  {"a": SHAPE, "b": SHAPE, "id": ANY}          "id" is optional and echoed back
SHAPE (unknown keys are errors; sizes must be finite and >= 0):
  {"vertices": [[x,y,z], ...]}                 convex hull of the points ("type": "polytope"
                                               may be given but is implied by "vertices")
  {"type": "sphere",   "radius": r}
  {"type": "box",      "half_extents": [hx, hy, hz]}
  {"type": "capsule",  "radius": r, "half_length": h}     segment (0,0,-h)..(0,0,h), swept by r
  {"type": "cylinder", "radius": r, "half_length": h}     solid, axis z, z in [-h, h]
  optional in every shape:
    "inflation": r             grow the shape by r in every direction (default 0)
    "position": [x, y, z]      world position of the shape's frame (default [0, 0, 0])
    "rotation_xyz": [gx, gy, gz]  radians, R = Rx(gx) * Ry(gy) * Rz(gz) (seed 000 eq. 38)
    "rpy": [roll, pitch, yaw]     radians, URDF's convention: R = Rz(yaw) * Ry(pitch) * Rx(roll)
    "quaternion": [w, x, y, z]    scalar FIRST; normalised before use (must not be zero)
  Orientation defaults to the identity; giving more than one of rotation_xyz, rpy and
  quaternion is an error.
  A point p of the shape's own frame sits at R * p + position in the world.

OUTPUT: exactly one JSON line per input line, in input order, numbers in full (round-trip)
double precision, everything in the world frame:
  {"line": N, "id": ..., "collision": bool, "distance": d, "depth": p,
   "signed_distance": d - p, "point_on_a": [x,y,z], "point_on_b": [x,y,z],
   "normal": [x,y,z], "status": S, "lower_bound": l, "upper_bound": u, "iterations": k,
   "feature_on_a": F, "feature_on_b": F}
  separated:   collision false, distance > 0, depth 0; points and normal from gjk::distance,
               normal = (point_on_b - point_on_a) / distance, [lower_bound, upper_bound]
               brackets the true distance; feature_*: vertex, edge, face or curved.
  overlapping: collision true, distance 0, depth > 0; points and normal from
               gjk::penetration: point_on_a - point_on_b = depth * normal, and moving B by
               depth * normal makes the shapes touch; feature_* are "unknown".
  touching (closer than the engine's contact tolerance but not overlapping): collision true,
               depth 0, the remaining fields from gjk::distance.
  normal always points from A towards B. status is converged, max_iterations or degenerate
  (anything but converged: the result is the best found; such lines are not errors).

ERRORS: a line that cannot be answered (invalid JSON, a blank line, a missing or unknown key,
a wrong type, a number that is not finite such as 1e999, a wrong number of components, an
unknown shape type, a negative size, ...) is answered in its place with
  {"line": N, "id": ..., "error": "MESSAGE"}        ("id" when it could be read)
and "line N: MESSAGE" is written to standard error; the other lines are still answered.

EXIT STATUS: 0 all lines answered; 2 usage error; 3 some line was an error (each still gets
its error answer, and the other lines are answered), or the input could not be read;
4 the output could not be written; 5 internal error.

EXAMPLE:
  echo '{"a":{"type":"box","half_extents":[1,1,1]},"b":{"type":"sphere","radius":0.5,"position":[3,0,0]}}' | gjk-query)";

namespace {

using ojson = nlohmann::ordered_json;
using gjk::Vec3;

/// A problem with the input line; the message starts with the JSON path of the culprit.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError(path.empty() ? what : path + ": " + what);
}

// A number too large for a double is replaced before parsing by a string starting with this
// marker, so that the field it sits in can be named (see parse_json).
const std::string kOverflowMarker = "\x01gjk-query-overflow:";

std::string json_quoted(const std::string& s) {
  const std::string shown = s.size() > 40 ? s.substr(0, 40) + "..." : s;
  return ojson(shown).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

std::string describe(const ojson& j) {
  switch (j.type()) {
    case ojson::value_t::string: {
      // prescan's stand-in for a number out of double range is shown as the number it was.
      const auto& s = j.get_ref<const std::string&>();
      if (s.compare(0, kOverflowMarker.size(), kOverflowMarker) == 0) {
        return "number " + s.substr(kOverflowMarker.size()) + " (out of range of a double)";
      }
      return "string " + json_quoted(s);
    }
    case ojson::value_t::boolean:
      return j.get<bool>() ? "true" : "false";
    case ojson::value_t::null:
      return "null";
    case ojson::value_t::array:
      return "an array of " + std::to_string(j.size());
    case ojson::value_t::object:
      return "an object";
    default:
      return j.type_name();
  }
}

std::string format_number(double v) {
  return ojson(v).dump();
}

double number(const ojson& j, const std::string& path) {
  if (j.is_number()) {
    const double v = j.get<double>();
    if (!std::isfinite(v)) fail(path, "not a finite number");
    return v;
  }
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s.compare(0, kOverflowMarker.size(), kOverflowMarker) == 0) {
      fail(path, "number " + s.substr(kOverflowMarker.size()) +
                     " is out of range of a double (numbers must be finite)");
    }
  }
  fail(path, "expected a number, got " + describe(j));
}

double non_negative(const ojson& j, const std::string& path) {
  const double v = number(j, path);
  if (v < 0.0) fail(path, "must be >= 0, got " + format_number(v));
  return v;
}

template <int N>
Eigen::Matrix<double, N, 1> numbers(const ojson& j, const std::string& path,
                                    const char* layout = nullptr) {
  const std::string expected =
      std::to_string(N) + " numbers" + (layout ? std::string(" ") + layout : "");
  if (!j.is_array()) fail(path, "expected an array of " + expected + ", got " + describe(j));
  if (j.size() != static_cast<size_t>(N)) {
    fail(path, "expected " + expected + ", got " + std::to_string(j.size()));
  }
  Eigen::Matrix<double, N, 1> v;
  for (int i = 0; i < N; ++i) {
    v[i] = number(j[static_cast<size_t>(i)], path + "[" + std::to_string(i) + "]");
  }
  return v;
}

struct ShapeType {
  const char* name;
  std::vector<std::string> keys;  // parameters, all required
};

const std::vector<ShapeType>& shape_types() {
  static const std::vector<ShapeType> types = {
      {"polytope", {"vertices"}},
      {"sphere", {"radius"}},
      {"box", {"half_extents"}},
      {"capsule", {"radius", "half_length"}},
      {"cylinder", {"radius", "half_length"}},
  };
  return types;
}

const std::vector<std::string> kPoseKeys = {"type", "position",   "rotation_xyz",
                                            "rpy",  "quaternion", "inflation"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

gjk::ConvexPolytope parse_polytope(const ojson& j, const std::string& path) {
  if (!j.is_array() || j.empty()) {
    fail(path, "expected a non-empty array of [x, y, z] points, got " + describe(j));
  }
  std::vector<Vec3> points;
  points.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    points.push_back(numbers<3>(j[i], path + "[" + std::to_string(i) + "]"));
  }
  try {
    return gjk::ConvexPolytope::from_points(points);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
}

gjk::Pose parse_pose(const ojson& j, const std::string& path) {
  gjk::Pose pose = gjk::Pose::Identity();
  if (j.contains("position")) pose.translation() = numbers<3>(j["position"], path + ".position");
  const bool has_xyz = j.contains("rotation_xyz"), has_quaternion = j.contains("quaternion"),
             has_rpy = j.contains("rpy");
  if (int(has_xyz) + int(has_quaternion) + int(has_rpy) > 1) {
    fail(path, "give one of \"rotation_xyz\", \"rpy\" and \"quaternion\", not several");
  }
  if (has_xyz) {
    const Vec3 g = numbers<3>(j["rotation_xyz"], path + ".rotation_xyz", "[gx, gy, gz]");
    pose.linear() = gjk::rotation_xyz(g.x(), g.y(), g.z());
  } else if (has_rpy) {
    // URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) * Ry(pitch) * Rx(roll).
    const Vec3 rpy = numbers<3>(j["rpy"], path + ".rpy", "[roll, pitch, yaw]");
    pose.linear() =
        (Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
         Eigen::AngleAxisd(rpy.x(), Vec3::UnitX()))
            .toRotationMatrix();
  } else if (has_quaternion) {
    const std::string qpath = path + ".quaternion";
    const Eigen::Vector4d q = numbers<4>(j["quaternion"], qpath, "[w, x, y, z]");
    const double norm = q.stableNorm();
    if (!(norm > 0.0) || !std::isfinite(norm)) fail(qpath, "a zero quaternion is not a rotation");
    const Eigen::Vector4d u = q / norm;
    pose.linear() = Eigen::Quaterniond(u[0], u[1], u[2], u[3]).toRotationMatrix();
  }
  return pose;
}

/// Reads SHAPE (see kSchemaHelp) at `path` ("a" or "b").
gjk::Shape parse_shape(const ojson& j, const std::string& path, gjk::Pose& pose) {
  if (!j.is_object()) fail(path, "expected a shape object, got " + describe(j));
  std::string type;
  if (const auto it = j.find("type"); it != j.end()) {
    // A number out of double range arrives as prescan's marker string: not a type name.
    if (!it->is_string() || it->get_ref<const std::string&>().rfind(kOverflowMarker, 0) == 0) {
      fail(path + ".type", "expected a string, got " + describe(*it));
    }
    type = it->get<std::string>();
  } else if (j.contains("vertices")) {
    type = "polytope";
  } else {
    fail(path, "missing \"vertices\" (or \"type\": sphere, box, capsule, cylinder)");
  }
  const auto& types = shape_types();
  const auto found =
      std::find_if(types.begin(), types.end(), [&](const ShapeType& t) { return type == t.name; });
  if (found == types.end()) {
    fail(path + ".type", "unknown shape type " + json_quoted(type) +
                             " (expected sphere, box, capsule, cylinder or polytope)");
  }
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    if (contains(kPoseKeys, key) || contains(found->keys, key)) continue;
    const bool other_type = std::any_of(types.begin(), types.end(),
                                        [&](const ShapeType& t) { return contains(t.keys, key); });
    if (other_type) fail(path + "." + key, "not a parameter of shape type " + type);
    fail(path, "unknown key " + json_quoted(key));
  }
  for (const auto& key : found->keys) {
    if (!j.contains(key)) fail(path, "missing \"" + key + "\" (required for type " + type + ")");
  }

  gjk::Shape shape;
  if (type == "polytope") {
    shape = gjk::Shape(parse_polytope(j["vertices"], path + ".vertices"));
  } else if (type == "sphere") {
    shape = gjk::Shape(gjk::Sphere{non_negative(j["radius"], path + ".radius")});
  } else if (type == "box") {
    const std::string hpath = path + ".half_extents";
    const Vec3 h = numbers<3>(j["half_extents"], hpath);
    for (int i = 0; i < 3; ++i) {
      if (h[i] < 0.0) {
        fail(hpath + "[" + std::to_string(i) + "]", "must be >= 0, got " + format_number(h[i]));
      }
    }
    shape = gjk::Shape(gjk::Box{h});
  } else {
    const double r = non_negative(j["radius"], path + ".radius");
    const double h = non_negative(j["half_length"], path + ".half_length");
    if (type == "capsule") {
      shape = gjk::Shape(gjk::Capsule{r, h});
    } else {
      shape = gjk::Shape(gjk::Cylinder{r, h});
    }
  }
  if (j.contains("inflation")) shape.inflation = non_negative(j["inflation"], path + ".inflation");
  pose = parse_pose(j, path);
  try {
    gjk::validate(shape);  // the checks above should make this redundant; kept as a safety net
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  return shape;
}

/// Deepest nesting of arrays and objects a line may have. nlohmann's parser is iterative, but
/// copying and destroying the parsed tree recurse once per level: 100,000 levels overflowed the
/// stack (issue 15 item 2). Shapes need 3 levels; 64 leaves room for any `id`.
constexpr int kMaxNesting = 64;

/// One linear pass over the line before nlohmann sees it (issue 15 items 2 and 3): rejects
/// nesting deeper than kMaxNesting, and replaces every number token outside strings that
/// overflows a double (nlohmann rejects the whole document for it, naming no field) by a marker
/// string, so that number() can name the field. Tokens are parsed with from_chars, once each.
std::string prescan(const std::string& text) {
  const auto is_number_char = [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
  };
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting) {
        fail("", "invalid JSON: arrays and objects nested deeper than " +
                     std::to_string(kMaxNesting) + " levels at column " + std::to_string(i + 1));
      }
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = i;
      while (end < text.size() && is_number_char(text[end])) ++end;
      const std::string_view token(text.data() + i, end - i);
      if (gjk::robots::parse_double(token).status == gjk::robots::NumberStatus::OutOfRange) {
        out += "\"\\u0001gjk-query-overflow:";
        out.append(token.substr(0, std::min<size_t>(token.size(), 40)));
        if (token.size() > 40) out += "...";
        out += '"';
      } else {
        out.append(token);
      }
      i = end - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/// nlohmann's message without its "[json.exception.xxx] " prefix and the always-1 line number.
std::string json_message(const std::exception& e) {
  std::string message = e.what();
  if (const auto p = message.find("] ");
      message.rfind("[json.exception", 0) == 0 && p != std::string::npos) {
    message.erase(0, p + 2);
  }
  const std::string line_one = "at line 1, column ";
  if (const auto p = message.find(line_one); p != std::string::npos) {
    message.replace(p, line_one.size(), "at column ");
  }
  // nlohmann quotes everything it read of the bad token ("last read: '...'"): a 1 MB
  // unterminated string would be echoed whole into the answer and onto stderr.
  const std::string last_read = "last read: '";
  if (const auto p = message.find(last_read);
      p != std::string::npos && message.size() - p - last_read.size() > 80) {
    message.replace(p + last_read.size(), std::string::npos,
                    message.substr(p + last_read.size(), 60) + "...' (" +
                        std::to_string(message.size() - p - last_read.size() - 1) + " bytes)");
  }
  return message;
}

ojson parse_json(const std::string& line) {
  try {
    return ojson::parse(prescan(line));
  } catch (const ojson::exception& e) {
    fail("", "invalid JSON: " + json_message(e));
  }
}

ojson vec(const Vec3& v) {
  return ojson::array({v.x(), v.y(), v.z()});
}

/// The answer fields of a pair GJK settled (separated, or touching without overlap).
void write_distance(const gjk::DistanceResult& d, ojson& o) {
  o["distance"] = d.distance;
  o["depth"] = 0.0;
  o["signed_distance"] = d.distance;
  o["point_on_a"] = vec(d.point_on_a);
  o["point_on_b"] = vec(d.point_on_b);
  o["normal"] = vec(d.normal);
  o["status"] = gjk::to_string(d.status);
  o["lower_bound"] = d.lower_bound;
  o["upper_bound"] = d.upper_bound;
  o["iterations"] = d.iterations;
  o["feature_on_a"] = gjk::to_string(d.feature_on_a);
  o["feature_on_b"] = gjk::to_string(d.feature_on_b);
}

/// The first number of `j` that is not finite, as a JSON path below `path`; empty when none.
std::string first_non_finite(const ojson& j, const std::string& path) {
  if (j.is_number_float()) return std::isfinite(j.get<double>()) ? "" : path;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string found = first_non_finite(j[i], path + "[" + std::to_string(i) + "]");
      if (!found.empty()) return found;
    }
  }
  return "";
}

void answer_pair_unchecked(const ojson& doc, const gjk::QueryOptions& options, ojson& o);

/// Fails on the first number of `j` that overflowed a double (a marker string from prescan).
void reject_overflow_markers(const ojson& j, const std::string& path) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s.compare(0, kOverflowMarker.size(), kOverflowMarker) == 0) {
      fail(path, "number " + s.substr(kOverflowMarker.size()) +
                     " is out of range of a double (numbers must be finite)");
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      reject_overflow_markers(j[i], path + "[" + std::to_string(i) + "]");
  } else if (j.is_object()) {
    for (const auto& item : j.items())
      reject_overflow_markers(item.value(), path + "." + item.key());
  }
}

/// JSON has no NaN or infinity (nlohmann would print null): an answer the engine could not
/// represent is an error line, never a converged answer holding null (issue 15 item 8).
void answer_pair(const ojson& doc, const gjk::QueryOptions& options, ojson& o) {
  answer_pair_unchecked(doc, options, o);
  for (const auto& item : o.items()) {
    const std::string field = first_non_finite(item.value(), item.key());
    if (!field.empty()) {
      fail("", "the answer's " + field +
                   " is not a finite number: the pair's sizes or distances are outside the "
                   "range the engine represents (docs/reliability.md, numeric range)");
    }
  }
}

// Every field was checked finite and non-negative above, so the engine only rejects pairs whose
// answer a double cannot hold (e.g. spheres at -1.7e308 and 1.7e308: distance 3.4e308).
const char* const kEngineRejected =
    "the engine rejected the pair (invalid_input): its distance or size is beyond the range of a "
    "double (docs/reliability.md, numeric range)";

void answer_pair_unchecked(const ojson& doc, const gjk::QueryOptions& options, ojson& o) {
  gjk::Pose pose_a, pose_b;
  const gjk::Shape a = parse_shape(doc["a"], "a", pose_a);
  const gjk::Shape b = parse_shape(doc["b"], "b", pose_b);

  const gjk::DistanceResult d = gjk::distance(a, pose_a, b, pose_b, options);
  if (d.status == gjk::Status::InvalidInput) fail("", kEngineRejected);
  if (!d.collision) {  // separated: everything from GJK's distance
    o["collision"] = false;
    write_distance(d, o);
    return;
  }
  const gjk::PenetrationResult p = gjk::penetration(a, pose_a, b, pose_b, options);
  if (p.status == gjk::Status::InvalidInput) fail("", kEngineRejected);
  o["collision"] = true;
  if (p.collision) {  // overlapping (or touching with depth ~0): everything from EPA
    o["distance"] = 0.0;
    o["depth"] = p.depth;
    o["signed_distance"] = 0.0 - p.depth;  // +0 rather than -0 when touching
    o["point_on_a"] = vec(p.point_on_a);
    o["point_on_b"] = vec(p.point_on_b);
    o["normal"] = vec(p.normal);
    o["status"] = gjk::to_string(p.status);
    o["lower_bound"] = 0.0;
    o["upper_bound"] = 0.0;
    o["iterations"] = p.iterations;
    o["feature_on_a"] = gjk::to_string(gjk::Feature::Unknown);
    o["feature_on_b"] = gjk::to_string(gjk::Feature::Unknown);
  } else {  // touching within the contact tolerance, not overlapping: GJK's answer
    write_distance(d, o);
  }
}

}  // namespace

LineAnswer answer_line(const std::string& line, long line_number,
                       const gjk::QueryOptions& options) {
  LineAnswer answer;
  ojson id;
  bool has_id = false;
  try {
    answer.json["line"] = line_number;
    if (line.find_first_not_of(" \t\r\n") == std::string::npos) {
      fail("", "blank line (each line must hold one JSON object)");
    }
    if (line.find('\0') != std::string::npos)
      fail("", "invalid JSON: the line contains a NUL byte");
    const ojson doc = parse_json(line);
    if (!doc.is_object()) {
      fail("", "expected a JSON object {\"a\": SHAPE, \"b\": SHAPE}, got " + describe(doc));
    }
    if (const auto it = doc.find("id"); it != doc.end()) {
      reject_overflow_markers(*it, "id");  // echoed back: it must be valid JSON numbers too
      id = *it;
      has_id = true;
      answer.json["id"] = id;
    }
    for (const auto& item : doc.items()) {
      const std::string& key = item.key();
      if (key != "a" && key != "b" && key != "id") {
        fail("",
             "unknown key " + json_quoted(key) + " (expected \"a\", \"b\" and optionally \"id\")");
      }
    }
    if (!doc.contains("a")) fail("", "missing \"a\"");
    if (!doc.contains("b")) fail("", "missing \"b\"");
    answer_pair(doc, options, answer.json);
    return answer;
  } catch (const InputError& e) {
    answer.error = e.what();
  } catch (const std::exception& e) {
    answer.error = std::string("internal error: ") + e.what();
  } catch (...) {
    answer.error = "internal error";
  }
  answer.ok = false;
  try {
    answer.json = ojson::object();
    answer.json["line"] = line_number;
    if (has_id) answer.json["id"] = id;
    answer.json["error"] = answer.error;
  } catch (...) {
    // Only std::bad_alloc could get here; the caller still prints something sensible.
  }
  return answer;
}

}  // namespace gjk_query
