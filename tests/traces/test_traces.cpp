// tests/traces/test_traces.cpp — the trace readers: real traces (the public traces of
// libCacheSim, CacheLib and Caffeine in the test data directory FLASHPQ_SHARED_TRACES) against
// their request, object and working-set counts computed independently of FlashPQ (numpy parsers
// written from the reference readers' sources, agreeing with libCacheSim's own "working set
// size" line), format agreement, batch boundaries and error messages.
#include <unistd.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/test_util.h"
#include "traces/trace_reader.h"

namespace flashpq::test_traces {
namespace {

using namespace flashpq::testing;  // tests/test_util.h

namespace fs = std::filesystem;
using Catch::Contains;

// A fresh directory under the system temp dir, removed with its contents on destruction.

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(f.good());
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// Compresses with the one-shot libzstd API, with the content checksum on (as the zstd CLI does).
std::string zstd_compress(const std::string& plain, int level = 3) {
  std::string out(ZSTD_compressBound(plain.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), plain.data(), plain.size());
  ZSTD_freeCCtx(cctx);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// One oracleGeneral record, encoded little-endian byte by byte (independent of the reader).
struct OracleRecord {
  uint32_t time_s;
  uint64_t obj_id;
  uint32_t obj_size;
  int64_t next_access;
};

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::string encode(const std::vector<OracleRecord>& records) {
  std::string out;
  for (const OracleRecord& r : records) {
    put_le(out, r.time_s, 4);
    put_le(out, r.obj_id, 8);
    put_le(out, r.obj_size, 4);
    put_le(out, static_cast<uint64_t>(r.next_access), 8);
  }
  return out;
}

// Deterministic pseudo-random records; every 13th has size 0.
std::vector<OracleRecord> make_records(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<OracleRecord> records;
  records.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    OracleRecord r;
    r.time_s = static_cast<uint32_t>(i / 10);
    r.obj_id = rng() % 5000 + (i % 7 == 0 ? (uint64_t{1} << 63) : 0);
    r.obj_size = i % 13 == 5 ? 0 : static_cast<uint32_t>(rng() % 100000 + 1);
    r.next_access = -1;
    records.push_back(r);
  }
  return records;
}

std::vector<Request> expected_requests(const std::vector<OracleRecord>& records) {
  std::vector<Request> out;
  for (const OracleRecord& r : records) {
    if (r.obj_size == 0) continue;
    out.push_back(Request{uint64_t{r.time_s} * 1'000'000'000, r.obj_id, r.obj_size, Op::kGet});
  }
  return out;
}

std::vector<Request> read_all(const TraceConfig& config, size_t batch = 4096) {
  auto reader = open_trace(config);
  std::vector<Request> all;
  std::vector<Request> buf(batch);
  for (;;) {
    const size_t n = reader->read(buf);
    REQUIRE(n <= batch);
    if (n == 0) break;
    all.insert(all.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
  }
  REQUIRE(reader->read(buf) == 0);  // Stays at the end.
  return all;
}

bool same(const Request& a, const Request& b) {
  return a.time_ns == b.time_ns && a.key == b.key && a.size_bytes == b.size_bytes && a.op == b.op;
}

void require_same_sequence(const std::vector<Request>& a, const std::vector<Request>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("request " << i);
    REQUIRE(same(a[i], b[i]));
  }
}

struct Stats {
  uint64_t requests = 0;
  uint64_t unique = 0;
  uint64_t wss = 0;  // Sum of first-seen sizes.
};

Stats stats_of(const std::vector<Request>& requests, bool skip_deletes = false) {
  Stats s;
  std::unordered_map<uint64_t, uint32_t> first;
  for (const Request& r : requests) {
    if (skip_deletes && r.op == Op::kDelete) continue;
    ++s.requests;
    if (first.emplace(r.key, r.size_bytes).second) s.wss += r.size_bytes;
  }
  s.unique = first.size();
  return s;
}

// Runs `f` and returns the TraceError message it throws ("" if it throws nothing).
std::string trace_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TraceConfig oracle_config(const std::string& path) {
  TraceConfig c = trace_file(path);
  return c;
}

TraceConfig kvcache_config(const std::string& path) {
  TraceConfig c = trace_file(path, "kvcache_csv");
  return c;
}

// ---------------------------------------------------------------------------------------------

TEST_CASE("trace registry and its checks", "[traces]") {
  REQUIRE(trace_format_names() ==
          std::vector<std::string>{"oracleGeneral", "kvcache_csv", "csv", "twitter", "msr",
                                   "fio_iolog", "cachelib_block", "fpq", "lcs", "generator"});

  TraceConfig c = trace_file("x");
  REQUIRE_NOTHROW(trace_format(c.format).check(c));
  REQUIRE_THROWS_WITH(trace_format("nope"), Contains("nope") && Contains("oracleGeneral"));
  c.format = "csv";
  REQUIRE_THROWS_WITH(trace_format(c.format).check(c), Contains("key_col"));  // key_col 0
  c.params.set("trace.key_col", 1);
  REQUIRE_NOTHROW(trace_format(c.format).check(c));
  c.params.set("trace.size_col", -2);
  REQUIRE_THROWS_WITH(open_trace(c), Contains("size_col") && Contains("-2"));
  c.params.set("trace.size_col", 0);
  c.params.set("trace.time_unit", "h");
  REQUIRE_THROWS_WITH(open_trace(c), Contains("time_unit") && Contains("s, ms, us, ns"));
  c.format = "kvcache_csv";
  REQUIRE_THROWS_WITH(open_trace(c), Contains("time_unit"));
  c.params.set("trace.time_unit", "s");
  c.params.set("trace.path", "");
  REQUIRE_THROWS_WITH(open_trace(c), Contains("path"));

  TraceConfig bad = trace_file("x", "vscsi");
  REQUIRE_THROWS_AS(open_trace(bad), std::invalid_argument);
}

TEST_CASE("hash_key is XXH3-64 with seed 0", "[traces]") {
  REQUIRE(hash_key("") == 0x2D06800538D394C2ull);  // XXH3_64bits of the empty input.
  REQUIRE(hash_key("abc") == hash_key(std::string("abc")));
  REQUIRE(hash_key("abc") != hash_key("abd"));
}

// The AdaptSize trace ships in the source tree too, so this test runs without the shared dir.
TEST_CASE("AdaptSize oracleGeneral.zst matches the README figures", "[traces]") {
  std::vector<std::string> paths = {FLASHPQ_SOURCE_DIR
                                    "/traces/data/adaptsize-request.oracleGeneral.zst"};
#ifdef FLASHPQ_SHARED_TRACES
  paths.push_back(FLASHPQ_SHARED_TRACES "/converted/adaptsize-request.oracleGeneral.zst");
#endif
  for (const std::string& path : paths) {
    INFO(path);
    const Stats s = stats_of(read_all(oracle_config(path)));
    CHECK(s.requests == 66'987);
    CHECK(s.unique == 36'815);
    CHECK(s.wss == 278'854'232ull);
  }
}

#ifdef FLASHPQ_SHARED_TRACES
TEST_CASE("cloudPhysicsIO: oracleGeneral and CSV copies give the same requests", "[traces]") {
  const std::vector<Request> bin = read_all(
      oracle_config(FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.oracleGeneral.bin"));
  TraceConfig csv;
  csv.params.set("trace.path", FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.csv");
  csv.format = "csv";
  csv.params.set("trace.time_col", 2);
  csv.params.set("trace.key_col", 5);
  csv.params.set("trace.size_col", 4);
  csv.params.set("trace.header", true);
  csv.params.set("trace.key_is_numeric", true);
  const std::vector<Request> text = read_all(csv);

  REQUIRE(bin.size() == 113'872);
  REQUIRE(text.size() == 113'872);
  for (size_t i = 0; i < bin.size(); ++i) {
    INFO("request " << i);
    REQUIRE(bin[i].time_ns == text[i].time_ns);
    REQUIRE(bin[i].key == text[i].key);
  }
  REQUIRE(bin.front().time_ns == 5'633'898'000'000'000ull);
  REQUIRE(bin.front().key == 42'932'745u);
  REQUIRE(text.front().size_bytes == 512u);

  // README: 48,974 objects, WSS 2,029,769,728 bytes, for both files.
  const Stats sb = stats_of(bin);
  const Stats st = stats_of(text);
  CHECK(sb.unique == 48'974);
  CHECK(st.unique == 48'974);
  CHECK(sb.wss == 2'029'769'728ull);
  CHECK(st.wss == 2'029'769'728ull);
}

TEST_CASE("zstd and plain oracleGeneral agree on a real trace (zstd CLI)", "[traces]") {
  if (std::system("zstd --version > /dev/null 2>&1") != 0) {
    WARN("zstd command not found; skipped");
    return;
  }
  TempDir dir;
  const std::string zst = FLASHPQ_SHARED_TRACES "/converted/adaptsize-request.oracleGeneral.zst";
  const std::string plain = dir.file("adaptsize.bin");
  REQUIRE(std::system(("zstd -q -d -c '" + zst + "' > '" + plain + "'").c_str()) == 0);
  REQUIRE(fs::file_size(plain) % 24 == 0);
  require_same_sequence(read_all(oracle_config(zst)), read_all(oracle_config(plain)));
}

TEST_CASE("kvcache CSV samples match the README figures", "[traces]") {
  // The README counts every op with size > 0 (its reference runs ignore the op). Every DELETE
  // row in these samples has size 0 and is kept with size 1, so they are counted separately.
  const std::vector<Request> kv1 =
      read_all(kvcache_config(FLASHPQ_SHARED_TRACES "/cachelib/kvcache/kv_traces_1.csv"));
  const Stats s1 = stats_of(kv1, /*skip_deletes=*/true);
  CHECK(s1.requests == 671);
  CHECK(s1.unique == 47);
  CHECK(s1.wss == 34'213);
  CHECK(kv1.size() == 671 + 3);  // DELETE x2 and x1 (op_count), size 0 -> 1.

  const std::vector<Request> kv2 =
      read_all(kvcache_config(FLASHPQ_SHARED_TRACES "/cachelib/kvcache/kv_traces_2.csv"));
  const Stats s2 = stats_of(kv2, /*skip_deletes=*/true);
  CHECK(s2.requests == 419);
  CHECK(s2.unique == 61);
  CHECK(s2.wss == 24'331);
  CHECK(kv2.size() == 419 + 1);

  // First row of kv_traces_1: 604038471,82131353f9ddc8c6,48,GET,1,87,...
  REQUIRE(kv1.front().time_ns == 604'038'471'000'000'000ull);
  REQUIRE(kv1.front().key == hash_key("82131353f9ddc8c6"));
  REQUIRE(kv1.front().size_bytes == 87u);
  REQUIRE(kv1.front().op == Op::kGet);
}

TEST_CASE("batch sizes 1, 7 and 4096 give identical sequences on real traces", "[traces]") {
  TraceConfig csv;
  csv.params.set("trace.path", FLASHPQ_SHARED_TRACES "/libcachesim/cloudPhysicsIO.csv");
  csv.format = "csv";
  csv.params.set("trace.time_col", 2);
  csv.params.set("trace.key_col", 5);
  csv.params.set("trace.size_col", 4);
  csv.params.set("trace.header", true);
  for (const TraceConfig& config :
       {oracle_config(FLASHPQ_SHARED_TRACES "/converted/adaptsize-request.oracleGeneral.zst"),
        kvcache_config(FLASHPQ_SHARED_TRACES "/cachelib/kvcache/kv_traces_1.csv"),
        kvcache_config(FLASHPQ_SHARED_TRACES "/cachelib/kvcache/kv_traces_2.csv"), csv}) {
    INFO(config.path());
    const std::vector<Request> ref = read_all(config, 4096);
    require_same_sequence(read_all(config, 1), ref);
    require_same_sequence(read_all(config, 7), ref);
  }
}

TEST_CASE("oracleGeneral read throughput on w106", "[.bench]") {
  const std::string zst = FLASHPQ_SHARED_TRACES "/converted/w106.oracleGeneral.zst";
  auto time_read = [](const std::string& path, const char* label) {
    std::vector<Request> buf(4096);
    const auto start = std::chrono::steady_clock::now();
    auto reader = open_trace(oracle_config(path));
    uint64_t n = 0;
    uint64_t checksum = 0;
    while (const size_t got = reader->read(buf)) {
      n += got;
      checksum += buf[got - 1].key;
    }
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << label << ": " << n << " requests in " << s * 1e3 << " ms = " << n / s / 1e6
              << " M req/s (checksum " << checksum << ")\n";
    return n;
  };
  TempDir dir;
  const std::string plain = dir.file("w106.bin");
  {  // Decompress once through the zstd CLI for the plain measurement.
    REQUIRE(std::system(("zstd -q -d -c '" + zst + "' > '" + plain + "'").c_str()) == 0);
  }
  for (int rep = 0; rep < 3; ++rep) {
    REQUIRE(time_read(zst, "w106 zstd ") == 5'292'456);
    REQUIRE(time_read(plain, "w106 plain") == 5'292'456);
  }
}
#endif  // FLASHPQ_SHARED_TRACES

TEST_CASE("oracleGeneral: zstd and plain copies of a synthetic trace agree", "[traces]") {
  TempDir dir;
  const std::vector<OracleRecord> records = make_records(200'003, 42);
  const std::string bytes = encode(records);
  write_file(dir.file("t.bin"), bytes);
  write_file(dir.file("t.zst"), zstd_compress(bytes));
  // Two concatenated frames decode as one stream, like `zstd -d` does.
  const size_t half = (records.size() / 2) * 24;
  write_file(dir.file("t2.zst"),
             zstd_compress(bytes.substr(0, half)) + zstd_compress(bytes.substr(half), 1));
  // A plain file named .zst and a zstd file named .bin: detection is by content.
  write_file(dir.file("plain.zst"), bytes);
  write_file(dir.file("zstd.bin"), zstd_compress(bytes));

  const std::vector<Request> expected = expected_requests(records);
  REQUIRE(expected.size() < records.size());  // Some size-0 records were skipped.
  for (const char* name : {"t.bin", "t.zst", "t2.zst", "plain.zst", "zstd.bin"}) {
    INFO(name);
    require_same_sequence(read_all(oracle_config(dir.file(name))), expected);
    require_same_sequence(read_all(oracle_config(dir.file(name)), 7), expected);
  }

  write_file(dir.file("empty.bin"), "");
  REQUIRE(read_all(oracle_config(dir.file("empty.bin"))).empty());
  write_file(dir.file("empty.zst"), zstd_compress(""));
  REQUIRE(read_all(oracle_config(dir.file("empty.zst"))).empty());
}

TEST_CASE("kvcache CSV: mapping, op_count across batches, size-0 rows", "[traces]") {
  TempDir dir;
  const std::string path = dir.file("kv.csv");
  // Columns in a different order than CacheBench writes them, extra columns, CRLF endings.
  write_file(path,
             "ttl,size,op,key,op_count,op_time,key_size\r\n"
             "0,100,GET,alpha,3,10,5\r\n"
             "0,0,GET,beta,4,11,4\r\n"  // size 0: skipped
             "0,7,SET_LEASE,gamma,1,12,5\r\n"
             "\r\n"                         // empty line: skipped
             "0,0,DELETE,alpha,2,13,5\r\n"  // delete keeps size 1
             "0,9,GET_LEASE,delta,10000,14,5\r\n"
             "0,8,SET,beta,1,15.5,4");  // no final newline, decimal time
  const std::vector<Request> all = read_all(kvcache_config(path), 4096);
  REQUIRE(all.size() == 3 + 1 + 2 + 10000 + 1);
  REQUIRE(same(all[0], Request{10'000'000'000ull, hash_key("alpha"), 100, Op::kGet}));
  REQUIRE(same(all[2], all[0]));
  REQUIRE(same(all[3], Request{12'000'000'000ull, hash_key("gamma"), 7, Op::kSet}));
  REQUIRE(same(all[4], Request{13'000'000'000ull, hash_key("alpha"), 1, Op::kDelete}));
  REQUIRE(same(all[5], all[4]));
  REQUIRE(same(all[6], Request{14'000'000'000ull, hash_key("delta"), 9, Op::kGet}));
  REQUIRE(same(all[10005], all[6]));
  REQUIRE(same(all.back(), Request{15'500'000'000ull, hash_key("beta"), 8, Op::kSet}));
  for (size_t batch : {1, 7, 3000}) {
    INFO("batch " << batch);
    require_same_sequence(read_all(kvcache_config(path), batch), all);
  }

  // Without op_count and op_time: one request each, time 0.
  const std::string minimal = dir.file("min.csv");
  write_file(minimal, "key,op,size\nk1,GET,5\nk2,SET,6\n");
  const std::vector<Request> m = read_all(kvcache_config(minimal));
  REQUIRE(m.size() == 2);
  REQUIRE(same(m[1], Request{0, hash_key("k2"), 6, Op::kSet}));
}

TEST_CASE("generic CSV: columns, ops, string keys, delimiters", "[traces]") {
  TempDir dir;
  const std::string path = dir.file("t.tsv");
  write_file(path,
             "5\tGET\tfoo\t1.25\n"
             "6\tw\tbar\t2\r\n"
             "7\tDel\tfoo\t3\n"
             "0\tread\tfoo\t4\n"    // size 0 get: skipped
             "0\tdelete\tbar\t5\n"  // size 0 delete: size 1
             "8\tPUT\tbaz\t6e0\n");
  TraceConfig c;
  c.params.set("trace.path", path);
  c.format = "csv";
  c.params.set("trace.delimiter", std::string(1, '\t'));
  c.params.set("trace.size_col", 1);
  c.params.set("trace.op_col", 2);
  c.params.set("trace.key_col", 3);
  c.params.set("trace.time_col", 4);
  c.params.set("trace.key_is_numeric", false);
  c.params.set("trace.time_unit", "ms");  // Milliseconds.
  const std::vector<Request> all = read_all(c);
  REQUIRE(all.size() == 5);
  REQUIRE(same(all[0], Request{1'250'000, hash_key("foo"), 5, Op::kGet}));
  REQUIRE(same(all[1], Request{2'000'000, hash_key("bar"), 6, Op::kSet}));
  REQUIRE(same(all[2], Request{3'000'000, hash_key("foo"), 7, Op::kDelete}));
  REQUIRE(same(all[3], Request{5'000'000, hash_key("bar"), 1, Op::kDelete}));
  REQUIRE(same(all[4], Request{6'000'000, hash_key("baz"), 8, Op::kSet}));

  // Key column only: size 1, time 0, get. The same file zstd-compressed reads the same.
  const std::string ids = dir.file("ids.txt");
  write_file(ids, "17\n18\n17\n");
  write_file(dir.file("ids.txt.zst"), zstd_compress(read_file_bytes(ids)));
  TraceConfig k;
  k.params.set("trace.path", ids);
  k.format = "csv";
  k.params.set("trace.key_col", 1);
  const std::vector<Request> keys = read_all(k);
  REQUIRE(keys.size() == 3);
  REQUIRE(same(keys[2], Request{0, 17, 1, Op::kGet}));
  k.params.set("trace.path", dir.file("ids.txt.zst"));
  require_same_sequence(read_all(k), keys);

  // A line longer than the reader's initial 1 MiB buffer.
  const std::string long_key(3 << 20, 'x');
  const std::string longfile = dir.file("long.csv");
  write_file(longfile, "a,1\n" + long_key + ",2\nb,3\n");
  TraceConfig l;
  l.params.set("trace.path", longfile);
  l.format = "csv";
  l.params.set("trace.key_col", 1);
  l.params.set("trace.size_col", 2);
  l.params.set("trace.key_is_numeric", false);
  const std::vector<Request> lr = read_all(l);
  REQUIRE(lr.size() == 3);
  REQUIRE(lr[1].key == hash_key(long_key));
  REQUIRE(lr[2].key == hash_key("b"));
}

TEST_CASE("batch sizes 1, 7 and 4096 give identical sequences on synthetic traces", "[traces]") {
  TempDir dir;
  const std::string bytes = encode(make_records(30'011, 7));
  write_file(dir.file("t.zst"), zstd_compress(bytes));
  std::string csv = "time,key,size\n";
  std::string kv = "op_time,key,op,size,op_count\n";
  for (int i = 0; i < 5000; ++i) {
    csv += std::to_string(i) + "," + std::to_string(i * 7919 % 1000) + "," +
           std::to_string(i % 11) + "\n";
    kv += std::to_string(i) + ",k" + std::to_string(i % 300) + "," + (i % 5 ? "GET" : "SET") + "," +
          std::to_string(i % 9) + "," + std::to_string(i % 17 + 1) + "\n";
  }
  write_file(dir.file("t.csv"), csv);
  write_file(dir.file("kv.csv"), kv);
  TraceConfig c;
  c.params.set("trace.path", dir.file("t.csv"));
  c.format = "csv";
  c.params.set("trace.time_col", 1);
  c.params.set("trace.key_col", 2);
  c.params.set("trace.size_col", 3);
  c.params.set("trace.header", true);
  for (const TraceConfig& config :
       {oracle_config(dir.file("t.zst")), kvcache_config(dir.file("kv.csv")), c}) {
    INFO(config.path());
    const std::vector<Request> ref = read_all(config, 4096);
    REQUIRE(!ref.empty());
    require_same_sequence(read_all(config, 1), ref);
    require_same_sequence(read_all(config, 7), ref);
  }
}

TEST_CASE("trace errors name the file and the record or line", "[traces]") {
  TempDir dir;
  std::vector<Request> buf(4096);

  SECTION("nonexistent file") {
    for (const char* format : {"oracleGeneral", "kvcache_csv", "csv"}) {
      TraceConfig c;
      c.params.set("trace.path", dir.file("missing.bin"));
      c.format = format;
      c.params.set("trace.key_col", 1);
      const std::string msg = trace_error([&] { open_trace(c); });
      CHECK_THAT(msg, Contains("cannot open") && Contains("missing.bin"));
    }
  }

  SECTION("truncated oracleGeneral record") {
    const std::string path = dir.file("trunc.bin");
    write_file(path, encode(make_records(3, 1)).append(10, '\x01'));
    auto reader = open_trace(oracle_config(path));
    size_t n = 0;
    const std::string msg = trace_error([&] {
      for (;;) {
        const size_t got = reader->read(buf);
        if (got == 0) break;
        n += got;
      }
    });
    CHECK(n == expected_requests(make_records(3, 1)).size());  // Complete records come first.
    CHECK_THAT(msg, Contains(path) && Contains("record 3") && Contains("byte offset 72") &&
                        Contains("10 of its 24 bytes"));

    // The same inside a zstd file reports the decompressed offset.
    const std::string zpath = dir.file("trunc.zst");
    write_file(zpath, zstd_compress(read_file_bytes(path)));
    CHECK_THAT(trace_error([&] { read_all(oracle_config(zpath)); }),
               Contains(zpath) && Contains("record 3") && Contains("decompressed byte offset 72"));
  }

  SECTION("corrupt zstd frame") {
    const std::string path = dir.file("corrupt.zst");
    std::string z = zstd_compress(encode(make_records(50'000, 3)));
    REQUIRE(z.size() > 1000);
    for (size_t i = z.size() / 2; i < z.size() / 2 + 64; ++i) z[i] = static_cast<char>(~z[i]);
    write_file(path, z);
    CHECK_THAT(trace_error([&] { read_all(oracle_config(path)); }),
               Contains(path) && Contains("corrupt zstd data at compressed byte offset"));
  }

  SECTION("truncated zstd frame") {
    const std::string path = dir.file("cut.zst");
    const std::string z = zstd_compress(encode(make_records(50'000, 4)));
    write_file(path, z.substr(0, z.size() / 2));
    CHECK_THAT(trace_error([&] { read_all(oracle_config(path)); }),
               Contains(path) && Contains("truncated zstd frame"));
  }

  SECTION("bad numeric field in CSV") {
    const std::string path = dir.file("bad.csv");
    write_file(path, "t,key,size\n1,10,5\n2,11,abc\n");
    TraceConfig c;
    c.params.set("trace.path", path);
    c.format = "csv";
    c.params.set("trace.time_col", 1);
    c.params.set("trace.key_col", 2);
    c.params.set("trace.size_col", 3);
    c.params.set("trace.header", true);
    CHECK_THAT(trace_error([&] { read_all(c); }),
               Contains(path + ":3: column 3 ('size'): expected an unsigned integer, found 'abc'"));

    write_file(path, "1,1x,5\n");
    c.params.set("trace.header", false);
    CHECK_THAT(trace_error([&] { read_all(c); }),
               Contains(path + ":1: column 2: expected an unsigned integer key, found '1x'"));

    write_file(path, "-1,1,5\n");
    CHECK_THAT(trace_error([&] { read_all(c); }),
               Contains(path + ":1: column 1") && Contains("found '-1'"));

    write_file(path, "1,1,5000000000\n");  // Does not fit in 32 bits.
    CHECK_THAT(trace_error([&] { read_all(c); }), Contains(path + ":1: column 3"));

    const std::string kv = dir.file("bad_kv.csv");
    write_file(kv, "key,op,size,op_count\na,GET,1,1\nb,GET,abc,1\n");
    CHECK_THAT(trace_error([&] { read_all(kvcache_config(kv)); }),
               Contains(kv + ":3: column 'size': expected an unsigned integer, found 'abc'"));
    write_file(kv, "key,op,size,op_count\na,GET,1,0\n");
    CHECK_THAT(trace_error([&] { read_all(kvcache_config(kv)); }),
               Contains(kv + ":2: column 'op_count'") && Contains("found '0'"));
    write_file(kv, "key,op,size,op_count\na,GET,1,-3\n");
    CHECK_THAT(trace_error([&] { read_all(kvcache_config(kv)); }),
               Contains(kv + ":2: column 'op_count'") && Contains("found '-3'"));
  }

  SECTION("unknown op") {
    const std::string kv = dir.file("op.csv");
    write_file(kv, "key,op,size\na,GET,1\nb,FETCH,2\n");
    CHECK_THAT(trace_error([&] { read_all(kvcache_config(kv)); }),
               Contains(kv + ":3") && Contains("'FETCH'"));

    const std::string csv = dir.file("op2.csv");
    write_file(csv, "1,get\n2,set\n3,frobnicate\n");
    TraceConfig c;
    c.params.set("trace.path", csv);
    c.format = "csv";
    c.params.set("trace.key_col", 1);
    c.params.set("trace.op_col", 2);
    CHECK_THAT(trace_error([&] { read_all(c); }), Contains(csv + ":3") && Contains("'frobnicate'"));
  }

  SECTION("missing required kvcache column") {
    const std::string kv = dir.file("nocol.csv");
    write_file(kv, "op_time,key,op,op_count\n1,a,GET,1\n");
    CHECK_THAT(trace_error([&] { open_trace(kvcache_config(kv)); }),
               Contains(kv) && Contains("'size'") && Contains("op_time,key,op,op_count"));
    write_file(kv, "");
    CHECK_THAT(trace_error([&] { open_trace(kvcache_config(kv)); }),
               Contains(kv) && Contains("empty"));
  }

  SECTION("too few fields in a row") {
    const std::string csv = dir.file("short.csv");
    write_file(csv, "time,key,size\n1,2,3\n4,5\n");
    TraceConfig c;
    c.params.set("trace.path", csv);
    c.format = "csv";
    c.params.set("trace.time_col", 1);
    c.params.set("trace.key_col", 2);
    c.params.set("trace.size_col", 3);
    c.params.set("trace.header", true);
    CHECK_THAT(trace_error([&] { read_all(c); }),
               Contains(csv + ":3: missing column 3 ('size')") && Contains("only 2 field"));

    const std::string kv = dir.file("short_kv.csv");
    write_file(kv, "key,op,size\na,GET,1\nb,GET\n");
    CHECK_THAT(trace_error([&] { read_all(kvcache_config(kv)); }),
               Contains(kv + ":3: missing column 'size'"));
  }
}

}  // namespace
}  // namespace flashpq::test_traces
