// The GJK_EPA facade of seed 000 section 4 and the XYZ angles of Appendix B.
//
// rotation_xyz is checked against matrices written out by hand (eq. 38: R = Rx * Ry * Rz);
// GjkEpa against the state machine of Fig. 14 and against the free query functions.
#include <gtest/gtest.h>
#include <gjk/gjk.hpp>

#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

namespace {

using gjk::GjkEpa;
using gjk::Pose;
using gjk::Vec3;
using Mat3 = Eigen::Matrix3d;
using State = GjkEpa::State;

Mat3 rows(std::initializer_list<std::initializer_list<double>> r) {
  Mat3 m;
  int i = 0;
  for (const auto& row : r) {
    int j = 0;
    for (double v : row) m(i, j++) = v;
    ++i;
  }
  return m;
}

// Rx(gx) * Ry(gy) * Rz(gz) multiplied out symbolically (seed 000 eq. 38):
//   [ cy cz,               -cy sz,               sy     ]
//   [ sx sy cz + cx sz,    -sx sy sz + cx cz,    -sx cy ]
//   [ -cx sy cz + sx sz,    cx sy sz + sx cz,     cx cy ]
Mat3 rxyz_explicit(double gx, double gy, double gz) {
  const double cx = std::cos(gx), sx = std::sin(gx), cy = std::cos(gy), sy = std::sin(gy);
  const double cz = std::cos(gz), sz = std::sin(gz);
  return rows({{cy * cz, -cy * sz, sy},
               {sx * sy * cz + cx * sz, -sx * sy * sz + cx * cz, -sx * cy},
               {-cx * sy * cz + sx * sz, cx * sy * sz + sx * cz, cx * cy}});
}

void expect_matrix_near(const Mat3& got, const Mat3& want, double tol) {
  EXPECT_LE((got - want).cwiseAbs().maxCoeff(), tol) << "got\n" << got << "\nwant\n" << want;
}

// ---------------------------------------------------------------------------------------------
// rotation_xyz

TEST(RotationXyz, QuarterTurnsAboutEachAxis) {
  const double q = M_PI / 2;
  // Rx(pi/2): y -> z, z -> -y.
  expect_matrix_near(gjk::rotation_xyz(q, 0, 0), rows({{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}), 1e-15);
  // Ry(pi/2): z -> x, x -> -z.
  expect_matrix_near(gjk::rotation_xyz(0, q, 0), rows({{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}}), 1e-15);
  // Rz(pi/2): x -> y, y -> -x.
  expect_matrix_near(gjk::rotation_xyz(0, 0, q), rows({{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}), 1e-15);
  // Rx(pi/2) * Ry(pi/2) (by hand). The other order, Ry * Rx, would be
  // {{0,1,0},{0,0,-1},{-1,0,0}}: this pins the multiplication order of eq. 38.
  expect_matrix_near(gjk::rotation_xyz(q, q, 0), rows({{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}), 1e-15);
  // Rx(pi/2) * Rz(pi/2) (by hand):
  expect_matrix_near(gjk::rotation_xyz(q, 0, q), rows({{0, -1, 0}, {0, 0, -1}, {1, 0, 0}}), 1e-15);
  // A half turn about x.
  expect_matrix_near(gjk::rotation_xyz(M_PI, 0, 0), rows({{1, 0, 0}, {0, -1, 0}, {0, 0, -1}}),
                     1e-15);
  expect_matrix_near(gjk::rotation_xyz(0, 0, 0), Mat3::Identity(), 0.0);
}

TEST(RotationXyz, GeneralTriplesWrittenOut) {
  // (pi/6, pi/4, pi/3): cx = sqrt(3)/2, sx = 1/2, cy = sy = sqrt(2)/2, cz = 1/2, sz = sqrt(3)/2.
  const double r2 = std::sqrt(2.0), r3 = std::sqrt(3.0), r6 = std::sqrt(6.0);
  const Mat3 want = rows({{r2 / 4, -r6 / 4, r2 / 2},
                          {r2 / 8 + 0.75, r3 / 4 - r6 / 8, -r2 / 4},
                          {r3 / 4 - r6 / 8, 3 * r2 / 8 + 0.25, r6 / 4}});
  expect_matrix_near(gjk::rotation_xyz(M_PI / 6, M_PI / 4, M_PI / 3), want, 1e-15);
  // The same numerically: 0.35355339 -0.61237244 0.70710678 / 0.92677670 0.12682648 ...
  expect_matrix_near(gjk::rotation_xyz(M_PI / 6, M_PI / 4, M_PI / 3),
                     rows({{0.35355339059327373, -0.61237243569579452, 0.70710678118654757},
                           {0.92677669529663687, 0.12682648404432207, -0.35355339059327373},
                           {0.12682648404432207, 0.78033008588991064, 0.61237243569579452}}),
                     1e-15);
  // (0.3, -1.2, 2.5), evaluated from the explicit formula above.
  expect_matrix_near(gjk::rotation_xyz(0.3, -1.2, 2.5),
                     rows({{-0.29030060154291043, -0.21686102225434992, -0.93203908596722629},
                           {0.79240637695906702, -0.60052072608332541, -0.10708403848828553},
                           {-0.53648643458938394, -0.76964027608432362, 0.34617358496918371}}),
                     1e-15);
}

TEST(RotationXyz, RandomTriplesMatchExplicitFormula) {
  std::mt19937_64 gen(0xfacade01);
  std::uniform_real_distribution<double> angle(-2 * M_PI, 2 * M_PI);
  for (int i = 0; i < 2000; ++i) {
    const double gx = angle(gen), gy = angle(gen), gz = angle(gen);
    const Mat3 r = gjk::rotation_xyz(gx, gy, gz);
    expect_matrix_near(r, rxyz_explicit(gx, gy, gz), 1e-14);
    EXPECT_LE((r.transpose() * r - Mat3::Identity()).cwiseAbs().maxCoeff(), 1e-14);
    EXPECT_NEAR(r.determinant(), 1.0, 1e-14);
    const Vec3 t(angle(gen), angle(gen), angle(gen));
    const Pose p = gjk::pose_from_xyz(t, Vec3(gx, gy, gz));
    expect_matrix_near(p.linear(), rxyz_explicit(gx, gy, gz), 1e-14);
    EXPECT_EQ(Vec3(p.translation()), t);
    // Eq. 36: V_(A) = R V_(B) + T.
    const Vec3 v(0.3, -0.7, 1.1);
    EXPECT_LE((p * v - (rxyz_explicit(gx, gy, gz) * v + t)).norm(), 1e-13);
  }
}

// ---------------------------------------------------------------------------------------------
// GjkEpa state machine (Fig. 14)

std::vector<Vec3> cube(double lo, double hi) {
  std::vector<Vec3> v;
  for (int i = 0; i < 8; ++i) v.emplace_back(i & 1 ? hi : lo, i & 2 ? hi : lo, i & 4 ? hi : lo);
  return v;
}

std::vector<Vec3> shifted(std::vector<Vec3> v, const Vec3& d) {
  for (Vec3& p : v) p += d;
  return v;
}

TEST(GjkEpaFacade, StartsUnknownAndThrowsWithoutShapes) {
  GjkEpa g;
  EXPECT_EQ(g.state(), State::Unknown);
  EXPECT_THROW(g.are_in_collision(), std::logic_error);
  EXPECT_THROW(g.get_distance(), std::logic_error);
  EXPECT_THROW(g.get_penetration(), std::logic_error);
  EXPECT_EQ(g.state(), State::Unknown);

  GjkEpa only_a;
  only_a.set_shape_a(cube(0, 1));
  EXPECT_THROW(only_a.are_in_collision(), std::logic_error);
  EXPECT_THROW(only_a.get_distance(), std::logic_error);
  EXPECT_THROW(only_a.get_penetration(), std::logic_error);

  GjkEpa only_b;
  only_b.set_shape_b_transformed(cube(0, 1), Vec3(0.1, 0.2, 0.3), Vec3(1, 2, 3));
  EXPECT_THROW(only_b.are_in_collision(), std::logic_error);
  EXPECT_THROW(only_b.get_distance(), std::logic_error);
  EXPECT_THROW(only_b.get_penetration(), std::logic_error);
  EXPECT_EQ(only_b.state(), State::Unknown);
}

TEST(GjkEpaFacade, SeparatedPath) {
  GjkEpa g;
  g.set_shape_a(cube(0, 1));
  g.set_shape_b(cube(3, 4));  // [0,1]^3 vs [3,4]^3: corner (1,1,1) to corner (3,3,3)
  EXPECT_EQ(g.state(), State::Unknown);
  EXPECT_FALSE(g.are_in_collision());  // 0 -> 3
  EXPECT_EQ(g.state(), State::Separated);
  EXPECT_EQ(g.get_penetration(), std::nullopt);  // 3: null, stays 3
  EXPECT_EQ(g.state(), State::Separated);
  const auto d = g.get_distance();  // 3 -> 4
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(g.state(), State::ClosestPointsKnown);
  EXPECT_NEAR(d->distance, 2 * std::sqrt(3.0), 1e-12);  // corner (1,1,1) to corner (3,3,3)
  EXPECT_LE((d->point_on_a - Vec3(1, 1, 1)).norm(), 1e-12);
  EXPECT_LE((d->point_on_b - Vec3(3, 3, 3)).norm(), 1e-12);
  EXPECT_EQ(g.last_status(), gjk::Status::Converged);
  EXPECT_EQ(g.get_penetration(), std::nullopt);  // 4: null, stays 4
  EXPECT_EQ(g.state(), State::ClosestPointsKnown);
  EXPECT_FALSE(g.are_in_collision());
  EXPECT_EQ(g.state(), State::ClosestPointsKnown);
  const auto again = g.get_distance();  // reused: the same answer, still 4
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->distance, d->distance);
  EXPECT_EQ(again->point_on_a, d->point_on_a);
  EXPECT_EQ(again->point_on_b, d->point_on_b);
  EXPECT_EQ(g.state(), State::ClosestPointsKnown);
}

TEST(GjkEpaFacade, CollidingPath) {
  GjkEpa g;
  g.set_shape_a(cube(0, 1));
  g.set_shape_b(shifted(cube(0, 1), Vec3(0.5, 0.2, 0.1)));  // overlaps 0.5, 0.8, 0.9
  EXPECT_TRUE(g.are_in_collision());                        // 0 -> 1
  EXPECT_EQ(g.state(), State::Collision);
  EXPECT_EQ(g.get_distance(), std::nullopt);  // 1: null, stays 1
  EXPECT_EQ(g.state(), State::Collision);
  const auto p = g.get_penetration();  // 1 -> 2
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(g.state(), State::PenetrationKnown);
  EXPECT_NEAR(p->depth, 0.5, 1e-9);
  // rho = rho_A - rho_B: translating B by it ends the overlap (B moves to x in [1, 2]).
  EXPECT_LE((p->vector - Vec3(0.5, 0, 0)).norm(), 1e-9) << p->vector.transpose();
  EXPECT_LE((p->point_on_a - p->point_on_b - p->vector).norm(), 1e-12);
  EXPECT_NEAR(p->vector.norm(), p->depth, 1e-9);
  EXPECT_EQ(g.get_distance(), std::nullopt);  // 2: null, stays 2
  EXPECT_EQ(g.state(), State::PenetrationKnown);
  EXPECT_TRUE(g.are_in_collision());
  EXPECT_EQ(g.state(), State::PenetrationKnown);
  const auto again = g.get_penetration();  // reused
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->depth, p->depth);
  EXPECT_EQ(again->vector, p->vector);
  EXPECT_EQ(g.state(), State::PenetrationKnown);
}

TEST(GjkEpaFacade, QueriesFromUnknownRunTheCollisionTestFirst) {
  {
    GjkEpa g;  // get_distance on a separated pair: 0 -> 3 -> 4
    g.set_shape_a(cube(0, 1));
    g.set_shape_b(shifted(cube(0, 1), Vec3(2.5, 0, 0)));
    const auto d = g.get_distance();
    ASSERT_TRUE(d.has_value());
    EXPECT_NEAR(d->distance, 1.5, 1e-12);
    EXPECT_EQ(g.state(), State::ClosestPointsKnown);
  }
  {
    GjkEpa g;  // get_distance on a colliding pair: 0 -> 1, null
    g.set_shape_a(cube(0, 1));
    g.set_shape_b(shifted(cube(0, 1), Vec3(0.5, 0.5, 0.5)));
    EXPECT_EQ(g.get_distance(), std::nullopt);
    EXPECT_EQ(g.state(), State::Collision);
  }
  {
    GjkEpa g;  // get_penetration on a colliding pair: 0 -> 1 -> 2
    g.set_shape_a(cube(0, 1));
    g.set_shape_b(shifted(cube(0, 1), Vec3(0.25, 0.5, 0.5)));
    const auto p = g.get_penetration();
    ASSERT_TRUE(p.has_value());
    EXPECT_NEAR(p->depth, 0.5, 1e-9);
    EXPECT_EQ(g.state(), State::PenetrationKnown);
  }
  {
    GjkEpa g;  // get_penetration on a separated pair: 0 -> 3, null
    g.set_shape_a(cube(0, 1));
    g.set_shape_b(shifted(cube(0, 1), Vec3(0, 0, 1.5)));
    EXPECT_EQ(g.get_penetration(), std::nullopt);
    EXPECT_EQ(g.state(), State::Separated);
  }
}

TEST(GjkEpaFacade, EverySetterResetsToUnknown) {
  const std::vector<Vec3> a = cube(0, 1);
  const std::vector<Vec3> b_far = shifted(cube(0, 1), Vec3(3, 0, 0));
  const std::vector<Vec3> b_near = shifted(cube(0, 1), Vec3(0.5, 0, 0));
  using Setter = void (*)(GjkEpa&);
  const Setter setters[] = {
      [](GjkEpa& g) { g.set_shape_a(cube(0, 1)); },
      [](GjkEpa& g) { g.set_shape_b(shifted(cube(0, 1), Vec3(3, 0, 0))); },
      [](GjkEpa& g) { g.set_shape_a_transformed(cube(0, 1), Vec3::Zero(), Vec3::Zero()); },
      [](GjkEpa& g) { g.set_shape_b_transformed(cube(0, 1), Vec3::Zero(), Vec3(3, 0, 0)); },
      [](GjkEpa& g) {
        g.set_shape_a(gjk::Box{Vec3(0.5, 0.5, 0.5)},
                      gjk::pose_from_xyz(Vec3(0.5, 0.5, 0.5), Vec3::Zero()));
      },
      [](GjkEpa& g) {
        g.set_shape_b(gjk::Sphere{0.5}, gjk::pose_from_xyz(Vec3(3.5, 0.5, 0.5), Vec3::Zero()));
      },
  };
  for (size_t i = 0; i < std::size(setters); ++i) {
    SCOPED_TRACE("setter " + std::to_string(i));
    for (const auto* b : {&b_far, &b_near}) {
      GjkEpa g;
      g.set_shape_a(a);
      g.set_shape_b(*b);
      if (b == &b_far) {
        ASSERT_TRUE(g.get_distance().has_value());
        ASSERT_EQ(g.state(), State::ClosestPointsKnown);
      } else {
        ASSERT_TRUE(g.get_penetration().has_value());
        ASSERT_EQ(g.state(), State::PenetrationKnown);
      }
      setters[i](g);
      EXPECT_EQ(g.state(), State::Unknown);
      // The next query sees the new shapes (all setters above leave the pair separated
      // when B is far, and setting B moves it far).
      if (b == &b_far || i % 2 == 1) {
        EXPECT_FALSE(g.are_in_collision());
        EXPECT_EQ(g.state(), State::Separated);
      } else {
        EXPECT_TRUE(g.are_in_collision());
        EXPECT_EQ(g.state(), State::Collision);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Transformed setters: eq. 38 angles plus the position (eq. 36)

TEST(GjkEpaFacade, TransformedSettersUseEq38) {
  const std::vector<Vec3> unit = cube(-0.5, 0.5);
  auto distance_to_unit_cube = [&](const std::vector<Vec3>& b, const Vec3& angles,
                                   const Vec3& position) {
    GjkEpa g;
    g.set_shape_a(unit);
    g.set_shape_b_transformed(b, angles, position);
    const auto d = g.get_distance();
    EXPECT_TRUE(d.has_value());
    return d ? d->distance : -1.0;
  };
  const double h = std::sqrt(2.0) / 2;
  // A cube turned 45 deg about x and placed on the y axis shows an edge: extent sqrt(2)/2.
  EXPECT_NEAR(distance_to_unit_cube(unit, Vec3(M_PI / 4, 0, 0), Vec3(0, 2, 0)), 1.5 - h, 1e-12);
  // Turned about y instead, its y extent is still 0.5.
  EXPECT_NEAR(distance_to_unit_cube(unit, Vec3(0, M_PI / 4, 0), Vec3(0, 2, 0)), 1.0, 1e-12);
  // Turned about z and placed on the x axis: extent sqrt(2)/2 along x.
  EXPECT_NEAR(distance_to_unit_cube(unit, Vec3(0, 0, M_PI / 4), Vec3(2, 0, 0)), 1.5 - h, 1e-12);
  // Order: Rx(pi/2) * Ry(pi/2) maps the local x axis to world y (by hand, see above). A rod
  // along local x (half length 1) then points along y: from (0,3,0) its end is at y = 2.
  // (Ry * Rx would map x to -z, giving a distance of 3 - 0.05 - 0.5 = 2.45.)
  std::vector<Vec3> rod;
  for (const Vec3& v : unit) rod.push_back(Vec3(2 * v.x(), 0.1 * v.y(), 0.1 * v.z()));
  EXPECT_NEAR(distance_to_unit_cube(rod, Vec3(M_PI / 2, M_PI / 2, 0), Vec3(0, 3, 0)), 1.5, 1e-12);

  // Random: the transformed setter equals the plain setter on vertices transformed by hand
  // with the explicit eq. 38 matrix, for both A and B.
  std::mt19937_64 gen(0xfacade02);
  std::uniform_real_distribution<double> u(-1, 1), angle(-M_PI, M_PI);
  int colliding = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<Vec3> va, vb;
    for (int k = 0; k < 10; ++k) va.emplace_back(u(gen), u(gen), u(gen));
    for (int k = 0; k < 10; ++k) vb.emplace_back(0.6 * u(gen), 0.6 * u(gen), 0.6 * u(gen));
    const Vec3 ang_a(angle(gen), angle(gen), angle(gen)), ang_b(angle(gen), angle(gen), angle(gen));
    const Vec3 pos_a(u(gen), u(gen), u(gen)), pos_b = Vec3(u(gen), u(gen), u(gen)) * 1.5;
    std::vector<Vec3> wa, wb;
    for (const Vec3& v : va)
      wa.push_back(rxyz_explicit(ang_a.x(), ang_a.y(), ang_a.z()) * v + pos_a);
    for (const Vec3& v : vb)
      wb.push_back(rxyz_explicit(ang_b.x(), ang_b.y(), ang_b.z()) * v + pos_b);
    GjkEpa transformed, manual;
    transformed.set_shape_a_transformed(va, ang_a, pos_a);
    transformed.set_shape_b_transformed(vb, ang_b, pos_b);
    manual.set_shape_a(wa);
    manual.set_shape_b(wb);
    const bool hit = manual.are_in_collision();
    ASSERT_EQ(transformed.are_in_collision(), hit) << "case " << i;
    if (hit) {
      ++colliding;
      const auto pt = transformed.get_penetration(), pm = manual.get_penetration();
      ASSERT_TRUE(pt && pm);
      EXPECT_NEAR(pt->depth, pm->depth, 1e-6) << "case " << i;
      EXPECT_LE((pt->vector - pm->vector).norm(), 1e-6) << "case " << i;
    } else {
      const auto dt = transformed.get_distance(), dm = manual.get_distance();
      ASSERT_TRUE(dt && dm);
      EXPECT_NEAR(dt->distance, dm->distance, 1e-9) << "case " << i;
      EXPECT_LE((dt->point_on_a - dm->point_on_a).norm(), 1e-6) << "case " << i;
      EXPECT_LE((dt->point_on_b - dm->point_on_b).norm(), 1e-6) << "case " << i;
    }
  }
  EXPECT_GT(colliding, 30);
  EXPECT_LT(colliding, 270);
}

// ---------------------------------------------------------------------------------------------
// Agreement with the free functions; the penetration vector ends the overlap.

TEST(GjkEpaFacade, AgreesWithFreeFunctionsAndVectorEndsOverlap) {
  std::mt19937_64 gen(0xfacade03);
  std::uniform_real_distribution<double> u(-1, 1), angle(-M_PI, M_PI);
  int colliding = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<Vec3> va, vb;
    for (int k = 0; k < 12; ++k) va.emplace_back(u(gen), u(gen), 0.5 * u(gen));
    for (int k = 0; k < 12; ++k) vb.emplace_back(0.5 * u(gen), u(gen), u(gen));
    const Vec3 ang(angle(gen), angle(gen), angle(gen)), pos = Vec3(u(gen), u(gen), u(gen)) * 2;
    GjkEpa g;
    g.set_shape_a(va);
    g.set_shape_b_transformed(vb, ang, pos);
    const gjk::Shape sa = gjk::ConvexPolytope::from_points(va);
    const gjk::Shape sb = gjk::ConvexPolytope::from_points(vb);
    const Pose pb = gjk::pose_from_xyz(pos, ang);
    const gjk::SignedDistanceResult free_sd = gjk::signed_distance(sa, Pose::Identity(), sb, pb);
    if (g.are_in_collision()) {
      ++colliding;
      const auto p = g.get_penetration();
      ASSERT_TRUE(p.has_value());
      EXPECT_EQ(g.last_status(), gjk::Status::Converged);
      EXPECT_NEAR(-p->depth, free_sd.signed_distance, 1e-9) << "case " << i;
      EXPECT_NEAR(p->vector.norm(), p->depth, 1e-9) << "case " << i << ": |rho| != depth";
      EXPECT_LE((p->vector - p->depth * free_sd.normal).norm(), 1e-6) << "case " << i;
      // Moving B by slightly more than rho separates the bodies; by less, they still overlap.
      for (double f : {1.0 + 1e-6, 0.99}) {
        GjkEpa moved;
        moved.set_shape_a(va);
        moved.set_shape_b_transformed(vb, ang, pos + f * p->vector);
        EXPECT_EQ(moved.are_in_collision(), f < 1.0) << "case " << i << " factor " << f;
      }
    } else {
      const auto d = g.get_distance();
      ASSERT_TRUE(d.has_value());
      EXPECT_NEAR(d->distance, free_sd.signed_distance, 1e-12) << "case " << i;
      EXPECT_NEAR((d->point_on_b - d->point_on_a).norm(), d->distance, 1e-9);
    }
  }
  EXPECT_GT(colliding, 30);
}

TEST(GjkEpaFacade, PrimitiveSettersAndInvalidShapes) {
  GjkEpa g;
  g.set_shape_a(gjk::Sphere{0.5}, gjk::pose_from_xyz(Vec3(0, 0, 0), Vec3(0.1, 0.2, 0.3)));
  g.set_shape_b(gjk::inflated(gjk::Box{Vec3(0.5, 0.5, 0.5)}, 0.25),
                gjk::pose_from_xyz(Vec3(3, 0, 0), Vec3::Zero()));
  const auto d = g.get_distance();
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(d->distance, 3 - 0.5 - 0.5 - 0.25, 1e-12);
  EXPECT_LE((d->point_on_a - Vec3(0.5, 0, 0)).norm(), 1e-12);
  EXPECT_LE((d->point_on_b - Vec3(2.25, 0, 0)).norm(), 1e-12);

  GjkEpa bad;
  EXPECT_THROW(bad.set_shape_a(gjk::Sphere{-1.0}, Pose::Identity()), std::invalid_argument);
  EXPECT_THROW(bad.set_shape_b({Vec3(0, 0, 0), Vec3(NAN, 0, 0)}), std::invalid_argument);
  EXPECT_THROW(bad.set_shape_a_transformed({}, Vec3::Zero(), Vec3::Zero()), std::invalid_argument);
  EXPECT_EQ(bad.state(), State::Unknown);
  EXPECT_THROW(bad.are_in_collision(), std::logic_error);  // nothing was set
}

}  // namespace

// The facade's answers are plain bools and optionals, with no status to carry InvalidInput, so
// bad input is an exception: at the setter for bad vertices, at the query for a bad pose.
TEST(GjkEpaFacade, BadInputThrows) {
  const std::vector<gjk::Vec3> cube = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                                       {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
  gjk::GjkEpa g;
  std::vector<gjk::Vec3> bad = cube;
  bad[3].y() = std::nan("");
  EXPECT_THROW(g.set_shape_a(bad), std::invalid_argument);
  EXPECT_THROW(g.are_in_collision(), std::logic_error);  // nothing set yet
  g.set_shape_a(cube);
  g.set_shape_b_transformed(cube, gjk::Vec3(std::nan(""), 0, 0), gjk::Vec3(3, 0, 0));
  EXPECT_THROW(g.are_in_collision(), std::invalid_argument);
  EXPECT_THROW(g.get_distance(), std::invalid_argument);
  g.set_shape_b_transformed(cube, gjk::Vec3(0, 0, 0), gjk::Vec3(3, 0, 0));  // usable again
  EXPECT_FALSE(g.are_in_collision());
}
