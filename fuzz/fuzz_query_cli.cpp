// Fuzz target: one input line of gjk-query (tools/query/query_line.hpp). Whatever the bytes,
// answer_line must return (no crash, no exception, no hang) either an answer or an error object,
// and the answer must print as one JSON line the way the tool prints it.
#include "fuzz_common.hpp"
#include "query_line.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  gjk_query::LineAnswer answer;
  try {
    answer = gjk_query::answer_line(line, 7, gjk::QueryOptions{});
  } catch (...) {
    FUZZ_CHECK(false, "answer_line threw (it is documented never to throw)");
  }
  const auto& j = answer.json;
  FUZZ_CHECK(j.is_object() && j.contains("line") && j["line"] == 7, "no line number");
  if (answer.ok) {
    FUZZ_CHECK(!j.contains("error") && answer.error.empty(), "ok answer with an error");
    FUZZ_CHECK(j.contains("collision") && j["collision"].is_boolean(), "ok answer, no collision");
    const double distance = j["distance"].get<double>(), depth = j["depth"].get<double>();
    FUZZ_CHECK(distance >= 0.0 && depth >= 0.0, "distance %g depth %g", distance, depth);
    FUZZ_CHECK(j["collision"].get<bool>() || distance > 0.0, "separated at distance 0");
    FUZZ_CHECK(j["signed_distance"].get<double>() == distance - depth, "signed distance");
  } else {
    FUZZ_CHECK(!answer.error.empty() && j.contains("error") && j["error"] == answer.error,
               "rejected line without its error message");
  }
  // The tool prints each answer with this call; invalid UTF-8 from the input must not throw.
  std::string printed;
  try {
    printed = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  } catch (...) {
    FUZZ_CHECK(false, "the answer cannot be printed");
  }
  FUZZ_CHECK(printed.find('\n') == std::string::npos, "answer spans lines: %s", printed.c_str());
  return 0;
}
