// The collision world as Python holds it: shared by threads, edited under a lock, queried
// through per-thread contexts with the GIL released.
#pragma once

#include <pybind11/pybind11.h>
#include <gjk/robots/collision_world.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>

namespace gjk_python {

/// A WorldContext that is rebuilt when its world has been edited since it was made (the C++
/// contract forbids querying a context across an edit), used by one query at a time.
struct ContextSlot {
  std::mutex mutex;
  std::unique_ptr<gjk::robots::WorldContext> context;
  std::uint64_t generation = ~std::uint64_t{0};
};

/// libgjk.robots.CollisionWorld. Queries hold `mutex` shared (any number of threads at once);
/// edits hold it exclusively, so an edit from one Python thread never races a query of another.
struct PyWorld {
  std::shared_ptr<gjk::robots::CollisionWorld> world;
  std::shared_mutex mutex;
  std::uint64_t generation = 0;  ///< bumped by every edit (guarded by `mutex`)
  ContextSlot own;               ///< the context of the world's own convenience queries
};

/// A copy of the world as it is now (for the planner, which keeps its own).
std::shared_ptr<const gjk::robots::CollisionWorld> snapshot(PyWorld& world);

/// libgjk.analysis: analyse() on path shards, Analysis totals and merge_shard (analysis.cpp).
void bind_analysis(pybind11::module_& m);

/// libgjk.analysis: the replay pages (write_replay, select_frames; replay.cpp).
void bind_replay(pybind11::module_& m);

}  // namespace gjk_python
