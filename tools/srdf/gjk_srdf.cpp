// gjk-srdf: the disable_collisions of an SRDF computed from the robot itself, as MoveIt's Setup
// Assistant does (issue 17 item 6): adjacent links, links in collision at the default
// configuration, and pairs always or never in collision over random configurations need no
// self-collision check. Optionally keeps the groups, states and virtual joints of an existing
// SRDF, and compares the result with a reference SRDF.
#include <gjk/analysis/clearance.hpp>
#include <gjk/robots/srdf.hpp>
#include <gjk/robots/srdf_generator.hpp>

#include "exit_codes.hpp"
#include "link_meshes.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using gjk::tools::kExitCheckFailed;
using gjk::tools::kExitInputError;
using gjk::tools::kExitOk;
using gjk::tools::kExitOutputError;
using gjk::tools::kExitUsage;
using NamePair = std::pair<std::string, std::string>;

NamePair ordered(const std::string& a, const std::string& b) {
  return a < b ? NamePair{a, b} : NamePair{b, a};
}

/// Pairs and reasons of a disable_collisions list, by ordered name pair.
std::map<NamePair, std::string> by_pair(const std::vector<gjk::robots::DisabledCollision>& list) {
  std::map<NamePair, std::string> out;
  for (const auto& d : list) out.emplace(ordered(d.link1, d.link2), d.reason);
  return out;
}

/// "only in generated / only in reference / reason differs" lines; returns the count.
int print_comparison(const std::vector<gjk::robots::DisabledCollision>& generated,
                     const std::vector<gjk::robots::DisabledCollision>& reference,
                     const std::string& reference_name, std::ostream& out) {
  const auto gen = by_pair(generated), ref = by_pair(reference);
  int only_generated = 0, only_reference = 0, reason = 0;
  out << "comparison with " << reference_name << ": " << gen.size() << " generated pairs, "
      << ref.size() << " in the reference\n";
  for (const auto& [pair, why] : gen) {
    const auto it = ref.find(pair);
    if (it == ref.end()) {
      out << "  only generated: " << pair.first << " " << pair.second << " (" << why << ")\n";
      ++only_generated;
    } else if (it->second != why) {
      out << "  reason differs: " << pair.first << " " << pair.second << " (generated " << why
          << ", reference " << it->second << ")\n";
      ++reason;
    }
  }
  for (const auto& [pair, why] : ref) {
    if (gen.count(pair) == 0) {
      out << "  only in reference: " << pair.first << " " << pair.second << " (" << why << ")\n";
      ++only_reference;
    }
  }
  out << "  " << only_generated << " only generated, " << only_reference
      << " only in the reference, " << reason << " with another reason\n";
  return only_generated + only_reference;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "gjk-srdf: computes an SRDF's disable_collisions the way MoveIt's Setup Assistant does "
      "(adjacent links, in collision at the default configuration, always or never in collision "
      "over random configurations) and writes the SRDF.",
      "gjk-srdf"};
  std::string urdf, base_srdf, reference_srdf, out_file;
  std::vector<std::string> package_dirs;
  int samples = 10000;
  unsigned seed = 1;
  app.add_option("--urdf", urdf, "robot URDF file")->required()->type_name("FILE");
  gjk::tools::LinkMeshOptions link_meshes;
  gjk::tools::add_link_mesh_options(app, link_meshes);
  app.add_option("--package-dir", package_dirs,
                 "folder holding ROS packages, for package://PKG/PATH meshes (repeatable)")
      ->type_name("DIR");
  app.add_option("--srdf", base_srdf,
                 "keep this SRDF's groups, states, virtual joints, end effectors and passive "
                 "joints; its disable_collisions are replaced")
      ->type_name("FILE");
  app.add_option("--samples", samples,
                 "random configurations (the Setup Assistant's default density is 10000)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000000));
  app.add_option("--seed", seed, "random seed (the same seed gives the same SRDF)")
      ->capture_default_str();
  app.add_option("--compare", reference_srdf,
                 "print how the generated pairs differ from this SRDF's disable_collisions")
      ->type_name("FILE");
  app.add_option("-o,--out", out_file, "write the SRDF here (atomically); default: stdout")
      ->type_name("FILE");
  bool fail_on_difference = false;
  app.add_flag("--fail-on-difference", fail_on_difference,
               "with --compare: exit 1 when a pair is in one list and not the other");
  app.footer(
      "Pairs that collide only sometimes are left out: they need checking. \"Never\" is "
      "statistical: a pair in collision in fewer than 1/samples of the configurations can be "
      "called Never (raise --samples).\n\n"
      "EXIT STATUS\n"
      "  0 written; 1 --fail-on-difference and the lists differ; 2 usage error; 3 the URDF or\n"
      "  an SRDF is unreadable or invalid; 4 the output could not be written; 5 internal error.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (fail_on_difference && reference_srdf.empty()) {
    std::cerr << "gjk-srdf: --fail-on-difference needs --compare\n";
    return kExitUsage;
  }
  gjk::robots::UrdfOptions urdf_options;
  urdf_options.package_dirs = package_dirs;
  try {
    gjk::tools::apply_link_mesh_options(link_meshes, urdf_options);
  } catch (const gjk::robots::ModelError& e) {
    std::cerr << "gjk-srdf: " << e.what() << '\n';
    return kExitUsage;
  }
  try {
    gjk::robots::RobotModel model;
    gjk::robots::Srdf srdf;
    std::optional<gjk::robots::Srdf> reference;
    try {
      model = gjk::robots::RobotModel::from_urdf_file(urdf, urdf_options);
      if (!base_srdf.empty()) {
        srdf = gjk::robots::load_srdf(base_srdf, model);
      } else {
        srdf.robot_name = model.name();
        srdf.virtual_joints.push_back({"virtual_joint", "fixed", "world", model.links()[0].name});
      }
      if (!reference_srdf.empty()) reference = gjk::robots::load_srdf(reference_srdf, model);
    } catch (const std::exception& e) {
      std::cerr << "gjk-srdf: " << e.what() << '\n';
      return kExitInputError;
    }
    const gjk::robots::CollisionMatrixReport report =
        gjk::robots::generate_disabled_collisions(model, samples, seed);
    srdf.disabled_collisions = report.disabled;
    std::map<std::string, int> counts;
    for (const auto& d : report.disabled) ++counts[d.reason];
    std::ostream& info = out_file.empty() ? std::cerr : std::cout;
    info << "gjk-srdf: " << report.disabled.size() << " pairs need no check after "
         << report.samples << " samples:";
    for (const auto& [reason, count] : counts) info << ' ' << reason << ' ' << count;
    info << '\n';
    const std::string text = gjk::robots::write_srdf(srdf);
    try {
      if (out_file.empty()) {
        std::cout << text;
        std::cout.flush();
        if (!std::cout) throw gjk::analysis::OutputError("cannot write the SRDF to stdout");
      } else {
        gjk::analysis::AtomicFile file(out_file);
        file.stream() << text;
        file.commit();
        info << "wrote: " << out_file << '\n';
      }
    } catch (const gjk::analysis::OutputError& e) {
      std::cerr << "gjk-srdf: " << e.what() << '\n';
      return kExitOutputError;
    }
    if (reference) {
      const int differences =
          print_comparison(report.disabled, reference->disabled_collisions, reference_srdf, info);
      if (fail_on_difference && differences > 0) return kExitCheckFailed;
    }
    return kExitOk;
  } catch (const std::exception& e) {
    std::cerr << "gjk-srdf: internal error: " << e.what() << '\n';
    return gjk::tools::kExitInternalError;
  }
}
