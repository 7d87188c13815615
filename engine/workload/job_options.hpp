// One resolved fio job: the options RaidScope supports, by fio's names, with
// fio's defaults (fio 3.33, `fio --cmdhelp=<option>`). A JobOptions is what
// [global] plus one job section (or the command line up to the next --name)
// leave behind; the job parser builds them, the job runner reads them.
//
// Directions are indexed like fio's ddir and results.hpp: 0 read, 1 write.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rs::workload {

inline constexpr int kDdirRead = 0;
inline constexpr int kDdirWrite = 1;
inline constexpr int kDdirTrim = 2;

// rw=. The trim modes discard blocks (a file: fallocate PUNCH_HOLE, a block
// device: BLKDISCARD, as fio's os_trim): trim is sequential, randtrim
// random; trimwrite and randtrimwrite trim a block, then write the same
// block (fio's trimwrite).
enum class RwMode {
  read,
  write,
  randread,
  randwrite,
  readwrite,
  randrw,
  trim,
  randtrim,
  trimwrite,
  randtrimwrite
};

// ioengine=. How each runs (sync_engines.hpp, targets.cpp): the synchronous
// engines (psync, sync, vsync, pvsync, pvsync2, mmap) do one I/O at a time
// per job with their own system call, as fio does (fio caps their depth at
// 1); io_uring runs on io_uring; libaio and posixaio are queued engines that
// RaidScope runs on io_uring, and says so; `null` selects the null target.
enum class IoEngine { io_uring, libaio, psync, sync, vsync, pvsync, pvsync2, posixaio, mmap, null };

// fio's FIO_SYNCIO engines: one I/O at a time per job whatever iodepth says.
inline bool is_sync_engine(IoEngine e) noexcept {
  return e == IoEngine::psync || e == IoEngine::sync || e == IoEngine::vsync || e == IoEngine::pvsync ||
         e == IoEngine::pvsync2 || e == IoEngine::mmap;
}

struct ReplayEntry;  // replay_log.hpp

enum class Distribution { random, zipf, pareto, normal, zoned };

// verify=: fio spells "no verification" verify=0. meta: the block's header
// (offset, length, identity) only, no payload checksum.
// pattern: fio's verify=pattern, blocks of verify_pattern alone, no header.
enum class VerifyKind { none, crc32c, md5, crc64, sha1, sha256, sha512, xxhash, meta, pattern };

struct JobOptions {
  std::string name;         // the section name, or name= / --name=
  std::string description;  // description=
  std::string origin;       // job file name as given to the parser, or "command line"
  unsigned line = 0;        // line of the job's [section] header; 0 on the command line

