// Rebuild onto an added member, and check/repair of the copies. These run
// synchronously on the caller's thread in large pieces: they are bandwidth
// jobs, not latency ones.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "discovery/signature.hpp"
#include "raid/array.hpp"
#include "raid/member_superblock.hpp"

namespace rs::raid {

namespace {
constexpr uint64_t kPieceSectors = 2048;            // 1 MiB
constexpr uint64_t kCheckpointSectors = 64 * 2048;  // record rebuild progress every 64 MiB
}  // namespace

bool Array::copy_range(int from_slot, int to_slot, uint64_t dev_sector_from, uint64_t dev_sector_to,
                       uint32_t sectors, std::vector<uint8_t>& scratch, std::string* error) {
  const size_t bytes = size_t(sectors) * kSectorBytes;
  io::MemberDevice& from = *slots_[size_t(from_slot)]->dev;
  io::MemberDevice& to = *slots_[size_t(to_slot)]->dev;
  if (!from.read_at((geo_.data_offset + dev_sector_from) * kSectorBytes, scratch.data(), bytes, error)) {
    on_member_error(from_slot, false, -EIO, dev_sector_from);
    return false;
  }
  if (!to.write_at((geo_.data_offset + dev_sector_to) * kSectorBytes, scratch.data(), bytes, error)) {
    on_member_error(to_slot, true, -EIO, dev_sector_to);
    return false;
  }
  return true;
}

std::unique_ptr<Array> Array::assemble_for_add(const std::vector<std::string>& members,
                                               const std::string& target, std::string* error) {
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    std::vector<std::string> with = members;
    with.push_back(target);
    std::string not_resumable;  // any reason: the plain assemble below decides
    if (auto arr = assemble(with, &not_resumable)) {
      const int slot = arr->slot_of(target);
      if (slot >= 0 && arr->slot(slot).st() == SlotState::Recovering) return arr;
    }
  }
  return assemble(members, error);
}

bool Array::add_member(const std::string& path, bool force, uint64_t create_bytes, ProgressFn progress,
                       std::string* error) {
  // Resume an interrupted rebuild of a member already in the array.
  int slot = slot_of(path);
  if (slot >= 0 && slots_[size_t(slot)]->st() != SlotState::Recovering) {
    *error = path + " is already an active member (role " + std::to_string(slot) + ")";
    return false;
  }
  if (slot < 0) {
    for (int i = 0; i < raid_disks(); ++i)
      if (slots_[size_t(i)]->st() == SlotState::Missing || slots_[size_t(i)]->st() == SlotState::Faulty) {
        slot = i;
        break;
      }
    if (slot < 0) {
      *error = "the array has no missing or failed member: nothing to rebuild onto " + path;
      return false;
    }
    struct stat st {};
    bool created = false;
    if (::stat(path.c_str(), &st) != 0) {
      if (!create_bytes) {
        *error = path + ": does not exist (use --create-files=SIZE to create an image file)";
        return false;
      }
      FILE* f = std::fopen(path.c_str(), "wx");
      if (!f || ::truncate(path.c_str(), off_t(create_bytes)) != 0) {
        *error = path + ": cannot create: " + std::strerror(errno);
        if (f) std::fclose(f);
        return false;
      }
      std::fclose(f);
      created = true;
    } else {
      if (std::string why = discovery::block_device_in_use(path); !why.empty()) {
        *error = path + ": refusing to write: " + why;
        return false;
      }
      std::string sig = discovery::existing_signature(path);
      // A former member of this array may come back without --force.
      bool ours = false;
      {
        std::string err;
        if (auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly, &err)) {
          auto res = read_superblock(*dev);
          ours = res.ok && res.sb.set_uuid == sb_.set_uuid;
          if (res.ok && !ours)
            sig = "an md superblock of another array (" + ondisk::uuid_to_string(res.sb.set_uuid) + ")";
        }
      }
      if (!ours && !sig.empty() && !force) {
        *error = path + ": holds " + sig + "; adding it would destroy it (use --force to overwrite)";
        return false;
      }
    }
    auto dev = io::MemberDevice::open(path, io::OpenMode::ReadWrite, error);
    if (!dev) {
      if (created) ::unlink(path.c_str());
      return false;
    }
    const uint64_t need = (geo_.data_offset + geo_.dev_sectors) * kSectorBytes;
    if (dev->size_bytes() < need) {
      *error = path + ": too small (" + std::to_string(dev->size_bytes()) + " bytes; the array needs " +
               std::to_string(need) + " per member)";
      if (created) ::unlink(path.c_str());
      return false;
    }
    std::lock_guard lock(meta_mutex_);
    Slot& s = *slots_[size_t(slot)];
    // A device number no present member uses (md's desc_nr).
    uint32_t dev_number = 0;
    for (bool used = true; used; ++dev_number) {
      used = false;
      for (auto& o : slots_)
        if (o.get() != &s && o->dev && o->st() != SlotState::Faulty && o->sb.dev_number == dev_number)
          used = true;
      if (!used) break;
    }
    if (s.dev) retired_.push_back(std::move(s.dev));
    s.dev = std::move(dev);
    members_version_.fetch_add(1, std::memory_order_release);
    s.sb = ondisk::Superblock{};
    s.sb.dev_number = dev_number;
    s.sb.device_uuid = ondisk::random_uuid();
    s.sb.data_size = s.dev->size_bytes() / kSectorBytes - geo_.data_offset;
    s.recovery_offset = 0;
    s.note.clear();
    s.state = int(SlotState::Recovering);
    metadata_changed_ = true;
    if (!write_superblocks(error)) return false;
  }

  // Writes from here on take part in the resync barrier (the ones that
  // started before did not write the new member; the copy waits for them).
  BarrierScope barrier(*this);

  // Rebuild: walk the new member's device sectors in order (so
  // recovery_offset only grows), reading each from an in-sync copy.
  Slot& target = *slots_[size_t(slot)];
  std::vector<uint8_t> scratch(kPieceSectors * kSectorBytes);
  uint64_t since_checkpoint = 0;
  const uint64_t total = geo_.dev_sectors;
  const uint64_t step =
      geo_.level == 10 ? std::min<uint64_t>(geo_.chunk_sectors, kPieceSectors) : kPieceSectors;
  for (uint64_t dev_sector = target.recovery_offset; dev_sector < total;) {
    const uint64_t n = std::min(step - dev_sector % step, total - dev_sector);
    const uint64_t array_sector = geo_.find_virt(slot, dev_sector);
    if (array_sector < geo_.array_sectors()) {
      layout::DevAddress addr[kMaxCopies];
      int copies = geo_.map(array_sector, addr);
      int source = -1;
      uint64_t source_sector = 0;
      for (int k = 0; k < copies && source < 0; ++k)
        if (addr[k].disk != slot && slots_[size_t(addr[k].disk)]->st() == SlotState::InSync) {
          source = addr[k].disk;
          source_sector = addr[k].sector;
        }
      if (source < 0) {
        *error = "no in-sync copy of array sector " + std::to_string(array_sector) + " to rebuild from";
        return false;
      }
      // The piece is one run of array sectors (within a chunk for raid10).
      bool copied;
      {
        BarrierPiece piece(*this, array_sector, array_sector + n);
        copied = copy_range(source, slot, source_sector, dev_sector, uint32_t(n), scratch, error);
      }
      if (!copied) return false;
      if (target.st() == SlotState::Faulty) {
        *error = path + " failed during rebuild: " + target.note;
        return false;
      }
    }
    dev_sector += n;
    target.recovery_offset = dev_sector;
    since_checkpoint += n;
    if (since_checkpoint >= kCheckpointSectors) {
      // Like md, record how far we got so an interrupted rebuild resumes.
      std::lock_guard lock(meta_mutex_);
      write_superblocks(error);
      since_checkpoint = 0;
    }
    if (progress) progress({dev_sector * kSectorBytes, total * kSectorBytes});
  }
  if (!target.dev->flush(error)) return false;
  std::lock_guard lock(meta_mutex_);
  target.state = int(SlotState::InSync);
  target.recovery_offset = 0;
  metadata_changed_ = true;
  return write_superblocks(error);
}

