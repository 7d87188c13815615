#include "raid/level_info.hpp"

namespace rs::raid {
namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

bool power_of_two(uint64_t v) { return v && !(v & (v - 1)); }

}  // namespace

std::string LevelInfo::chunk_problem(uint64_t bytes) {
  if (power_of_two(bytes) && bytes >= kMinChunkBytes && bytes <= kMaxChunkBytes) return "";
  return "a chunk must be a power of two from 4K to 1G";
}

Status LevelInfo::check_members(int raid_disks) const {
  if (raid_disks >= min_members && raid_disks <= max_members) return {};
  return make_error(Errc::invalid_argument, std::string(name) + " takes " + std::to_string(min_members) + " to " +
                                                std::to_string(max_members) + " members, not " +
                                                std::to_string(raid_disks));
}

Result<uint32_t> LevelInfo::parse_layout(std::string_view text, int raid_disks) const {
  if (!has_layouts())
    return make_error(Errc::invalid_argument,
                      "--layout=" + std::string(text) + ": " + name + " has no layouts");
  return parse_layout_text(text, raid_disks);
}

std::string LevelInfo::layout_name(uint32_t word) const { return layout_text ? layout_text(word) : std::string(); }

std::vector<std::string> LevelInfo::layout_names(int raid_disks) const {
  return layout_texts ? layout_texts(raid_disks) : std::vector<std::string>{};
}

Result<Shape> LevelInfo::new_shape(int raid_disks, std::optional<uint32_t> layout,
                                   std::optional<uint32_t> chunk_bytes) const {
  if (Status s = check_members(raid_disks); !s) return s.error();
  Shape shape;
  shape.level = level;
  shape.raid_disks = raid_disks;
  if (layout && !has_layouts() && *layout != 0)
    return make_error(Errc::invalid_argument, std::string(name) + " has no layouts (layout " +
                                                  std::to_string(*layout) + " given)");
  shape.layout = layout.value_or(default_layout);
  if (!chunked) {
    if (chunk_bytes)
      return make_error(Errc::invalid_argument, std::string("--chunk: ") + name + " has no chunks");
    return shape;
  }
  const uint32_t chunk = chunk_bytes.value_or(kDefaultChunkBytes);
  if (std::string why = chunk_problem(chunk); !why.empty())
    return make_error(Errc::invalid_argument, "--chunk " + std::to_string(chunk) + " bytes: " + why);
  shape.chunk_sectors = chunk / uint32_t(kSectorBytes);
  return shape;
}

const LevelInfo* LevelTable::find(int level) const {
  for (const auto& l : levels)
    if (l.level == level) return &l;
  return nullptr;
}

Result<const LevelInfo*> LevelTable::get(int level) const {
  if (const LevelInfo* l = find(level)) return l;
  return make_error(Errc::unsupported,
                    "raid level " + std::to_string(level) + " is not supported (levels: " + names() + ")");
}

std::string LevelTable::names() const {
  std::string s;
  for (const auto& l : levels) s += (s.empty() ? "" : ", ") + std::to_string(l.level);
  return s;
}

std::string LevelTable::names_with_layouts() const {
  std::vector<std::string> n;
  for (const auto& l : levels)
    if (l.has_layouts()) n.push_back(l.name);
  return join_names(n);
}

std::string LevelTable::names_chunked() const {
  std::vector<std::string> n;
  for (const auto& l : levels)
    if (l.chunked) n.push_back(l.name);
  return join_names(n);
}

}  // namespace rs::raid
