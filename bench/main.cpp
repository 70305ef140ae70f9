// gjk_bench: libgjk against FCL, libccd, Bullet and Box2D, same data, one run.
//
//   gjk_bench [benchmark flags]      time every engine (ns per query: the "per_query" counter)
//   gjk_bench --check [--verbose]    agreement check: every engine's answers vs libgjk's and
//                                    vs the exact answers the data sets know; prints Markdown
//   gjk_bench --quick ...            small data sets (100 pairs, 5 sequences) and a short
//                                    minimum time: a smoke run of everything in seconds
//   --benchmark_filter='^sbs/'       side by side: one benchmark per cell of the 2D, 3D,
//                                    mixed and tracking sections, every engine's pass in turn
//                                    over the same pairs; counter <engine> = median ns per query
//   --sections=2d,3d,mixed,track,seed002   restricts --check (benchmarks: use
//                                    --benchmark_filter); mixed: a box, sphere or capsule
//                                    against a 100-point hull, 8 against 512 points;
//                                    seed002: seed 002's Tables 2-3 settings
//   --check --sections=mesh          meshes and octree cells: libgjk and FCL vs brute force over
//                                    every triangle / cell (docs/benchmarks.md); not in the default
//   --check --sections=world         the collision world (N boxes, the Panda cell): libgjk and FCL
//                                    vs brute force per state; not in the default
//   --check --sections=adversarial   the adversarial suite and the peer-issue cases against exact
//                                    answers, every engine guarded by fork + a 2 s timeout per
//                                    call (docs/reliability.md); not in the default
//
// Without --benchmark_min_time the minimum time per benchmark is 0.05 s (0.002 s with --quick):
// each iteration already runs the whole data set (1000 queries). See docs/benchmarks.md.
#include "bench.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  bool check = false, quick = false;
  std::string sections = "2d,3d,mixed,track,seed002";
  bool has_min_time = false;
  std::vector<char*> args;
  static std::string min_time_flag;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--check") == 0) {
      check = true;
    } else if (i > 0 && std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (i > 0 && std::strcmp(argv[i], "--verbose") == 0) {
      bench::config().verbose = true;
    } else if (i > 0 && std::strncmp(argv[i], "--sections=", 11) == 0) {
      sections = argv[i] + 11;
    } else {
      if (std::strncmp(argv[i], "--benchmark_min_time", 20) == 0) has_min_time = true;
      args.push_back(argv[i]);
    }
  }
  if (quick) {
    bench::config().pairs_2d = 100;
    bench::config().pairs_3d = 100;
    bench::config().sequences = 5;
  }
  if (!has_min_time) {
    min_time_flag = quick ? "--benchmark_min_time=0.002" : "--benchmark_min_time=0.05";
    args.push_back(min_time_flag.data());
  }
  args.push_back(nullptr);
  int n = static_cast<int>(args.size()) - 1;

  if (check) {
    const auto want = [&](const char* s) { return sections.find(s) != std::string::npos; };
    std::printf(
        "# gjk_bench --check: %d 2D pairs, %d 3D pairs per data set, %d x %d tracking queries\n",
        bench::config().pairs_2d, bench::config().pairs_3d, bench::config().sequences,
        bench::config().steps);
    std::fflush(stdout);
    if (want("2d")) bench::check_2d();
    if (want("3d")) bench::check_static_3d();
    if (want("mixed")) bench::check_mixed();
    if (want("track")) bench::check_tracking();
    if (want("seed002")) bench::check_seed002();
    if (want("adversarial")) bench::check_adversarial();
    if (want("mesh")) bench::check_mesh();
    if (want("world")) bench::check_world();
    // (the adversarial section prints its own table)
    if (!bench::agreement_results().empty())
      bench::print_agreement(bench::agreement_results(), bench::config().verbose);
    return 0;
  }

  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  bench::register_2d();
  bench::register_static_3d();
  bench::register_mixed();
  bench::register_tracking();
  bench::register_robots();
  bench::register_planner();
  bench::register_mesh();
  bench::register_world();
  bench::register_batch();
  bench::register_seed002();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
