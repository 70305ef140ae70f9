// C++ side of the Python overhead benchmark (python/bench/overhead.py writes the poses): the
// time per distance() query in a plain loop and per pair in distance_batch(), on exactly the
// pairs the Python side queries.
//   gjk_python_overhead_cpp <pair> <poses.bin> <n> [<points.bin> <m>]
// pair: sphere_box | capsule_cylinder | polytope (hull of the m points of points.bin, both
// bodies); poses.bin: n poses of A then n poses of B, row-major 4x4 float64.
#include <gjk/batch.hpp>
#include <gjk/queries.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<double> read_doubles(const char* path, size_t count) {
  std::vector<double> v(count);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(double)));
  if (!in) {
    std::fprintf(stderr, "cannot read %zu doubles from %s\n", count, path);
    std::exit(1);
  }
  return v;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <pair> <poses.bin> <n> [<points.bin> <m>]\n", argv[0]);
    return 2;
  }
  const std::string pair = argv[1];
  const size_t n = std::stoul(argv[3]);
  gjk::Shape a, b;
  if (pair == "sphere_box") {
    a = gjk::Sphere{0.3};
    b = gjk::Box{gjk::Vec3(0.5, 0.4, 0.3)};
  } else if (pair == "capsule_cylinder") {
    a = gjk::Capsule{0.2, 0.5};
    b = gjk::Cylinder{0.3, 0.4};
  } else if (pair == "polytope" && argc >= 6) {
    const size_t m = std::stoul(argv[5]);
    const std::vector<double> p = read_doubles(argv[4], 3 * m);
    std::vector<gjk::Vec3> points(m);
    for (size_t i = 0; i < m; ++i) points[i] = gjk::Vec3(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
    a = gjk::ConvexPolytope::from_points(points);
    b = a;
  } else {
    std::fprintf(stderr, "unknown pair %s\n", pair.c_str());
    return 2;
  }
  const std::vector<double> raw = read_doubles(argv[2], 32 * n);
  std::vector<gjk::PairQuery> pairs(n);
  for (size_t i = 0; i < n; ++i) {
    pairs[i].a = &a;
    pairs[i].b = &b;
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        pairs[i].pose_a.matrix()(r, c) = raw[16 * i + 4 * static_cast<size_t>(r) + c];
        pairs[i].pose_b.matrix()(r, c) = raw[16 * (n + i) + 4 * static_cast<size_t>(r) + c];
      }
    }
  }
  // Best of 5 repetitions of each, as the Python side does.
  // `sum` (the loop's distances, last repetition) is printed, so no loop is optimised away and
  // the Python side can check that it queried the same pairs.
  double loop = 1e300, batch1 = 1e300, batch_all = 1e300, sum = 0;
  for (int rep = 0; rep < 5; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    sum = 0;
    for (const gjk::PairQuery& q : pairs) {
      sum += gjk::distance(*q.a, q.pose_a, *q.b, q.pose_b).distance;
    }
    loop = std::min(loop, seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    volatile double sink = gjk::distance_batch(pairs, {}, 1)[0].distance;
    batch1 = std::min(batch1, seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    sink = gjk::distance_batch(pairs, {}, 0)[0].distance;
    (void)sink;
    batch_all = std::min(batch_all, seconds_since(t0));
  }
  std::printf("loop_ns %.2f\nbatch1_ns %.2f\nbatch_all_ns %.2f\nchecksum %.17g\n", 1e9 * loop / n,
              1e9 * batch1 / n, 1e9 * batch_all / n, sum);
  return 0;
}
