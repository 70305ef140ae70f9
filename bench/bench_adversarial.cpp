// gjk_bench --check --sections=adversarial: libgjk, FCL (GST_LIBCCD and GST_INDEP), libccd (GJK,
// MPR, penetration) and Bullet on the adversarial suite and the peer-issue cases of
// tests/libgjk/support/adversarial.hpp, against each case's exact answer and tolerance.
//
// What each engine gets (built once per case, outside any timing; nothing is timed here):
//  - libgjk: the case's gjk::Shape values and poses.
//  - FCL 0.7: its own primitives (fcl::Sphered, Boxd, Capsuled, Cylinderd; sizes as full lengths)
//    and fcl::Convexd on the hull vertices and triangles for polytopes; the same Isometry3d
//    poses; fcl::distance with enable_signed_distance (signed answer), fcl::collide (boolean),
//    fcl::collide with one contact (depth). Flat hulls (no triangles) are not representable as
//    fcl::Convex: "n/a".
//  - libccd 2.1 (called directly): support functions written here for each primitive and a
//    vertex scan for hulls (in the body's frame, as bench/peers.cpp does); the body's world
//    centre for MPR; default tolerances, max_iterations 1000.
//  - Bullet 3.24 (float64): btSphereShape, btBoxShape (margin 0), btCapsuleShapeZ,
//    btCylinderShapeZ (margin 0), btConvexHullShape (margin 0); btGjkPairDetector (signed
//    answer: its distance goes negative on overlap), btGjkEpaSolver2::Distance (cores, minus the
//    shapes' margins, which are the sphere and capsule radii) and ::Penetration.
//
// Every engine row runs in a child process (fork), one answer per case written to a pipe: a
// call that takes more than kTimeoutSeconds is counted as a hang and killed, one that ends the
// child (signal) as a crash, one that throws as "threw"; the row then resumes at the next case.
#include "bench.hpp"

#include "adversarial.hpp"
#include "peers.hpp"

#include <gjk/gjk.hpp>

#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <btBulletCollisionCommon.h>
#include <ccd/ccd.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace bench {

