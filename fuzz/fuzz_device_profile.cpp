// libFuzzer target: the device-profile JSON parser (io::parse_profile) on
// arbitrary text. A rejection must say why; an accepted profile must pass
// validate_profile (the parser's promise).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "io/device_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto p = rs::io::parse_profile(text, "fuzz.json");
  if (!p && p.error().message.empty()) std::abort();
  if (p && !rs::io::validate_profile(*p)) std::abort();
  return 0;
}
