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
