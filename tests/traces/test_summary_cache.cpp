// tests/traces/test_summary_cache.cpp — stored trace summaries (traces/summary_cache.h): the
// stored form reads back field for field, a stored summary is used only for the same trace
// identity and file status, and a damaged one is recomputed.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_util.h"
#include "traces/summary_cache.h"
#include "traces/trace_summary.h"

namespace flashpq {
namespace {

using namespace flashpq::testing;  // tests/test_util.h
namespace fs = std::filesystem;

const std::string kTrace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";

void check_same(const TraceSummary& a, const TraceSummary& b) {
  CHECK(a.requests == b.requests);
  CHECK(a.unique_objects == b.unique_objects);
  CHECK(a.working_set_bytes == b.working_set_bytes);
  CHECK(a.max_object_bytes == b.max_object_bytes);
  CHECK(a.preconditioning_requests == b.preconditioning_requests);
  CHECK(a.content_hash == b.content_hash);
  CHECK(a.sizes == b.sizes);
  CHECK(a.gets == b.gets);
  CHECK(a.sets == b.sets);
  CHECK(a.deletes == b.deletes);
  CHECK(a.one_hit_wonders == b.one_hit_wonders);
  CHECK(a.first_time_ns == b.first_time_ns);
  CHECK(a.last_time_ns == b.last_time_ns);
  CHECK(a.reuse_log2 == b.reuse_log2);
  CHECK(a.zipf_alpha == b.zipf_alpha);  // written with 17 digits: exact
}

// A generic CSV trace of one key column.
TraceConfig keys_trace(const std::string& path) {
  TraceConfig c;
  c.format = "csv";
  c.params.set("trace.path", path);
  c.params.set("trace.key_col", 1);
  return c;
}

TEST_CASE("summary cache: the stored form reads back field for field", "[summary_cache]") {
  const TraceSummary s = summarize_trace(trace_file(kTrace));
  REQUIRE(s.requests > 0);
  REQUIRE(s.sizes.total() > 0);
  const std::string text = format_summary(s, "id");
  TraceSummary back;
  REQUIRE(parse_summary(text, "id", back));
  check_same(back, s);
  CHECK_FALSE(parse_summary(text, "another id", back));                     // other trace
  CHECK_FALSE(parse_summary(text.substr(0, text.size() / 2), "id", back));  // cut short
  std::string old_format = text;
  old_format[16] = '0';  // "flashpq-summary 0": another stored format
  CHECK_FALSE(parse_summary(old_format, "id", back));
  std::string bad = text;
  bad[bad.find("requests ") + 9] = 'x';
  CHECK_FALSE(parse_summary(bad, "id", back));
  // Every key exactly once: the identity line replaced by a second "reuse" line keeps the count
  // of lines (a fuzzing finding: it was accepted, without the identity, and then the summary
  // did not format back).
  std::string repeated = text;
  const size_t id = repeated.find("identity ");
  repeated.replace(id, repeated.find('\n', id) - id, "reuse 1:2");
  CHECK_FALSE(parse_summary(repeated, "id", back));
}

TEST_CASE("summary cache: computed once, read back, recomputed when the file changes",
          "[summary_cache]") {
  TempDir dir;
  const std::string trace = dir.write("keys.csv", "17\n18\n17\n");
  SummaryCacheOptions options;
  options.dir = dir.file("cache");
  const TraceConfig c = keys_trace(trace);
  bool hit = true;
  const TraceSummary first = cached_summary(c, options, &hit);
  CHECK_FALSE(hit);
  CHECK(first.requests == 3);
  CHECK(first.unique_objects == 2);
  CHECK(fs::exists(summary_cache_path(c, options)));
  const TraceSummary second = cached_summary(c, options, &hit);
  CHECK(hit);
  check_same(second, first);

  SECTION("same size, another modification time: recomputed") {
    const auto t = fs::last_write_time(trace);
    dir.write("keys.csv", "17\n18\n19\n");  // same size, other bytes
    fs::last_write_time(trace, t + std::chrono::seconds(5));
    const TraceSummary third = cached_summary(c, options, &hit);
    CHECK_FALSE(hit);
    CHECK(third.unique_objects == 3);
    CHECK(third.content_hash != first.content_hash);
    check_same(third, summarize_trace(c));
  }
  SECTION("a damaged stored summary is recomputed, not an error") {
    std::ofstream(summary_cache_path(c, options), std::ios::trunc) << "flashpq-summary 1\nreq";
    const TraceSummary again = cached_summary(c, options, &hit);
    CHECK_FALSE(hit);
    check_same(again, first);
    cached_summary(c, options, &hit);
    CHECK(hit);  // and stored again
  }
  SECTION("disabled: never read or written") {
    SummaryCacheOptions off = options;
    off.enabled = false;
    off.dir = dir.file("off");
    cached_summary(c, off, &hit);
    CHECK_FALSE(hit);
    CHECK_FALSE(fs::exists(off.dir));
  }
}

TEST_CASE("summary cache: beside the trace when its directory is writable", "[summary_cache]") {
  TempDir dir;
  const std::string trace = dir.write("t/keys.csv", "1\n2\n");
  const TraceConfig c = keys_trace(trace);
  const std::string where = summary_cache_path(c, {});
  CHECK(fs::path(where).parent_path() == fs::path(trace).parent_path());
  CHECK(fs::path(where).filename().string().rfind(".keys.csv.", 0) == 0);
  bool hit = true;
  cached_summary(c, {}, &hit);
  CHECK_FALSE(hit);
  CHECK(fs::exists(where));
  cached_summary(c, {}, &hit);
  CHECK(hit);
}

TEST_CASE("trace identity: a file's ignores seed and device, a generator's does not",
          "[summary_cache]") {
  TempDir dir;
  const std::string trace = dir.write("keys.csv", "1\n");
  TraceConfig a = keys_trace(trace), b = keys_trace(dir.file("sub/../keys.csv"));
  b.seed = 99;
  b.device.capacity_bytes = 1 << 20;
  CHECK(trace_identity(a) == trace_identity(b));
  b.params.set("trace.time_unit", "ms");
  CHECK(trace_identity(a) != trace_identity(b));

  TraceConfig g;
  g.format = "generator";
  g.params.set("trace.generator", "device_io");
  TraceConfig h = g;
  h.seed = 2;
  CHECK(trace_identity(g) != trace_identity(h));
  h = g;
  h.device.capacity_bytes = 1 << 20;
  CHECK(trace_identity(g) != trace_identity(h));
}

}  // namespace
}  // namespace flashpq

