// `--link-meshes REP` and `--link-mesh LINK=REP`: how a URDF's link meshes are represented
// (hull, convex pieces or exact triangles), the same options in every tool that loads a robot.
#pragma once

#include <gjk/robots/robot_model.hpp>

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gjk::tools {

/// The two options' values as given on the command line.
struct LinkMeshOptions {
  std::string representation = "hull";  ///< --link-meshes
  std::vector<std::string> per_link;    ///< --link-mesh, each LINK=REP
};

/// Registers --link-meshes and --link-mesh on `app`, writing into `options`.
inline void add_link_mesh_options(CLI::App& app, LinkMeshOptions& options) {
  app.add_option("--link-meshes", options.representation,
                 "how link meshes are represented: hull (fast, the default), pieces (one hull per "
                 "shell of the file) or mesh (the exact triangles, as MoveIt's FCL checker uses "
                 "them)")
      ->type_name("REP");
  app.add_option("--link-mesh", options.per_link,
                 "LINK=REP: the representation of one link's meshes (repeatable), e.g. "
                 "forearm_link=mesh")
      ->type_name("LINK=REP");
}

/// Sets `urdf`'s representations from the options. Throws robots::ModelError naming the option
/// and the value (a usage error for the tools; an unknown link is found only when loading).
inline void apply_link_mesh_options(const LinkMeshOptions& options, robots::UrdfOptions& urdf) {
  urdf.meshes = robots::parse_link_mesh_representation(options.representation, "--link-meshes");
  for (const std::string& text : options.per_link) urdf.add_link_mesh(text);
}

}  // namespace gjk::tools
