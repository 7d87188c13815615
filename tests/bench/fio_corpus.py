#!/usr/bin/env python3
"""The issue-16 job corpus (tests/fio-jobs/engines) with fio and with
`raidscope-cli bench`, side by side: each file runs ROUNDS times per tool,
alternating which goes first, on the same target file, with --runtime given
on the command line. Per job it prints fio's and our median IOPS and the
median of the round-by-round ratios ours/fio, and whether the job/group
structure matches (job names and group ids in order). Run by fio_corpus.sh.

The files are sized for the CI test (tests/cli/test_fio_engines.sh runs each
on a 16 MiB file): an 8 MiB job at 50k IOPS lasts 40 ms, less than the
tools' start-up jitter on a shared host. So both tools run copies with every
size, io_size, filesize and number_ios multiplied by --scale (default 32),
capped to the target's size; the jobs' options and structure are unchanged.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

# Job files that name their own files (directory=, nrfiles, filename_format)
# say so on a comment line; they run without the target, in the work
# directory, where their directory= (corpus-files) is made for them (fio
# refuses a directory= that does not exist, and so do we).
OWN_FILES = "; corpus: own-files"
OWN_DIR = "corpus-files"
# ${CORPUS_BS} in files-naming.fio: fio expands environment variables in
# job files, and so must we.
os.environ["CORPUS_BS"] = "4k"


def run(cmd):
    # Neither tool syncs at the end (fio's end_fsync=0): write back what the
    # last run left dirty, so it does not slow the next one down.
    os.sync()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    text = p.stdout
    try:
        return json.loads(text[text.find("{"):]), ""
    except (ValueError, json.JSONDecodeError):
        return None, "no JSON"


UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def scaled(text, scale, cap):
    """The job file with its sizes (and number_ios) times scale, sizes capped."""
    out = []
    for line in text.splitlines():
        m = re.fullmatch(r"(size|io_size|filesize|number_ios)=(\d+)([kmg]?)\s*", line.strip(), re.I)
        if m:
            key, n, unit = m.group(1), int(m.group(2)), m.group(3).lower()
            if key == "number_ios":
                line = "number_ios=%d" % (n * scale)
            else:
                line = "%s=%dk" % (key, min(n * UNITS[unit] * scale, cap) >> 10)
        out.append(line)
    return "\n".join(out) + "\n"


def take_logs():
    """The fio log files a run left in the working directory (write_*_log):
    {name: line count}; they are removed for the next run."""
    found = {}
    for name in glob.glob("*.log"):
        with open(name) as f:
            found[name] = sum(1 for _ in f)
        os.remove(name)
    return found


def jobs_of(doc):
    return [(j["jobname"], j["groupid"], j["read"]["iops"] + j["write"]["iops"] + j["trim"]["iops"])
            for j in doc["jobs"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rs", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--runtime", default="3")
    ap.add_argument("--scale", type=int, default=32)
    ap.add_argument("--only", default="", help="run only the files whose name matches this regex")
    ap.add_argument("--pin-cpu", default="", help="run both tools under taskset -c on this CPU")
    args = ap.parse_args()
    cap = os.stat(args.target).st_size
    work = os.path.join(os.path.dirname(os.path.abspath(args.target)), "scaled")
    os.makedirs(work, exist_ok=True)
    print("sizes x%d (capped to the %d MiB target), %d rounds, --runtime=%s%s" %
          (args.scale, cap >> 20, args.rounds, args.runtime,
           ", both tools on CPU " + args.pin_cpu if args.pin_cpu else ""))
    files = sorted(f for f in os.listdir(args.corpus) if f.endswith(".fio") and re.search(args.only, f))
    total = within = 0
    print("%-22s %-14s %12s %12s %7s  %s" % ("file", "job", "fio IOPS", "ours IOPS", "ratio", "note"))
    for name in files:
        path = os.path.join(work, name)
        with open(os.path.join(args.corpus, name)) as src, open(path, "w") as dst:
            dst.write(scaled(src.read(), args.scale, cap))
        own_files = OWN_FILES in open(path).read()
        target = [] if own_files else ["--filename=" + args.target]
        common = ["--runtime=" + args.runtime] + target + ["--output-format=json", path]
        rounds = []
        problem = ""
        log_notes = set()
        for r in range(args.rounds):
            order = ["fio", "rs"] if r % 2 == 0 else ["rs", "fio"]
            res, logs = {}, {}
            for who in order:
                if own_files:
                    # Every run makes its own files (create_on_open writes
                    # into new files; the files one tool left would spare
                    # the other that work).
                    subprocess.run(["rm", "-rf", OWN_DIR])
                    os.makedirs(OWN_DIR)
                cmd = (["fio"] if who == "fio" else [args.rs, "bench"]) + common
                if args.pin_cpu:
                    cmd = ["taskset", "-c", args.pin_cpu] + cmd
                res[who] = run(cmd)
                logs[who] = take_logs()
            if res["fio"][0] is None or res["rs"][0] is None:
                problem = "fio: " + res["fio"][1] if res["fio"][0] is None else "ours: " + res["rs"][1]
                break
            rounds.append((jobs_of(res["fio"][0]), jobs_of(res["rs"][0])))
            # The same log files, with line counts within one window (the
            # windows start at each tool's own clock reading).
            if sorted(logs["fio"]) != sorted(logs["rs"]):
                log_notes.add("log files differ: fio %s, ours %s" % (sorted(logs["fio"]), sorted(logs["rs"])))
            elif logs["fio"]:
                counts = ", ".join("%s %d/%d" % (n, logs["fio"][n], logs["rs"][n]) for n in sorted(logs["fio"]))
                if any(abs(logs["fio"][n] - logs["rs"][n]) > 1 for n in logs["fio"]):
                    log_notes.add("log line counts (fio/ours) differ by more than one: " + counts)
                elif r == 0:
                    print("%-22s logs (lines fio/ours, round 1): %s" % (name, counts))
        if own_files:
            subprocess.run(["rm", "-rf", OWN_DIR])
        if not rounds:
            print("%-22s %-14s %12s %12s %7s  %s" % (name, "-", "-", "-", "-", problem))
            continue
        f0, r0 = rounds[0]
        same = [(n, g) for n, g, _ in f0] == [(n, g) for n, g, _ in r0]
        for i, (jn, gid, _) in enumerate(f0):
            if i >= len(r0):
                break
            fio_iops = statistics.median(fr[i][2] for fr, _ in rounds)
            our_iops = statistics.median(rr[i][2] for _, rr in rounds)
            ratios = [rr[i][2] / fr[i][2] for fr, rr in rounds if fr[i][2] > 0]
            ratio = statistics.median(ratios) if ratios else float("nan")
            ok = ratios and abs(ratio - 1) <= 0.15
            total += 1
            within += 1 if ok else 0
            note = ("" if same else "job/group structure differs; ") + ("" if ok else "outside 15%")
            if log_notes and i == 0:
                note += "; ".join([""] + sorted(log_notes)) if note else "; ".join(sorted(log_notes))
            print("%-22s %-14s %12.0f %12.0f %7.2f  %s" % (name, jn[:14], fio_iops, our_iops, ratio, note))
    print("\njobs compared: %d; median ratio within 15%%: %d" % (total, within))


if __name__ == "__main__":
    main()
