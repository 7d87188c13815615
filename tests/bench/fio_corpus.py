#!/usr/bin/env python3
"""The issue-16 job corpus (tests/fio-jobs/engines) with fio and with
`raidscope-cli bench`, side by side: each file runs ROUNDS times per tool,
alternating which goes first, on the same target file, with --runtime given
on the command line. Per job it prints fio's and our median IOPS and the
median of the round-by-round ratios ours/fio, and whether the job/group
structure matches (job names and group ids in order). Run by fio_corpus.sh.

With --before CLI a second build of raidscope-cli runs in the same rounds
(fio, ours, before; the order reversed every other round), so both builds'
ratios are taken against the same fio runs: each job then also shows the
before build's median IOPS and ratio, and the summary gives both counts and
every job whose verdict (within 15 % or not) differs between the builds.

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


NAMES = {"fio": "fio", "rs": "ours", "bf": "before"}


def compare_logs(fio_logs, logs, who):
    """The same log files as fio's, with line counts within one (the windows
    start at each tool's own clock reading): "" or what differs."""
    if sorted(fio_logs) != sorted(logs):
        return "log files differ: fio %s, %s %s" % (sorted(fio_logs), who, sorted(logs))
    if any(abs(fio_logs[n] - logs[n]) > 1 for n in fio_logs):
        return "log line counts (fio/%s) differ by more than one: %s" % (
            who, ", ".join("%s %d/%d" % (n, fio_logs[n], logs[n]) for n in sorted(fio_logs)))
    return ""


def jobs_of(doc):
    return [(j["jobname"], j["groupid"], j["read"]["iops"] + j["write"]["iops"] + j["trim"]["iops"])
            for j in doc["jobs"]]


def run_rounds(args, tools, clis, name, common, own_files):
    """ROUNDS rounds of one file: per round {tool: jobs_of(...)} for the tools
    that ran it, the reason of each that did not ("fio" ends the file), and
    the log notes."""
    rounds, refusals, log_notes = [], {}, set()
    for r in range(args.rounds):
        active = [w for w in tools if w not in refusals]
        order = active if r % 2 == 0 else active[::-1]
        res, logs = {}, {}
        for who in order:
            if own_files:
                # Every run makes its own files (create_on_open writes
                # into new files; the files one tool left would spare
                # the other that work).
                subprocess.run(["rm", "-rf", OWN_DIR])
                os.makedirs(OWN_DIR)
            cmd = (["fio"] if who == "fio" else [clis[who], "bench"]) + common
            if args.pin_cpu:
                cmd = ["taskset", "-c", args.pin_cpu] + cmd
            res[who] = run(cmd)
            logs[who] = take_logs()
        for w in order:
            if res[w][0] is None:
                refusals[w] = res[w][1]
        if "fio" in refusals or len(refusals) == len(tools) - 1:
            rounds = []
            break
        ran = [w for w in order if w not in refusals]
        rounds.append({w: jobs_of(res[w][0]) for w in ran})
        for who in ran:
            note = compare_logs(logs["fio"], logs[who], NAMES[who]) if who != "fio" else ""
            if note:
                log_notes.add(note)
            elif r == 0 and logs["fio"] and who != "fio":
                print("%-22s logs (lines fio/%s, round 1): %s" % (name, NAMES[who], ", ".join(
                    "%s %d/%d" % (n, logs["fio"][n], logs[who][n]) for n in sorted(logs["fio"]))))
    if own_files:
        subprocess.run(["rm", "-rf", OWN_DIR])
    return rounds, refusals, log_notes


