#include "gjk/robots/allowed_collisions.hpp"

#include <algorithm>

namespace gjk::robots {
namespace {

std::pair<std::string, std::string> key(const std::string& a, const std::string& b) {
  return a <= b ? std::make_pair(a, b) : std::make_pair(b, a);
}

}  // namespace

AllowedCollisionMatrix AllowedCollisionMatrix::from_adjacency(const RobotModel& model) {
  AllowedCollisionMatrix acm;
  for (const auto& [a, b] : adjacent_link_pairs(model)) {
    acm.set_allowed(model.links()[static_cast<size_t>(a)].name,
                    model.links()[static_cast<size_t>(b)].name, true);
  }
  return acm;
}

bool AllowedCollisionMatrix::allowed(const std::string& a, const std::string& b) const {
  const auto entry = entries_.find(key(a, b));
  if (entry != entries_.end()) return entry->second;
  const auto da = defaults_.find(a), db = defaults_.find(b);
  if (da != defaults_.end() && db != defaults_.end()) return da->second && db->second;
  if (da != defaults_.end()) return da->second;
  if (db != defaults_.end()) return db->second;
  return false;
}

void AllowedCollisionMatrix::set_allowed(const std::string& a, const std::string& b, bool allowed) {
  const auto [entry, added] = entries_.insert_or_assign(key(a, b), allowed);
  if (added) count_names(entry->first, +1);
}

void AllowedCollisionMatrix::set_default(const std::string& name, bool allowed) {
  defaults_[name] = allowed;
}

void AllowedCollisionMatrix::remove_default(const std::string& name) {
  defaults_.erase(name);
}

void AllowedCollisionMatrix::remove(const std::string& a, const std::string& b) {
  const auto entry = entries_.find(key(a, b));
  if (entry == entries_.end()) return;
  count_names(entry->first, -1);
  entries_.erase(entry);
}

bool AllowedCollisionMatrix::allowed_by_default(const std::string& a) const {
  const auto da = defaults_.find(a);
  return da != defaults_.end() && da->second;
}

void AllowedCollisionMatrix::count_names(const std::pair<std::string, std::string>& names,
                                         int change) {
  for (const std::string* name : {&names.first, &names.second}) {
    if (name == &names.second && names.second == names.first) break;  // (a, a): one name
    if ((entry_names_[*name] += change) == 0) entry_names_.erase(*name);
  }
}

std::vector<std::pair<std::string, std::string>> AllowedCollisionMatrix::allowed_pairs() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [pair, allowed] : entries_) {
    if (allowed) out.push_back(pair);  // the map keeps them sorted
  }
  return out;
}

std::vector<std::pair<int, int>> adjacent_link_pairs(const RobotModel& model) {
  const auto& links = model.links();
  const auto& joints = model.joints();
  // Moving joints from each link up to the root; those in exactly one of two chains lie on the
  // path between the two links.
  std::vector<std::vector<int>> chains(links.size());
  for (size_t l = 0; l < links.size(); ++l) {
    for (int j = links[l].parent_joint; j >= 0;
         j = links[static_cast<size_t>(joints[static_cast<size_t>(j)].parent_link)].parent_joint) {
      if (joints[static_cast<size_t>(j)].type != JointType::Fixed) chains[l].push_back(j);
    }
  }
  std::vector<std::pair<int, int>> out;
  for (size_t a = 0; a < links.size(); ++a) {
    for (size_t b = a + 1; b < links.size(); ++b) {
      int between = 0;
      for (int j : chains[a])
        between += std::find(chains[b].begin(), chains[b].end(), j) == chains[b].end();
      for (int j : chains[b])
        between += std::find(chains[a].begin(), chains[a].end(), j) == chains[a].end();
      if (between <= 1) out.emplace_back(static_cast<int>(a), static_cast<int>(b));
    }
  }
  return out;
}

std::vector<std::pair<int, int>> self_collision_pairs(const RobotModel& model,
                                                      const AllowedCollisionMatrix& acm) {
  const size_t n = model.links().size();
  // One ACM lookup per link pair, not per shape pair (a link can carry many shapes).
  std::vector<char> skip(n * n, 0);
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a + 1; b < n; ++b) {
      skip[a * n + b] = skip[b * n + a] = acm.allowed(model.links()[a].name, model.links()[b].name);
    }
  }
  std::vector<std::pair<int, int>> pairs;
  const auto& shapes = model.collision_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (size_t k = i + 1; k < shapes.size(); ++k) {
      const size_t la = static_cast<size_t>(shapes[i].link),
                   lb = static_cast<size_t>(shapes[k].link);
      if (la == lb || skip[la * n + lb]) continue;
      pairs.emplace_back(static_cast<int>(i), static_cast<int>(k));
    }
  }
  return pairs;
}

}  // namespace gjk::robots
