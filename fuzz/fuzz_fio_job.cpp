// libFuzzer target: the fio job file parser (fio::parse_job_file) on
// arbitrary text. Every rejection must carry a message; a parse must never
// crash, hang or read out of bounds.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fio/job_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto r = rs::fio::parse_job_file(text, "fuzz.fio");
  if (!r && r.error().message.empty()) std::abort();  // a refusal that says nothing
  return 0;
}