  std::string filename;  // empty: not given (the runner's target applies); fio's a:b:c lists files
  // Multi-file jobs (file_set.hpp): files in `directory`, `nrfiles` of them
  // named by `filename_format` (fio's default "$jobname.$jobnum.$filenum")
  // when filename= is not given; each I/O goes to the file fio's
  // file_service_type picks (default roundrobin, a new file every I/O).
  std::string directory;
  unsigned nrfiles = 1;
  std::string filename_format;  // empty: fio's default
  bool create_on_open = false;  // files are created by the job's open, not laid out before the run
  bool unlink = false;          // unlink=1: the job's files are removed when the run ends
  // fill_device=1 (fill_fs=1): on a file, write until its filesystem is full
  // (ENOSPC or EDQUOT ends the job without an error; size=, when given,
  // still bounds it); a read job's file is first written until full. On a
  // block device or array: their size (bench.cpp open_target).
  bool fill_device = false;
  // fallocate=: how a write-only job's new file is reserved before the run
  // (fio's filesetup.c fallocate_file): native (fallocate(2), fio's
  // default), posix (posix_fallocate), keep (FALLOC_FL_KEEP_SIZE: blocks,
  // size unchanged), truncate (ftruncate: size, no blocks), none. A job
  // that reads gets its file written whatever the mode, as fio's.
  enum class Fallocate { none, native, posix, keep, truncate };
  Fallocate fallocate = Fallocate::native;
  // Syncs (fio's get_rw_ddir): before the next I/O, when the last I/O
  // issued was a write and the writes so far are a multiple of N (0: never):
  // fsync=N, fdatasync=N, sync_file_range=FLAGS:N. end_fsync and
  // fsync_on_close: one fsync of each file once the job's I/O is done
  // (fio's backend.c; both together still one). Only jobs that write.
  unsigned fsync_blocks = 0, fdatasync_blocks = 0, sync_file_range_nr = 0;
  unsigned sync_file_range_flags = 0;  // SYNC_FILE_RANGE_WAIT_BEFORE | _WRITE | _WAIT_AFTER
  bool end_fsync = false, fsync_on_close = false;
  // zipf, pareto, normal (gauss): fio's skewed file choice (file_choice.hpp).
  enum class FileService {
    roundrobin,
    sequential,
    random,
    zipf,
    pareto,
    normal
  } file_service = FileService::roundrobin;
  unsigned file_service_nr = 1;     // I/Os to one file before switching (roundrobin:N, random:N)
  double file_service_param = 0;    // zipf theta, pareto h, normal deviation in percent
  double file_service_center = -1;  // 0..1; -1: fio's default placement
  uint64_t filesize = 0;            // filesize=: bytes per file; 0: size / nrfiles
  bool size_from_filesize = false;  // `size` was set by filesize= (size= not given)
  RwMode rw = RwMode::read;
  unsigned rwmixread = 50;  // percent of I/Os that read in readwrite/randrw; rwmixwrite=x sets 100-x
  std::array<uint32_t, 2> bs{4096, 4096};  // per direction: bs=4k or bs=READ,WRITE; the smallest with ranges
  uint32_t bs_trim = 4096;                 // bs=4k sets it too; bs=READ,WRITE,TRIM the third value
  // Variable block sizes per direction (fio's get_next_buflen): bsrange=
  // MIN-MAX sets bs=MIN and bs_max=MAX; bssplit= a weighted list. bs_max 0:
  // fixed bs.
  std::array<uint32_t, 2> bs_max{0, 0};
  struct BsShare {
    uint32_t bs;
    unsigned percent;
  };
  std::array<std::vector<BsShare>, 2> bssplit;  // sorted by percent, as fio sorts it
  // The trims' own range or split (bsrange=/bssplit= with one value, or a
  // third): bs_trim is its smallest size, bs_trim_max 0 when it is fixed.
  // trimwrite writes each trimmed block, so its sizes are these.
  uint32_t bs_trim_max = 0;
  std::vector<BsShare> bssplit_trim;
  // rw=read:8k (holes) or rw=read:-8k (backwards): bytes added to the end of
  // one sequential I/O to find the next (fio's ddir_seq_add).
  int64_t seq_add = 0;
  uint64_t size = 0;            // bytes of the region; 0: up to the end of the target
  unsigned size_percent = 0;    // size=N%: 1..100 of the target, 0: not a percentage
  uint64_t offset = 0;          // bytes
  unsigned offset_percent = 0;  // offset=N%, 0: not a percentage
  uint64_t io_size = 0;         // io_size= (io_limit=): bytes per pass; 0: size
  unsigned loops = 1;           // loops=: passes over the region (not time based)
  uint64_t number_ios = 0;      // number_ios=: stop after this many I/Os; 0: no limit
  unsigned iodepth = 1;         // >= 1
  // fio's batching (see submit_batch()/reap_batch_max()): I/Os per submit
  // call (0: iodepth), completions to wait for once the queue is full, and
  // most completions handled per reap (below the minimum: the minimum).
  // fio's defaults submit and reap one I/O at a time.
  unsigned iodepth_batch_submit = 1;
  unsigned iodepth_batch_complete_min = 1;  // >= 1 (fio's 0, polling, is refused)
  unsigned iodepth_batch_complete_max = 0;
  unsigned numjobs = 1;                  // >= 1: clones of this job, each with its own seed
  std::chrono::microseconds runtime{0};  // 0: no limit
  bool time_based = false;
  std::chrono::microseconds ramp_time{0};
  std::chrono::microseconds startdelay{0};
  bool direct = false;
  bool direct_given = false;
  // fio's defaults: drop the region's cached pages before the job starts
  // (invalidate=1), and tell the kernel the access pattern (fadvise_hint=1:
  // random or sequential by rw).
  bool invalidate = true;
  bool fadvise_hint = true;             // direct= or buffered= was written (fio's default direct=0 otherwise)
  IoEngine ioengine = IoEngine::psync;  // fio's default engine
  bool randrepeat = true;
  uint64_t randseed = 0x89;  // fio's default
  bool randseed_given = false;
  bool norandommap = false;
  bool lfsr = false;  // random_generator=lfsr: every block once per pass, norandommap or not
  Distribution random_distribution = Distribution::random;
  double distribution_param = 0.0;    // zipf theta, pareto h, normal deviation in percent
  double distribution_center = -1.0;  // 0..1; -1: fio's default placement
  struct Zone {
    double access_percent;  // share of the I/Os
    double region_percent;  // share of the region, zones in order from its start
  };
  std::vector<Zone> zones;  // random_distribution=zoned:ACCESS/REGION:...
  // zonemode=strided (fio's default once zonesize is given): I/O stays in a
  // zone of zonerange bytes (default zonesize) until zonesize bytes were
  // done there, then moves on by zonerange + zoneskip, wrapping at the end.
  uint64_t zonesize = 0;  // 0: no zones
  // zonemode=zbd (zbd_zones.hpp): zones of zonesize emulated as fio 3.33
  // does on a target without zones of its own (ZBD_NONE), write pointers
  // shared by all the run's zbd jobs.
  bool zbd = false;
  bool read_beyond_wp = false;
  unsigned max_open_zones = 0;        // 0: no limit
  double zone_reset_threshold = 0.0;  // share of the region with data past which...
  double zone_reset_frequency = 0.0;  // ...1 in 1/frequency writes resets its zone (0: never)
  uint64_t zonerange = 0;
  uint64_t zoneskip = 0;
  uint32_t blockalign = 0;  // random offsets aligned to this; 0: the smallest bs
  bool new_group = false;   // new_group: a new reporting group (jobs still run side by side)
  std::string wait_for;     // wait_for=NAME: start once that job has finished
  // fio's flow control: jobs of one flow_id keep their I/O counts in the
  // ratio of their flow weights; a job ahead of its share waits (flow_sleep
  // microseconds when nothing of it is in flight).
  // fio's steady state (steady_state.hpp): ss=iops|iops_slope|bw|bw_slope:LIMIT[%],
  // judged when ss_dur is given; fio's default iops_slope:0.01%.
  enum class SteadyKind { iops, iops_slope, bw, bw_slope } ss = SteadyKind::iops_slope;
  double ss_limit = 0.01;
  bool ss_percent = true;
  std::chrono::microseconds ss_dur{0};
  std::chrono::microseconds ss_ramp{0};
  std::chrono::microseconds ss_interval{1000000};
  // I/O priorities, Linux's ioprio values (class << 13 | level; class 1 RT,
  // 2 BE, 3 idle). prio= / prioclass= set the job thread's priority (fio's
  // ioprio_set) and every I/O's default; cmdprio_percentage (with
  // cmdprio_class, cmdprio) or cmdprio_bssplit give a share of the I/Os
  // another priority, per direction (fio's engines/cmdprio.c, options of
  // ioengine=libaio and io_uring). log_prio: the logs' last column is the
  // I/O's priority (0x4007) instead of 1 for the RT class, 0 otherwise.
  int prio = -1, prioclass = -1;  // -1: not given
  std::array<unsigned, 2> cmdprio_percentage{}, cmdprio_class{}, cmdprio_level{};
  struct PrioSplit {
    uint32_t bs;
    unsigned percent;
    int ioprio;  // -1: cmdprio_class / cmdprio's
  };
  std::array<std::vector<PrioSplit>, 2> cmdprio_bssplit;  // sorted by bs, as fio sorts it
  bool log_prio = false;
  // fio's latency target (io_u.c lat_target_*): the job starts at depth 1
  // and, after each latency_window in which latency_percentile of its I/Os
  // completed within latency_target (total latency), doubles its depth (up
  // to iodepth, bisecting once a window failed); a failed window halves the
  // way down. Once a window confirms the depth, one more window runs with
  // fresh statistics and the job ends (latency_run=1: it keeps searching).
  uint64_t latency_target_ns = 0;  // 0: off
  std::chrono::microseconds latency_window{0};
  double latency_percentile = 100.0;
  bool latency_run = false;
  unsigned flow = 0;
  unsigned flow_id = 0;
  std::chrono::microseconds flow_sleep{0};
  bool exitall = false;  // exitall: when this job finishes, end the others (exit_what says which)
  enum class ExitWhat { group, stonewall, all } exit_what = ExitWhat::group;
  // fio's log files (workload/job_log.hpp, fio/log_files.hpp): write_bw_log, write_iops_log,
  // write_lat_log with an optional file prefix (empty: the job's name).
  bool bw_log = false, iops_log = false, lat_log = false;
  std::string bw_log_prefix, iops_log_prefix, lat_log_prefix;
  unsigned log_avg_msec = 0;  // 0: lat logs per I/O, bw/iops every 500 ms
  bool log_offset = false;
  bool per_job_logs = true;
  uint64_t log_compression = 0;       // the chunk size of a compressed log (log_compression.hpp)
  bool log_store_compressed = false;  // keep the logs as NAME.fz (zlib chunks of log_compression bytes)
  bool gtod_reduce = false;           // fio's: no slat/clat/lat figures or percentiles are kept
  std::string write_iolog;            // write_iolog=FILE: every I/O issued, in fio's iolog version 3 format
  std::string read_iolog;             // read_iolog=FILE: replay that log's I/Os (replay_log.hpp)
  bool replay_no_stall = false;       // replay as fast as possible, not at the log's pace
  std::shared_ptr<const std::vector<ReplayEntry>> replay;  // the log, once load_replays() read it
  std::array<uint64_t, 2> rate{};                          // bytes/s per direction, 0: unlimited
  std::array<uint64_t, 2> rate_iops{};                     // I/Os per second per direction, 0: unlimited
  uint64_t rate_trim = 0,
           rate_iops_trim = 0;  // the trims' (third) values; fio: the write value when not given
  // fio's rate_process, rate_min / rate_iops_min (per direction, trims
  // third), rate_cycle and io_submit_mode (rate_control.hpp).
  bool rate_poisson = false;  // rate_process=poisson: exponential gaps between I/Os
  std::array<uint64_t, 2> rate_min{};
  std::array<uint64_t, 2> rate_iops_min{};
  uint64_t rate_min_trim = 0, rate_iops_min_trim = 0;
  std::chrono::milliseconds rate_cycle{1000};
  bool submit_offload = false;  // io_submit_mode=offload: issue at the rate's times while a slot is free
  std::chrono::microseconds thinktime{0};
  VerifyKind verify = VerifyKind::none;
  bool verify_given = false;            // verify= written (fio's fio_option_is_set): verify_pattern keeps it
  uint32_t verify_interval = 0;         // verify_interval=: bytes per verify header; 0: the block size
  std::vector<uint8_t> verify_pattern;  // verify_pattern=0x... or "text": the payload; empty: random
  // buffer_pattern=: every write buffer holds these bytes repeated from its
  // first byte (fio's fill_buffer_pattern); empty: fio's default contents.
  std::vector<uint8_t> buffer_pattern;
  // Which latencies the output gives percentiles for (fio's defaults).
  bool clat_percentiles = true, lat_percentiles = false, slat_percentiles = false;
  // fio's unified_rw_reporting: none (0) reports each direction, mixed (1)
  // one "mixed" direction summing them, both (2) each and then the mix.
  unsigned unified_rw_reporting = 0;
  bool do_verify = true;
  bool verify_fatal = false;
  // verify_dump=1: a block that fails verification is written to the
  // current directory as <file>.<offset>.received and .expected (a bad
  // header: .hdr_fail), as fio's dump_verify_buffers names them.
  bool verify_dump = false;
  // verify_state_save (fio's default 1): a write job with verify= leaves
  // its verify state at its end; verify_state_load=1: a job loads the one
  // its namesake left and stops verifying where those writes stopped
  // completing (verify_state.hpp).
  // experimental_verify=1: the verify pass replays the write pass's offsets
  // instead of reading back a log of the writes (fio's do_verify).
  bool experimental_verify = false;
  bool verify_state_save = true;
  bool verify_state_load = false;
  // verify_backlog=N: once N written blocks wait, read back and check
  // verify_batch of them (default N) before writing on (fio's get_io_u);
  // the blocks left at the end are checked in the verify pass. 0: off.
  unsigned verify_backlog = 0, verify_batch = 0;
  bool group_reporting = false;
  bool stonewall = false;
  bool thread = false;  // accepted for fio compatibility: RaidScope jobs are always threads
  // fio's default: stamp each 512-byte block of a write with its offset and
  // the time, so no two writes carry the same bytes (deduplicating storage
  // would otherwise store one copy and look faster than it is).
  bool scramble_buffers = true;
  // Write buffer contents (buffer_contents.hpp): fresh per write, a share
  // repeating earlier contents, a share of each chunk zeros.
  bool refill_buffers = false;
  unsigned dedupe_percentage = 0;
  bool dedupe_mode_working_set = false;  // dedupe_mode=working_set (else repeat)
  unsigned dedupe_working_set_percentage = 5;
  bool dedupe_global = false;
  unsigned buffer_compress_percentage = 0;
  uint32_t buffer_compress_chunk = 512;
  std::vector<double> percentile_list;  // as written (unsorted); empty: fio's default list
  int percentile_precision = -1;        // most decimals in percentile_list as written; -1: default list

