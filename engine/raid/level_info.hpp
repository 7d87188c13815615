// The one table of level rules, as md's struct md_personality plus what
// mdadm knows of a level: member limits, whether data is chunked, the
// default layout and its spellings, the used device sectors, and the
// personality factory. Create, assemble, the CLI, the GUI, the scenarios and
// `tunables` ask a LevelInfo; nothing else writes out a level's rules.
//
// Adding a level is a personality folder that defines its LevelInfo (as
// mirror/mirror_levels.cpp and raid5/raid5_level.cpp do) plus one row in
// levels/levels.cpp.
//
// Layouts are md's layout words everywhere in the engine; the text forms
// (mdadm's --layout spellings) exist only at the edges and are parsed and
// printed here. "No layout given" is std::nullopt, never 0: 0 is a real
// layout (RAID5's left-asymmetric).
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "raid/personality.hpp"

namespace rs::raid {

class ArrayCore;

// mdadm's default chunk for a new chunked array.
inline constexpr uint32_t kDefaultChunkBytes = 512 * 1024;
inline constexpr uint32_t kMinChunkBytes = 4096;
inline constexpr uint32_t kMaxChunkBytes = 1u << 30;

struct LevelInfo {
  int level = 0;
  const char* name = "";  // "raid1", as mdadm prints it
  int min_members = 0, max_members = 0;
  // Data is laid out in chunks (a chunk size applies; default kDefaultChunkBytes).
  bool chunked = false;
  // md's layout word of a new array when none is asked for (mdadm's default).
  uint32_t default_layout = 0;

  // ---- the level's own functions (null where the level has no layouts) ----
  // mdadm's --layout spelling into md's word, checked against the member count.
  Result<uint32_t> (*parse_layout_text)(std::string_view text, int raid_disks) = nullptr;
  // mdadm's --layout spelling of a word ("n2", "left-symmetric"); "" when there is none.
  std::string (*layout_text)(uint32_t word) = nullptr;
  // The spellings a user picks from for `raid_disks` members, the default first.
  std::vector<std::string> (*layout_texts)(int raid_disks) = nullptr;
  // Checks the shape (layout word, chunk) and makes the personality.
  Result<std::unique_ptr<Personality>> (*make)(const Shape& shape, ArrayCore& core) = nullptr;
  // The used device sectors (md's `size`) for members of `member_sectors`
  // data sectors each, or an error naming why the shape does not fit.
  Result<uint64_t> (*used_dev_sectors)(const Shape& shape, uint64_t member_sectors) = nullptr;
  // Parity levels: what each member holds in stripe `stripe` of layout
  // `layout` (layout/stripe_roles.hpp: an array chunk number, kStripeP or
  // kStripeQ); null for levels without parity stripes.
  std::vector<int64_t> (*stripe_roles)(uint32_t layout, int raid_disks, uint64_t stripe) = nullptr;

  // ---- the rules every front end asks ----
  bool has_layouts() const { return parse_layout_text != nullptr; }
  // "raid5 takes 3 to 128 members, not 2" when `raid_disks` is out of range.
  Status check_members(int raid_disks) const;
  // A --layout spelling for this level; refused, naming the levels that have
  // layouts, when this one has none.
  Result<uint32_t> parse_layout(std::string_view text, int raid_disks) const;
  // mdadm's spelling of `word` for this level ("" when it has none).
  std::string layout_name(uint32_t word) const;
  std::vector<std::string> layout_names(int raid_disks) const;
  // Why `bytes` cannot be a chunk ("" when it can): md takes powers of two
  // from 4K to 1G. Each front end names its own field before it.
  static std::string chunk_problem(uint64_t bytes);
  // The shape of a new array: member count checked, the default layout and
  // chunk where none is given, a chunk refused on an unchunked level or when
  // not a power of two from 4K to 1G. dev_sectors and data_offset are left 0.
  Result<Shape> new_shape(int raid_disks, std::optional<uint32_t> layout, std::optional<uint32_t> chunk_bytes) const;
};

struct LevelTable {
  std::vector<LevelInfo> levels;
  const LevelInfo* find(int level) const;
  // The level's row, or an error listing the levels this build offers.
  Result<const LevelInfo*> get(int level) const;
  std::string names() const;  // "1, 10, 5"
  // The names of the levels that take a layout / a chunk ("raid10 and raid5").
  std::string names_with_layouts() const;
  std::string names_chunked() const;
};

}  // namespace rs::raid
