// Locale-independent number parsing for every text format the library reads (scenes, paths,
// URDF extras, command-line values). strtod and iostreams follow the global C locale, so a
// program that calls setlocale(LC_ALL, "") under a decimal-comma locale would misread "0.1";
// std::from_chars never looks at the locale.
#pragma once

#include <charconv>
#include <string_view>
#include <system_error>

namespace gjk::robots {

enum class NumberStatus {
  Ok,          ///< the whole text is a number (finite, or inf/nan spelled out)
  NotANumber,  ///< empty, trailing characters, or no digits
  OutOfRange   ///< a valid spelling whose magnitude does not fit a double (e.g. 1e999)
};

/// A parsed number and whether the text was one.
struct ParsedNumber {
  double value = 0.0;                              ///< the number (0 unless status is Ok)
  NumberStatus status = NumberStatus::NotANumber;  ///< what the text was
};

namespace detail {
/// For a well-formed decimal number: whether its magnitude is below 1 (so a range error is an
/// underflow). Looks at the position of the first non-zero digit and the exponent.
inline bool decimal_exponent_is_negative(std::string_view text) {
  long exponent = 0;
  const size_t e = text.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::string_view digits = text.substr(e + 1);
    bool negative = false;
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
      negative = digits.front() == '-';
      digits.remove_prefix(1);
    }
    for (const char c : digits) {
      if (exponent < 100000)
        exponent = exponent * 10 + (c - '0');  // clamped: only the sign matters
    }
    if (negative) exponent = -exponent;
  }
  const std::string_view mantissa = text.substr(0, e);
  long position = 0;  // decimal position of the first non-zero digit (0: units)
  bool seen_point = false, found = false;
  for (const char c : mantissa) {
    if (c == '.') {
      seen_point = true;
    } else if (c >= '0' && c <= '9') {
      if (c != '0' && !found) {
        found = true;
        position = seen_point ? -(position + 1) : 0;
      } else if (!found && seen_point) {
        ++position;
      }
    }
  }
  if (!found) return true;  // all zeros
  if (position == 0) {      // first non-zero digit before the point
    // the number's decimal magnitude is (integer digits after leading zeros) - 1
    long significant = 0;
    bool nonzero = false;
    for (const char c : mantissa) {
      if (c == '.') break;
      if (c >= '1' && c <= '9') nonzero = true;
      if (nonzero) ++significant;
    }
    position = significant - 1;
  }
  return position + exponent < 0;
}
}  // namespace detail

/// Parses all of `text` (no surrounding spaces; an optional leading '+' is accepted) as a double
/// in the C locale's format. Denormal results count as Ok. Reads each character once.
inline ParsedNumber parse_double(std::string_view text) {
  ParsedNumber out;
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) return out;
  }
  if (text.empty()) return out;
  const char* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out.value);
  if (ptr != end) return out;  // trailing characters, or nothing parsed
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves the value untouched on a range error, for overflow and underflow alike;
    // a value too small for a double is an ordinary (signed) zero, only overflow is an error.
    const bool negative = text.front() == '-';
    if (detail::decimal_exponent_is_negative(text)) {
      out.value = negative ? -0.0 : 0.0;
      out.status = NumberStatus::Ok;
    } else {
      out.status = NumberStatus::OutOfRange;
    }
    return out;
  }
  out.status = ec == std::errc() ? NumberStatus::Ok : NumberStatus::NotANumber;
  return out;
}

}  // namespace gjk::robots
