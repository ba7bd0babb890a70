"""tally.py: the pass/fail counters the Python tests share.

    from tally import ok, bad, check, finish
    check("name", got, want)      # passes when got == want
    finish("clients_test")        # prints "NAME: N passed, N failed", exits

Part of cuckoo (MIT License, see LICENSE).
"""
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


def finish(name):
    print("%s: %d passed, %d failed" % (name, counts["passed"],
                                         counts["failed"]))
    sys.exit(1 if counts["failed"] else 0)
