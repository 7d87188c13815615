#include "raid5/pq_syndrome.hpp"

#include <isa-l/erasure_code.h>
#include <isa-l/raid.h>

#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "raid5/parity.hpp"

namespace rs::raid5 {

namespace {

// g^k for k = 0..254, from ISA-L's scalar multiply (g = 2).
const std::array<uint8_t, 255>& generator_powers() {
  static const std::array<uint8_t, 255> powers = [] {
    std::array<uint8_t, 255> p{};
    p[0] = 1;
    for (size_t k = 1; k < p.size(); ++k) p[k] = gf_mul(p[k - 1], 2);
    return p;
  }();
  return powers;
}
uint8_t gpow(int k) {
  return generator_powers()[size_t(k)];
}

// Per-thread scratch, grown once, so the I/O path does not allocate.
struct Scratch {
  std::vector<void*> vec;
  std::vector<uint8_t*> src;
  std::vector<uint8_t> coef;
  std::vector<uint8_t> tables;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// out[r] = sum over i of coef[r * k + i] * src[i], through ISA-L's tables.
void encode_rows(int k, int rows, uint8_t* const* src, uint8_t* const* out, const uint8_t* coef, size_t len) {
  Scratch& s = scratch();
  s.tables.resize(size_t(32) * size_t(k) * size_t(rows));
  ec_init_tables(k, rows, const_cast<uint8_t*>(coef), s.tables.data());
  ec_encode_data(int(len), k, rows, s.tables.data(), const_cast<uint8_t**>(src), const_cast<uint8_t**>(out));
}

// Data block `a` from Q and the other data (P lost too): D_a = g^-a * (Q + sum g^j D_j).
void recover_data_from_q(uint8_t* const* blocks, int d, int a, size_t len) {
  Scratch& s = scratch();
  s.src.clear();
  s.coef.clear();
  const uint8_t inv = gf_inv(gpow(a));
  for (int j = 0; j < d; ++j) {
    s.src.push_back(j == a ? blocks[d + 1] : blocks[j]);
    s.coef.push_back(j == a ? inv : gf_mul(gpow(j), inv));
  }
  encode_rows(d, 1, s.src.data(), &blocks[a], s.coef.data(), len);
}

// Data blocks a and b from P, Q and the other data. With P' and Q' the
// syndromes of the two lost blocks alone, D_a = (g^b P' + Q') / (g^a + g^b)
// and D_b the same with a and b swapped; folded into one coefficient per
// present block. `rows` 1: D_a alone (D_b left as it was).
void recover_two_data(uint8_t* const* blocks, int d, int a, int b, int rows, size_t len) {
  Scratch& s = scratch();
  s.src.clear();
  const uint8_t den = gf_inv(gpow(a) ^ gpow(b));
  std::vector<uint8_t>& c = s.coef;
  c.assign(size_t(rows) * size_t(d), 0);
  int i = 0;
  auto add = [&](uint8_t* block, uint8_t ca, uint8_t cb) {
    s.src.push_back(block);
    c[size_t(i)] = ca;
    if (rows == 2) c[size_t(d + i)] = cb;
    ++i;
  };
  for (int j = 0; j < d; ++j)
    if (j != a && j != b) add(blocks[j], gf_mul(den, gpow(b) ^ gpow(j)), gf_mul(den, gpow(a) ^ gpow(j)));
  add(blocks[d], gf_mul(den, gpow(b)), gf_mul(den, gpow(a)));  // P
  add(blocks[d + 1], den, den);                                // Q
  uint8_t* out[2] = {blocks[a], blocks[b]};
  encode_rows(d, rows, s.src.data(), out, c.data(), len);
}

// Data block `a` as the XOR of P and the other data blocks.
void recover_data_from_p(uint8_t* const* blocks, int d, int a, size_t len) {
  Scratch& s = scratch();
  s.src.clear();
  for (int j = 0; j <= d; ++j)
    if (j != a) s.src.push_back(blocks[j]);
  xor_into(blocks[a], s.src.data(), d, len);
}

}  // namespace

void pq_generate(uint8_t* const* data, int data_count, uint8_t* p, uint8_t* q, size_t len) {
  Scratch& s = scratch();
  s.vec.assign(data, data + data_count);
  s.vec.push_back(p);
  s.vec.push_back(q);
  pq_gen(data_count + 2, int(len), s.vec.data());
}

PqVerdict pq_verify(uint8_t* const* data, int data_count, uint8_t* p, uint8_t* q, size_t len,
                    uint8_t* scratch_q) {
  Scratch& s = scratch();
  s.vec.assign(data, data + data_count);
  s.vec.push_back(p);
  s.vec.push_back(q);
  if (pq_check(data_count + 2, int(len), s.vec.data()) == 0) return {};
  s.src.assign(data, data + data_count);
  s.src.push_back(p);
  PqVerdict v;
  v.p_ok = xor_is_zero(s.src.data(), data_count + 1, len);
  if (v.p_ok) {
    v.q_ok = false;  // pq_check failed with P right: Q is wrong
    return v;
  }
  // P is wrong: rebuild Q alone from the data and compare.
  uint8_t* const out = scratch_q;
  s.coef.resize(size_t(data_count));
  for (int k = 0; k < data_count; ++k) s.coef[size_t(k)] = gpow(k);
  s.src.assign(data, data + data_count);
  encode_rows(data_count, 1, s.src.data(), &out, s.coef.data(), len);
  v.q_ok = std::memcmp(out, q, len) == 0;
  return v;
}

void pq_update(int slot, const uint8_t* old_data, const uint8_t* new_data, uint8_t* p, uint8_t* q,
               size_t len) {
  Scratch& s = scratch();
  uint8_t coef[2] = {1, gpow(slot)};
  s.tables.resize(64);
  ec_init_tables(1, 2, coef, s.tables.data());
  uint8_t* out[2] = {p, q};
  // Over GF(2^8) adding old and new contents adds their difference.
  ec_encode_data_update(int(len), 1, 2, 0, s.tables.data(), const_cast<uint8_t*>(old_data), out);
  ec_encode_data_update(int(len), 1, 2, 0, s.tables.data(), const_cast<uint8_t*>(new_data), out);
}

void pq_recover(uint8_t* const* blocks, int data_count, int lost_a, int lost_b, size_t len) {
  const int d = data_count, P = d, Q = d + 1;
  if (lost_b >= 0 && lost_b < lost_a) std::swap(lost_a, lost_b);  // two lost: a < b
  if (lost_a >= d) {                                              // only syndromes lost
    if (lost_a == P && lost_b < 0)
      xor_into(blocks[P], blocks, d, len);
    else
      pq_generate(blocks, d, blocks[P], blocks[Q], len);
    return;
  }
  if (lost_b >= 0 && lost_b < d) {
    recover_two_data(blocks, d, lost_a, lost_b, 2, len);
    return;
  }
  if (lost_b == P) {
    recover_data_from_q(blocks, d, lost_a, len);
    xor_into(blocks[P], blocks, d, len);
    return;
  }
  // One data block from P and the other data; Q (when lost too) after it.
  recover_data_from_p(blocks, d, lost_a, len);
  if (lost_b == Q) pq_generate(blocks, d, blocks[P], blocks[Q], len);
}

void pq_recover_one(uint8_t* const* blocks, int data_count, int lost_a, int lost_b, int want, size_t len) {
  const int d = data_count;
  const int other = want == lost_a ? lost_b : lost_a;
  if (other >= 0 && other < d)
    recover_two_data(blocks, d, want, other, 1, len);
  else if (other == d)  // P lost too
    recover_data_from_q(blocks, d, want, len);
  else  // Q lost too, or nothing else
    recover_data_from_p(blocks, d, want, len);
}

}  // namespace rs::raid5
