#!/usr/bin/env python3
"""Checks that a file is RaidScope's fio-format JSON (fio 3.33 schema and units).

Usage: check_fio_json.py [--jobs N] [--raidscope] FILE...

Exits 0 when every file passes, 1 and one line per problem on stderr when
not, 2 on bad usage or unreadable JSON. Standard library only.

Checked per job and direction (read, write, trim):
  * every fio 3.33 key is there with the right JSON type;
  * units agree with each other: io_kbytes = io_bytes >> 10,
    bw_bytes = io_bytes * 1000 // runtime (ms), bw (KiB/s) = bw_bytes // 1024,
    iops = total_ios * 1000 / runtime;
  * slat_ns/clat_ns/lat_ns: min <= mean <= max when N > 0, all zero when N = 0;
    percentile keys are printf("%f") of a percentage and values never decrease;
  * latency_ns/us/ms, iodepth_* percentages lie in 0..100;
  * "raidscope", when present (required with --raidscope): target, policy and
    members with reads/read_bytes/read_share/writes/write_bytes/mean_pending,
    read shares summing to 1 when there were member reads.
"""
import json
import sys

TOP_KEYS = ["fio version", "timestamp", "timestamp_ms", "time", "global options", "jobs", "disk_util"]
JOB_KEYS = [
    "jobname", "groupid", "error", "eta", "elapsed", "job options", "read", "write", "trim", "sync",
    "job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "iodepth_level", "iodepth_submit",
    "iodepth_complete", "latency_ns", "latency_us", "latency_ms",
]
DIR_INT_KEYS = ["io_bytes", "io_kbytes", "bw_bytes", "bw", "runtime", "total_ios", "short_ios", "drop_ios",
                "bw_min", "bw_max", "bw_samples", "iops_min", "iops_max", "iops_samples"]
DIR_FLOAT_KEYS = ["iops", "bw_agg", "bw_mean", "bw_dev", "iops_mean", "iops_stddev"]
LAT_KEYS = ["slat_ns", "clat_ns", "lat_ns"]
BANDS = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"]
DIST_KEYS = {
    "latency_ns": BANDS,
    "latency_us": BANDS,
    "latency_ms": BANDS + ["2000", ">=2000"],
    "iodepth_level": ["1", "2", "4", "8", "16", "32", ">=64"],
    "iodepth_submit": ["0", "4", "8", "16", "32", "64", ">=64"],
    "iodepth_complete": ["0", "4", "8", "16", "32", "64", ">=64"],
}
MEMBER_KEYS = ["path", "reads", "read_bytes", "read_share", "writes", "write_bytes", "mean_pending"]


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


