#!/usr/bin/env python3
# tests/data/traces/make_lcs_fixtures.py — writes the lcs fixtures of tests/traces/test_lcs_reader.cpp
# from libCacheSim's traceReader/customizedReader/lcs.h, field by field (struct.pack, '<' =
# little-endian, packed). Run from this folder; the outputs are checked in.
import struct

MAGIC = 0x123456789ABCDEF0


def header(version, n_req, n_obj):
    stat = struct.pack('<qqq', 1, n_req, n_obj) + bytes(8000 - 24)  # lcs_trace_stat: 1000 x 8
    h = struct.pack('<QQ', MAGIC, version) + stat + bytes(21 * 8) + struct.pack('<Q', MAGIC)
    assert len(h) == 8192
    return h


# (clock_time s, obj_id, obj_size, op, next_access_vtime)
REQS = [(0, 7, 100, 1, 3), (1, 8, 20, 3, -1), (2, 7, 100, 2, -1), (2, 9, 5, 9, -1),
        (5, 10, 4096, 13, -1)]

with open('lcs_v1.lcs', 'wb') as f:
    f.write(header(1, 5, 4))
    for t, k, s, op, nxt in REQS:
        f.write(struct.pack('<IQIq', t, k, s, nxt))
with open('lcs_v1.oracleGeneral', 'wb') as f:  # the same records, libCacheSim's oracleGeneral
    for t, k, s, op, nxt in REQS:
        f.write(struct.pack('<IQIq', t, k, s, nxt))
with open('lcs_v2.lcs', 'wb') as f:
    f.write(header(2, 5, 4))
    for t, k, s, op, nxt in REQS:
        f.write(struct.pack('<IQIIq', t, k, s, op | (3 << 8), nxt))  # tenant 3
with open('lcs_v7.lcs', 'wb') as f:  # v3's fields (int64 size, ttl) and 8 features
    f.write(header(7, 6, 5))
    for t, k, s, op, nxt in REQS + [(6, 11, 0, 1, -1)]:  # a size-0 record, skipped
        f.write(struct.pack('<IQqIIq', t, k, s, op | (3 << 8), 3600, nxt) +
                struct.pack('<8I', *range(8)))
