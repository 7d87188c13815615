// libFuzzer target: the md v1.2 superblock decoder (ondisk::decode) on
// arbitrary bytes. It must never read outside the block it is given (an
// md superblock with max_dev = 60000 claims 120 KiB of roles: mdadm 4.2's
// checksum reads past its 4 KiB buffer there), and what it accepts must
// survive encode -> decode unchanged.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "ondisk/superblock.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> block(data, size);
  (void)rs::ondisk::checksum(block);
  // A large device (every layout fits) and the 64 MiB the seeds were made on.
  for (uint64_t device_bytes : {uint64_t{1} << 40, uint64_t{64} << 20}) {
    const auto first = rs::ondisk::decode(block, device_bytes);
    if (!first) {
      if (first.error().message.empty()) std::abort();  // a refusal that says nothing
      continue;
    }
    if (!rs::ondisk::validate(*first, device_bytes)) std::abort();  // decode's promise
    const auto again = rs::ondisk::decode(rs::ondisk::encode(*first), device_bytes);
    if (!again || !(*again == *first)) std::abort();  // a lossy round trip
  }
  return 0;
}
