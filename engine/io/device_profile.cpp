#include "io/device_profile.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "base/read_file.hpp"
#include "io/block_layer.hpp"
#include "io/hdd_model.hpp"
#include "io/seek_curve.hpp"
#include "io/ssd_model.hpp"

namespace rs::io {
namespace {

using json = nlohmann::json;

// Shortest text that reads back as the same double ("-5", "7031000000", "0.5").
std::string num(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string quote(std::string_view key) {
  return "\"" + std::string(key) + "\"";
}

const char* model_name(TimingModel m) {
  return m == TimingModel::Hdd ? "hdd" : "ssd";
}

// Which timing model a key belongs to.
enum class Scope { Any, Ssd, Hdd };

struct KeySpec {
  const char* key;
  Scope scope;
};

constexpr KeySpec kKeys[] = {
    {"name", Scope::Any},
    {"description", Scope::Any},
    {"sources", Scope::Any},
    {"rotational", Scope::Any},
    {"model", Scope::Any},
    {"seq_read_bw", Scope::Any},
    {"seq_write_bw", Scope::Any},
    {"base_read_latency_us", Scope::Any},
    {"base_write_latency_us", Scope::Any},
    {"sub4k_write_penalty_us", Scope::Any},
    {"io_opt", Scope::Any},
    {"logical_block_size", Scope::Any},
    {"capacity_bytes", Scope::Any},
    {"scale", Scope::Any},
    {"max_sectors_kb", Scope::Any},
    {"queue_depth", Scope::Any},
    {"nr_requests", Scope::Any},
    {"scheduler", Scope::Any},
    {"read_iops", Scope::Ssd},
    {"write_iops", Scope::Ssd},
    {"parallelism", Scope::Ssd},
    {"dies", Scope::Ssd},
    {"die_page_bytes", Scope::Ssd},
    {"die_read_us", Scope::Ssd},
    {"die_write_us", Scope::Ssd},
    {"rpm", Scope::Hdd},
    {"avg_seek_ms", Scope::Hdd},
    {"track_to_track_ms", Scope::Hdd},
    {"full_stroke_ms", Scope::Hdd},
    {"ncq_depth", Scope::Hdd},
    {"readahead_bytes", Scope::Hdd},
};

// Keys that describe the file rather than the device: they need no source.
bool is_meta_key(std::string_view k) {
  return k == "name" || k == "description" || k == "sources";
}

const KeySpec* find_key(std::string_view k) {
  for (const KeySpec& s : kKeys)
    if (k == s.key) return &s;
  return nullptr;
}

std::string known_keys() {
  std::string s;
  for (const KeySpec& k : kKeys) {
    if (!s.empty()) s += ", ";
    s += k.key;
  }
  return s;
}

// Reads typed values out of the top-level object; the first problem wins.
class Reader {
 public:
  Reader(const json& obj, const std::string& origin) : obj_(obj), origin_(origin) {}

  bool ok() const { return ok_; }
  // The first problem, naming the origin (once !ok()).
  const std::string& error() const { return error_; }

  const json* find(const char* key, bool required) {
    if (!ok_) return nullptr;
    auto it = obj_.find(key);
    if (it == obj_.end()) {
      if (required) fail(std::string("missing required key ") + quote(key));
      return nullptr;
    }
    return &*it;
  }

  void get(const char* key, std::string* out, bool required) {
    if (const json* v = find(key, required)) {
      if (!v->is_string()) return wrong_type(key, *v, "a string");
      *out = v->get<std::string>();
    }
  }
  void get(const char* key, bool* out, bool required) {
    if (const json* v = find(key, required)) {
      if (!v->is_boolean()) return wrong_type(key, *v, "true or false");
      *out = v->get<bool>();
    }
  }
  void get(const char* key, double* out, bool required) {
    if (const json* v = find(key, required)) {
      if (!v->is_number()) return wrong_type(key, *v, "a number");
      *out = v->get<double>();
    }
  }
  template <typename U>
  void get_uint(const char* key, U* out, bool required) {
    if (const json* v = find(key, required)) {
      if (!v->is_number_integer()) return wrong_type(key, *v, "an integer");
      if (v->is_number_unsigned()) {
        uint64_t u = v->get<uint64_t>();
        if (u <= std::numeric_limits<U>::max()) {
          *out = U(u);
          return;
        }
      }
      fail("key " + quote(key) + " = " + v->dump() + ": must be between 0 and " +
           std::to_string(std::numeric_limits<U>::max()));
    }
  }

  void fail(const std::string& msg) {
    if (!ok_) return;
    ok_ = false;
    error_ = origin_ + ": " + msg;
  }

 private:
  void wrong_type(const char* key, const json& v, const char* expected) {
    fail("key " + quote(key) + " = " + v.dump() + ": expected " + expected);
  }

  const json& obj_;
  const std::string& origin_;
  std::string error_;
  bool ok_ = true;
};

// "sources": one non-empty text per key the file sets, and none for a key
// it does not set (a stale source is as misleading as a missing one).
void read_sources(const json& doc, Reader& r, std::map<std::string, std::string>* out) {
  const json* src = r.find("sources", true);
  if (!src) return;
  if (!src->is_object()) return r.fail("key \"sources\" = " + src->dump() + ": expected an object");
  for (auto it = src->begin(); it != src->end(); ++it) {
    if (!it.value().is_string() || it.value().get<std::string>().empty())
      return r.fail("sources: key " + quote(it.key()) + " = " + it.value().dump() +
                    ": expected a text naming where the value comes from");
    if (is_meta_key(it.key()) || !doc.contains(it.key()))
      return r.fail("sources: key " + quote(it.key()) + " names a source for a key the profile does not set");
    (*out)[it.key()] = it.value().get<std::string>();
  }
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!is_meta_key(it.key()) && !out->count(it.key()))
      return r.fail(
          "key " + quote(it.key()) + " = " + it.value().dump() +
          ": sources names no source for it (a datasheet, a published measurement or a seed's before "
          "figure)");
}

bool valid_name(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace

Status validate_profile(const DeviceProfile& p) {
  std::string msg;
  auto bad = [&](const char* key, const std::string& value, const std::string& rule) {
    if (msg.empty()) msg = "key " + quote(key) + " = " + value + ": " + rule;
  };
  auto range = [&](const char* key, double v, double lo, bool lo_open, double hi) {
    if (!(lo_open ? v > lo : v >= lo) || !(v <= hi) || !std::isfinite(v))
      bad(key, num(v), std::string("must be ") + (lo_open ? "> " : ">= ") + num(lo) + " and <= " + num(hi));
  };
  const bool hdd = p.model == TimingModel::Hdd;

  if (!valid_name(p.name))
    bad("name", quote(p.name), "must be 1-64 characters of letters, digits, '-', '_' or '.'");
  // Lower bounds keep every model time inside 64-bit ticks.
  range("seq_read_bw", p.seq_read_bw, 1000, false, 1e12);
  range("seq_write_bw", p.seq_write_bw, 1000, false, 1e12);
  range("base_read_latency_us", p.base_read_latency_us, 0, false, 1e7);
  range("base_write_latency_us", p.base_write_latency_us, 0, false, 1e7);
  range("sub4k_write_penalty_us", p.sub4k_write_penalty_us, 0, false, 1e7);
  range("scale", p.scale, 1e-6, false, 1);
  if (msg.empty() && std::min(p.seq_read_bw, p.seq_write_bw) * p.scale < 1000)
    bad("scale", num(p.scale), "slows the bandwidth below 1000 bytes/s");
  const uint32_t lbs = p.logical_block_size;
  if (lbs < 512 || lbs > 65536 || (lbs & (lbs - 1)))
    bad("logical_block_size", std::to_string(lbs), "must be a power of two from 512 to 65536");
  else if (p.io_opt % lbs || p.io_opt > (256u << 20))
    bad("io_opt", std::to_string(p.io_opt),
        "must be 0 or a multiple of logical_block_size (" + std::to_string(lbs) + ") up to 256 MiB");
  if (p.capacity_bytes < (1u << 20))
    bad("capacity_bytes", std::to_string(p.capacity_bytes), "must be the device's capacity (>= 1 MiB)");
  if (p.max_sectors_kb < lbs / 1024 + (lbs < 1024) || p.max_sectors_kb > 65536)
    bad("max_sectors_kb", std::to_string(p.max_sectors_kb), "must be between 1 and 65536 (and hold a block)");
  if (p.queue_depth < 1 || p.queue_depth > 65536)
    bad("queue_depth", std::to_string(p.queue_depth), "must be between 1 and 65536");
  if (p.nr_requests != 0 && (p.nr_requests < 4 || p.nr_requests > 1u << 20))
    bad("nr_requests", std::to_string(p.nr_requests), "must be between 4 and 1048576");

  if (!hdd) {
    range("read_iops", p.read_iops, 1, false, 1e9);
    range("write_iops", p.write_iops, 1, false, 1e9);
    if (msg.empty() && std::min(p.read_iops, p.write_iops) * p.scale < 1)
      bad("scale", num(p.scale), "slows the IOPS below 1");
    if (p.parallelism < 1 || p.parallelism > 65536)
      bad("parallelism", std::to_string(p.parallelism), "must be between 1 and 65536");
    if (p.dies < 1 || p.dies > 4096) bad("dies", std::to_string(p.dies), "must be between 1 and 4096");
    const uint32_t pg = p.die_page_bytes;
    if (pg < 512 || pg > (1u << 20) || (pg & (pg - 1)))
      bad("die_page_bytes", std::to_string(pg), "must be a power of two from 512 to 1048576");
    range("die_read_us", p.die_read_us, 0, false, 1e6);
    range("die_write_us", p.die_write_us, 0, false, 1e6);
  } else {
    range("rpm", p.rpm, 1000, false, 30000);
    range("track_to_track_ms", p.track_to_track_ms, 0, true, 1000);
    range("full_stroke_ms", p.full_stroke_ms, p.track_to_track_ms, false, 1000);
    if (msg.empty()) {
      const double lo = SeekCurve::avg_min(p.track_to_track_ms, p.full_stroke_ms);
      const double hi = SeekCurve::avg_max(p.track_to_track_ms, p.full_stroke_ms);
      if (!SeekCurve::fit(p.track_to_track_ms, p.avg_seek_ms, p.full_stroke_ms))
        bad("avg_seek_ms", num(p.avg_seek_ms),
            "must lie between " + num(lo) + " and " + num(hi) +
                " for these track_to_track_ms and full_stroke_ms, so that seek time grows with distance "
                "like a square root");
    }
    if (p.ncq_depth < 1 || p.ncq_depth > 256)
      bad("ncq_depth", std::to_string(p.ncq_depth), "must be between 1 and 256");
    if (p.readahead_bytes > (1ull << 32))
      bad("readahead_bytes", std::to_string(p.readahead_bytes), "must be at most 4 GiB");
  }
  if (msg.empty()) return {};
  return make_error(Errc::invalid_argument,
                    (p.origin.empty() ? std::string("profile ") + p.name : p.origin) + ": " + msg);
}

Result<DeviceProfile> parse_profile(std::string_view text, const std::string& origin) {
  auto invalid = [&origin](const std::string& why) {
    return make_error(Errc::invalid_argument, origin + ": " + why);
  };
  // nlohmann keeps the last of duplicated keys; a duplicate is almost always
  // an editing mistake, so catch it while parsing.
  std::string duplicate;
  std::set<std::string> seen;
  auto on_event = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (ev == json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json doc;
  try {
    doc = json::parse(text.begin(), text.end(), on_event);
  } catch (const json::exception& e) {
    // parse_error for bad syntax, out_of_range for a number too large for a
    // double ("2E000398934016"): both mean the file is not JSON we can read.
    return invalid(std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) return invalid(std::string("expected a JSON object, got ") + doc.type_name());
  if (!duplicate.empty()) return invalid("key " + quote(duplicate) + " appears more than once");
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (!find_key(it.key()))
      return invalid("unknown key " + quote(it.key()) + " = " + it.value().dump() +
                     " (known keys: " + known_keys() + ")");

  DeviceProfile p;
  p.origin = origin;
  Reader r(doc, origin);
  r.get("rotational", &p.rotational, true);
  p.model = p.rotational ? TimingModel::Hdd : TimingModel::Ssd;
  std::string model;
  if (r.find("model", false)) {
    r.get("model", &model, false);
    if (model == "ssd")
      p.model = TimingModel::Ssd;
    else if (model == "hdd")
      p.model = TimingModel::Hdd;
    else if (r.ok())
      r.fail("key \"model\" = " + quote(model) + ": must be \"ssd\" or \"hdd\"");
  }
  // A key of the other timing model would be silently ignored; refuse it.
  if (r.ok()) {
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      const Scope s = find_key(it.key())->scope;
      if ((s == Scope::Ssd && p.model != TimingModel::Ssd) ||
          (s == Scope::Hdd && p.model != TimingModel::Hdd)) {
        r.fail("key " + quote(it.key()) + " = " + it.value().dump() + ": only for the " +
               (s == Scope::Ssd ? "ssd" : "hdd") + " model, and this profile's model is " +
               model_name(p.model));
        break;
      }
    }
  }
  const bool hdd = p.model == TimingModel::Hdd;
  r.get("name", &p.name, true);
  r.get("description", &p.description, false);
  r.get("seq_read_bw", &p.seq_read_bw, true);
  r.get("seq_write_bw", &p.seq_write_bw, true);
  r.get("base_read_latency_us", &p.base_read_latency_us, true);
  r.get("base_write_latency_us", &p.base_write_latency_us, true);
  r.get("sub4k_write_penalty_us", &p.sub4k_write_penalty_us, false);
  r.get_uint("io_opt", &p.io_opt, false);
  r.get_uint("logical_block_size", &p.logical_block_size, false);
  r.get_uint("capacity_bytes", &p.capacity_bytes, true);
  r.get("scale", &p.scale, false);
  r.get_uint("max_sectors_kb", &p.max_sectors_kb, false);
  r.get_uint("queue_depth", &p.queue_depth, false);
  r.get_uint("nr_requests", &p.nr_requests, false);
  if (r.find("scheduler", false)) {
    std::string sched;
    r.get("scheduler", &sched, false);
    if (sched == "none")
      p.scheduler = Scheduler::None;
    else if (sched == "mq-deadline")
      p.scheduler = Scheduler::MqDeadline;
    else if (r.ok())
      r.fail("key \"scheduler\" = " + quote(sched) + ": must be \"none\" or \"mq-deadline\"");
  }
  if (!hdd) {
    r.get("read_iops", &p.read_iops, true);
    r.get("write_iops", &p.write_iops, true);
    r.get_uint("parallelism", &p.parallelism, true);
    r.get_uint("dies", &p.dies, false);
    r.get_uint("die_page_bytes", &p.die_page_bytes, false);
    r.get("die_read_us", &p.die_read_us, false);
    r.get("die_write_us", &p.die_write_us, false);
  } else {
    r.get("rpm", &p.rpm, true);
    r.get("avg_seek_ms", &p.avg_seek_ms, true);
    r.get("track_to_track_ms", &p.track_to_track_ms, true);
    r.get("full_stroke_ms", &p.full_stroke_ms, true);
    r.get_uint("ncq_depth", &p.ncq_depth, false);
    r.get_uint("readahead_bytes", &p.readahead_bytes, false);
  }
  read_sources(doc, r, &p.sources);
  if (!r.ok()) return make_error(Errc::invalid_argument, r.error());
  if (Status s = validate_profile(p); !s) return s.error();
  return p;
}

Result<DeviceProfile> load_profile_file(const std::string& path) {
  const Result<std::string> text = read_file(path);
  if (!text) return text.error();
  return parse_profile(*text, path);
}

Result<DeviceProfile> find_profile(const std::string& name, const std::vector<std::string>& dirs) {
  if (!valid_name(name))
    return make_error(Errc::not_found,
                      "no device profile named " + quote(name) + " (not a valid profile name)");
  std::string looked;
  for (const std::string& dir : dirs) {
    const std::string path = (std::filesystem::path(dir) / (name + ".json")).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      looked += (looked.empty() ? "" : ", ") + dir;
      continue;
    }
    auto p = load_profile_file(path);
    if (p && p->name != name)
      return make_error(Errc::invalid_argument, path + ": key \"name\" = " + quote(p->name) +
                                                    ": must match the file name " + quote(name));
    return p;
  }
  return make_error(Errc::not_found, "no device profile named " + quote(name) + " in " +
                                         (looked.empty() ? "(no directories)" : looked));
}

ProfileList list_profiles(const std::string& dir) {
  ProfileList out;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".json" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) out.errors.push_back(dir + ": cannot list: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (auto p = load_profile_file(f.string()))
      out.profiles.push_back(std::move(*p));
    else
      out.errors.push_back(p.error().message);
  }
  std::sort(out.profiles.begin(), out.profiles.end(),
            [](const DeviceProfile& a, const DeviceProfile& b) { return a.name < b.name; });
  return out;
}

uint32_t DeviceProfile::effective_nr_requests() const {
  if (nr_requests) return nr_requests;
  return scheduler == Scheduler::None ? queue_depth : 2 * std::min<uint32_t>(queue_depth, 128);
}

Result<std::unique_ptr<DeviceModel>> make_timing_model(const DeviceProfile& p) {
  if (Status s = validate_profile(p); !s) return s.error();
  if (p.model == TimingModel::Hdd) return std::unique_ptr<DeviceModel>(std::make_unique<HddModel>(p));
  return std::unique_ptr<DeviceModel>(std::make_unique<SsdModel>(p));
}

Result<std::unique_ptr<DeviceModel>> make_model(const DeviceProfile& p) {
  auto timing = make_timing_model(p);
  if (!timing) return timing.take_error();
  return std::unique_ptr<DeviceModel>(std::make_unique<BlockLayer>(std::move(*timing), BlockLimits::of(p)));
}

}  // namespace rs::io
