// Integer ids by name, for the collision world's obstacles (looked up by name and by object
// name). The names themselves stay in the obstacles: the index keeps only (hash, id) pairs in
// one open-addressing table and asks the caller whether an id's names match the key. An add and
// a remove of an obstacle therefore allocate nothing (a map of strings to id lists allocated a
// node, a key copy and a list per name: a third of an add + remove among 4 boxes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace gjk::robots {

/// A multimap from names to ids that stores no names: linear probing over (32-bit hash, id)
/// slots, at most half full, with backward-shift deletion (no tombstones, so lookups stay short
/// under any sequence of inserts and erases). Several ids may share a name, and one id may be
/// stored under several names: once per distinct hash, as a lookup visits every entry of the
/// key's hash whose id is_named accepts (two entries of one id under one hash are two visits).
class NameIndex {
 public:
  /// Empties the index (and frees its table).
  void clear() {
    slots_.clear();
    used_ = 0;
  }
  /// Number of stored (name, id) entries.
  size_t size() const { return used_; }

  /// The hash every other call takes: computed once per name by the caller, which may keep it
  /// beside the name (the world keeps each obstacle's, so a removal hashes nothing but the key).
  static std::uint32_t hash_of(std::string_view key) {
    const size_t h = std::hash<std::string_view>{}(key);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

  /// Stores `id` under the name whose hash_of is `hash`.
  void insert(std::uint32_t hash, int id) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    place({hash, id});
    ++used_;
  }

  /// Makes room for `entries` entries in all: inserts up to that count allocate nothing (so
  /// cannot throw).
  void reserve(size_t entries) {
    while (2 * entries > slots_.size()) grow();
  }

  /// Calls `visit(id)` for every id stored under a name equal to the key of hash `hash`;
  /// `is_named(id)` says whether id's name (or one of its names) is the key, as ids that only
  /// share the hash are visited by the probe too. Neither may insert into or erase from the
  /// index: the walk reads the probe run as it goes (collect the ids, then edit).
  template <class IsNamed, class Visit>
  void for_each(std::uint32_t hash, IsNamed&& is_named, Visit&& visit) const {
    if (slots_.empty()) return;
    for (size_t i = home(hash); slots_[i].id != kEmpty; i = next(i))
      if (slots_[i].hash == hash && is_named(slots_[i].id)) visit(slots_[i].id);
  }

  /// Removes `id` from under the name of hash `hash` (nothing when it is not there).
  void erase(std::uint32_t hash, int id) {
    const size_t found = find(hash, id);
    if (found == kNone) return;
    // Backward shift: later slots of the probe run whose home is not after the hole move into
    // it, so every remaining key stays reachable from its home without a tombstone.
    size_t hole = found;
    for (size_t i = next(hole); slots_[i].id != kEmpty; i = next(i)) {
      const size_t h = home(slots_[i].hash);
      const bool stays = hole <= i ? (hole < h && h <= i) : (hole < h || h <= i);
      if (stays) continue;
      slots_[hole] = slots_[i];
      hole = i;
    }
    slots_[hole] = {0, kEmpty};
    --used_;
  }

  /// The entry of `id` under the name of hash `hash` becomes `new_id` (nothing when it is not
  /// there).
  void relabel(std::uint32_t hash, int id, int new_id) {
    const size_t found = find(hash, id);
    if (found != kNone) slots_[found].id = new_id;
  }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::int32_t id = kEmpty;
  };
  static constexpr std::int32_t kEmpty = -1;
  static constexpr size_t kNone = static_cast<size_t>(-1);

  size_t home(std::uint32_t hash) const { return hash & (slots_.size() - 1); }
  size_t next(size_t i) const { return (i + 1) & (slots_.size() - 1); }

  size_t find(std::uint32_t hash, int id) const {
    if (slots_.empty()) return kNone;
    for (size_t i = home(hash); slots_[i].id != kEmpty; i = next(i))
      if (slots_[i].hash == hash && slots_[i].id == id) return i;
    return kNone;
  }
  void place(Slot slot) {
    size_t i = home(slot.hash);
    while (slots_[i].id != kEmpty) i = next(i);
    slots_[i] = slot;
  }
  void grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : 2 * slots_.size());
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.id != kEmpty) place(s);
  }

  std::vector<Slot> slots_;  ///< a power of two in size, or empty
  size_t used_ = 0;
};

}  // namespace gjk::robots
