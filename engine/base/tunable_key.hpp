// A typed handle on a tunable: the exact name the owner registers it under
// and the C++ type its value has. Code that knows which tunable it means
// names it by its key, never by text matching ("ends with /device_profile"),
// and a typed set (telemetry::TunableRegistry::set(key, value)) carries the
// value as that type, so no text is parsed between the edge that read the
// user's words and the owner that applies them.
//
// For a choice tunable T is an enum whose values are the indexes of the
// choices (balance::PolicyId for read_policy); for a per-member tunable
// at(member) is its exact address, md's "rdN/name".
#pragma once
#include <string>
#include <string_view>

namespace rs {

template <class T>
struct TunableKey {
  using value_type = T;
  std::string_view name;

  std::string at(int member) const { return "rd" + std::to_string(member) + "/" + std::string(name); }
};

}  // namespace rs
