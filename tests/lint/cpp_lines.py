"""What the lint checks read of a C++ or QML source: its code, line by line,
without // and /* */ comments (a comment may name what the code must not
do). String literals are kept, or blanked to spaces when a check looks
only at code (`throw` in a message is not a throw)."""


def code_part(line, in_comment, blank_strings=False):
    """The code of `line` and whether a /* comment is still open after it."""
    out, i, in_str = [], 0, None
    while i < len(line):
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_comment = end + 2, False
            continue
        c = line[i]
        if in_str:
            if c == "\\":
                out.append("  " if blank_strings else line[i:i + 2])
                i += 2
                continue
            if c == in_str:
                in_str = None
            out.append(" " if blank_strings and in_str else c)
        elif c in "\"'":
            in_str = c
            out.append(c)
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_comment = True
            i += 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out), in_comment


def code_lines(path, blank_strings=False):
    """(line number, code, the line as written) for each line of `path`."""
    in_comment = False
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        code, in_comment = code_part(line, in_comment, blank_strings)
        yield n, code, line
