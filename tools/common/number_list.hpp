// Comma-separated numbers on the command line (joint vectors, poses), parsed in the C locale,
// with messages that name the option, the position and the text.
#pragma once

#include <gjk/robots/parse_number.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace gjk::tools {

/// Splits `text` at commas into finite numbers. NaN and infinities are rejected (OMPL's bounds
/// check lets NaN through, issue 15 item 6). Throws std::invalid_argument
/// "WHAT: value K ('TEXT') is not a number" or "...: values must be finite numbers".
inline std::vector<double> parse_number_list(const std::string& text, const std::string& what) {
  std::vector<double> v;
  size_t begin = 0;
  while (true) {
    const size_t end = std::min(text.find(',', begin), text.size());
    std::string item = text.substr(begin, end - begin);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const robots::ParsedNumber value = robots::parse_double(item);
    const std::string which = what + ": value " + std::to_string(v.size() + 1) + " ('" +
                              (item.size() > 40 ? item.substr(0, 40) + "...'" : item + "'") + ")";
    if (value.status == robots::NumberStatus::NotANumber)
      throw std::invalid_argument(which + " is not a number");
    if (value.status == robots::NumberStatus::OutOfRange || !std::isfinite(value.value))
      throw std::invalid_argument(which + ": values must be finite numbers");
    v.push_back(value.value);
    if (end == text.size()) break;
    begin = end + 1;
  }
  return v;
}

}  // namespace gjk::tools
