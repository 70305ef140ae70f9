// A CLI11 check for counts such as --html-max-frames: CLI11 itself converts "-1" to a huge
// size_t without complaint, and its range checks print the limits of a double.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace gjk::tools {

/// Accepts only decimal digits (a whole number >= 0); the message quotes the text.
inline CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.size() <= 18 && text.find_first_not_of("0123456789") == text.npos;
        return digits ? std::string() : "expected a whole number >= 0, got '" + text + "'";
      },
      "N>=0");
}

}  // namespace gjk::tools
