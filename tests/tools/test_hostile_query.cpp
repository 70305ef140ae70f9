// Hostile input for gjk-query, table-driven (issue 15 "Fuzzing and tests"): each row is one
// input line, the exit code and a fragment of the error message it must produce. Every row runs
// the built tool on a file holding the row's line followed by a good line, so a crash, a hang or
// a lost later line shows up as a failed row, not only a wrong message.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace {

using json = nlohmann::json;

const std::string kExe = GJK_QUERY_EXE;

struct ToolRun {
  int exit_code = -1;  ///< 128 + signal when the tool was killed
  std::string out, err;
  double seconds = 0.0;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs gjk-query on a file holding `input`, without a shell; stdout and stderr go to files so
/// that a 1 MB answer cannot block on a pipe.
ToolRun run_on(const std::string& input) {
  char dir_template[] = "/tmp/gjk-hostile-query-XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  if (!dir) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  const std::string in_path = std::string(dir) + "/in.jsonl", out_path = std::string(dir) + "/out",
                    err_path = std::string(dir) + "/err";
  std::ofstream(in_path, std::ios::binary) << input;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<std::string> args = {kExe, in_path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ToolRun r;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, kExe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot spawn " + kExe + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  for (const auto& p : {in_path, out_path, err_path}) std::remove(p.c_str());
  ::rmdir(dir);
  return r;
}

std::vector<json> json_lines(const std::string& out) {
  std::vector<json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

const std::string kSphere = R"({"type":"sphere","radius":1})";
const std::string kGoodLine =
    R"({"a":{"type":"sphere","radius":1},"b":{"type":"sphere","radius":1,"position":[3,0,0]}})";

std::string pair(const std::string& a, const std::string& b, const std::string& extra = "") {
  return R"({"a":)" + a + R"(,"b":)" + b + extra + "}";
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

/// `count` numbers out of double range, as a JSON array (9,999 of them make a ~1 MB line).
std::string overflowing_array(int count) {
  const std::string huge = "1" + std::string(96, '0') + "e999";
  std::string out = "[";
  for (int i = 0; i < count; ++i) out += (i ? "," : "") + huge;
  return out + "]";
}

struct Row {
  const char* name;
  std::string line;
  int exit_code;
  std::string fragment;  ///< of the error message; empty: the line must be answered
};

std::vector<Row> rows() {
  const std::string deep = repeat("[", 100000) + repeat("]", 100000);
  const std::string deep_objects = repeat(R"({"x":)", 100000) + "1" + repeat("}", 100000);
  return {
      {"nesting_100000_in_id", pair(kSphere, kSphere, R"(,"id":)" + deep), 3,
       "nested deeper than 64 levels"},
      {"nesting_100000_in_a_vertices", pair(R"({"vertices":)" + deep + "}", kSphere), 3,
       "nested deeper than 64 levels"},
      {"nesting_100000_objects_in_a", pair(deep_objects, kSphere), 3,
       "nested deeper than 64 levels"},
      {"overflow_9999_numbers_in_id", pair(kSphere, kSphere, R"(,"id":)" + overflowing_array(9999)),
       3, "id[0]: number 1000"},
      {"overflow_12000_numbers_in_vertices",
       pair(R"({"vertices":[)" + repeat("[1e999,-1e999,1e999],", 3999) + "[1e999,1e999,1e999]]}",
            kSphere),
       3, "a.vertices[0][0]: number 1e999 is out of range of a double"},
      {"overflow_where_a_string_belongs", pair(R"({"type":1e999,"radius":1})", kSphere), 3,
       "a.type: expected a string, got number 1e999 (out of range of a double)"},
      {"overflow_radius", pair(R"({"type":"sphere","radius":1e999})", kSphere), 3,
       "a.radius: number 1e999 is out of range of a double"},
      {"negative_overflow_position",
       pair(kSphere, R"({"type":"sphere","radius":1,"position":[0,-2e400,0]})"), 3,
       "b.position[1]: number -2e400 is out of range"},
      {"nan_literal", pair(R"({"type":"sphere","radius":NaN})", kSphere), 3, "invalid JSON"},
      {"distance_beyond_double_range",
       pair(R"({"type":"sphere","radius":1,"position":[-1.7e308,0,0]})",
            R"({"type":"sphere","radius":1,"position":[1.7e308,0,0]})"),
       3, "beyond the range of a double"},
      // Issue 15 item 8's case, once null with status converged: now a finite, exact answer.
      {"spheres_of_radius_1e308",
       pair(R"({"type":"sphere","radius":1e308})",
            R"({"type":"sphere","radius":1e308,"position":[1e308,0,0]})"),
       0, ""},
      {"rpy_and_quaternion",
       pair(R"({"type":"box","half_extents":[1,1,1],"rpy":[0,0,0],"quaternion":[1,0,0,0]})",
            kSphere),
       3, "not several"},
      {"rpy_two_numbers", pair(R"({"type":"box","half_extents":[1,1,1],"rpy":[0,0]})", kSphere), 3,
       "a.rpy: expected 3 numbers [roll, pitch, yaw], got 2"},
      {"zero_quaternion",
       pair(R"({"type":"box","half_extents":[1,1,1],"quaternion":[0,0,0,0]})", kSphere), 3,
       "zero quaternion"},
      {"nul_byte", std::string("{\"a\":\0}", 7), 3, "NUL byte"},
      {"invalid_utf8_key", pair(kSphere, kSphere, ",\"\xff\xfe\":1"), 3, ""},
      {"unterminated_string", R"({"a":")" + std::string(100000, 'x'), 3, "invalid JSON"},
      {"empty_vertices", pair(R"({"vertices":[]})", kSphere), 3,
       "a.vertices: expected a non-empty"},
      // Accepted, documented behaviour (shared with the scene loader): flat point sets.
      {"coplanar_three_points", pair(R"({"vertices":[[0,0,0],[1,0,0],[0,1,0]]})", kSphere), 0, ""},
      {"collinear_two_points", pair(R"({"vertices":[[0,0,0],[1,0,0]]})", kSphere), 0, ""},
      {"ten_thousand_point_hull",
       pair(R"({"vertices":[)" + repeat("[0,0,0],[1,0,0],[0,1,0],[0,0,1],", 2500) + "[1,1,1]]}",
            kSphere),
       0, ""},
  };
}

// Rows hold 1 MB lines: print the name only.
void PrintTo(const Row& row, std::ostream* os) {
  *os << row.name;
}

class HostileQuery : public ::testing::TestWithParam<Row> {};

TEST_P(HostileQuery, ErrorLineInPlaceLaterLinesAnsweredNoCrash) {
  const Row& row = GetParam();
  const ToolRun r = run_on(row.line + "\n" + kGoodLine + "\n");
  ASSERT_LT(r.exit_code, 128) << "killed by signal " << r.exit_code - 128;
  EXPECT_LT(r.seconds, 10.0) << "hang guard only; expected well under a second";
  EXPECT_EQ(r.exit_code, row.exit_code) << r.err;
  std::vector<json> lines;
  ASSERT_NO_THROW(lines = json_lines(r.out)) << r.out.substr(0, 400);
  ASSERT_EQ(lines.size(), 2u) << r.out.substr(0, 400);
  EXPECT_EQ(r.out.find("null"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_EQ(lines[0].value("line", 0), 1);
  if (row.exit_code != 0) {
    const std::string error = lines[0].value("error", "");
    EXPECT_NE(error.find(row.fragment), std::string::npos) << error;
    EXPECT_NE(r.err.find("line 1: "), std::string::npos) << r.err.substr(0, 400);
    EXPECT_LT(error.size(), 400u) << "messages echo at most a short excerpt of the input";
  } else {
    EXPECT_FALSE(lines[0].contains("error")) << lines[0];
  }
  // The good line after the hostile one is still answered, correctly.
  EXPECT_EQ(lines[1].value("line", 0), 2);
  EXPECT_EQ(lines[1].value("distance", -1.0), 1.0) << lines[1];
}

INSTANTIATE_TEST_SUITE_P(Table, HostileQuery, ::testing::ValuesIn(rows()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(HostileQueryMagnitude, SpheresOfRadius1e308AnsweredExactly) {
  // Depth = r_a + r_b - |c_b - c_a| = 1e308, normal +x, point_on_a - point_on_b = depth * normal.
  const ToolRun r = run_on(pair(R"({"type":"sphere","radius":1e308})",
                                R"({"type":"sphere","radius":1e308,"position":[1e308,0,0]})") +
                           "\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].value("status", ""), "converged");
  EXPECT_DOUBLE_EQ(lines[0].value("depth", -1.0), 1e308) << lines[0];
  EXPECT_EQ(lines[0]["normal"], json::parse("[1.0,0.0,0.0]")) << lines[0];
}

// Flat point sets answered with analytic distances (issue 16: the documented behaviour for
// gjk-query and the scene loader is to accept them, as the engine does).
TEST(HostileQueryFlat, CoplanarAndCollinearDistancesAreAnalytic) {
  const ToolRun r = run_on(
      pair(R"({"vertices":[[0,0,0],[2,0,0],[0,2,0]]})",
           R"({"type":"sphere","radius":0.25,"position":[0.5,0.5,3]})") +
      "\n" +
      // Segment (0,0,0)-(2,0,0) vs a sphere centred beyond its end: distance to the end point.
      pair(R"({"vertices":[[0,0,0],[2,0,0]]})",
           R"({"type":"sphere","radius":0.5,"position":[5,4,0]})") +
      "\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NEAR(lines[0].value("distance", -1.0), 3.0 - 0.25, 1e-12) << lines[0];
  EXPECT_NEAR(lines[1].value("distance", -1.0), 5.0 - 0.5, 1e-12) << lines[1];  // |(3,4)| = 5
}

}  // namespace
