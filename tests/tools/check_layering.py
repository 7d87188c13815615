#!/usr/bin/env python3
"""Checks the real #includes of engine/ and app/ against the layering table
in docs/architecture.md (the rows between <!-- layering:begin --> and
<!-- layering:end -->), and that nothing under engine/ includes Qt.

    python3 tests/tools/check_layering.py [REPO_ROOT]

Prints every include that crosses the table (file:line, what it includes,
what the folder may include) and exits 1; prints the folder graph it found
and exits 0 when everything is inside. A folder under engine/ or app/ with
no row in the table is an error too: a new folder says where it sits.
"""
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
QT_INCLUDE = re.compile(r"^\s*#\s*include\s+<(Q[A-Za-z]|Qt)")
SOURCES = (".cpp", ".hpp", ".h", ".cc")


def read_table(doc: Path):
    """{folder: set of folders it may include} from the marked table."""
    text = doc.read_text(encoding="utf-8")
    m = re.search(r"<!-- layering:begin -->(.*?)<!-- layering:end -->", text, re.S)
    if not m:
        sys.exit(f"{doc}: no <!-- layering:begin --> ... <!-- layering:end --> table")
    table = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue  # header, separator or prose
        folder = cells[0].strip("`")
        allowed = set()
        for tok in cells[1].split(","):
            tok = tok.strip().strip("`")
            if tok and tok not in ("nothing", "-"):
                allowed.add(tok)
        table[folder] = allowed
    return table


def may_include(table, folder, target):
    if target == folder:
        return True
    for tok in table.get(folder, ()):
        if tok == target or (tok.endswith("/*") and target.startswith(tok[:-1])):
            return True
    return False


def folder_of(root: Path, path: str):
    """The folder an include "dir/file.hpp" resolves to (engine/ first, as the build does)."""
    for base in ("engine", "app"):
        if (root / base / path).exists():
            return f"{base}/{path.split('/')[0]}"
    return None


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
    table = read_table(root / "docs" / "architecture.md")
    folders = sorted(p.relative_to(root).as_posix() for base in ("engine", "app")
                     for p in (root / base).iterdir() if p.is_dir())
    errors, graph = [], {f: set() for f in folders}
    for folder in folders:
        if folder not in table:
            errors.append(f"{folder}: no row in docs/architecture.md's layering table")
            continue
        for src in sorted((root / folder).rglob("*")):
            if src.suffix not in SOURCES:
                continue
            rel = src.relative_to(root).as_posix()
            for n, line in enumerate(src.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if folder.startswith("engine/") and QT_INCLUDE.match(line):
                    errors.append(f"{rel}:{n}: the engine includes Qt: {line.strip()}")
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue  # a file of the same folder
                target = folder_of(root, m.group(1))
                if target is None:
                    errors.append(f"{rel}:{n}: \"{m.group(1)}\" is in no engine/ or app/ folder")
                    continue
                graph[folder].add(target)
                if not may_include(table, folder, target):
                    allowed = ", ".join(sorted(table[folder])) or "nothing"
                    errors.append(f"{rel}:{n}: {folder} includes {target} (\"{m.group(1)}\"); "
                                  f"it may include: {allowed}")
    for folder in sorted(table):
        if folder not in graph:
            errors.append(f"docs/architecture.md: the layering table names {folder}, which does not exist")
    if errors:
        print("\n".join(errors))
        print(f"layering: {len(errors)} problem(s); the table is in docs/architecture.md")
        return 1
    for folder in folders:
        deps = sorted(d for d in graph[folder] if d != folder)
        print(f"{folder:16} -> {', '.join(deps) if deps else '(nothing)'}")
    print(f"layering: {len(folders)} folders, every include inside docs/architecture.md's table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
