// Allowed-collision matrix (as MoveIt's): which pairs of named parts (robot links, obstacles,
// attached objects) may touch without counting as a collision. Used when the pair lists are
// rebuilt and when an obstacle is added (mentions(): hashed, as it runs per add), not per query.
#pragma once

#include "gjk/robots/robot_model.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gjk::robots {

/// Pairs of parts whose contact is allowed. A pair entry wins over the per-name defaults;
/// everything is symmetric. An empty matrix allows nothing.
class AllowedCollisionMatrix {
 public:
  AllowedCollisionMatrix() = default;

  /// Adjacent links allowed: every pair of links with at most one moving (non-fixed) joint on
  /// the tree path between them (the rule of self_collision_pairs).
  static AllowedCollisionMatrix from_adjacency(const RobotModel& model);

  /// Whether contact between the parts `a` and `b` is allowed: the pair entry if there is one;
  /// else the default of the one name that has a default, or when both have one, allowed only
  /// if both allow (MoveIt's rule); else not allowed.
  bool allowed(const std::string& a, const std::string& b) const;
  /// Sets the pair entry (either order; a == b is a valid entry too).
  void set_allowed(const std::string& a, const std::string& b, bool allowed);
  /// Every pair involving `name` allowed (or not) unless a pair entry says otherwise.
  void set_default(const std::string& name, bool allowed);
  /// Drops the default of `name` (nothing happens when it has none).
  void remove_default(const std::string& name);
  /// Drops the pair entry of a and b (nothing happens when there is none).
  void remove(const std::string& a, const std::string& b);
  /// The pair entries that allow contact, each with first <= second, sorted.
  std::vector<std::pair<std::string, std::string>> allowed_pairs() const;
  /// Number of pair entries (allowing or forbidding).
  size_t size() const { return entries_.size(); }
  /// Whether `name` has a default or is in a pair entry. For a name it does not mention,
  /// allowed(a, name) == allowed_by_default(a): one lookup per new obstacle instead of one per
  /// robot shape.
  bool mentions(const std::string& name) const {
    // An empty map still hashes the name; SRDFs rarely set defaults.
    return (!defaults_.empty() && defaults_.count(name) != 0) || entry_names_.count(name) != 0;
  }
  /// Whether `a` may touch a name the matrix does not mention: a's default, or not allowed.
  bool allowed_by_default(const std::string& a) const;

 private:
  void count_names(const std::pair<std::string, std::string>& key, int change);

  std::map<std::pair<std::string, std::string>, bool> entries_;  // key: first <= second
  std::unordered_map<std::string, bool> defaults_;
  std::unordered_map<std::string, int> entry_names_;  ///< how many pair entries name each part
};

/// Link index pairs (i < j) with at most one moving joint between them, over all links.
std::vector<std::pair<int, int>> adjacent_link_pairs(const RobotModel& model);

/// Pairs of collision shapes (indices into model.collision_shapes()) on different links whose
/// links' contact `acm` does not allow: the self-collision pairs to check.
std::vector<std::pair<int, int>> self_collision_pairs(const RobotModel& model,
                                                      const AllowedCollisionMatrix& acm);

}  // namespace gjk::robots