class Checker:
    def __init__(self, name):
        self.name = name
        self.problems = []

    def fail(self, where, msg):
        self.problems.append(f"{self.name}: {where}: {msg}")

    def need(self, obj, key, where, kind):
        if not isinstance(obj, dict) or key not in obj:
            self.fail(where, f'missing "{key}"')
            return None
        v = obj[key]
        ok = {"int": is_int, "num": is_num, "str": lambda x: isinstance(x, str),
              "obj": lambda x: isinstance(x, dict), "list": lambda x: isinstance(x, list)}[kind](v)
        if not ok:
            self.fail(where, f'"{key}" should be {kind}, is {type(v).__name__}')
            return None
        return v

    def check_lat(self, lat, where):
        vals = {k: self.need(lat, k, where, t) for k, t in
                [("min", "int"), ("max", "int"), ("mean", "num"), ("stddev", "num"), ("N", "int")]}
        if None in vals.values():
            return
        if vals["N"] > 0:
            if not (vals["min"] <= vals["mean"] + 1e-6 and vals["mean"] <= vals["max"] + 1e-6):
                self.fail(where, f"mean {vals['mean']} not within min {vals['min']} .. max {vals['max']}")
            if vals["min"] > vals["max"]:
                self.fail(where, "min > max")
            if vals["stddev"] < 0:
                self.fail(where, "negative stddev")
        elif any(vals[k] != 0 for k in ("min", "max", "mean", "stddev")):
            self.fail(where, "N = 0 but figures are not zero")
        if "percentile" in lat:
            pct = self.need(lat, "percentile", where, "obj")
            if pct is None:
                return
            last_p, last_v = -1.0, -1
            for key, value in pct.items():
                try:
                    p = float(key)
                except ValueError:
                    self.fail(where, f'percentile key "{key}" is not a number')
                    continue
                if key != "%f" % p:
                    self.fail(where, f'percentile key "{key}" is not printf("%f") ("{"%f" % p}")')
                if not 0 < p <= 100:
                    self.fail(where, f"percentile {key} outside (0, 100]")
                if p <= last_p:
                    self.fail(where, f"percentile keys not ascending at {key}")
                if not is_int(value):
                    self.fail(where, f"percentile {key} value is not an integer")
                    continue
                if value < last_v:
                    self.fail(where, f"percentile {key} value {value} below the previous {last_v}")
                if vals["N"] and vals["max"] and value > vals["max"] * 1.02 + 1:
                    self.fail(where, f"percentile {key} value {value} above max {vals['max']}")
                last_p, last_v = p, value

    def check_direction(self, d, where):
        ints = {k: self.need(d, k, where, "int") for k in DIR_INT_KEYS}
        for k in DIR_FLOAT_KEYS:
            self.need(d, k, where, "num")
        for k in LAT_KEYS:
            lat = self.need(d, k, where, "obj")
            if lat is not None:
                self.check_lat(lat, f"{where}.{k}")
        if None in ints.values():
            return
        if ints["io_kbytes"] != ints["io_bytes"] >> 10:
            self.fail(where, f"io_kbytes {ints['io_kbytes']} != io_bytes >> 10 ({ints['io_bytes'] >> 10})")
        runtime = ints["runtime"]
        if runtime > 0:
            want = ints["io_bytes"] * 1000 // runtime
            if ints["bw_bytes"] != want:
                self.fail(where, f"bw_bytes {ints['bw_bytes']} != io_bytes*1000//runtime ({want})")
            iops = d.get("iops")
            if is_num(iops) and abs(iops - ints["total_ios"] * 1000 / runtime) > 1e-3 * max(1.0, iops):
                self.fail(where, f"iops {iops} != total_ios*1000/runtime")
        elif ints["bw_bytes"] or d.get("iops"):
            self.fail(where, "runtime 0 but bandwidth or IOPS not zero")
        if ints["bw"] != ints["bw_bytes"] // 1024:
            self.fail(where, f"bw {ints['bw']} (KiB/s) != bw_bytes // 1024 ({ints['bw_bytes'] // 1024})")
        if ints["total_ios"] == 0 and ints["io_bytes"] != 0:
            self.fail(where, "bytes without I/Os")
        clat = d.get("clat_ns", {})
        if is_int(clat.get("N")) and clat["N"] > ints["total_ios"] + ints["drop_ios"]:
            self.fail(where, f"clat_ns.N {clat['N']} > total_ios {ints['total_ios']}")

    def check_raidscope(self, rs, where):
        self.need(rs, "target", where, "str")
        self.need(rs, "policy", where, "str")
        members = self.need(rs, "members", where, "list")
        if members is None:
            return
        reads, share = 0, 0.0
        for i, m in enumerate(members):
            w = f"{where}.members[{i}]"
            for k in MEMBER_KEYS:
                self.need(m, k, w, "str" if k == "path" else ("num" if k in ("read_share", "mean_pending") else "int"))
            if is_num(m.get("read_share")) and not 0 <= m["read_share"] <= 1:
                self.fail(w, "read_share outside 0..1")
            if is_num(m.get("mean_pending")) and m["mean_pending"] < 0:
                self.fail(w, "negative mean_pending")
            reads += m.get("reads", 0) if is_int(m.get("reads")) else 0
            share += m.get("read_share", 0) if is_num(m.get("read_share")) else 0
        if reads and abs(share - 1.0) > 1e-3:
            self.fail(where, f"member read shares sum to {share}, not 1")

    def check_job(self, job, where, want_raidscope):
        for k in JOB_KEYS:
            if k not in job:
                self.fail(where, f'missing "{k}"')
        self.need(job, "jobname", where, "str")
        for k in ("groupid", "error", "eta", "elapsed", "job_runtime", "ctx", "majf", "minf"):
            self.need(job, k, where, "int")
        for k in ("usr_cpu", "sys_cpu"):
            v = self.need(job, k, where, "num")
            if v is not None and v < 0:
                self.fail(where, f"{k} negative")
        opts = self.need(job, "job options", where, "obj")
        if opts is not None:
            for k, v in opts.items():
                if not isinstance(v, str):
                    self.fail(where, f'job option "{k}" is not a string')
        for ddir in ("read", "write", "trim"):
            d = self.need(job, ddir, where, "obj")
            if d is not None:
                self.check_direction(d, f"{where}.{ddir}")
        sync = self.need(job, "sync", where, "obj")
        if sync is not None:
            self.need(sync, "total_ios", f"{where}.sync", "int")
            lat = self.need(sync, "lat_ns", f"{where}.sync", "obj")
            if lat is not None:
                self.check_lat(lat, f"{where}.sync.lat_ns")
        for name, keys in DIST_KEYS.items():
            dist = self.need(job, name, where, "obj")
            if dist is None:
                continue
            if list(dist.keys()) != keys:
                self.fail(where, f"{name} keys {list(dist.keys())} != {keys}")
            for k, v in dist.items():
                if not is_num(v) or not 0 <= v <= 100.0001:
                    self.fail(where, f"{name}[{k}] = {v} is not a percentage")
        if "raidscope" in job:
            rs = self.need(job, "raidscope", where, "obj")
            if rs is not None:
                self.check_raidscope(rs, f"{where}.raidscope")
        elif want_raidscope:
            self.fail(where, 'missing "raidscope"')

    def check(self, doc, want_jobs, want_raidscope):
        if not isinstance(doc, dict):
            self.fail("top", "not a JSON object")
            return
        for k in TOP_KEYS:
            if k not in doc:
                self.fail("top", f'missing "{k}"')
        version = self.need(doc, "fio version", "top", "str")
        if version is not None and "fio-" not in version:
            self.fail("top", f'"fio version" {version!r} names no fio version')
        self.need(doc, "timestamp", "top", "int")
        self.need(doc, "timestamp_ms", "top", "int")
        self.need(doc, "time", "top", "str")
        if is_int(doc.get("timestamp")) and is_int(doc.get("timestamp_ms")):
            if doc["timestamp_ms"] // 1000 != doc["timestamp"]:
                self.fail("top", "timestamp_ms // 1000 != timestamp")
        jobs = self.need(doc, "jobs", "top", "list")
        if jobs is None:
            return
        if want_jobs is not None and len(jobs) != want_jobs:
            self.fail("top", f"{len(jobs)} jobs, expected {want_jobs}")
        for i, job in enumerate(jobs):
            if not isinstance(job, dict):
                self.fail(f"jobs[{i}]", "not an object")
                continue
            self.check_job(job, f"jobs[{i}]", want_raidscope)


def main(argv):
    want_jobs, want_raidscope, files = None, False, []
    args = iter(argv[1:])
    for a in args:
        if a == "--jobs":
            try:
                want_jobs = int(next(args))
            except (StopIteration, ValueError):
                print("--jobs needs a number", file=sys.stderr)
                return 2
        elif a == "--raidscope":
            want_raidscope = True
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    problems = []
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read JSON: {e}", file=sys.stderr)
            return 2
        c = Checker(path)
        c.check(doc, want_jobs, want_raidscope)
        problems += c.problems
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