  // Options as written, in order, names canonical as fio prints them (aliases
  // such as readwrite= or blocksize= become rw, bs), values trimmed and
  // without comments, empty for a bare flag such as `time_based` (fio's JSON
  // leaves those out).
  // given: this job's own section or --name group: fio JSON "job options".
  // inherited: the global options in effect when the job was defined.
  // For ParseResult::global, given holds every global option: fio JSON
  // "global options".
  std::vector<std::pair<std::string, std::string>> given;
  std::vector<std::pair<std::string, std::string>> inherited;
};

// The largest block a direction may use.
inline uint32_t max_bs(const JobOptions& j, int ddir) noexcept {
  return j.bs_max[size_t(ddir)] > j.bs[size_t(ddir)] ? j.bs_max[size_t(ddir)] : j.bs[size_t(ddir)];
}
inline bool fixed_bs(const JobOptions& j) noexcept {
  return max_bs(j, 0) == j.bs[0] && max_bs(j, 1) == j.bs[1];
}

inline bool is_random(RwMode m) noexcept {
  return m == RwMode::randread || m == RwMode::randwrite || m == RwMode::randrw || m == RwMode::randtrim ||
         m == RwMode::randtrimwrite;
}
inline bool does_trim(RwMode m) noexcept {
  return m == RwMode::trim || m == RwMode::randtrim || m == RwMode::trimwrite || m == RwMode::randtrimwrite;
}
inline bool is_mixed(RwMode m) noexcept {
  return m == RwMode::readwrite || m == RwMode::randrw;
}
inline bool does_read(RwMode m) noexcept {
  return m == RwMode::read || m == RwMode::randread || is_mixed(m);
}
inline bool does_write(RwMode m) noexcept {
  return m == RwMode::write || m == RwMode::randwrite || is_mixed(m) || m == RwMode::trimwrite ||
         m == RwMode::randtrimwrite;
}