std::optional<uint64_t> Array::check(bool repair, ProgressFn progress, std::string* error) {
  // Writes running meanwhile must not land between reading one copy and the
  // next (a false mismatch) or between the read and a repair's write (an
  // older copy written over a newer one): md holds them at the same barrier.
  BarrierScope barrier(*this);
  const uint64_t total = geo_.array_sectors();
  const uint64_t step =
      geo_.level == 10 ? std::min<uint64_t>(geo_.chunk_sectors, kPieceSectors) : kPieceSectors;
  std::vector<std::vector<uint8_t>> bufs(size_t(geo_.copies()), std::vector<uint8_t>(step * kSectorBytes));
  uint64_t mismatches = 0;
  for (uint64_t sector = 0; sector < total;) {
    const uint64_t n = std::min(step - sector % step, total - sector);
    const size_t bytes = size_t(n) * kSectorBytes;
    layout::DevAddress addr[kMaxCopies];
    const int copies = geo_.map(sector, addr);
    BarrierPiece piece(*this, sector, sector + n);
    int first = -1;
    for (int k = 0; k < copies; ++k) {
      Slot& s = *slots_[size_t(addr[k].disk)];
      if (s.st() != SlotState::InSync) continue;
      if (!s.dev->read_at((geo_.data_offset + addr[k].sector) * kSectorBytes, bufs[size_t(k)].data(), bytes,
                          error)) {
        on_member_error(addr[k].disk, false, -EIO, addr[k].sector);
        return std::nullopt;
      }
      if (first < 0) {
        first = k;
        continue;
      }
      // md counts mismatches per 4 KiB page, in 512-byte sectors.
      bool differs = false;
      for (size_t off = 0; off < bytes; off += 4096) {
        size_t len = std::min<size_t>(4096, bytes - off);
        if (std::memcmp(bufs[size_t(first)].data() + off, bufs[size_t(k)].data() + off, len) != 0) {
          mismatches += len / kSectorBytes;
          differs = true;
        }
      }
      if (differs && repair &&
          !s.dev->write_at((geo_.data_offset + addr[k].sector) * kSectorBytes, bufs[size_t(first)].data(),
                           bytes, error)) {
        on_member_error(addr[k].disk, true, -EIO, addr[k].sector);
        return std::nullopt;
      }
    }
    sector += n;
    if (progress) progress({sector * kSectorBytes, total * kSectorBytes});
  }
  if (repair) {
    std::lock_guard lock(meta_mutex_);
    for (auto& s : slots_)
      if (s->st() == SlotState::InSync && !s->dev->flush(error)) return std::nullopt;
    if (needs_resync()) {
      // A full repair is md's resync: the array is consistent again.
      resync_needed_ = false;
      sb_.resync_offset = dirty_ ? 0 : ondisk::kMaxSector;
      metadata_changed_ = true;
      if (!write_superblocks(error)) return std::nullopt;
    }
  }
  return mismatches;
}

}  // namespace rs::raid
