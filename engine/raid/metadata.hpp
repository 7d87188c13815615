// The metadata thread: superblock updates, off the I/O path.
//
// Whoever changes what the superblocks record (a member failed, the array
// marked active before its first write, a rebuild checkpoint) calls
// request(), which returns an epoch; the thread runs the front's sync
// function (compose the superblocks, write and flush them on every member)
// and then the waiters of every epoch it covered. An I/O completion that
// needs the update durable before it may complete (a write that failed on
// one mirror) registers a waiter instead of blocking its thread.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rs::raid {

class MetadataWriter {
 public:
  // `sync` runs on the metadata thread, never concurrently with itself.
  explicit MetadataWriter(std::function<void()> sync);
  ~MetadataWriter();  // runs what was requested, then stops
  MetadataWriter(const MetadataWriter&) = delete;
  MetadataWriter& operator=(const MetadataWriter&) = delete;

  // Any thread: asks for a sync that sees every change made before this
  // call; returns its epoch.
  uint64_t request();
  // Any thread: runs `fn` on the metadata thread once epoch `e` is durable
  // (at once, on the caller's thread, if it already is).
  void when_durable(uint64_t e, std::function<void()> fn);
  // Blocks until epoch `e` is durable (maintenance threads, close()).
  void wait(uint64_t e);
  uint64_t durable() const;
  // Blocks until everything requested so far is durable.
  void wait_all();

 private:
  void run();

  std::function<void()> sync_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t requested_ = 0, durable_ = 0;
  std::vector<std::pair<uint64_t, std::function<void()>>> waiters_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace rs::raid
