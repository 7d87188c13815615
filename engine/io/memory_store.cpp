#include "io/memory_store.hpp"

#include <algorithm>
#include <cstring>

namespace rs::io {

void MemoryStore::write(int member, uint64_t offset, const void* src, size_t length) {
  if (member < 0 || length == 0) return;
  std::lock_guard lock(mu_);
  if (size_t(member) >= members_.size()) members_.resize(size_t(member) + 1);
  Member& m = members_[size_t(member)];
  const auto* in = static_cast<const uint8_t*>(src);
  while (length) {
    const uint64_t index = offset / kPageSize;
    const size_t in_page = size_t(offset % kPageSize);
    const size_t n = std::min(length, kPageSize - in_page);
    std::unique_ptr<Page>& page = m[index];
    if (!page) page = std::make_unique<Page>(Page{});
    std::memcpy(page->data() + in_page, in, n);
    in += n;
    offset += n;
    length -= n;
  }
}

void MemoryStore::read(int member, uint64_t offset, void* dst, size_t length) const {
  auto* out = static_cast<uint8_t*>(dst);
  std::lock_guard lock(mu_);
  const Member* m = member >= 0 && size_t(member) < members_.size() ? &members_[size_t(member)] : nullptr;
  while (length) {
    const uint64_t index = offset / kPageSize;
    const size_t in_page = size_t(offset % kPageSize);
    const size_t n = std::min(length, kPageSize - in_page);
    const Page* page = nullptr;
    if (m) {
      auto it = m->find(index);
      if (it != m->end()) page = it->second.get();
    }
    if (page)
      std::memcpy(out, page->data() + in_page, n);
    else
      std::memset(out, 0, n);
    out += n;
    offset += n;
    length -= n;
  }
}

size_t MemoryStore::pages() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const Member& m : members_) n += m.size();
  return n;
}

void MemoryStore::clear() {
  std::lock_guard lock(mu_);
  members_.clear();
}

}  // namespace rs::io
