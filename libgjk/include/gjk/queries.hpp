// Proximity queries between two convex shapes in given poses.
//
// All functions are thread-safe on const inputs and allocate nothing on the GJK path (EPA
// keeps a small local polytope). Bad input (NaN/Inf in a pose, a negative or non-finite size)
// does not throw: the result comes back with Status::InvalidInput and nothing else set.
#pragma once

#include "gjk/results.hpp"
#include "gjk/shapes.hpp"

namespace gjk {

/// Boolean collision with early exit (seed 000 Alg. 2; seed 001 Alg. 6 generalised to 3D):
/// stops as soon as a separating plane is found or the simplex encloses the origin.
/// Touching counts as collision. A pair whose bounding balls (around the shapes' centres) are
/// apart is answered from them alone: 0 iterations, the line of centres as the direction. So is
/// a pair whose inner balls (around the same centres, inside the shapes:
/// ConvexPolytope::inner_radius(), a box's smallest half extent) meet: colliding, 0 iterations.
CollisionResult collide(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                        const QueryOptions& options = {});

/// Distance, witness points, separating direction and feature types (seed 000 Alg. 1,
/// eqs. 29-31; termination test of seed 001 Alg. 1), with a certified [lower, upper] bracket.
DistanceResult distance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                        const QueryOptions& options = {});

/// Penetration depth, minimum translation direction and witness points by EPA (seed 000
/// section 3, Alg. 3, eqs. 32-35). For a separated pair returns collision == false.
PenetrationResult penetration(const Shape& a, const Pose& pose_a, const Shape& b,
                              const Pose& pose_b, const QueryOptions& options = {});

/// Distance when apart, minus the penetration depth when overlapping; continuous through contact.
SignedDistanceResult signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                     const Pose& pose_b, const QueryOptions& options = {});

/// "Is the distance below `threshold`?": runs GJK only until its bounds decide the question
/// (overlap counts as closer). Planners ask this far more often than for the exact distance.
/// The bounds are only as tight as the answer needed: a pair whose bounding balls (around the
/// shapes' centres) are at least `threshold` apart is answered from the balls alone, with 0
/// iterations, their gap as lower_bound and their farthest span as upper_bound; one whose inner
/// balls (collide()) are less than `threshold` apart is closer, with 0 iterations, 0 as
/// lower_bound and the inner balls' distance (0 when they meet) as upper_bound.
ThresholdResult closer_than(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                            double threshold, const QueryOptions& options = {});

/// Warm-started versions for a tracked pair: the same answers, seeded from `cache` (the last
/// simplex and support hints of this pair, seed 004 sections 3-4), which is updated for the next
/// call. Start with a default-constructed cache; reset() it when the pair changes shapes.
CollisionResult collide(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                        const QueryOptions& options, WarmStart& cache);
DistanceResult distance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                        const QueryOptions& options, WarmStart& cache);
PenetrationResult penetration(const Shape& a, const Pose& pose_a, const Shape& b,
                              const Pose& pose_b, const QueryOptions& options, WarmStart& cache);
SignedDistanceResult signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                     const Pose& pose_b, const QueryOptions& options,
                                     WarmStart& cache);
ThresholdResult closer_than(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                            double threshold, const QueryOptions& options, WarmStart& cache);

/// Checks done once for shapes and poses queried many times. A collision world checks its
/// shapes when they are added and its robot's poses once per configuration; every query above
/// repeats those checks (and the numeric-range test) per call, which is a tenth of a warm
/// query's time on small hulls and boxes (issue 18 item 4).
namespace prechecked {

/// Whether `shape` passes the queries' checks and lies inside the numeric window where no
/// rescaling is needed (sizes and coordinates within [2^-240, 2^241)).
bool shape_ok(const Shape& shape);
/// Whether `pose` is rigid and finite with its translation inside the same window.
bool pose_ok(const Pose& pose);
/// Whether `options` pass the queries' checks.
bool options_ok(const QueryOptions& options);

/// signed_distance and closer_than (warm when `cache` is not null) without their per-call
/// checks: the same code and the same answers, provided both shapes passed shape_ok, both poses
/// pose_ok and the options options_ok. Anything else is undefined (checked by assertions in
/// debug builds); callers that cannot promise it use the checked queries.
SignedDistanceResult signed_distance(const Shape& a, const Pose& pose_a, const Shape& b,
                                     const Pose& pose_b, const QueryOptions& options,
                                     WarmStart* cache);
/// closer_than without its per-call checks, on the same terms as signed_distance above (a NaN
/// threshold is still reported as InvalidInput).
ThresholdResult closer_than(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                            double threshold, const QueryOptions& options, WarmStart* cache);

}  // namespace prechecked

}  // namespace gjk