// What a steady-state criterion judges: IOPS (iops, iops_slope) or bandwidth
// (bw, bw_slope); the least-squares slope (the *_slope kinds) or the largest
// deviation from the window's mean.
inline bool steady_measures_iops(JobOptions::SteadyKind k) noexcept {
  return k == JobOptions::SteadyKind::iops || k == JobOptions::SteadyKind::iops_slope;
}
inline bool steady_is_slope(JobOptions::SteadyKind k) noexcept {
  return k == JobOptions::SteadyKind::iops_slope || k == JobOptions::SteadyKind::bw_slope;
}

// fio's ioprio_value(): a class of 0 means best effort (2).
inline uint16_t ioprio_value(unsigned ioprio_class, unsigned level) noexcept {
  return uint16_t(((ioprio_class ? ioprio_class : 2u) << 13) | level);
}
inline bool uses_cmdprio(const JobOptions& j) noexcept {
  return j.cmdprio_percentage[0] || j.cmdprio_percentage[1] || !j.cmdprio_bssplit[0].empty() ||
         !j.cmdprio_bssplit[1].empty();
}

// fio records a submission latency only for a queued engine: not for its
// FIO_SYNCIO engines, nor for null at iodepth 1 (which fio runs as one).
inline bool measures_slat(const JobOptions& j) noexcept {
  return !is_sync_engine(j.ioengine) && !(j.ioengine == IoEngine::null && j.iodepth == 1);
}

// I/Os the job queues before one submit call: iodepth_batch_submit, with 0
// or more than iodepth meaning iodepth (as fio fixes them up).
inline unsigned submit_batch(const JobOptions& j) noexcept {
  return (j.iodepth_batch_submit == 0 || j.iodepth_batch_submit > j.iodepth) ? j.iodepth
                                                                             : j.iodepth_batch_submit;
}
// Most completions one reap handles: iodepth_batch_complete_max, raised to
// iodepth_batch_complete_min when below it (fio's default: equal to it).
inline unsigned reap_batch_max(const JobOptions& j) noexcept {
  return j.iodepth_batch_complete_max < j.iodepth_batch_complete_min ? j.iodepth_batch_complete_min
                                                                     : j.iodepth_batch_complete_max;
}

// fio's spellings: "read", "write", "randread", "randwrite", "rw", "randrw", "trim", ...
std::string_view to_string(RwMode m) noexcept;
std::string_view to_string(IoEngine e) noexcept;
std::string_view to_string(Distribution d) noexcept;  // "random", "zipf", "pareto", "normal", "zoned"
std::string_view to_string(VerifyKind v) noexcept;    // "0", "crc32c", "md5", "sha256", ... (fio's names)

}  // namespace rs::workload
