#!/usr/bin/env python3
"""Lists the longest functions in engine/ and app/ (C++), longest first, and
fails when one is longer than the limit. A function's length is its lines
from the line its name is on to its closing brace. The parser is a brace
matcher over the code with comments and literals removed: a `{` opens a
function when the text before it (since the last `;`, `{` or `}`) has a
parameter list and the brace is at namespace or class scope; lambdas and
blocks inside a function count as the function's lines.
Usage: function_lengths.py [--limit N] [--show N] SOURCE_DIR"""
import argparse
import pathlib
import re
import sys

CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|else|do|try|return)\b")
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def strip_code(text: str) -> str:
    """Comments, string and character literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if not m:
                out.append(c); i += 1; continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
        elif c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
            i += 1  # a digit separator (1'000'000), not a character literal
        elif c == "#" and text[text.rfind("\n", 0, i) + 1:i].strip() == "":
            j = text.find("\n", i)  # a preprocessor line, with its continuations
            while j > 0 and text[j - 1] == "\\":
                j = text.find("\n", j + 1)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path: pathlib.Path):
    code = strip_code(path.read_text(errors="replace"))
    stack = []  # (kind, start_line, name)
    head, head_line = [], 1
    line = 1
    for ch in code:
        if ch == "\n":
            line += 1
        if ch == "{":
            text = "".join(head).strip()
            in_function = any(k == "function" for k, _, _ in stack)
            if in_function:
                kind = "block"
            elif SCOPE.search(text) and "(" not in text.split("{")[-1].split(":")[0]:
                kind = "scope"
            elif "(" in text and not CONTROL.match(text) and not text.startswith("="):
                kind = "function"
            else:
                kind = "block"  # an initializer list, a lambda at namespace scope
            if kind == "function":
                m = re.search(r"([~\w:<>]+)\s*\(", text)
                stack.append((kind, head_line, m.group(1) if m else text[:60]))
            else:
                stack.append((kind, line, ""))
            head, head_line = [], line
        elif ch == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    yield name, start, line
            head = []
        elif ch == ";":
            head = []
        else:
            if not head and not ch.isspace():
                head_line = line
            if head or not ch.isspace():
                head.append(ch)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=120)
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("root", nargs="?", default=str(pathlib.Path(__file__).resolve().parents[2]))
    a = ap.parse_args()
    root = pathlib.Path(a.root)
    found = []
    for sub in ("engine", "app"):
        for p in sorted((root / sub).rglob("*")):
            if p.suffix in (".cpp", ".hpp") and p.is_file():
                for name, start, end in functions(p):
                    found.append((end - start + 1, f"{p.relative_to(root).as_posix()}:{start}", name))
    found.sort(reverse=True)
    print(f"the {a.show} longest functions in engine/ and app/ (limit {a.limit} lines):")
    for n, where, name in found[: a.show]:
        print(f"  {n:5d}  {where}  {name}")
    over = [f for f in found if f[0] > a.limit]
    if over:
        print(f"{len(over)} function(s) over {a.limit} lines")
        sys.exit(1)


if __name__ == "__main__":
    main()
