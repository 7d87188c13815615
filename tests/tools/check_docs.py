#!/usr/bin/env python3
"""The documentation's checkable promises:
  - README.md is at most 250 lines (the user's page, not a lab notebook);
  - every folder under engine/ has a README.md with a section on what it may
    include and one on how to change it (the folder's own doc);
  - every relative link in every markdown file of the repository resolves:
    the file exists, and a #fragment names a heading of that file.

    python3 tests/tools/check_docs.py [REPO_ROOT]

Prints each problem (file:line and what is wrong) and exits 1, or a one-line
summary and exits 0.
"""
import re
import sys
from pathlib import Path

README_MAX_LINES = 250
SKIP_DIRS = {".git", "node_modules"}
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")


def markdown_files(root: Path):
    for p in sorted(root.rglob("*.md")):
        parts = p.relative_to(root).parts
        if any(part in SKIP_DIRS or part.startswith("build") for part in parts[:-1]):
            continue
        yield p


def prose_lines(text: str):
    """(line number, line) outside fenced code blocks, inline code removed."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield n, re.sub(r"`[^`]*`", "", line)


def slug(heading: str):
    """GitHub's anchor for a heading."""
    s = re.sub(r"`|\*|_(?=\W)|(?<=\W)_", "", heading.strip().lower())
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path: Path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if m:
                base = slug(m.group(1))
                k = seen.get(base, 0)
                out.add(base if k == 0 else f"{base}-{k}")
                seen[base] = k + 1
        cache[path] = out
    return cache[path]


def check_links(root: Path, errors):
    count = 0
    for md in markdown_files(root):
        rel = md.relative_to(root).as_posix()
        for n, line in prose_lines(md.read_text(encoding="utf-8")):
            targets = LINK.findall(line)
            m = REF_LINK.match(line)
            if m:
                targets.append(m.group(1))
            for t in targets:
                if re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I):
                    continue  # http:, https:, mailto: ...
                count += 1
                path_part, _, frag = t.partition("#")
                dest = md if not path_part else (md.parent / path_part).resolve()
                if not dest.exists():
                    errors.append(f"{rel}:{n}: link to {t}: {path_part} does not exist")
                elif frag and dest.suffix == ".md" and frag not in anchors(dest):
                    errors.append(f"{rel}:{n}: link to {t}: no heading '{frag}' in {dest.relative_to(root)}")
    return count


def check_engine_readmes(root: Path, errors):
    folders = sorted(p for p in (root / "engine").iterdir() if p.is_dir())
    for d in folders:
        readme = d / "README.md"
        rel = readme.relative_to(root).as_posix()
        if not readme.exists():
            errors.append(f"{rel}: missing (every engine folder says what it owns, "
                          "what it may include and how to change it)")
            continue
        headings = [m.group(1).lower() for _, line in prose_lines(readme.read_text(encoding="utf-8"))
                    if (m := HEADING.match(line))]
        if not any("include" in h for h in headings):
            errors.append(f"{rel}: no section on what the folder may include (a heading with 'include')")
        if not any("chang" in h for h in headings):
            errors.append(f"{rel}: no section on how to change it (a heading with 'change')")
    return len(folders)


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]).resolve()
    errors = []
    lines = len((root / "README.md").read_text(encoding="utf-8").splitlines())
    if lines > README_MAX_LINES:
        errors.append(f"README.md: {lines} lines, more than {README_MAX_LINES} "
                      "(move detail to docs/ or a folder's README)")
    folders = check_engine_readmes(root, errors)
    links = check_links(root, errors)
    if errors:
        print("\n".join(errors))
        print(f"docs: {len(errors)} problem(s)")
        return 1
    print(f"docs: README.md {lines} lines; {folders} engine folders with a README; "
          f"{links} relative links resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
