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

# The plan (tests/clients_plan.py): one line per block to run, fields
# separated by "|", N LANG FILE:LINE SECTION-DIR SAVE-AS HAS-TEXT, with
# the code in plan/N.code and the expected output in plan/N.want; or
# "bad|message" for a block that breaks the rules above.
python3 "$root/tests/clients_plan.py" "$root" "$work/plan" > "$work/plan/list"
[ $? = 0 ] || bad "the plan (tests/clients_plan.py) failed"

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
