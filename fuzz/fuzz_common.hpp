// Shared by the fuzz targets: how a property failure is reported.
#pragma once

#include <cstdio>
#include <cstdlib>

/// Prints the failed property and aborts, which libFuzzer records as a crash with the input.
#define FUZZ_CHECK(cond, ...)                                                              \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "PROPERTY FAILED at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                   \
      std::fprintf(stderr, "\n");                                                          \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
