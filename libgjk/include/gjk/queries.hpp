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
/// Touching counts as collision.
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

}  // namespace gjk
