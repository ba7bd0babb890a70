# mk/help.awk: `make help`.  Prints the line "## name: what it does" that
# stands above each target's rule in the Makefile and mk/*.mk, one line a
# target, grouped by file; fails (exit status 1) when a .PHONY target has
# no such line, when two lines name one target, or when a line names no
# rule of its file.
#
#   awk -f mk/help.awk Makefile mk/*.mk

FNR == 1 {
  if (FILENAME != "Makefile") print ""
  print FILENAME ":"
  cont = 0
}

# .PHONY: a b \
#         c d
/^\.PHONY:/ || cont {
  line = $0
  sub(/^\.PHONY:/, "", line)
  cont = (line ~ /\\$/)
  sub(/\\$/, "", line)
  n = split(line, w, " ")
  for (i = 1; i <= n; i++) phony[w[i]] = FILENAME
  next
}

/^## [A-Za-z0-9_.-]+: / {
  name = $2
  sub(/:$/, "", name)
  text = $0
  sub(/^## [^:]*: /, "", text)
  if (name in help) {
    printf "help: %s: %s has two help lines\n", FILENAME, name > "/dev/stderr"
    bad = 1
  }
  help[name] = FILENAME
  printf "  %-20s %s\n", name, text
  next
}

# a rule: "a b: prerequisites" (not a variable assignment)
/^[A-Za-z0-9_.%\/$() -]+:([^=]|$)/ {
  targets = $0
  sub(/:.*/, "", targets)
  n = split(targets, w, " ")
  for (i = 1; i <= n; i++) rule[w[i]] = FILENAME
}

END {
  for (t in phony)
    if (!(t in help)) {
      printf "help: %s: .PHONY target %s has no \"## %s: ...\" line\n",
        phony[t], t, t > "/dev/stderr"
      bad = 1
    }
  for (t in help)
    if (!(t in rule)) {
      printf "help: %s: \"## %s:\" names no rule\n", help[t], t > "/dev/stderr"
      bad = 1
    }
  exit bad
}
