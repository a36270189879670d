#!/usr/bin/env python3
"""Requests per second of flashpq.Cache.access_many (docs/guide/python.md, "Speed"): a few
caches replay a trace's requests from numpy arrays, best of --repeat runs each, and the figure
is printed beside `flashpq bench`'s own replay of the same cache where one exists. A benchmark
that prints figures, never a test.

  FLASHPQ_EXTENSION_DIR=build/python PYTHONPATH=python scripts/bench-python.py [TRACE]

TRACE defaults to the bundled AdaptSize trace repeated to 2 M requests; a larger trace
(../shared/traces/converted/w106.oracleGeneral.zst) is closer to a real sweep.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402

import flashpq  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", nargs="?",
                    default=os.path.join(REPO, "traces", "data",
                                         "adaptsize-request.oracleGeneral.zst"))
    ap.add_argument("--requests", type=int, default=2_000_000,
                    help="requests replayed (the trace repeated or cut to this many)")
    ap.add_argument("--fraction", type=float, default=0.1,
                    help="cache capacity as a fraction of the working set")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--object-size", type=int, default=0,
                    help="give every object this size, bytes (w106's are all 1 B; 0: the trace's)")
    a = ap.parse_args()
    info = flashpq.trace_info(a.trace)
    t = flashpq.read_trace(a.trace, limit=a.requests)
    reps = -(-a.requests // len(t))
    keys = np.tile(t["key"].to_numpy(), reps)[: a.requests]
    sizes = np.tile(t["size_bytes"].to_numpy(), reps)[: a.requests]
    largest, working_set = info["max_object_bytes"], info["working_set_bytes"]
    if a.object_size:
        sizes = np.full(len(keys), a.object_size, dtype=np.uint32)
        largest, working_set = a.object_size, a.object_size * info["objects"]
    capacity = int(a.fraction * working_set)
    block = max(4096, capacity // 256 // 4096 * 4096)  # C/256, as the quickstart
    caches = [
        ("fifo", {"name": "exact"}),
        ("lru", {"name": "exact"}),
        ("s3fifo", {"name": "exact"}),
        ("lru", {"name": "ripq", "block_size": block}),
        ("fifo", {"name": "blockcache", "blockcache_region_size": block}),
    ]
    print(f"trace {a.trace}: {len(keys):,} requests, cache {capacity:,} B "
          f"({a.fraction} of the working set), best of {a.repeat}")
    print(f"{'policy':8} {'framework':11} {'M requests/s':>13} {'object_hit_ratio':>17}")
    for policy, framework in caches:
        best = 0.0
        for _ in range(a.repeat):
            cache = flashpq.Cache(policy=policy, framework=framework, capacity=capacity,
                                  max_object_size=largest,
                                  expected_objects=max(1, capacity * info["objects"]
                                                       // working_set))
            t0 = time.perf_counter()
            cache.access_many(keys, sizes)
            best = max(best, len(keys) / (time.perf_counter() - t0))
        print(f"{policy:8} {framework['name']:11} {best / 1e6:13.1f} "
              f"{cache.stats()['object_hit_ratio']:17.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
