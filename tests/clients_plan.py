#!/usr/bin/env python3
"""clients_plan.py: the plan of tests/clients_test.sh (make test-clients),
the blocks of docs/clients.md outside its Python and Node.js sections and
the sh blocks of the README, read with tests/snippets.py.

    python3 tests/clients_plan.py ROOT PLANDIR > PLANDIR/list

Prints one line per block to run, fields separated by "|",
    N  LANG  FILE:LINE  SECTION-DIR  SAVE-AS  HAS-TEXT
with the code in PLANDIR/N.code and the expected output (the ```text
block right after it) in PLANDIR/N.want; or "bad|message" for a block
that breaks the rules of tests/clients_test.sh.  Part of cuckoo (MIT
License, see LICENSE).
"""
import os
import sys

root, out = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "tests"))
import snippets

CLIENTS = {"The sqlite3 shell": "shell", "Go": "go", "Tcl": "tcl",
           "C, linked statically": "c", "A renamed file": "renamed",
           "A database with a cuckoo table needs the extension": "needs",
           "How this is tested": "tested"}
README = {"Using cuckoo from your language": "readme"}
SAVED = ("go", "tcl", "c")
n = 0

def all_blocks(path):
    """Every fenced block of path, in order (snippets.py), each with its
    section (its "## " heading) and "want": the code of the ```text block
    that follows it, or None."""
    found = snippets.blocks(path)
    section = None
    heads = {}
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh, 1):
            if line.startswith("## "):
                section = line[3:].strip()
            heads[i] = section
    for k, b in enumerate(found):
        b["section"] = heads[b["line"]]
        nxt = found[k + 1] if k + 1 < len(found) else None
        b["want"] = None
        if nxt and nxt["lang"] == "text" and nxt["follows"]:
            b["want"] = nxt["code"]
    return found


def emit(path, b, d, name=""):
    global n
    with open(os.path.join(out, "%d.code" % n), "w") as fh:
        fh.write(b["code"])
    if b["want"] is not None:
        with open(os.path.join(out, "%d.want" % n), "w") as fh:
            fh.write(b["want"])
    print("|".join([str(n), b["lang"], "%s:%d" % (path, b["line"]), d, name,
                     "1" if b["want"] is not None else "0"]))
    n += 1

def bad(msg):
    print("bad|" + msg)

page = "docs/clients.md"
blocks = all_blocks(os.path.join(root, page))
for k, b in enumerate(blocks):
    d = CLIENTS.get(b["section"])
    if d is None or b["lang"] == "text":
        continue
    where = "%s:%d" % (page, b["line"])
    if b["lang"] == "sh":
        emit(page, b, d)
    elif b["lang"] in SAVED:
        name = b["flags"][0] if b["flags"] else ""
        first = b["code"].split("\n", 1)[0]
        later = [x for x in blocks[k + 1:]
                 if x["lang"] == "sh" and x["section"] == b["section"]]
        if not name:
            bad("%s: a %s block needs a file name (```%s FILE)"
                % (where, b["lang"], b["lang"]))
        elif name not in first:
            bad("%s: its first line does not name %s" % (where, name))
        elif not later:
            bad("%s: no sh block after it in its section runs it" % where)
        else:
            emit(page, b, d, name)
    else:
        bad("%s: a %s block in section %r: no test runs it"
            % (where, b["lang"], b["section"]))

readme = "README.md"
install1 = snippets.blocks(os.path.join(root, "docs/install.md"), "sh")[1]["code"]
sh = [b for b in all_blocks(os.path.join(root, readme)) if b["lang"] == "sh"]
for i, b in enumerate(sh):
    d = README.get(b["section"])
    if d is not None:
        emit(readme, b, d)
    elif i == 0 and b["section"].startswith("Set-up"):
        pass  # run by .ci/run
    elif b["code"] == install1:
        pass  # run by tests/install_test.sh
    else:
        bad("%s:%d: sh block %d is run by no test" % (readme, b["line"], i))
