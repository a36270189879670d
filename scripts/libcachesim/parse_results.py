#!/usr/bin/env python3
"""Parse cachesim logs (logs/<trace>_unit<0|1>_<policy>.log) into reference.csv.

cache_size is recomputed exactly as cachesim does it
(cli_parser.c conv_cache_sizes: (uint64_t)(wss * atof(token)), wss = wss_obj with
--ignore-obj-size, else wss_byte) from the 'working set size: N object M byte' log line,
and cross-checked against the size printed in the result line.
"""
import glob, os, re, sys

FRACS = ["0.01", "0.05", "0.1", "0.2"]
ORDER = ["cloudPhysicsIO", "w106", "adaptsize"]
PORDER = "fifo lru s3fifo sieve arc twoq lirs lfu lfuda clock belady gdsf".split()
UNITS = {"": 1, "B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}

logdir = sys.argv[1]
rows = []
for f in glob.glob(os.path.join(logdir, "*_unit*_*.log")):
    base = os.path.basename(f)[:-4]
    m1 = re.match(r"(.+)_unit(1)_([a-z0-9]+)_([0-9.]+)$", base)
    if m1:
        # single-size run (cachesim's simulate() path in sim.c, used for w106/lfuda):
        # its result line has no byte miss ratio; with --ignore-obj-size every size is 1,
        # so the byte miss ratio equals the object miss ratio.
        trace, unit, policy, frac = m1.group(1), 1, m1.group(3), m1.group(4)
        txt = open(f).read()
        w = re.search(r"working set size: (\d+) object (\d+) byte", txt)
        r = re.search(r"cache size\s+(\d+),\s+(\d+) req, miss ratio ([0-9.]+), throughput", txt)
        if r is None:
            print(f"WARNING {base}: no result (did not finish)", file=sys.stderr)
            rows.append((trace, unit, policy, frac, int(int(w.group(1)) * float(frac)), "DNF", "DNF"))
            continue
        cs = int(int(w.group(1)) * float(frac))
        assert cs == int(r.group(1)), (base, cs, r.group(1))
        rows.append((trace, unit, policy, frac, cs, r.group(3), r.group(3)))
        continue
    m = re.match(r"(.+)_unit([01])_(.+)$", base)
    trace, unit, policy = m.group(1), int(m.group(2)), m.group(3)
    txt = open(f).read()
    w = re.search(r"working set size: (\d+) object (\d+) byte", txt)
    wss = int(w.group(1)) if unit else int(w.group(2))
    res = re.findall(r"^result/\S+\s+(\S+) cache size\s+(\d+)(\w*), (\d+) req, miss ratio ([0-9.]+), byte miss ratio ([0-9.]+)",
                     txt, re.M)
    if len(res) != len(FRACS):
        print(f"WARNING {base}: {len(res)} result lines", file=sys.stderr)
        continue
    for frac, (name, sz, su, nreq, mr, bmr) in zip(FRACS, res):
        cs = int(wss * float(frac))
        assert cs // UNITS[su] == int(sz), (base, cs, sz, su)
        rows.append((trace, unit, policy, frac, cs, mr, bmr))

rows.sort(key=lambda r: (ORDER.index(r[0]), -r[1] if False else r[1], PORDER.index(r[2]), float(r[3])))
print("trace,unit_size,policy,fraction,cache_size,object_miss_ratio,byte_miss_ratio")
for r in rows:
    print(",".join(str(x) for x in r))
