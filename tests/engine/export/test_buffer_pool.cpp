// The connection's request buffers: sizes rounded to a power of two of at
// least 4 KiB, a buffer handed back is the one the next request of that
// size gets, and no more than kKeepBytes are kept.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "export/buffer_pool.hpp"

using rs::nbd::BufferPool;

TEST_CASE("buffer pool: rounded sizes, reuse, a bound on what is kept", "[export]") {
  CHECK(BufferPool::rounded(1) == 4096);
  CHECK(BufferPool::rounded(4096) == 4096);
  CHECK(BufferPool::rounded(4097) == 8192);
  CHECK(BufferPool::rounded(1u << 20) == (1u << 20));
  CHECK(BufferPool::rounded((1u << 20) + 512) == (2u << 20));

  BufferPool pool;
  auto take = [&pool](size_t bytes) {
    auto buffer = pool.take(bytes);
    REQUIRE(buffer.ok());
    return std::move(*buffer);
  };
  auto a = take(3000);
  REQUIRE(a.data());
  CHECK(a.size() == 4096);
  CHECK(reinterpret_cast<uintptr_t>(a.data()) % 4096 == 0);
  uint8_t* const first = a.data();
  pool.give(std::move(a));
  auto b = take(65536);  // another size: a new buffer
  CHECK(b.size() == 65536);
  CHECK(b.data() != first);
  auto c = take(4096);  // the one handed back
  CHECK(c.data() == first);

  // Filled to the bound (64 x 1 MiB), the next one is not kept.
  std::vector<rs::io::AlignedBuffer> big;
  for (size_t i = 0; i < BufferPool::kKeepBytes / (1u << 20) + 1; ++i) big.push_back(take(1u << 20));
  std::vector<uint8_t*> given;
  for (auto& x : big) {
    given.push_back(x.data());
    pool.give(std::move(x));
  }
  // The pool hands back the kept ones; the last one given was freed.
  std::vector<uint8_t*> back;
  for (size_t i = 0; i < BufferPool::kKeepBytes / (1u << 20); ++i) back.push_back(take(1u << 20).data());
  std::sort(back.begin(), back.end());
  std::vector<uint8_t*> kept(given.begin(), given.end() - 1);
  std::sort(kept.begin(), kept.end());
  CHECK(back == kept);
}
