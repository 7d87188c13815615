#!/usr/bin/env python3
"""The engine's one error model (engine/base/result.hpp): errors are
Result/Status values, never exceptions, and descriptors are owned by
UniqueFd (engine/base/unique_fd.hpp). This check fails when code under
engine/ (comments and string literals aside)
  - throws ("throw"): an exception on a context or job thread ends the
    process with I/O in flight;
  - closes a descriptor by hand ("::close("): UniqueFd does, on every path;
  - reports an error through a "std::string* error" out-parameter.
The exceptions are listed, each with its reason, in error_model_allow.txt
next to this file ("<path> <rule> # reason"); an entry that no longer
matches anything is reported too, so the list only shrinks.
Usage: check_error_model.py SOURCE_DIR"""
import pathlib
import re
import sys

from cpp_lines import code_lines

here = pathlib.Path(__file__).resolve().parent
root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else here.parents[1])
RULES = {
    "throw": re.compile(r"\bthrow\b"),
    "close": re.compile(r"(?<![\w>)])::close\s*\("),
    "string-error-out": re.compile(r"std::string\s*\*\s*\w*(err|why|error|reason)\w*\b"),
}


def load_allow():
    allow = {}
    for n, raw in enumerate((here / "error_model_allow.txt").read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        path, rule = line.split()
        if rule not in RULES or "#" not in raw:
            sys.exit(f"error_model_allow.txt:{n}: want '<path> <{'|'.join(RULES)}> # reason'")
        allow[(path, rule)] = False
    return allow


def main():
    allow = load_allow()
    bad = []
    for f in sorted((root / "engine").rglob("*")):
        if f.suffix not in (".cpp", ".hpp", ".h", ".cc") or f.name == "unique_fd.hpp":
            continue
        rel = f.relative_to(root).as_posix()
        for n, code, line in code_lines(f, blank_strings=True):
            for rule, pat in RULES.items():
                if not pat.search(code):
                    continue
                if (rel, rule) in allow:
                    allow[(rel, rule)] = True
                else:
                    bad.append(f"{rel}:{n}: {rule}: {line.strip()}")
    for (path, rule), used in allow.items():
        if not used:
            bad.append(f"error_model_allow.txt: '{path} {rule}' matches nothing any more: remove it")
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} place(s) break the engine's error model (see {pathlib.Path(__file__).name})")
        return 1
    print("engine/: no throw, no manual close, no string error out-parameters outside the allow-list")
    return 0


sys.exit(main())
