// README "The collision world", as a complete program: the Panda in its shelf cell (exact shelf
// mesh, point-cloud bin, a held part) with the SRDF's allowed pairs, in the SRDF's ready state,
// then grasping a box from the scene.
//   collision_world [panda.urdf] [panda.srdf] [panda_cell.yaml]
#include <gjk/robots/collision_world.hpp>
#include <gjk/robots/scene.hpp>
#include <gjk/robots/srdf.hpp>

#include <cstdio>
#include <exception>
#include <string>

using namespace gjk::robots;

int main(int argc, char** argv) try {
  const std::string urdf = argc > 1 ? argv[1] : "../shared/robot-models/panda/panda.urdf";
  const std::string srdf_file = argc > 2 ? argv[2] : "../shared/robot-models/panda/panda.srdf";
  const std::string cell_yaml = argc > 3 ? argv[3] : "robots/scenes/panda_cell.yaml";

  // --- README snippet ---
  // clang-format off
  RobotModel panda = RobotModel::from_urdf_file(urdf);
  Srdf srdf = load_srdf(srdf_file, panda);                        // file:line errors
  CollisionWorld world(panda, load_scene(cell_yaml), acm_from_srdf(panda, srdf));
  WorldContext ctx(world);
  ctx.update(named_state(panda, srdf, "ready"));                  // FK + the shapes' boxes
  bool hit = ctx.in_collision(0.005);                             // margin 5 mm, early exit
  ClosestPair worst = ctx.closest();                              // signed, with witness points
  // clang-format on
  // --- end of snippet ---

  const std::string other = worst.self ? world.part_name(worst.pair.obstacle)
                                       : world.obstacles()[size_t(worst.pair.obstacle)].name;
  std::printf("%zu obstacles, %zu held objects, %zu self pairs checked (of %zu shapes)\n",
              world.obstacles().size(), world.attached().size(), world.self_pairs().size(),
              world.model().collision_shapes().size());
  std::printf("ready: %s; closest pair %s / %s at %.4f m\n", hit ? "in collision" : "free",
              world.part_name(worst.pair.shape).c_str(), other.c_str(), worst.pair.distance);
  // The base stands 1 cm above the table: the closest pair in the ready state, and free.
  return !hit && worst.pair.distance > 0.0 && worst.pair.distance < 0.011 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "collision_world: %s\n", e.what());
  return 3;
}
