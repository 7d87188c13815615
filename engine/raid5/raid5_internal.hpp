// The personality's private per-I/O and per-batch state, shared by
// raid5_io.cpp (array I/O), raid5d.cpp (the cache's queues) and
// stripe_batch.cpp (member I/O of a batch of heads).
#pragma once
#include <vector>

#include "raid5/raid5.hpp"

namespace rs::raid5 {

struct Raid5Personality::Child : raid::MemberChild {
  Raid5Personality* self = nullptr;
  Batch* batch = nullptr;         // a batch's member I/O: its batch
  uint32_t first = 0, count = 0;  // and its heads: batch->heads[first, first + count)
};

// Reads: a chunk piece read straight from its data member, or (reconstruct)
// through the stripe heads of its page columns.
struct Raid5Personality::Seg {
  uint64_t stripe = 0;
  uint32_t lo = 0, n = 0;  // sectors within the chunk
  int disk = -1;
  bool reconstruct = false;
  uint8_t* dest = nullptr;
};

// One 4 KiB block of a bio on its stripe head: written from `buf`, or (a
// degraded read) reconstructed into `buf`.
struct Raid5Personality::Piece {
  uint64_t column = 0;
  int member = -1;
  uint8_t* buf = nullptr;
};

struct Raid5Personality::Io : raid::PersonalityIo {
  std::vector<Seg> segs;
  std::vector<Child> children;  // direct reads
  std::vector<uint8_t> failed;  // members this I/O found failing: planned around
  std::vector<Piece> pieces;
  std::vector<StripeHead*> touched;
  size_t n_segs = 0, n_pieces = 0, attach_pos = 0, next_child = 0;
  unsigned outstanding = 0;  // direct reads in flight (+1 while issuing)
  bool replan = false;       // a direct read failed: plan again without that member
  // Has work on stripe heads (a write, or a read with blocks to
  // reconstruct): only then do the fields below and mutex_ take part.
  bool through_heads = false;
  uint32_t max_length = 0;
  // Under the personality's mutex_:
  size_t pending_heads = 0;  // heads holding work of this bio
  bool attach_done = false, direct_done = false, completed = false;
  int head_error = 0;
  uint64_t head_epoch = 0;  // a member failure its heads' writes must wait for
  WriteStreams::Ticket stream;  // a write: how its submitter's stream counted it
};

// Maintenance: `members` blocks of `bytes` each, per thread, kept between calls.
Result<std::vector<uint8_t*>> member_blocks(size_t members, size_t bytes);

// Heads raid5d handed to one context, handled together so that adjacent
// heads share member I/Os.
struct Raid5Personality::Batch {
  Batch* next = nullptr;  // the next batch of the same pass, or of the spare list
  io::IoContext* context = nullptr;
  raid::ArrayIo* parent = nullptr;  // a bio of the batch on `context`: its member I/O goes through it
  std::vector<StripeHead*> heads;   // by column
  std::vector<uint8_t> io;          // heads x disks: the page is read (reading) or written (writing)
  std::vector<uint8_t*> buf;  // heads x disks: where it is written from (the bio's data, or the cache's page)
  std::vector<uint8_t> error;       // per head: its round failed
  std::vector<WriteMethod> method;  // per head
  std::vector<int> pd;              // per head: parity member
  std::vector<int> qd;              // per head: RAID6's Q member (-1 on RAID5)
  // per head, RAID6: every readable block is read and the missing ones (at
  // most two) recovered before the head's reads and writes are served.
  std::vector<uint8_t> recover;
  // A head of the batch rebuilds a block from the others (a degraded read,
  // or a RAID6 head short of blocks): the survivor reads go into the
  // cache's pages, which are then registered with the context's ring.
  bool reconstructs = false;
  std::vector<uint8_t> failed;      // members that failed under this batch
  std::vector<uint8_t> unreadable;  // members kept after a read error here: not read again in this batch
  std::vector<Child> children;
  std::vector<uint8_t> scratch_written, scratch_readable;
  unsigned outstanding = 0;
  bool writing = false, replan = false;
  // A head of the batch was pre-read active when taken (set under the
  // lock): only then does its parity's end change what the queue may release.
  bool prereads_active = false;
};

}  // namespace rs::raid5