namespace {

namespace gt = gjk::testing;
using gjk::Pose;
using gjk::Vec3;

constexpr int kTimeoutSeconds = 2;  ///< per call (~1e5 x a normal query); a hang is reported
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Marker answers written by a child.
constexpr double kNotApplicable = 1e300;
constexpr double kThrew = -1e300;

/// Which answer a row gives.
enum class Kind { Signed, Distance, Depth, Boolean };

// ---- every engine's form of one case ---------------------------------------------------------

struct CcdShape {
  const gjk::Shape* shape = nullptr;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Vec3 translation = Vec3::Zero();
  Vec3 centre = Vec3::Zero();
};

struct Engines {
  std::shared_ptr<fcl::CollisionGeometryd> fcl_a, fcl_b;  // null: not representable
  std::unique_ptr<btConvexShape> bt_a, bt_b;
  btTransform bt_pose_a, bt_pose_b;
  CcdShape ccd_a, ccd_b;
};

/// FCL's geometry for the case's shape, or null where FCL has none: inflated shapes and flat
/// hulls (no fcl::Convex without faces); the row then prints "n/a".
std::shared_ptr<fcl::CollisionGeometryd> fcl_or_null(const gjk::Shape& s) {
  if (s.inflation != 0.0) return nullptr;
  const auto* hull = std::get_if<gjk::ConvexPolytope>(&s.geometry);
  if (hull != nullptr && hull->triangles().empty()) return nullptr;
  return to_fcl(s);
}

btTransform to_bt(const Pose& pose) {
  const Eigen::Matrix3d& r = pose.linear();
  return btTransform(
      btMatrix3x3(r(0, 0), r(0, 1), r(0, 2), r(1, 0), r(1, 1), r(1, 2), r(2, 0), r(2, 1), r(2, 2)),
      btVector3(pose.translation().x(), pose.translation().y(), pose.translation().z()));
}

CcdShape to_ccd(const gjk::Shape& s, const Pose& pose) {
  CcdShape c;
  c.shape = &s;
  c.rotation = pose.linear();
  c.translation = pose.translation();
  const auto* p = std::get_if<gjk::ConvexPolytope>(&s.geometry);
  c.centre = pose * (p != nullptr ? p->center() : Vec3::Zero());
  return c;
}

Engines make_engines(const gt::AdversarialCase& c) {
  Engines e;
  e.fcl_a = fcl_or_null(c.a);
  e.fcl_b = fcl_or_null(c.b);
  e.bt_a = to_bullet(c.a);
  e.bt_b = to_bullet(c.b);
  e.bt_pose_a = to_bt(c.pose_a);
  e.bt_pose_b = to_bt(c.pose_b);
  e.ccd_a = to_ccd(c.a, c.pose_a);
  e.ccd_b = to_ccd(c.b, c.pose_b);
  return e;
}

// ---- libccd support functions (written for this benchmark) ------------------------------------

void ccd_support(const void* object, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const CcdShape& c = *static_cast<const CcdShape*>(object);
  const Vec3 d = c.rotation.transpose() * Vec3(dir->v[0], dir->v[1], dir->v[2]);
  const Vec3 w = c.rotation * local_support(*c.shape, d) + c.translation;
  ccdVec3Set(out, w.x(), w.y(), w.z());
}

void ccd_centre(const void* object, ccd_vec3_t* out) {
  const CcdShape& c = *static_cast<const CcdShape*>(object);
  ccdVec3Set(out, c.centre.x(), c.centre.y(), c.centre.z());
}

ccd_t ccd_settings() {
  return bench::make_ccd_settings(ccd_support, ccd_centre);
}

// ---- the rows -------------------------------------------------------------------------------

using RowFn = double (*)(const gt::AdversarialCase&, const Engines&);

struct Row {
  const char* engine;
  Kind kind;
  RowFn fn;
};

template <gjk::SimplexSolver S>
double gjk_signed(const gt::AdversarialCase& c, const Engines&) {
  gjk::QueryOptions o;
  o.solver = S;
  return gjk::signed_distance(c.a, c.pose_a, c.b, c.pose_b, o).signed_distance;
}
double gjk_distance(const gt::AdversarialCase& c, const Engines&) {
  return gjk::distance(c.a, c.pose_a, c.b, c.pose_b).distance;
}
double gjk_collide_row(const gt::AdversarialCase& c, const Engines&) {
  return gjk::collide(c.a, c.pose_a, c.b, c.pose_b).collision ? 1.0 : 0.0;
}
double gjk_depth(const gt::AdversarialCase& c, const Engines&) {
  const gjk::PenetrationResult p = gjk::penetration(c.a, c.pose_a, c.b, c.pose_b);
  return p.collision ? p.depth : 0.0;
}

template <fcl::GJKSolverType T>
double fcl_signed(const gt::AdversarialCase& c, const Engines& e) {
  if (!e.fcl_a || !e.fcl_b) return kNotApplicable;
  fcl::DistanceRequestd request;
  request.gjk_solver_type = T;
  request.enable_signed_distance = true;
  request.enable_nearest_points = true;
  fcl::DistanceResultd result;
  fcl::distance(e.fcl_a.get(), c.pose_a, e.fcl_b.get(), c.pose_b, request, result);
  return result.min_distance;
}
template <fcl::GJKSolverType T>
double fcl_collide(const gt::AdversarialCase& c, const Engines& e) {
  if (!e.fcl_a || !e.fcl_b) return kNotApplicable;
  fcl::CollisionRequestd request;
  request.gjk_solver_type = T;
  fcl::CollisionResultd result;
  return fcl::collide(e.fcl_a.get(), c.pose_a, e.fcl_b.get(), c.pose_b, request, result) > 0 ? 1.0
                                                                                             : 0.0;
}
template <fcl::GJKSolverType T>
double fcl_depth(const gt::AdversarialCase& c, const Engines& e) {
  if (!e.fcl_a || !e.fcl_b) return kNotApplicable;
  fcl::CollisionRequestd request;
  request.gjk_solver_type = T;
  request.enable_contact = true;
  request.num_max_contacts = 1;
  fcl::CollisionResultd result;
  if (fcl::collide(e.fcl_a.get(), c.pose_a, e.fcl_b.get(), c.pose_b, request, result) == 0)
    return 0.0;
  return result.numContacts() > 0 ? result.getContact(0).penetration_depth : kNaN;
}

double ccd_gjk_intersect(const gt::AdversarialCase&, const Engines& e) {
  const ccd_t s = ccd_settings();
  return ccdGJKIntersect(&e.ccd_a, &e.ccd_b, &s) ? 1.0 : 0.0;
}
double ccd_mpr_intersect(const gt::AdversarialCase&, const Engines& e) {
  const ccd_t s = ccd_settings();
  return ccdMPRIntersect(&e.ccd_a, &e.ccd_b, &s) ? 1.0 : 0.0;
}
double ccd_gjk_depth(const gt::AdversarialCase&, const Engines& e) {
  const ccd_t s = ccd_settings();
  ccd_real_t depth = 0;
  ccd_vec3_t dir, pos;
  return ccdGJKPenetration(&e.ccd_a, &e.ccd_b, &s, &depth, &dir, &pos) == 0 ? depth : 0.0;
}
double ccd_mpr_depth(const gt::AdversarialCase&, const Engines& e) {
  const ccd_t s = ccd_settings();
  ccd_real_t depth = 0;
  ccd_vec3_t dir, pos;
  return ccdMPRPenetration(&e.ccd_a, &e.ccd_b, &s, &depth, &dir, &pos) == 0 ? depth : 0.0;
}

double bullet_pair_detector(const gt::AdversarialCase&, const Engines& e) {
  btVoronoiSimplexSolver simplex;
  btGjkEpaPenetrationDepthSolver epa;
  btGjkPairDetector detector(e.bt_a.get(), e.bt_b.get(), &simplex, &epa);
  btGjkPairDetector::ClosestPointInput input;
  input.m_transformA = e.bt_pose_a;
  input.m_transformB = e.bt_pose_b;
  btPointCollector output;
  detector.getClosestPoints(input, output, nullptr);
  return output.m_hasResult ? output.m_distance : kNaN;
}
double bullet_distance(const gt::AdversarialCase&, const Engines& e) {
  btGjkEpaSolver2::sResults r;
  const btVector3 guess = e.bt_pose_b.getOrigin() - e.bt_pose_a.getOrigin();
  if (!btGjkEpaSolver2::Distance(e.bt_a.get(), e.bt_pose_a, e.bt_b.get(), e.bt_pose_b, guess, r))
    return 0.0;  // cores overlap
  // Distance() works on the cores: the margins (sphere and capsule radii) come off.
  return std::max(0.0, r.distance - e.bt_a->getMargin() - e.bt_b->getMargin());
}
double bullet_depth(const gt::AdversarialCase&, const Engines& e) {
  btGjkEpaSolver2::sResults r;
  const btVector3 guess = e.bt_pose_b.getOrigin() - e.bt_pose_a.getOrigin();
  return btGjkEpaSolver2::Penetration(e.bt_a.get(), e.bt_pose_a, e.bt_b.get(), e.bt_pose_b, guess,
                                      r)
             ? -r.distance
             : 0.0;
}

const std::vector<Row>& rows() {
  using S = gjk::SimplexSolver;
  static const std::vector<Row> r{
      {"libgjk-sv signed_distance", Kind::Signed, gjk_signed<S::SignedVolumes>},
      {"libgjk-johnson signed_distance", Kind::Signed, gjk_signed<S::Johnson>},
      {"libgjk-refine signed_distance", Kind::Signed, gjk_signed<S::RefineSet>},
      {"libgjk distance", Kind::Distance, gjk_distance},
      {"libgjk collide", Kind::Boolean, gjk_collide_row},
      {"libgjk penetration", Kind::Depth, gjk_depth},
      {"fcl-ccd signed distance", Kind::Signed, fcl_signed<fcl::GST_LIBCCD>},
      {"fcl-indep signed distance", Kind::Signed, fcl_signed<fcl::GST_INDEP>},
      {"fcl-ccd collide", Kind::Boolean, fcl_collide<fcl::GST_LIBCCD>},
      {"fcl-indep collide", Kind::Boolean, fcl_collide<fcl::GST_INDEP>},
      {"fcl-ccd contact depth", Kind::Depth, fcl_depth<fcl::GST_LIBCCD>},
      {"fcl-indep contact depth", Kind::Depth, fcl_depth<fcl::GST_INDEP>},
      {"ccd-gjk intersect", Kind::Boolean, ccd_gjk_intersect},
      {"ccd-mpr intersect", Kind::Boolean, ccd_mpr_intersect},
      {"ccd-gjk(epa) penetration", Kind::Depth, ccd_gjk_depth},
      {"ccd-mpr penetration", Kind::Depth, ccd_mpr_depth},
      {"bullet pairdetector signed", Kind::Signed, bullet_pair_detector},
      {"bullet gjkepa2 distance", Kind::Distance, bullet_distance},
      {"bullet gjkepa2 penetration", Kind::Depth, bullet_depth},
  };
  return r;
}

// ---- guarded execution ----------------------------------------------------------------------

enum class Outcome { Answer, Threw, Crashed, Hung };
struct Result {
  Outcome outcome = Outcome::Answer;
  double value = kNaN;
};

struct Message {
  int index;
  double value;
};

/// Runs `row` on every case in child processes; see the file comment.
std::vector<Result> run_guarded(const Row& row, const std::vector<gt::AdversarialCase>& cases,
                                const std::vector<Engines>& engines) {
  std::vector<Result> out(cases.size());
  std::size_t next = 0;
  while (next < cases.size()) {
    int fd[2];
    if (pipe(fd) != 0) {
      std::perror("pipe");
      return out;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
      close(fd[0]);
      const int devnull = open("/dev/null", O_WRONLY);  // peers print warnings to stderr
      if (devnull >= 0) dup2(devnull, 2);
      for (std::size_t i = next; i < cases.size(); ++i) {
        Message m{static_cast<int>(i), 0.0};
        try {
          m.value = row.fn(cases[i], engines[i]);
        } catch (...) {
          m.value = kThrew;
        }
        if (write(fd[1], &m, sizeof m) != static_cast<ssize_t>(sizeof m)) _exit(2);
      }
      _exit(0);
    }
    close(fd[1]);
    bool child_alive = true;
    while (next < cases.size()) {
      pollfd p{fd[0], POLLIN, 0};
      const int ready = poll(&p, 1, kTimeoutSeconds * 1000);
      if (ready == 0) {  // no answer in time: hung on case `next`
        kill(pid, SIGKILL);
        out[next].outcome = Outcome::Hung;
        ++next;
        break;
      }
      Message m{};
      const ssize_t got = read(fd[0], &m, sizeof m);
      if (got != static_cast<ssize_t>(sizeof m)) {  // the child died on case `next`
        out[next].outcome = Outcome::Crashed;
        ++next;
        child_alive = false;
        break;
      }
      out[static_cast<std::size_t>(m.index)].value = m.value;
      if (m.value == kThrew) out[static_cast<std::size_t>(m.index)].outcome = Outcome::Threw;
      next = static_cast<std::size_t>(m.index) + 1;
    }
    (void)child_alive;
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  return out;
}

// ---- scoring --------------------------------------------------------------------------------

struct Cell {
  int cases = 0, na = 0, wrong = 0, gross = 0, nan = 0, threw = 0, crashed = 0, hung = 0;
};

// Grossly wrong: off by more than 1e-6 of the pair's size (at least 1e-6), far beyond any
// engine's default tolerance; "wrong" uses the case's own tolerance (at most ~1e-8).
void score(const gt::AdversarialCase& c, Kind kind, const Result& r, Cell& cell) {
  if (r.outcome == Outcome::Answer && r.value == kNotApplicable) {
    ++cell.na;
    return;
  }
  const double tol = c.tolerance;
  if (kind == Kind::Boolean && !(std::abs(c.expected) > tol)) return;  // ambiguous: not scored
  ++cell.cases;
  switch (r.outcome) {
    case Outcome::Threw:
      ++cell.threw;
      return;
    case Outcome::Crashed:
      ++cell.crashed;
      return;
    case Outcome::Hung:
      ++cell.hung;
      return;
    case Outcome::Answer:
      break;
  }
  if (!std::isfinite(r.value)) {
    ++cell.nan;
    return;
  }
  double exact = c.expected;
  if (kind == Kind::Distance) exact = std::max(c.expected, 0.0);
  if (kind == Kind::Depth) exact = std::max(-c.expected, 0.0);
  if (kind == Kind::Boolean) exact = c.expected <= 0.0 ? 1.0 : 0.0;
  const double error = std::abs(r.value - exact);
  if (kind == Kind::Boolean) {
    if (error != 0.0) ++cell.wrong, ++cell.gross;
    return;
  }
  if (!(error <= tol)) ++cell.wrong;
  if (!(error <= std::max(tol, 1e-6 * c.size))) ++cell.gross;
}

}  // namespace

void check_adversarial() {
  std::vector<gt::AdversarialCase> cases = gt::adversarial_cases(1);
  for (gt::AdversarialCase& c : gt::peer_issue_cases()) cases.push_back(std::move(c));
  std::vector<Engines> engines;
  engines.reserve(cases.size());
  for (const gt::AdversarialCase& c : cases) engines.push_back(make_engines(c));
  std::vector<std::string> families = gt::family_names();
  std::map<std::string, int> count;
  for (const gt::AdversarialCase& c : cases) ++count[c.family];

  std::printf("\n## Adversarial suite: %zu cases (", cases.size());
  for (std::size_t i = 0; i < families.size(); ++i)
    std::printf("%s%s %d", i ? ", " : "", families[i].c_str(), count[families[i]]);
  std::printf(
      ")\n\nEach cell: wrong (beyond the case tolerance) / grossly wrong (> 1e-6 x size) "
      "/ NaN / threw / crashed / hung, of the scored cases; n/a = not representable. "
      "Booleans: scored only where |signed distance| > tolerance.\n\n| engine |");
  for (const std::string& f : families) std::printf(" %s |", f.c_str());
  std::printf(" all |\n|---|");
  for (std::size_t i = 0; i <= families.size(); ++i) std::printf("---|");
  std::printf("\n");
  for (const Row& row : rows()) {
    const std::vector<Result> results = run_guarded(row, cases, engines);
    std::map<std::string, Cell> cells;
    Cell all;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      score(cases[i], row.kind, results[i], cells[cases[i].family]);
      const Cell before = all;
      score(cases[i], row.kind, results[i], all);
      // --verbose: every case a row gets wrong, with what went wrong.
      if (config().verbose &&
          (all.wrong + all.nan + all.threw + all.crashed + all.hung >
           before.wrong + before.nan + before.threw + before.crashed + before.hung)) {
        static const char* outcome[] = {"answer", "threw", "crashed", "hung"};
        std::fprintf(stderr, "%s | %s | %s %.17g | expected %.17g (tolerance %.3g)\n", row.engine,
                     cases[i].name.c_str(), outcome[static_cast<int>(results[i].outcome)],
                     results[i].value, cases[i].expected, cases[i].tolerance);
      }
    }
    std::printf("| %s |", row.engine);
    auto print = [](const Cell& c) {
      if (c.cases == 0) {
        std::printf(" n/a |");
        return;
      }
      std::printf(" %d/%d/%d/%d/%d/%d of %d%s |", c.wrong, c.gross, c.nan, c.threw, c.crashed,
                  c.hung, c.cases,
                  c.na > 0 ? (" (+" + std::to_string(c.na) + " n/a)").c_str() : "");
    };
    for (const std::string& f : families) print(cells[f]);
    print(all);
    std::printf("\n");
    std::fflush(stdout);
  }
}

}  // namespace bench
