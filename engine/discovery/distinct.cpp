#include "discovery/distinct.hpp"

#include <filesystem>
#include <optional>

#include "discovery/identity.hpp"

namespace rs::discovery {
namespace {

// A member as far as it can be known before opening it.
struct Seen {
  std::optional<Identity> identity;  // when it exists and can be identified
  std::string future_name;           // when it does not exist yet
};

Seen look_at(const std::string& path, const SystemRoots& roots) {
  auto id = identify(path, roots);
  if (id.ok()) return {std::move(*id), ""};
  if (id.error().code != Errc::not_found) return {};
  std::error_code ec;
  auto name = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return {std::nullopt, ec ? path : name.lexically_normal().string()};
}

Error duplicate(const std::string& why) {
  return make_error(Errc::invalid_argument, why + ": the same member given twice");
}

}  // namespace

Status check_distinct(const std::vector<std::string>& paths, const SystemRoots& roots) {
  std::vector<Seen> seen;
  seen.reserve(paths.size());
  for (const auto& p : paths) seen.push_back(look_at(p, roots));
  for (size_t i = 0; i < seen.size(); ++i) {
    for (size_t j = i + 1; j < seen.size(); ++j) {
      const Seen &a = seen[i], &b = seen[j];
      if (a.identity && b.identity && same_storage(*a.identity, *b.identity))
        return duplicate(same_storage_reason(*a.identity, *b.identity));
      if (!a.future_name.empty() && a.future_name == b.future_name)
        return duplicate(paths[i] == paths[j] ? paths[i] + " is named twice"
                                              : paths[i] + " and " + paths[j] + " are the same path");
    }
  }
  return {};
}

}  // namespace rs::discovery
