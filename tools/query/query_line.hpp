// One line of gjk-query: parse a JSON shape pair, run the queries, build the JSON answer.
// Kept apart from main() so the schema and its error messages live in one place.
#pragma once

#include <gjk/results.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace gjk_query {

/// The answer to one input line: the JSON object to print and, when the line was rejected,
/// the problem (also stored in the object as "error").
struct LineAnswer {
  nlohmann::ordered_json json;
  bool ok = true;
  std::string error;  ///< e.g. `a.vertices[2]: expected 3 numbers, got 2`; empty when ok
};

/// Answers input line `line_number` (1-based). Never throws: every failure, including internal
/// ones, becomes an error answer.
LineAnswer answer_line(const std::string& line, long line_number, const gjk::QueryOptions& options);

/// The schema text shown by `gjk-query --help`.
extern const char* const kSchemaHelp;

}  // namespace gjk_query
