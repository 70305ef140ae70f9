// A thin RAII wrapper over qhull's reentrant C API, shared by the 3D hull (ConvexPolytope) and
// the 2D polygon hull.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace gjk::detail {

/// Runs qhull on `coords` (`dim` numbers per point) with `options` and calls
/// on_facet(qh, facet) for every facet of the result. Throws std::runtime_error carrying qhull's
/// own message when it fails (e.g. too few or degenerate points).
template <class FacetFn>
void run_qhull(std::vector<double>& coords, int dim, const char* options, FacetFn&& on_facet) {
  qhT qh_storage;
  qhT* qh = &qh_storage;
  char* err_text = nullptr;
  size_t err_size = 0;
  FILE* err_file = open_memstream(&err_text, &err_size);
  QHULL_LIB_CHECK
  qh_zero(qh, err_file);
  const int num_points = static_cast<int>(coords.size() / static_cast<size_t>(dim));
  std::string command = std::string("qhull ") + options;
  const int exit_code = qh_new_qhull(qh, dim, num_points, coords.data(), /*ismalloc=*/False,
                                     command.data(), /*outfile=*/nullptr, err_file);
  if (exit_code == 0) {
    facetT* facet;
    FORALLfacets {
      on_facet(qh, facet);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong, totlong;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(err_file);
  std::string message = err_text ? std::string(err_text, err_size) : std::string();
  std::free(err_text);
  if (exit_code != 0) {
    throw std::runtime_error("qhull failed (code " + std::to_string(exit_code) + "): " + message);
  }
}

}  // namespace gjk::detail
