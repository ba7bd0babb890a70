"""tally.py: the pass/fail counters the Python tests share.

    from tally import ok, bad, check, finish
    check("name", got, want)      # passes when got == want
    finish("clients_test")        # prints "NAME: N passed, N failed", exits
    closing_counts(output)        # (passed, failed) of another run, or None

Part of cuckoo (MIT License, see LICENSE).
"""
import os
import subprocess
import sys

counts = {"passed": 0, "failed": 0}


def ok(name):
    counts["passed"] += 1
    print("ok: " + name)


def bad(name):
    counts["failed"] += 1
    print("FAILED: " + name)


def check(name, got, want):
    if got == want:
        ok(name)
    else:
        bad("%s:\n  got  %r\n  want %r" % (name, got, want))


def add(passed, failed):
    """Counts reported by another runner."""
    counts["passed"] += passed
    counts["failed"] += failed


def closing_counts(text):
    """(passed, failed) of the closing line "N passed, N failed" of another
    runner's output, read by tests/counts.awk (the one parser every
    harness uses); None when it reports no count."""
    awk = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "counts.awk")
    p = subprocess.run(["awk", "-f", awk], input=text, text=True,
                       stdout=subprocess.PIPE)
    if p.returncode != 0:
        return None
    passed, failed, _skipped = p.stdout.split()
    return int(passed), int(failed)


def finish(name):
    print("%s: %d passed, %d failed" % (name, counts["passed"],
                                         counts["failed"]))
    sys.exit(1 if counts["failed"] else 0)
