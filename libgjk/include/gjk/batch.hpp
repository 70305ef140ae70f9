// Many pairs at once, spread over threads: for offline analysis (clearance along stored paths,
// link-obstacle tables). Each answer is exactly what the single-pair query returns.
#pragma once

#include "gjk/queries.hpp"

#include <vector>

namespace gjk {

/// One pair to query. The shapes are borrowed: they must outlive the batch call.
struct PairQuery {
  const Shape* a = nullptr;        ///< shape A (not owned; must outlive the call)
  Pose pose_a = Pose::Identity();  ///< pose of A in the world
  const Shape* b = nullptr;        ///< shape B (not owned)
  Pose pose_b = Pose::Identity();  ///< pose of B in the world
};

/// `threads` = 0 uses every hardware thread; 1 runs on the calling thread. Results are in the
/// order of `pairs`. Throws std::invalid_argument naming the first pair with a null shape.
std::vector<DistanceResult> distance_batch(const std::vector<PairQuery>& pairs,
                                           const QueryOptions& options = {}, unsigned threads = 0);
std::vector<SignedDistanceResult> signed_distance_batch(const std::vector<PairQuery>& pairs,
                                                        const QueryOptions& options = {},
                                                        unsigned threads = 0);
std::vector<CollisionResult> collide_batch(const std::vector<PairQuery>& pairs,
                                           const QueryOptions& options = {}, unsigned threads = 0);

}  // namespace gjk
