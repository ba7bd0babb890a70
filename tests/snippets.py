#!/usr/bin/env python3
"""snippets.py: extract the fenced code blocks of one language from a
Markdown file, so that every snippet in README.md and docs/ can be run by
the test that owns its language.

    python3 tests/snippets.py FILE.md LANG            # JSON list of blocks
    python3 tests/snippets.py FILE.md LANG --block N  # block N (0-based)
    python3 tests/snippets.py FILE.md LANG --text-after N
                                    # the ```text block right after block N
    python3 tests/snippets.py FILE.md --all           # every block, for Tcl

It is the one Markdown extractor of the tests: tests/docs.test reads
--all, the other runners the JSON or one block.  A block's info string is
its first line after the fence: the first word is the language (sql,
python, js, go, tcl, c, sh, text); further words are flags for the runner
(e.g. `sql error`). Each JSON entry holds "line" (the 1-based line of the
opening fence), "flags", "code" and "follows" (true when only blank lines
separate the block from the one before it, of any language: a ```text
block that follows another is that block's expected output).

--all prints every block, of every language, in order, as a line
"LINE FOLLOWS NLINES LANG FLAGS..." (FOLLOWS 1 or 0) and then the NLINES
lines of its code: a form Tcl reads without a JSON parser.
"""
import json
import sys


def blocks(path, lang=None):
    """The fenced blocks of LANG (of every language when None), in order."""
    out = []
    fence = None
    seen = False  # a block (of any language) has ended
    gap = False   # a non-blank line since it ended
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            stripped = line.strip()
            if fence is None:
                if stripped.startswith("```"):
                    words = stripped[3:].split()
                    fence = {"lang": words[0] if words else "",
                             "flags": words[1:], "line": n, "code": [],
                             "follows": seen and not gap}
                elif stripped:
                    gap = True
            elif stripped == "```":
                if lang is None or fence["lang"] == lang:
                    fence["code"] = "".join(fence["code"])
                    out.append(fence)
                fence = None
                seen = True
                gap = False
            else:
                fence["code"].append(line)
    if fence is not None:
        sys.exit("%s:%d: unterminated code block" % (path, fence["line"]))
    return out


def main(argv):
    if len(argv) == 3 and argv[2] == "--all":
        for b in blocks(argv[1]):
            code = b["code"]
            if code and not code.endswith("\n"):
                code += "\n"
            sys.stdout.write("%d %d %d %s\n" % (
                b["line"], b["follows"], code.count("\n"),
                " ".join([b["lang"]] + b["flags"])))
            sys.stdout.write(code)
        return
    if len(argv) not in (3, 5) or (len(argv) == 5 and
                                   argv[3] not in ("--block", "--text-after")):
        sys.exit(__doc__)
    found = blocks(argv[1], argv[2])
    if len(argv) == 5 and argv[3] == "--text-after":
        every = blocks(argv[1])
        k = next(i for i, b in enumerate(every)
                 if b["line"] == found[int(argv[4])]["line"])
        nxt = every[k + 1] if k + 1 < len(every) else None
        if not (nxt and nxt["lang"] == "text" and nxt["follows"]):
            sys.exit("%s: no ```text block right after %s block %s"
                     % (argv[1], argv[2], argv[4]))
        sys.stdout.write(nxt["code"])
    elif len(argv) == 5:
        sys.stdout.write(found[int(argv[4])]["code"])
    else:
        json.dump(found, sys.stdout, indent=1)
        sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