namespace flashpq {
namespace {

TEST_CASE("summary cache: a read-only trace folder sends it to the user cache directory",
          "[summary_cache]") {
  TempDir dir;
  const std::string trace = dir.write("ro/keys.csv", "1\n2\n");
  fs::permissions(dir.file("ro"),
                  fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  ::setenv("XDG_CACHE_HOME", dir.file("xdg").c_str(), 1);  // test scaffolding: this process only
  const std::string where = summary_cache_path(keys_trace(trace), {});
  ::unsetenv("XDG_CACHE_HOME");
  fs::permissions(dir.file("ro"), fs::perms::owner_write, fs::perm_options::add);
  CHECK(where.rfind(dir.file("xdg/flashpq") + "/keys.csv.", 0) == 0);
}

}  // namespace
}  // namespace flashpq

namespace flashpq {
namespace {

TEST_CASE("trace summary: the mix, span, one-hit wonders and reuse distances by hand",
          "[summary_cache]") {
  TempDir dir;
  // time,key,size,op: keys 1 (4 requests), 2 (2), 3 and 4 (once); a delete of 9.
  const std::string path = dir.write("t.csv",
                                     "5,1,10,get\n6,2,20,set\n7,1,10,get\n8,3,30,get\n"
                                     "9,9,1,delete\n10,1,10,get\n11,2,20,get\n12,4,40,set\n"
                                     "13,1,10,get\n");
  TraceConfig c = keys_trace(path);
  c.params.set("trace.time_col", 1);
  c.params.set("trace.key_col", 2);
  c.params.set("trace.size_col", 3);
  c.params.set("trace.op_col", 4);
  const TraceSummary s = summarize_trace(c);
  CHECK(s.requests == 9);
  CHECK(s.gets == 6);
  CHECK(s.sets == 2);
  CHECK(s.deletes == 1);
  CHECK(s.unique_objects == 4);
  CHECK(s.working_set_bytes == 100);
  CHECK(s.one_hit_wonders == 2);  // keys 3 and 4
  CHECK(s.first_time_ns == 5'000'000'000);
  CHECK(s.last_time_ns == 13'000'000'000);
  // Reuse distances (request indexes 0..8): key 1 at 0, 2, 5, 8 -> 2, 3, 3; key 2 at 1, 6 -> 5.
  // Buckets floor(log2 d): 2, 3, 3 -> 1; 5 -> 2.
  std::array<uint64_t, 64> reuse{};
  reuse[1] = 3;
  reuse[2] = 1;
  CHECK(s.reuse_log2 == reuse);
}

TEST_CASE("trace summary: the Zipf fit recovers exact power laws", "[summary_cache]") {
  for (const double alpha : {0.6, 1.0, 1.4}) {
    std::vector<uint32_t> counts;
    for (int r = 1; r <= 500; ++r) {
      counts.push_back(static_cast<uint32_t>(std::llround(1e7 * std::pow(r, -alpha))));
    }
    std::reverse(counts.begin(), counts.end());  // any order
    CHECK(fit_zipf_alpha(counts, 500) == Approx(alpha).margin(0.001));
  }
  CHECK(fit_zipf_alpha({5}, 10) == 0);
  CHECK(fit_zipf_alpha({4, 4, 4, 4}, 10) == Approx(0).margin(1e-12));
}

}  // namespace
}  // namespace flashpq
