#!/usr/bin/env python3
"""snippets.py: extract the fenced code blocks of one language from a
Markdown file, so that every snippet in README.md and docs/ can be run by
the test that owns its language.

    python3 tests/snippets.py FILE.md LANG            # JSON list of blocks
    python3 tests/snippets.py FILE.md LANG --block N  # block N (0-based)

A block's info string is its first line after the fence: the first word is
the language (sql, python, js, go, tcl, c, sh, text); further words are
flags for the runner (e.g. `sql error`). Each JSON entry holds "line" (the
1-based line of the opening fence), "flags" and "code".
"""
import json
import sys


def blocks(path, lang):
    out = []
    fence = None
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            stripped = line.strip()
            if fence is None:
                if stripped.startswith("```"):
                    words = stripped[3:].split()
                    fence = {"lang": words[0] if words else "",
                             "flags": words[1:], "line": n, "code": []}
            elif stripped == "```":
                if fence["lang"] == lang:
                    out.append({"line": fence["line"], "flags": fence["flags"],
                                "code": "".join(fence["code"])})
                fence = None
            else:
                fence["code"].append(line)
    if fence is not None:
        sys.exit("%s:%d: unterminated code block" % (path, fence["line"]))
    return out


def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--block"):
        sys.exit(__doc__)
    found = blocks(argv[1], argv[2])
    if len(argv) == 5:
        sys.stdout.write(found[int(argv[4])]["code"])
    else:
        json.dump(found, sys.stdout, indent=1)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
