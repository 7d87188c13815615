#!/usr/bin/env python3
"""LevelInfo (engine/raid/level_info.hpp) is the one table of level rules:
member limits, chunked or not, default layout, layout spellings. This check
fails when code outside the level folders and the md format layer spells a
level's rule out itself: a comparison with a level number, raid10's default
layout word, a level's own layout parser, a default layout by name.
Comments are not code and are not checked. Usage: check_level_rules.py SOURCE_DIR"""
import pathlib
import re
import sys

from cpp_lines import code_lines

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
# Where level rules belong: the table, each level's own folder, md's address
# maths and on-disk format (mdadm knows every level's format too).
ALLOWED = re.compile(r"^(engine/raid/level_info\.|engine/levels/|engine/mirror/|engine/raid5/|engine/raid6/"
                     r"|engine/layout/|engine/ondisk/)")
PATTERNS = [
    (re.compile(r"\b(level|level_|level\(\))\s*(==|!=|===|!==)\s*[0-9]"), "compares with a level number"),
    (re.compile(r"\b0x102\b"), "raid10's default layout word"),
    (re.compile(r"parse_raid(5|10)_layout|raid(5|10)_layout_name"), "a level's own layout spelling"),
    (re.compile(r'"(left-symmetric|n2)"'), "a default layout by name"),
    (re.compile(r'\b512\s*\*\s*1024\b|\b524288\b|"512K"'), "mdadm's default chunk (raid::kDefaultChunkBytes)"),
]

hits = []
for sub in ("engine", "app", "qml"):
    for path in sorted((root / sub).rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".qml") or not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        if ALLOWED.match(rel):
            continue
        for n, code, line in code_lines(path):
            for pat, why in PATTERNS:
                if pat.search(code):
                    hits.append(f"{rel}:{n}: {why}: {line.strip()}")
if hits:
    print("level rules written outside the level table (engine/raid/level_info.hpp and the level folders):")
    print("\n".join(hits))
    sys.exit(1)
print("level rules: only in the level table and the level folders")
