#include "fio/json_output.hpp"

#include <cmath>
#include <cstdio>

#include "fio/normal_output.hpp"

namespace rs::fio {

using namespace rs::workload;

namespace {

using Json = nlohmann::ordered_json;

// fio prints floats with "%f": round to 6 decimals so ours read the same.
double f6(double v) {
  if (!std::isfinite(v)) return 0.0;
  if (std::fabs(v) >= 1e12) return v;
  return std::round(v * 1e6) / 1e6;
}

std::string percentile_key(double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%f", p);
  return buf;
}

Json options_object(const OptionList& options) {
  Json o = Json::object();
  for (const auto& [k, v] : options) o[k] = v;
  return o;
}

// fio add_ddir_lat_json.
// json+: a latency object that shows percentiles also has "bins", each
// non-empty bucket of fio's histogram by its value in ns (fio's
// plat_idx_to_val), as fio 3.33's --output-format=json+.
Json lat_object(const LatencyHistogram& h, bool with_percentiles, const std::vector<double>& plist,
                bool plus = false) {
  Json o;
  o["min"] = h.min();
  o["max"] = h.max();
  o["mean"] = f6(h.mean());
  o["stddev"] = f6(h.stddev());
  o["N"] = h.count();
  if (with_percentiles && h.count() && !plist.empty()) {
    const std::vector<uint64_t> vals = h.percentiles(plist);
    Json p = Json::object();
    for (size_t i = 0; i < plist.size(); ++i) p[percentile_key(plist[i])] = vals[i];
    o["percentile"] = std::move(p);
    if (plus) {
      Json bins = Json::object();
      for (unsigned i = 0; i < LatencyHistogram::kBuckets; ++i)
        if (const uint64_t n = h.bucket(i)) bins[std::to_string(LatencyHistogram::value_of(i))] = n;
      o["bins"] = std::move(bins);
    }
  }
  return o;
}

// fio add_ddir_status_json for read, write and trim.
Json direction_object(const JobResults& job, const DirectionResults& dr, const GroupDirStatus& group,
                      bool plus) {
  const std::vector<double> plist = effective_percentiles(job);
  Json o;
  const uint64_t bw_bytes = dr.bw_bytes();
  o["io_bytes"] = dr.io_bytes;
  o["io_kbytes"] = dr.io_bytes >> 10;
  o["bw_bytes"] = bw_bytes;
  o["bw"] = bw_bytes / 1024;
  o["iops"] = f6(dr.iops());
  o["runtime"] = dr.runtime_ms();
  o["total_ios"] = dr.total_ios;
  o["short_ios"] = dr.short_ios;
  o["drop_ios"] = dr.drop_ios;
  o["slat_ns"] = lat_object(dr.slat, job.slat_percentiles, plist, plus);
  o["clat_ns"] = lat_object(dr.clat, job.clat_percentiles, plist, plus);
  o["lat_ns"] = lat_object(dr.lat, job.lat_percentiles, plist, plus);
  // fio: "prios" when two or more priorities have samples (cmdprio_*).
  if (const auto shown = dr.shown_prios(); !shown.empty()) {
    Json prios = Json::array();
    for (const auto* p : shown) {
      Json e;
      e["prioclass"] = p->ioprio >> 13;
      e["prio"] = p->ioprio & 7;
      e[job.lat_percentiles ? "lat_ns" : "clat_ns"] =
          lat_object(p->lat, job.clat_percentiles || job.lat_percentiles, plist, plus);
      prios.push_back(std::move(e));
    }
    o["prios"] = std::move(prios);
  }
  const RunningStats& bw = dr.bw_samples;
  o["bw_min"] = bw.min();
  o["bw_max"] = bw.max();
  o["bw_agg"] = bw.samples() ? f6(bw_percent_of_group(group, bw.mean())) : 0.0;
  o["bw_mean"] = f6(bw.mean());
  o["bw_dev"] = f6(bw.stddev());
  o["bw_samples"] = bw.samples();
  const RunningStats& io = dr.iops_samples;
  o["iops_min"] = io.min();
  o["iops_max"] = io.max();
  o["iops_mean"] = f6(io.mean());
  o["iops_stddev"] = f6(io.stddev());
  o["iops_samples"] = io.samples();
  return o;
}

template <size_t N>
Json percent_map(const std::array<uint64_t, N>& counts, uint64_t total, const char* const* keys,
                 double floor) {
  Json o = Json::object();
  for (size_t i = 0; i < N; ++i) {
    double v = 0.0;
    if (total) {
      v = static_cast<double>(counts[i]) / static_cast<double>(total) * 100.0;
      if (v < floor && counts[i]) v = floor;  // fio shows any non-empty band as at least the floor
    }
    o[keys[i]] = f6(v);
  }
  return o;
}

Json raidscope_object(const RaidscopeJobExtension& ext) {
  Json o;
  o["target"] = ext.target;
  o["policy"] = ext.policy;
  o["engine"] = ext.engine;
  o["io_mode"] = ext.io_mode;
  Json members = Json::array();
  for (const MemberShare& m : ext.members) {
    Json j;
    j["path"] = m.path;
    j["reads"] = m.reads;
    j["read_bytes"] = m.read_bytes;
    j["read_share"] = f6(m.read_share);
    j["writes"] = m.writes;
    j["write_bytes"] = m.write_bytes;
    j["mean_pending"] = f6(m.mean_pending);
    members.push_back(std::move(j));
  }
  o["members"] = std::move(members);
  return o;
}

// fio's "steadystate" object: the criterion as text ("%f", with '%' for a
// percentage), the window's samples oldest first and their means.
Json steadystate_object(const SteadyStateReport& ss) {
  char limit[96], criterion[64];
  std::snprintf(limit, sizeof limit, "%s%s:%f%s", ss.iops ? "iops" : "bw", ss.slope ? "_slope" : "",
                double(float(ss.limit)), ss.percent ? "%" : "");
  std::snprintf(criterion, sizeof criterion, "%f%s", double(float(ss.criterion)), ss.percent ? "%" : "");
  Json o;
  o["ss"] = limit;
  o["duration"] = ss.duration_s;
  o["attained"] = ss.attained ? 1 : 0;
  o["criterion"] = criterion;
  o["max_deviation"] = f6(ss.max_deviation);
  o["slope"] = f6(ss.slope_value);
  Json data;
  data["bw_mean"] = steady_mean(ss.bw_data);
  data["iops_mean"] = steady_mean(ss.iops_data);
  data["iops"] = ss.iops_data;
  data["bw"] = ss.bw_data;
  o["data"] = std::move(data);
  return o;
}

// fio show_thread_status_json.
Json job_object(const JobResults& job, const GroupStatus& group, bool plus) {
  Json o;
  o["jobname"] = job.jobname;
  o["groupid"] = job.groupid;
  o["error"] = job.error;
  o["eta"] = 0;
  o["elapsed"] = job.elapsed_sec;
  o["job options"] = options_object(job.options);
  // fio add_ddir_status_json: unified_rw_reporting=mixed gives one "mixed"
  // direction in place of the others (sync too); both gives them all and
  // then "mixed".
  if (job.unified_rw_reporting != 1) {
    o["read"] = direction_object(job, job.read, group.dir[0], plus);
    o["write"] = direction_object(job, job.write, group.dir[1], plus);
    o["trim"] = direction_object(job, job.trim, group.dir[2], plus);
    Json sync;
    sync["total_ios"] = job.sync_ios;
    sync["lat_ns"] = lat_object(job.sync_lat, job.lat_percentiles || job.clat_percentiles,
                                effective_percentiles(job), plus);
    o["sync"] = std::move(sync);
  }
  if (job.unified_rw_reporting != 0)
    o["mixed"] = direction_object(job, mixed_direction(job), group.dir[0], plus);
  o["job_runtime"] = job.job_runtime_ns / 1'000'000;
  o["usr_cpu"] = f6(job.usr_cpu);
  o["sys_cpu"] = f6(job.sys_cpu);
  o["ctx"] = job.ctx;
  o["majf"] = job.majf;
  o["minf"] = job.minf;

  const uint64_t total_ios = job.read.total_ios + job.write.total_ios;
  const DepthDistribution& dd = job.depth_dist;
  static const char* const kLevel[] = {"1", "2", "4", "8", "16", "32", ">=64"};
  static const char* const kBatch[] = {"0", "4", "8", "16", "32", "64", ">=64"};
  o["iodepth_level"] = percent_map(dd.level, total_ios, kLevel, 0.1);
  o["iodepth_submit"] = percent_map(dd.submit, dd.total_submit, kBatch, 0.1);
  o["iodepth_complete"] = percent_map(dd.complete, dd.total_complete, kBatch, 0.1);

  static const char* const kBands[] = {"2",   "4",   "10",  "20",   "50",   "100",
                                       "250", "500", "750", "1000", "2000", ">=2000"};
  o["latency_ns"] = percent_map(job.latency_dist.ns, total_ios, kBands, 0.01);
  o["latency_us"] = percent_map(job.latency_dist.us, total_ios, kBands, 0.01);
  o["latency_ms"] = percent_map(job.latency_dist.ms, total_ios, kBands, 0.01);
  o["latency_depth"] = job.iodepth;
  o["latency_target"] = job.latency_target_ns;
  o["latency_percentile"] = job.latency_percentile;
  o["latency_window"] = job.latency_window_us;
  if (job.steadystate) o["steadystate"] = steadystate_object(*job.steadystate);
  if (job.raidscope) o["raidscope"] = raidscope_object(*job.raidscope);
  return o;
}

}  // namespace

Json fio_json_document(const RunResults& run, bool plus) {
  const std::vector<JobResults> jobs = reported_jobs(run);
  const std::vector<GroupStatus> groups = group_status(jobs);
  Json root;
  root["fio version"] = fio_version_string(run);
  root["timestamp"] = run.timestamp_ms / 1000;
  root["timestamp_ms"] = run.timestamp_ms;
  root["time"] = fio_ctime(run.timestamp_ms / 1000);
  root["global options"] = options_object(run.global_options);
  Json array = Json::array();
  for (const JobResults& job : jobs) {
    GroupStatus group;
    for (const GroupStatus& g : groups)
      if (g.groupid == job.groupid) group = g;
    array.push_back(job_object(job, group, plus));
  }
  root["jobs"] = std::move(array);
  root["disk_util"] = Json::array();
  // fio prints these lines before its JSON; here they stay inside it, so
  // the output is one document.
  if (!run.messages.empty()) root["messages"] = run.messages;
  return root;
}

std::string format_fio_json(const RunResults& run, bool plus) {
  return fio_json_document(run, plus).dump(2) + "\n";
}

}  // namespace rs::fio
