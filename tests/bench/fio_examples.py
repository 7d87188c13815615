#!/usr/bin/env python3
"""fio's own example job files, run with fio and with `raidscope-cli bench`.

Run by hand (see fio_examples.sh, which finds the tools and a work directory).
Each example is prepared the way issue 16 describes:
  - `filename=` and `directory=` lines removed: every job runs on one target
    file of 256 MiB given on the command line (--filename=TARGET);
  - `runtime=` lines removed and --runtime=2 given on the command line;
  - every size (size, filesize, io_size, io_limit) above 256 MiB, or given
    in zones ("128z"), capped to 256m, except in a file whose jobs all use
    ioengine=null (no file is touched: null.fio's size=100g, capped, ran
    65,536 I/Os in 4-5 ms, and the ratio measured the tools' start and
    stop; uncapped both run the 2 s); an offset in zones, or one at or past
    256 MiB (zbd-seq-read's 131 GiB offset made fio extend and lay out the
    target to 131 GiB and filled the disk), becomes 0;
  - `fill_device=` lines removed: on a file it fills the whole filesystem
    (a shared disk here); the job then covers the target file.
Then it runs fio (--output-format=json) and ours, alternating which goes
first, and prints per file: whether fio accepted it, whether ours ran it or
refused it (with the reason), and the IOPS ratio ours/fio per job and for the
file. With --before CLI a second build of raidscope-cli runs in the same
rounds (fio, ours, before; reversed every other round), each build's median
round is taken against the same fio runs, and the summary gives both counts
and every file whose verdict (within 25 %, outside, refused) differs.
"Plain engines" are sync, psync, vsync, pvsync, pvsync2, libaio,
posixaio, io_uring, null and mmap (or no ioengine=: fio's default psync).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

PLAIN = {"sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "posixaio", "io_uring", "null", "mmap"}
SIZE_OPTS = {"size", "filesize", "io_size", "io_limit"}
CAP = 256 << 20
UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+)\s*([kmgtp]?)(i?b)?\s*", text, re.I)
    if not m:
        return None
    return int(m.group(1)) * UNITS[m.group(2).lower()]


def cap_value(value):
    """Caps each part of a size or a size range (1k-10M) to 256m. A size in
    zones (fio's "128z", 256 MiB zones in the zbd examples) is capped too:
    uncapped it writes tens of GiB to the target file."""
    parts = re.split(r"([-:,])", value)
    out = []
    for p in parts:
        n = parse_size(p) if p not in "-:," else None
        zoned = re.fullmatch(r"\s*\d+\s*z\s*", p, re.I) is not None
        out.append("256m" if zoned or (n is not None and n > CAP) else p)
    return "".join(out)


def offset_past_cap(body):
    value = re.split(r"[;#]", body.split("=", 1)[1], maxsplit=1)[0] if "=" in body else ""
    n = parse_size(value)
    return n is not None and n >= CAP


def guard_target(target):
    """Neither tool may grow the target past its 256 MiB (a job reaching
    past its end makes fio extend the file and lay it out): cut it back and
    say so, so a missed case cannot fill the disk."""
    size = os.stat(target).st_size
    if size > CAP:
        os.truncate(target, CAP)
        print("  (the target grew to %d MiB; cut back to 256 MiB)" % (size >> 20), flush=True)


def prepare(text):
    cap_sizes = engines(text) != {"null"}
    lines = []
    for line in text.splitlines():
        body = line.strip()
        key = re.split(r"[=\s]", body, maxsplit=1)[0] if body and body[0] not in ";#[" else ""
        if key in ("filename", "directory", "runtime", "timeout", "fill_device", "fill_fs"):
            continue
        if key == "offset" and (re.search(r"\d\s*z\b", body, re.I) or offset_past_cap(body)):
            line = "offset=0"  # past a 256 MiB target: the job starts at its beginning
        elif key in SIZE_OPTS and "=" in body and cap_sizes:
            k, v = body.split("=", 1)
            v = re.split(r"[;#]", v, maxsplit=1)[0]
            line = k.strip() + "=" + cap_value(v.strip())
        lines.append(line)
    return "\n".join(lines) + "\n"


def engines(text):
    found = set()
    for line in text.splitlines():
        m = re.match(r"\s*ioengine\s*=\s*([^\s;#]+)", line)
        if m:
            found.add(m.group(1))
    return found or {"psync"}


def job_iops(doc):
    """[(jobname, read+write IOPS)] in the order of the JSON."""
    out = []
    for j in doc.get("jobs", []):
        out.append((j.get("jobname", "?"), j["read"]["iops"] + j["write"]["iops"] + j.get("trim", {}).get("iops", 0)))
    return out


def kill_leftovers(jobfile):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if jobfile.encode() in argv:
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass


def run(cmd, cwd, timeout):
    t0 = time.monotonic()
    # Neither tool syncs at the end (fio's end_fsync=0): write back what the
    # last run left dirty, so it does not slow the next one down.
    os.sync()
    # Its own process group: fio forks its jobs, and a timeout must end them all.
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, errtext = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        # fio's job processes may have left the group: end those running
        # this job file by their pids (never by a name).
        kill_leftovers(cmd[-1])
        # A job process fio forked may have left the group and still hold
        # the pipes: do not wait for them to close.
        p.stdout.close()
        p.stderr.close()
        p.wait()
        return None, "timed out after %ds" % timeout, time.monotonic() - t0
    p.stdout, p.stderr = out, errtext
    doc = None
    if p.returncode == 0:
        text = p.stdout
        start = text.find("{")  # fio prints notes before its JSON
        try:
            doc = json.loads(text[start:]) if start >= 0 else None
        except json.JSONDecodeError:
            doc = None
    err = (p.stderr.strip().splitlines() or [""])
    reason = "exit %d: %s" % (p.returncode, err[-1][:150]) if p.returncode else ""
    if p.returncode == 0 and doc is None:
        reason = "exit 0 but no JSON"
    return doc, reason, time.monotonic() - t0


NAMES = {"fio": "fio", "rs": "ours", "bf": "before"}


def file_ratio(doc_fio, doc):
    ft = sum(v for _, v in job_iops(doc_fio))
    return sum(v for _, v in job_iops(doc)) / ft if ft > 0 else 0


def run_file(args, i, tools, clis, path):
    """ROUNDS alternating rounds of one prepared file: [{tool: run(...)}]. A
    build that fails a round runs no more rounds; fio failing ends the file."""
    common = ["--runtime=2", "--filename=" + args.target, "--output-format=json", path]
    rounds, gone = [], set()
    for r in range(args.rounds):
        active = [w for w in tools if w not in gone]
        order = active if (i + r) % 2 == 0 else active[::-1]
        res = {}
        for who in order:
            cmd = (["fio"] if who == "fio" else [clis[who], "bench"]) + common
            res[who] = run(cmd, args.work, args.timeout)
            guard_target(args.target)
        rounds.append(res)
        gone |= {w for w in order if res[w][0] is None}
        if "fio" in gone or len(gone) == len(tools) - 1:
            break
    return rounds


def median_round(rounds, who):
    """The (fio, build) results of the round whose whole-file ratio is the
    median for that build."""
    if any(w not in x or x[w][0] is None for x in rounds for w in ("fio", who)):
        return rounds[0]["fio"], rounds[0][who]  # a failure: the first round (all tools ran it)
    pairs = sorted(((x["fio"], x[who]) for x in rounds), key=lambda p: file_ratio(p[0][0], p[1][0]))
    return pairs[len(pairs) // 2]


def describe(fres, res):
    fdoc, rdoc = fres[0], res[0]
    if not rdoc:
        return "refused (%s)" % res[1]
    if not fdoc:
        return "ok"
    fi, ri = job_iops(fdoc), job_iops(rdoc)
    per = " ".join("%s=%.2f" % (n, (r / f) if f > 0 else float("nan")) for (n, f), (_, r) in zip(fi, ri))
    return "jobs fio/rs %d/%d ratio %.2f  [%s]" % (len(fi), len(ri), file_ratio(fdoc, rdoc), per[:200])


def within(pair, tol):
    fi, ri = job_iops(pair[0][0]), job_iops(pair[1][0])
    ft, rt = sum(x for _, x in fi), sum(x for _, x in ri)
    # Both doing no I/O is the same result (fio's zbd-seq-read on a fresh
    # target reads nothing: its zones have no data below the write pointer).
    if len(fi) == len(ri) and ft == 0 and rt == 0:
        return True
    return len(fi) == len(ri) and ft > 0 and abs(rt / ft - 1) <= tol


def verdict(pair):
    """"refused", "within" or "outside" (25 %) for a (fio, build) pair fio accepted."""
    if pair[1][0] is None:
        return "refused"
    return "within" if within(pair, 0.25) else "outside"


def summarize(rows, tools):
    fio_ok = [r for r in rows if r[2]["rs"][0][0] is not None]
    print()
    print("files: %d; fio accepts %d; raidscope runs %d" % (len(rows), len(fio_ok),
                                                           sum(1 for r in rows if r[2]["rs"][1][0] is not None)))
    plain_fio = [r for r in fio_ok if r[1]]
    counts = {}
    for w in tools[1:]:
        v = [verdict(r[2][w]) for r in plain_fio]
        counts[w] = (len(v) - v.count("refused"), v.count("within"), v.count("refused"))
    print("plain engines and fio accepts: %d; raidscope runs %d; same job count and IOPS within 25%%: %d; "
          "refused: %d" % ((len(plain_fio),) + counts["rs"]))
    for r in plain_fio:
        if verdict(r[2]["rs"]) == "refused":
            print("  refused: %s: %s" % (r[0], r[2]["rs"][1][1]))
        elif verdict(r[2]["rs"]) == "outside":
            print("  outside 25%%: %s" % r[0])
    if "bf" not in tools:
        return
    differs = [r for r in plain_fio if verdict(r[2]["rs"]) != verdict(r[2]["bf"])]
    print("both builds, the same fio runs, plain engines and fio accepts: %d; ours runs %d, within 25%% %d, "
          "refuses %d; before runs %d, within 25%% %d, refuses %d; verdict differs in %d file(s)%s" %
          ((len(plain_fio),) + counts["rs"] + counts["bf"] + (len(differs), ":" if differs else "")))
    for r in differs:
        shown = []
        for w in ("rs", "bf"):
            v = verdict(r[2][w])
            shown.append("%s %s" % (NAMES[w], v if v == "refused" else "%s %.2f" % (
                v, file_ratio(r[2][w][0][0], r[2][w][1][0]))))
        print("  verdict differs: %s: %s" % (r[0], ", ".join(shown)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rs", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--only", default="", help="regex of file names to run")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs per tool and file, alternating which goes first; the ratio is the median")
    ap.add_argument("--plain-only", action="store_true", help="only the files that use plain engines")
    ap.add_argument("--before", default="", help="a second raidscope-cli, run in the same rounds")
    args = ap.parse_args()
    tools = ["fio", "rs"] + (["bf"] if args.before else [])
    clis = {"rs": args.rs, "bf": args.before}
    if args.before:
        print("ours: %s; before: %s" % (args.rs, args.before), flush=True)

    files = sorted(f for f in os.listdir(args.examples) if f.endswith(".fio"))
    if args.only:
        files = [f for f in files if re.search(args.only, f)]
    prepdir = os.path.join(args.work, "prepared")
    os.makedirs(prepdir, exist_ok=True)
    rows = []  # (name, plain, {build: (fio result, build result) of its median round})
    for i, name in enumerate(files):
        text = open(os.path.join(args.examples, name), errors="replace").read()
        plain = engines(text) <= PLAIN
        if args.plain_only and not plain:
            continue
        path = os.path.join(prepdir, name)
        with open(path, "w") as f:
            f.write(prepare(text))
        rounds = run_file(args, i, tools, clis, path)
        pairs = {w: median_round(rounds, w) for w in tools[1:]}
        rows.append((name, plain, pairs))
        fres = pairs["rs"][0]
        line = "%-40s %-5s fio=%-8s rs=%-8s" % (name, "plain" if plain else "-", "ok" if fres[0] else "refused",
                                               "ok" if pairs["rs"][1][0] else "refused")
        line += " " + describe(fres, pairs["rs"][1]) if fres[0] or not pairs["rs"][1][0] else ""
        if not fres[0]:
            line += " fio: " + fres[1]
        elif "bf" in pairs:
            line += " | before: " + describe(pairs["bf"][0], pairs["bf"][1])
        print(line, flush=True)
    summarize(rows, tools)


if __name__ == "__main__":
    main()
