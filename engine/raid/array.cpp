// The array front: construction shared by assemble/create/simulated, state,
// the front's own tunables, telemetry, backends, close.
#include "raid/array.hpp"

#include <algorithm>

#include "discovery/identity.hpp"
#include "io/fault_backend.hpp"
#include "io/recording_backend.hpp"
#include "io/uring_backend.hpp"
#include "raid/array_port.hpp"

namespace rs::raid {

Status Array::init(const LevelTable& levels, const Shape& shape) {
  auto level = levels.get(shape.level);
  if (!level) return level.take_error();
  level_ = *level;
  if (Status s = level_->check_members(shape.raid_disks); !s) return s;
  shape_ = shape;
  auto p = level_->make(shape, *this);
  if (!p) return p.take_error();
  personality_ = std::move(*p);
  counter_slots_ = std::make_unique<telemetry::CounterSlots>(size_t(shape.raid_disks) + 1);
  for (int i = 0; i < shape.raid_disks; ++i) {
    runtime_.push_back(std::make_unique<SlotRuntime>());
    runtime_.back()->counters.attach(counter_slots_.get(), size_t(i));
  }
  array_counters_.attach(counter_slots_.get(), size_t(shape.raid_disks));
  notes_.assign(size_t(shape.raid_disks), "");
  member_sb_.assign(size_t(shape.raid_disks), ondisk::Superblock{});
  fail_epoch_.assign(size_t(shape.raid_disks), 0);
  kept_error_ns_.assign(size_t(shape.raid_disks), 0);
  tunables_.set_member_count(shape.raid_disks);
  personality_->register_tunables(tunables_);
  register_front_tunables();
  register_read_error_tunable();
  read_fixes_ = std::make_unique<ReadFixQueue>([this](const ReadFix& f) { run_read_fix(f); });
  barrier_.set_resume([](ArrayIo& io) {
    ArrayPort* port = io.port;
    port->context().post([port, &io] { port->array().resubmit(io); });
  });
  return {};
}

void Array::start_metadata() {
  if (!simulated_ && !read_only_)
    metadata_ = std::make_unique<MetadataWriter>([this] { sync_superblocks(); });
}

void Array::register_front_tunables() {
  using telemetry::TunableSpec;
  using telemetry::TunableType;
  TunableSpec wm{"write_mostly",
                 TunableType::boolean,
                 0,
                 1,
                 {},
                 "",
                 "md's writemostly: reads avoid this member while another copy can serve them"};
  wm.per_member = true;
  tunables_.add(
      wm, [this](int m) { return std::string(runtime(m).write_mostly.load() ? "on" : "off"); },
      [this](int m, const telemetry::TunableValue& v) {
        runtime(m).write_mostly.store(v.number != 0);
        request_sync();  // recorded in the member's superblock (devflags)
        return Status{};
      });
  TunableSpec opt{"io_opt",
                  TunableType::bytes,
                  0,
                  64ll << 20,
                  {},
                  "bytes",
                  "the member's optimal I/O size as the read policies see it (0: what the device reports)"};
  opt.per_member = true;
  opt.check = telemetry::multiple_of_rule(512);
  tunables_.add(
      opt,
      [this](int m) {
        const uint32_t o = runtime(m).io_opt_override.load();
        return std::to_string(o ? o : (*table())[m].io_opt());
      },
      [this](int m, const telemetry::TunableValue& v) {
        runtime(m).io_opt_override.store(uint32_t(v.number));
        return Status{};
      });
  TunableSpec rot{"rotational",
                  TunableType::choice,
                  0,
                  0,
                  {"auto", "no", "yes"},
                  "",
                  "whether the read policies treat the member as a spinning disk (auto: what the device "
                  "reports; a loop device or image file reports the disk under it)"};
  rot.per_member = true;
  tunables_.add(
      rot,
      [this](int m) {
        const int8_t o = runtime(m).rotational_override.load();
        return std::string((o < 0 ? (*table())[m].rotational() : o != 0) ? "yes" : "no");
      },
      [this](int m, const telemetry::TunableValue& v) {
        runtime(m).rotational_override.store(v.number == 0 ? -1 : v.number == 2 ? 1 : 0);
        return Status{};
      });
}

Array::~Array() {
  if (Status s = close(); !s) events_.record({0, 0, "array", "close", "failed", s.error().message});
  if (read_fixes_) read_fixes_.reset();  // its rewrites use everything below
  stop_bitmap();
  metadata_.reset();  // its thread uses the state below: stop it first
}

bool Array::unsynced(uint64_t array_sector, uint64_t sectors) const {
  const uint64_t cp = recovery_cp_.load(std::memory_order_acquire);
  if (array_sector + sectors <= cp) return false;
  if (resync_bits_.empty()) return true;  // a full resync: everything past the point
  // A bitmap-driven resync covers only the chunks that were dirty.
  const auto [lo, hi] = personality_->bitmap_range(std::max(array_sector, cp), array_sector + sectors);
  const uint64_t cs = bitmap_->chunk_sectors();
  for (uint64_t c = lo / cs; c * cs < hi && c / 8 < resync_bits_.size(); ++c)
    if (resync_bits_[c / 8] & (1u << (c % 8))) return true;
  return false;
}

ondisk::Superblock Array::superblock() const {
  std::lock_guard lock(meta_mutex_);
  return sb_;
}

void Array::publish(MemberTable t) {
  t.version = table_version_.load(std::memory_order_relaxed) + 1;
  table_.store(std::make_shared<const MemberTable>(std::move(t)), std::memory_order_release);
  table_version_.store(t.version, std::memory_order_release);
}

Array::IoUnit Array::io_unit(const Personality& p, const MemberTable& t) {
  IoUnit unit{p.io_unit_bytes(), p.io_unit_reason()};
  for (const Member& m : t.members) {
    const uint32_t lbs = m.model ? m.model->logical_block_size()
                         : m.dev ? m.dev->info().logical_block_size
                                 : 0;
    if (lbs > unit.bytes) unit = {lbs, m.name + " has " + std::to_string(lbs) + "-byte logical blocks"};
  }
  return unit;
}

std::vector<uint64_t> Array::recovery_offsets() const {
  std::vector<uint64_t> v;
  for (const auto& r : runtime_) v.push_back(r->recovery_offset.load(std::memory_order_acquire));
  return v;
}

int Array::slot_of(const std::string& path) const {
  const TableRef t = table();
  for (int i = 0; i < t->size(); ++i)
    if ((*t)[i].dev && (*t)[i].dev->path() == path) return i;
  // Another name for a member's storage (a loop device over it, a link).
  auto id = discovery::identify(path);
  if (!id) return -1;
  for (int i = 0; i < t->size(); ++i)
    if ((*t)[i].dev && discovery::same_storage(*id, (*t)[i].dev->identity())) return i;
  return -1;
}

std::string Array::short_members(const MemberTable& t) const {
  std::string s;
  for (int i = 0; i < t.size(); ++i) {
    if (t[i].present() && t[i].state == MemberState::in_sync) continue;
    const std::string note = member_note(i);
    s += (s.empty() ? "" : "; ") + std::string("role ") + std::to_string(i) +
         (t[i].name.empty() ? "" : " " + t[i].name) + (note.empty() ? "" : " (" + note + ")");
  }
  return s;
}

std::string Array::member_note(int slot) const {
  std::lock_guard lock(meta_mutex_);
  return notes_[size_t(slot)];
}

int Array::working_members() const {
  return table()->count(MemberState::in_sync);
}

bool Array::redundant() const {
  const TableRef cur = table();
  const std::vector<uint64_t> offsets = recovery_offsets();
  for (int i = 0; i < cur->size(); ++i) {
    if ((*cur)[i].state != MemberState::in_sync) continue;
    MemberTable without = *cur;
    without.members[size_t(i)].state = MemberState::faulty;
    if (personality_->can_run(without, offsets)) return true;
  }
  return false;
}

std::string Array::state_text() const {
  std::string s = dirty_.load() ? "active" : "clean";
  if (degraded()) s += ", degraded";
  const TableRef t = table();
  if (t->count(MemberState::recovering) > 0) s += ", recovering";
  if (resync_pending()) {
    const uint64_t done = resync_point(), total = personality_->array_sectors();
    const int pct = int(total ? std::min<uint64_t>(done, total) * 100 / total : 0);
    s += resync_task() ? ", resyncing (" : ", resync pending (";
    s += std::to_string(pct) + "% in sync)";
  }
  return s;
}

Status Array::set_member_model(int slot, std::shared_ptr<io::DeviceModel> model, const std::string& label) {
  if (slot < 0 || slot >= raid_disks())
    return make_error(Errc::invalid_argument,
                      "no member " + std::to_string(slot) + " (0.." + std::to_string(raid_disks() - 1) + ")");
  std::lock_guard lock(meta_mutex_);
  MemberTable t = *table();
  Member& m = t.members[size_t(slot)];
  if (!m.dev)
    return make_error(Errc::unsupported,
                      "member " + std::to_string(slot) + " has no device to emulate a disk on");
  m.model = std::move(model);
  publish(std::move(t));
  events_.record({0, 0, "member", m.name, "device_profile " + label, ""});
  return {};
}

io::RealBackend Array::open_backend(unsigned depth) const {
  const TableRef t = table();
  std::vector<io::MemberDevice*> devs;
  for (const auto& m : t->members) devs.push_back(m.dev.get());
  // Each array I/O may fan out to every copy of a few chunks.
  auto real = io::make_real_backend(devs, depth * unsigned(std::max(2, raid_disks())) * 2);
  if (observer_) real.backend = std::make_unique<io::RecordingBackend>(std::move(real.backend), devs);
  if (faults_) real.backend = std::make_unique<io::FaultBackend>(std::move(real.backend), devs);
  return real;
}

// ---- telemetry ----

std::vector<telemetry::TelemetrySource::MemberReading> Array::read_members() const {
  const TableRef t = table();
  std::vector<MemberReading> v;
  for (int i = 0; i < t->size(); ++i) {
    const Member& m = (*t)[i];
    v.push_back({m.name.empty() ? "member" + std::to_string(i) : m.name, member_state_name(m.state),
                 runtime(i).counters.snapshot()});
  }
  return v;
}

telemetry::MemberCountersSnapshot Array::read_array() const {
  return array_counters_.snapshot();
}

std::vector<telemetry::TaskSample> Array::read_tasks() const {
  std::vector<telemetry::TaskSample> v;
  for (const auto& t : running_tasks()) {
    const auto p = t.task->progress();
    v.push_back({t.kind, t.target, p.done, p.total});
  }
  return v;
}

std::vector<telemetry::Section> Array::read_sections() const {
  std::vector<telemetry::Section> v;
  personality_->read_sections(v);
  if (bitmap_) {
    // Cumulative page-write counts by size (the seed 001 picture: 3584- vs
    // 4096-byte last-page writes).
    telemetry::Section b;
    b.name = "bitmap";
    b.values.emplace_back("chunks", double(bitmap_->chunks()));
    b.values.emplace_back("dirty_bits", double(bitmap_->dirty_bits()));
    for (const auto& [bytes, n] : bitmap_->write_sizes())
      b.values.emplace_back("writes_" + std::to_string(bytes) + "_total", double(n));
    v.push_back(std::move(b));
  }
  return v;
}

// ---- stopping ----

Status Array::flush() {
  const TableRef t = table();
  for (const Member& m : t->members)
    if (m.dev && m.writable())
      if (Status s = m.dev->flush(); !s) return s;
  return {};
}

Status Array::close() {
  stop_tasks();
  if (read_fixes_) read_fixes_->settle();
  if (!metadata_) return {};
  if (Status s = flush_bitmap_for_close(); !s) return s;
  std::unique_lock lock(meta_mutex_);
  // md's clean mark: resync_offset records how far the resync got (the
  // maximum when the copies are known equal), never more. Written when the
  // array was active or the resync point moved since the last update.
  const bool record = dirty_requested_ || sb_.resync_offset != recovery_cp_.load();
  dirty_requested_ = false;
  lock.unlock();
  if (!record) {
    metadata_->wait_all();  // member changes already requested
    return {};
  }
  Status s = sync_now();
  dirty_ = false;
  return s;
}

}  // namespace rs::raid
