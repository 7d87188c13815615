// libFuzzer target: md's write-intent bitmap superblock decoder
// (ondisk::decode_bitmap). The array uuid is taken from the input itself
// (bytes 8..23, where the bitmap superblock keeps it) so the fuzzer gets
// past the uuid check; what is accepted must round-trip through encode.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ondisk/bitmap.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> block(data, size);
  rs::ondisk::Uuid uuid{};
  if (size >= 24) std::copy(data + 8, data + 24, uuid.begin());
  // The space RaidScope's layout leaves (bitmap at 8 KiB, data at 1 MiB), and none.
  for (uint64_t space : {uint64_t{(1 << 20) - 8192}, uint64_t{0}}) {
    const auto first = rs::ondisk::decode_bitmap(block, uuid, space);
    if (!first) continue;
    const auto bytes = rs::ondisk::encode_bitmap(*first);
    const auto again = rs::ondisk::decode_bitmap(bytes, uuid, space);
    if (!again || !(*again == *first)) std::abort();
  }
  return 0;
}
