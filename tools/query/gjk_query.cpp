// gjk-query: answers convex-proximity queries given as JSON lines (one shape pair per line,
// one answer per line). The schema is in query_line.cpp (kSchemaHelp, shown by --help).
#include "exit_codes.hpp"
#include "query_line.hpp"

#include <gjk/results.hpp>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

namespace {

using gjk::tools::kExitInputError;
using gjk::tools::kExitInternalError;
using gjk::tools::kExitOutputError;
using gjk::tools::kExitUsage;

const std::map<std::string, gjk::SimplexSolver> kSolvers = {
    {"signed_volumes", gjk::SimplexSolver::SignedVolumes},
    {"johnson", gjk::SimplexSolver::Johnson},
    {"refine_set", gjk::SimplexSolver::RefineSet},
    {"refine_set_fixed", gjk::SimplexSolver::RefineSetFixed},
};

/// Answers every line of `in`; returns the exit status.
int run(std::istream& in, const std::string& input_name, const gjk::QueryOptions& options) {
  std::string line;
  long line_number = 0;
  long errors = 0;
  for (;;) {
    // Flush before we may block on input, so that a driver talking to us through pipes gets
    // each answer as soon as it is computed, while file input still writes in large blocks.
    if (in.rdbuf()->in_avail() <= 0) std::cout.flush();
    if (!std::getline(in, line)) break;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF input
    const gjk_query::LineAnswer answer = gjk_query::answer_line(line, line_number, options);
    if (answer.json.is_object() && !answer.json.empty()) {
      std::cout << answer.json.dump(-1, ' ', false,
                                    nlohmann::ordered_json::error_handler_t::replace)
                << '\n';
    } else {
      std::cout << "{\"line\":" << line_number << ",\"error\":\"internal error\"}\n";
    }
    if (!answer.ok) {
      ++errors;
      std::cerr << "line " << line_number << ": " << answer.error << '\n';
    }
  }
  std::cout.flush();
  if (in.bad()) {
    std::cerr << "gjk-query: error reading " << input_name << '\n';
    return kExitInputError;
  }
  if (!std::cout) {
    std::cerr << "gjk-query: error writing the output\n";
    return kExitOutputError;
  }
  return errors > 0 ? kExitInputError : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);  // run() flushes only when the input would block (not every line)
    CLI::App app{
        "gjk-query: distance / penetration of convex shape pairs given as JSON lines.\n"
        "Reads `input` (a file, or standard input when absent or '-'), writes one JSON line per\n"
        "input line to standard output.",
        "gjk-query"};
    std::string input = "-";
    std::string solver = "signed_volumes";
    app.add_option("input", input, "JSON-lines file to read; '-' or absent: standard input");
    app.add_option("--solver", solver, "GJK sub-distance solver (all give the same answers)")
        ->check(CLI::IsMember({"signed_volumes", "johnson", "refine_set", "refine_set_fixed"}))
        ->capture_default_str();
    app.footer(gjk_query::kSchemaHelp);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      const int code = app.exit(e);
      return code == 0 ? 0 : kExitUsage;
    }

    gjk::QueryOptions options;
    options.solver = kSolvers.at(solver);

    if (input == "-") return run(std::cin, "standard input", options);

    std::error_code ec;
    if (std::filesystem::is_directory(input, ec)) {
      std::cerr << "gjk-query: cannot read input file '" << input << "': it is a directory\n";
      return kExitInputError;
    }
    std::ifstream file(input);
    if (!file) {
      std::cerr << "gjk-query: cannot open input file '" << input << "': " << std::strerror(errno)
                << '\n';
      return kExitInputError;
    }
    return run(file, "input file '" + input + "'", options);
  } catch (const std::exception& e) {
    std::cerr << "gjk-query: fatal error: " << e.what() << '\n';
  } catch (...) {
    std::cerr << "gjk-query: fatal error\n";
  }
  return kExitInternalError;
}
