// "wrote: ..." lists only files that exist: a tool must never report an output that a failed
// step did not produce (issue 15 item 1).
#pragma once

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::tools {

/// An output file or folder that could not be written: exit code kExitOutputError.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Prints "wrote: F1 F2 ..." for the files of `expected` that exist and a line on stderr for each
/// one that does not; returns true when all exist.
inline bool print_written(const char* tool, const std::vector<std::string>& expected) {
  bool all = true;
  std::string line = "wrote:";
  for (const std::string& file : expected) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) {
      line += ' ' + file;
    } else {
      std::cerr << tool << ": expected output " << file << " was not written\n";
      all = false;
    }
  }
  std::cout << line << '\n';
  return all;
}

}  // namespace gjk::tools
