// RAID6's two syndromes over pages, through ISA-L, as md computes them:
// P is the XOR of the data blocks, Q = sum of g^k * D_k in GF(2^8) with
// polynomial 0x11d and generator g = 2, where k is the block's place in
// md's syndrome order (layout::raid6_syndrome_slot). P and Q come from
// pq_gen / pq_check and recovery from ISA-L's gf_* scalars and the
// ec_init_tables / ec_encode_data tables: no GF arithmetic is written out
// here (the RAID5 XOR is parity.hpp).
//
// Blocks are `len` bytes, a multiple of 32, 32-byte aligned. `data` lists
// the data blocks in syndrome order (data[k] is multiplied by g^k); 2 to
// 126 of them (4 to 128 members).
#pragma once
#include <cstddef>
#include <cstdint>

namespace rs::raid5 {

inline constexpr int kMaxSyndromeData = 126;

// p = XOR of data, q = the Reed-Solomon syndrome.
void pq_generate(uint8_t* const* data, int data_count, uint8_t* p, uint8_t* q, size_t len);

// Which syndrome disagrees with the data (md's check counts a mismatch when
// either does). `scratch` (len bytes) is used only when P is wrong, to tell
// whether Q is wrong too.
struct PqVerdict {
  bool p_ok = true;
  bool q_ok = true;
  bool ok() const { return p_ok && q_ok; }
};
PqVerdict pq_verify(uint8_t* const* data, int data_count, uint8_t* p, uint8_t* q, size_t len,
                    uint8_t* scratch);

// Read-modify-write of one data block (md's RAID6 rmw): P and Q updated in
// place from its old and new contents, the other data blocks unread.
// `slot` is the block's place in the syndrome order.
void pq_update(int slot, const uint8_t* old_data, const uint8_t* new_data, uint8_t* p, uint8_t* q,
               size_t len);

// Rebuilds one or two lost blocks of a stripe from the rest. blocks[0..
// data_count-1] are the data in syndrome order, blocks[data_count] is P,
// blocks[data_count + 1] is Q. blocks[lost_a] (and blocks[lost_b] when
// lost_b >= 0, lost_b != lost_a) are overwritten; every other block must
// hold the stripe's current contents. Any pair: data+data, data+P,
// data+Q, P+Q.
void pq_recover(uint8_t* const* blocks, int data_count, int lost_a, int lost_b, size_t len);

// A read's share of pq_recover: only data block `want` (lost_a or lost_b,
// below data_count) is rebuilt; the other lost block is left as it was, and
// P and Q are only read. One GF row when the other lost block is data or P
// (not the two rows and the syndrome regeneration of pq_recover), the XOR
// of P and the rest of the data when it is Q or nothing.
void pq_recover_one(uint8_t* const* blocks, int data_count, int lost_a, int lost_b, int want, size_t len);

}  // namespace rs::raid5