def report_file(name, tools, rounds, refusals, log_notes, tally, show_rounds):
    """One line per job: fio's median IOPS, each build's median IOPS and
    median round ratio; counts the verdicts into tally."""
    f0 = rounds[0]["fio"]
    builds = [w for w in tools[1:] if w not in refusals]
    same = {w: [(n, g) for n, g, _ in f0] == [(n, g) for n, g, _ in rounds[0].get(w, [])] for w in builds}
    for i, (jn, _, _) in enumerate(f0):
        fio_iops = statistics.median(x["fio"][i][2] for x in rounds)
        fig = {}
        for w in tools[1:]:
            ran = [x for x in rounds if w in x and i < len(x[w])]
            if w in refusals or not ran:
                fig[w] = (float("nan"), float("nan"), False)
                continue
            ratios = [x[w][i][2] / x["fio"][i][2] for x in ran if x["fio"][i][2] > 0]
            ratio = statistics.median(ratios) if ratios else float("nan")
            fig[w] = (statistics.median(x[w][i][2] for x in ran), ratio, bool(ratios) and abs(ratio - 1) <= 0.15)
            tally["within"][w] += 1 if fig[w][2] else 0
        tally["total"] += 1
        note = "".join("job/group structure differs (%s); " % NAMES[w] for w in builds if not same[w])
        note += "".join("%s refused: %s; " % (NAMES[w], refusals[w]) for w in tools[1:] if w in refusals and i == 0)
        note += "" if fig["rs"][2] or "rs" in refusals else "outside 15%; "
        if "bf" in fig:
            note += "" if fig["bf"][2] or "bf" in refusals else "before outside 15%; "
            if fig["bf"][2] != fig["rs"][2]:
                tally["differs"].append((name, jn, fig["rs"][1], fig["bf"][1]))
        if show_rounds:
            note += "".join("%s rounds %s; " % (NAMES[w], " ".join(
                "%.2f" % (x[w][i][2] / x["fio"][i][2]) if w in x and x["fio"][i][2] > 0 else "-" for x in rounds))
                for w in tools[1:])
        if i == 0:
            note += "; ".join(sorted(log_notes))
        cols = " ".join("%12.0f %7.2f" % fig[w][:2] for w in tools[1:])
        print("%-22s %-14s %12.0f %s  %s" % (name, jn[:14], fio_iops, cols, note.strip("; ")), flush=True)


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
    ap.add_argument("--before", default="", help="a second raidscope-cli, run in the same rounds")
    ap.add_argument("--show-rounds", action="store_true", help="each job's round-by-round ratios too")
    args = ap.parse_args()
    tools = ["fio", "rs"] + (["bf"] if args.before else [])
    clis = {"rs": args.rs, "bf": args.before}
    tally = {"total": 0, "within": {w: 0 for w in tools}, "differs": []}
    not_compared = []
    cap = os.stat(args.target).st_size
    work = os.path.join(os.path.dirname(os.path.abspath(args.target)), "scaled")
    os.makedirs(work, exist_ok=True)
    print("sizes x%d (capped to the %d MiB target), %d rounds, --runtime=%s%s" %
          (args.scale, cap >> 20, args.rounds, args.runtime,
           ", both tools on CPU " + args.pin_cpu if args.pin_cpu else ""))
    files = sorted(f for f in os.listdir(args.corpus) if f.endswith(".fio") and re.search(args.only, f))
    head = "%-22s %-14s %12s %12s %7s" % ("file", "job", "fio IOPS", "ours IOPS", "ratio")
    if args.before:
        print("ours: %s; before: %s" % (args.rs, args.before))
        head += " %12s %7s" % ("before IOPS", "ratio")
    print(head + "  note")
    for name in files:
        path = os.path.join(work, name)
        with open(os.path.join(args.corpus, name)) as src, open(path, "w") as dst:
            dst.write(scaled(src.read(), args.scale, cap))
        own_files = OWN_FILES in open(path).read()
        target = [] if own_files else ["--filename=" + args.target]
        common = ["--runtime=" + args.runtime] + target + ["--output-format=json", path]
        rounds, refusals, log_notes = run_rounds(args, tools, clis, name, common, own_files)
        if not rounds:
            problem = "; ".join("%s: %s" % (NAMES[w], refusals[w]) for w in tools if w in refusals)
            print("%-22s %-14s %12s %12s %7s  %s" % (name, "-", "-", "-", "-", problem))
            not_compared.append((name, problem))
            continue
        report_file(name, tools, rounds, refusals, log_notes, tally, args.show_rounds)
    print("\njobs compared: %d; median ratio within 15%%: %d" % (tally["total"], tally["within"]["rs"]))
    for name, problem in not_compared:
        print("not compared: %s: %s" % (name, problem))
    if args.before:
        differs = tally["differs"]
        print("both builds, the same fio runs: jobs %d; within 15%%: ours %d, before %d; files not compared: %d; "
              "verdict differs in %d job(s)%s" % (tally["total"], tally["within"]["rs"], tally["within"]["bf"],
                                                   len(not_compared), len(differs), ":" if differs else ""))
        for name, jn, ours, before in differs:
            print("  verdict differs: %s %s: ours %.2f, before %.2f" % (name, jn, ours, before))


if __name__ == "__main__":
    main()
