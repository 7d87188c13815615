#!/usr/bin/env python3
"""A read policy's name is read once, at the edge, by balance::parse_policy
(engine/balance/policy.hpp); past the edge it travels as balance::PolicyId
(BenchSpec::read_policy, ArraySession::set_tunable(balance::kReadPolicy, ...))
to the mirror. This check fails when code in engine/, app/ or qml/ (comments
aside):
  - calls parse_policy() outside the edges listed in EDGES below;
  - calls the old policy_from_name() (gone: one parser, one name);
  - compares text with a policy's name ("== \\"md-rr\\""): a second parser.
Usage: check_policy_parse.py SOURCE_DIR"""
import pathlib
import re
import sys

from cpp_lines import code_lines

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
# The edges where a user's text becomes a PolicyId, each with why.
EDGES = {
    "engine/balance/policy.hpp": "the parser's declaration",
    "engine/balance/policy.cpp": "the parser itself",
    "engine/mirror/mirror.cpp": "the read_policy tunable's text (--set, --set-at, the GUI's Tune page)",
    "engine/scenario/scenario.cpp": "a scenario file's policy_before/policy_after, refused at load",
    "app/cli/workload_args.cpp": "the CLI's --policy, --policy-before, --policy-after",
}
NAMES = r"(md-legacy|md-rr|btrfs-pid|btrfs-rr|btrfs-qlen)"
RULES = [
    (re.compile(r"\bparse_policy\s*\("), "parses a policy name outside the edges", True),
    (re.compile(r"\bpolicy_from_name\s*\("), "calls policy_from_name (use balance::parse_policy at an edge)", False),
    (re.compile(r'(==|!=)\s*(u8)?"' + NAMES + r'"|"' + NAMES + r'"\s*(==|!=)'),
     "compares text with a policy name", False),
]


def main():
    bad, files, edges_used = [], 0, set()
    for top in ("engine", "app", "qml"):
        for f in sorted((root / top).rglob("*")):
            if f.suffix not in (".cpp", ".hpp", ".h", ".qml", ".js"):
                continue
            files += 1
            rel = f.relative_to(root).as_posix()
            for n, code, line in code_lines(f):
                for pat, what, edge_ok in RULES:
                    if not pat.search(code):
                        continue
                    if edge_ok and rel in EDGES:
                        edges_used.add(rel)
                        continue
                    bad.append(f"{rel}:{n}: {what}: {line.strip()}")
    for rel in sorted(set(EDGES) - edges_used):
        bad.append(f"{rel}: listed as an edge but parses no policy name any more: remove it from EDGES")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} place(s) read a policy's name outside balance::parse_policy at an edge")
        return 1
    edges = sorted(e for e in edges_used if not e.startswith("engine/balance/"))
    print(f"read policy names: parsed only by balance::parse_policy, at {len(edges)} edges "
          f"({', '.join(edges)}); {files} files read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
