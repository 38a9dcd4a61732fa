#!/usr/bin/env python3
"""Tallies `perf script` output of uprobes on swift_retain and swift_release and their `_n`
forms (one sample per call, `obj=` the object, `n=` the count of an `_n` call, a call chain
below it) for Scripts/bench-retains.

Usage: tally.py <perf script output> <GETs> <sites to list>

A reference-count operation writes memory only when its argument is an object: the runtime
returns at once for null and for the tagged values small and literal strings pass. Calls
are therefore counted apart: all of them, and those on objects, which are listed by the
function that made them (the first frame that is not the runtime's own)."""
import collections
import re
import sys

RUNTIME = ("swift_retain", "swift_release", "swift_bridgeObjectRetain", "swift_bridgeObjectRelease")  # and _n


def main() -> None:
    path, gets, top = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if gets <= 0:
        sys.exit("bench-retains: wrk made no GETs")
    calls = collections.Counter()
    on_objects = collections.Counter()
    sites = collections.Counter()
    with open(path, encoding="utf-8", errors="replace") as text:
        for sample in text.read().split("\n\n"):
            lines = [line.strip() for line in sample.strip().splitlines() if line.strip()]
            if not lines:
                continue
            match = re.search(r":(retain|release)(?:_n)?: .*obj=(\d+)(?: n=(\d+))?", lines[0])
            if not match:
                continue
            kind, value = match.group(1), int(match.group(2))
            # An _n call counts as the n operations it replaces, made with one atomic write.
            times = int(match.group(3) or 1)
            calls[kind] += times
            # A pointer to an object: not null, not a tagged value (high bit set).
            if value == 0 or value >= 1 << 63:
                continue
            on_objects[kind] += times
            frames = [line.split(None, 1)[1] if " " in line else line for line in lines[1:]]
            caller = next((frame for frame in frames if not frame.startswith(RUNTIME)), "?")
            sites[(kind, caller)] += times
    print(f"reference-count calls a GET: {calls['retain'] / gets:.1f} retains, {calls['release'] / gets:.1f} releases")
    print(f"  on objects (each an atomic write): {on_objects['retain'] / gets:.1f} retains, "
          f"{on_objects['release'] / gets:.1f} releases")
    if top > 0:
        print(f"on objects, by the function that made them (top {top}; a GET's share):")
        for (kind, caller), count in sites.most_common(top):
            print(f"  {count / gets:5.2f}  {kind:7s}  {caller}")


if __name__ == "__main__":
    main()
