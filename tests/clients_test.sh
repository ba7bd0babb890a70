#!/bin/sh
# clients_test.sh: the snippets of docs/clients.md outside its Python and
# Node.js sections, and the README's "Using cuckoo from your language"
# (make test-clients).
#
#   sh tests/clients_test.sh      # from the top of the repository, after
#                                 # make cuckoo.so libcuckoo.a
#
# The blocks are taken with tests/snippets.py. Each section of the page
# runs in a scratch directory of its own, build/clients-test/<section>,
# laid out like the top of a clone (cuckoo.so, libcuckoo.a, ext/cuckoo.h),
# its blocks in page order:
#   ```sh           run with sh, stdin /dev/null; when a ```text block
#                   follows it (only blank lines between), stdout and
#                   stderr together must equal it, trailing spaces aside;
#                   otherwise it must exit 0;
#   ```go FILE      (and tcl, c) saved as FILE, which its first line must
#                   name, for the sh blocks after it in its section.
# Any other block in those sections fails the test: Python and JavaScript
# belong to their own sections and tests. Of the README's sh blocks, the
# set-up block (the first) is run by .ci/run and the install block (the
# same as docs/install.md's sh block 1) by tests/install_test.sh; those of
# "Using cuckoo from your language" run here, in build/clients-test/readme;
# any other fails the test.
#
# Go runs offline: GOPROXY=off, the driver from Debian's source package,
# and the build cache kept in build/clients-cache between runs.
set -u
root=$(pwd)
work=$root/build/clients-test
cache=$root/build/clients-cache
. "$root/tests/tally.sh"

for f in cuckoo.so libcuckoo.a ext/cuckoo.h docs/clients.md README.md; do
  [ -f "$f" ] || { bad "$f missing (run from the top, after make cuckoo.so libcuckoo.a)"
                   echo "$pass passed, $fail failed"; exit 1; }
done
rm -rf "$work" && mkdir -p "$work/plan" "$cache"
export GOCACHE="$cache/go-build" GOPATH="$cache/gopath" GOPROXY=off \
  GOFLAGS= GOTOOLCHAIN=local
unset GO111MODULE

# The plan: one line per block to run, fields separated by "|",
#   N  LANG  FILE:LINE  SECTION-DIR  SAVE-AS  HAS-TEXT
# with the code in plan/N.code and the expected output in plan/N.want;
# or "bad|message" for a block that breaks the rules above.
python3 - "$root" "$work/plan" > "$work/plan/list" <<'PY'
import os, re, sys
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
    """Every fenced block of path, in order, as snippets.py reads them,
    each with its language, end line and section."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    langs = {m.group(1) for m in re.finditer(r"^\s*```(\w+)", text, re.M)}
    found = []
    for lang in langs:
        for b in snippets.blocks(path, lang):
            b["lang"] = lang
            b["end"] = b["line"] + b["code"].count("\n") + 1
            found.append(b)
    found.sort(key=lambda b: b["line"])
    section = None
    heads = {}
    for i, l in enumerate(lines, 1):
        if l.startswith("## "):
            section = l[3:].strip()
        heads[i] = section
    for k, b in enumerate(found):
        b["section"] = heads[b["line"]]
        nxt = found[k + 1] if k + 1 < len(found) else None
        b["want"] = None
        if nxt and nxt["lang"] == "text" and all(
                not x.strip() for x in lines[b["end"]:nxt["line"] - 1]):
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
PY
[ $? = 0 ] || bad "the plan (python3 above) failed"

norm() { sed 's/[[:space:]]*$//'; }
while IFS='|' read -r n lang where dir name text; do
  if [ "$n" = bad ]; then
    bad "$lang"
    continue
  fi
  d=$work/$dir
  if [ ! -d "$d" ]; then
    mkdir -p "$d/ext" && cp cuckoo.so libcuckoo.a "$d/" && cp ext/cuckoo.h "$d/ext/"
  fi
  code=$work/plan/$n.code
  case $lang in
    sh)
      out=$(cd "$d" && sh "$code" < /dev/null 2>&1)
      rc=$?
      if [ "$text" = 1 ]; then
        got=$(printf '%s\n' "$out" | norm)
        want=$(norm < "$work/plan/$n.want")
        if [ "$got" = "$want" ]; then
          ok "$where ($dir)"
        else
          bad "$where ($dir): output differs from the text block after it"
          printf '%s\n' "--- got:" "$got" "--- the page says:" "$want" "---"
        fi
      elif [ $rc = 0 ]; then
        ok "$where ($dir), exit 0"
      else
        bad "$where ($dir): exit $rc"
        printf '%s\n' "$out" | tail -20
      fi
      ;;
    *)
      mkdir -p "$(dirname "$d/$name")" && cp "$code" "$d/$name" &&
        ok "$where ($dir): saved as $name"
      ;;
  esac
done < "$work/plan/list"

# The counts: a section that lost its blocks would otherwise pass.
for dir in shell go tcl c renamed needs readme; do
  n=$(awk -F'|' -v d="$dir" '$4 == d' "$work/plan/list" | wc -l)
  if [ "$n" -gt 0 ]; then ok "$dir: $n blocks run"; else bad "$dir: no block run"; fi
done

finish
