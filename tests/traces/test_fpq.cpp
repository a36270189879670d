// tests/traces/test_fpq.cpp — the .fpq format and the trace writers (traces/fpq.h): a round
// trip of hand-made requests with the header's counts computed by hand; every reader's fixture
// through .fpq unchanged; the bundled oracleGeneral trace through .fpq and back to
// oracleGeneral.zst byte for byte (next_access_vtime included); what oracleGeneral cannot hold
// refused; a truncated file, a count that lies, a bad magic, op or size as errors naming the
// record and byte offset; a failed conversion leaving the old file whole; the CLI.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/traces/format_test_util.h"
#include "traces/fpq.h"
#include "traces/zstd_stream.h"

namespace flashpq::test_fpq {
namespace {

using namespace format_test;
using testing::TempDir;

class VectorReader final : public TraceReader {
 public:
  explicit VectorReader(std::vector<Request> r, size_t fail_at = SIZE_MAX)
      : reqs_(std::move(r)), fail_at_(fail_at) {}
  size_t read(std::span<Request> out) override {
    if (pos_ >= fail_at_) throw TraceError("vector: failed on purpose");
    const size_t n = std::min({out.size(), reqs_.size() - pos_, fail_at_ - pos_});
    std::copy_n(reqs_.begin() + static_cast<ptrdiff_t>(pos_), n, out.begin());
    pos_ += n;
    return n;
  }
  const std::string& path() const override { return name_; }

 private:
  std::vector<Request> reqs_;
  size_t pos_ = 0, fail_at_;
  std::string name_ = "vector";
};

const std::vector<Request> kMade = {
    {0, 7, 100, Op::kGet},
    {5, 8, 20, Op::kSet},
    {9, 7, 100, Op::kGet},
    {12, 9, 1, Op::kDelete},
    {3'000'000'000, 10, 4096, Op::kGet},
};

std::string bytes_of(const std::string& path) {
  ByteStream s(path);
  std::string out;
  std::vector<char> buf(1 << 16);
  for (size_t n; (n = s.read(buf.data(), buf.size())) != 0;) out.append(buf.data(), n);
  return out;
}

TEST_CASE("fpq: hand-made requests round-trip, the header counts them", "[fpq]") {
  TempDir dir;
  VectorReader in(kMade);
  const std::string path = dir.file("made.fpq");
  const FpqHeader h = write_fpq(in, path, "made by hand");
  // Gets and sets of keys 7, 8, 10 (the delete of 9 is no data): 100 + 20 + 4096 bytes.
  CHECK(h.records == 5);
  CHECK(h.objects == 3);
  CHECK(h.working_set_bytes == 4216);
  CHECK(h.flags == 3);  // times and ops other than get
  CHECK(std::filesystem::file_size(path) == 4096 + 5 * 24);
  const FpqHeader back = read_fpq_header(path);
  CHECK(back.records == 5);
  CHECK(back.description == "made by hand");
  CHECK(back.records_hash == h.records_hash);
  CHECK(same(read_all(trace_file(path, "fpq")), kMade));
  TraceConfig preload = trace_file(path, "fpq");
  preload.params.set("trace.preload", "true");
  CHECK(same(read_all(preload), kMade));
}

TEST_CASE("fpq: every reader's requests go through .fpq unchanged", "[fpq]") {
  TempDir dir;
  std::vector<TraceConfig> sources = {
      trace_file(kFixtures + "/twitter.csv", "twitter"),
      trace_file(kFixtures + "/msr.csv", "msr"),
      trace_file(kFixtures + "/cachelib_block.csv", "cachelib_block"),
      trace_file(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst"),
  };
  TraceConfig ycsb;
  ycsb.format = "generator";
  ycsb.params.set("trace.generator", "ycsb");
  ycsb.params.set("trace.workload", "e");
  ycsb.params.set("trace.record_count", 1000);
  ycsb.params.set("trace.operation_count", 2000);
  sources.push_back(ycsb);
  for (size_t i = 0; i < sources.size(); ++i) {
    INFO("source " << sources[i].format);
    const std::string path = dir.file(fmt::format("s{}.fpq", i));
    auto reader = open_trace(sources[i]);
    write_fpq(*reader, path, "test");
    CHECK(same(read_all(trace_file(path, "fpq")), read_all(sources[i])));
  }
}

TEST_CASE("fpq: oracleGeneral through .fpq and back is the same file, byte for byte", "[fpq]") {
  TempDir dir;
  const std::string original =
      FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";
  auto in = open_trace(trace_file(original));
  write_fpq(*in, dir.file("a.fpq"), "test");
  auto fpq = open_trace(trace_file(dir.file("a.fpq"), "fpq"));
  CHECK(write_oracle_general(*fpq, dir.file("b.oracleGeneral.zst")) == 66'987);
  // The decompressed records equal the original's, next_access_vtime computed anew included.
  CHECK(bytes_of(dir.file("b.oracleGeneral.zst")) == bytes_of(original));
  auto again = open_trace(trace_file(dir.file("a.fpq"), "fpq"));
  write_oracle_general(*again, dir.file("c.oracleGeneral"));  // plain
  CHECK(bytes_of(dir.file("c.oracleGeneral")) == bytes_of(original));
}

TEST_CASE("fpq: oracleGeneral refuses what it cannot hold", "[fpq]") {
  TempDir dir;
  VectorReader sets(kMade);
  CHECK_THROWS_WITH(write_oracle_general(sets, dir.file("x.oracleGeneral")),
                    Catch::Contains("request 3 is a delete") || Catch::Contains("is a set"));
  VectorReader times({{1'500'000'000, 1, 1, Op::kGet}});
  CHECK_THROWS_WITH(write_oracle_general(times, dir.file("y.oracleGeneral")),
                    Catch::Contains("whole seconds"));
  CHECK_FALSE(std::filesystem::exists(dir.file("x.oracleGeneral")));
}

TEST_CASE("fpq: a bad file is an error naming the record and the byte offset", "[fpq]") {
  TempDir dir;
  VectorReader in(kMade);
  const std::string good = dir.file("good.fpq");
  write_fpq(in, good, "");
  std::string bytes;
  {
    std::ifstream f(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  auto error_of = [&](const std::string& content) {
    const std::string path = dir.write("bad.fpq", content);
    try {
      read_all(trace_file(path, "fpq"));
    } catch (const std::exception& e) {  // TraceError, or the check's invalid_argument
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Cut inside record 3 (byte 4096 + 72 + 10).
  CHECK_THAT(error_of(bytes.substr(0, 4096 + 82)), Catch::Contains("truncated") &&
                                                       Catch::Contains("record 3") &&
                                                       Catch::Contains("byte offset 4168"));
  std::string lies = bytes;
  lies[16] = 9;  // the header counts 9 records
  CHECK_THAT(error_of(lies), Catch::Contains("counts 9 records"));
  lies[16] = 4;  // and 4: a record too many follows
  CHECK_THAT(error_of(lies), Catch::Contains("counts 4 records"));
  std::string magic = bytes;
  magic[0] = 'X';
  CHECK_THAT(error_of(magic), Catch::Contains("magic"));
  std::string op = bytes;
  op[4096 + 2 * 24 + 20] = 7;  // record 2's op
  CHECK_THAT(error_of(op),
             Catch::Contains("record 2 at byte offset 4164") && Catch::Contains("op 7"));
  std::string size = bytes;
  for (int i = 0; i < 4; ++i) size[4096 + 24 + 16 + i] = 0;  // record 1's size
  CHECK_THAT(error_of(size), Catch::Contains("record 1") && Catch::Contains("size 0"));
  CHECK_THAT(error_of("short"), Catch::Contains("shorter than"));
  // A refused file leaks no descriptor (found by fuzzing: the reader's constructor threw after
  // open and mmap, and its destructor never ran): 3000 refusals, more than the default limit
  // of 1024 descriptors, leave the count where it was.
  const std::string cut = dir.write("cut.fpq", bytes.substr(0, 4096 + 82));
  const size_t before = open_descriptors();
  for (int i = 0; i < 3000; ++i) {
    try {
      open_trace(trace_file(cut, "fpq"));  // the check reads the header through the reader
      FAIL("a truncated file accepted");
    } catch (const std::invalid_argument& e) {
      REQUIRE_THAT(e.what(), Catch::Contains("truncated"));
    }
  }
  CHECK(open_descriptors() == before);
}

TEST_CASE("fpq: a failed conversion leaves the existing file whole", "[fpq]") {
  TempDir dir;
  const std::string path = dir.file("keep.fpq");
  VectorReader first(kMade);
  write_fpq(first, path, "first");
  VectorReader failing(kMade, 3);
  CHECK_THROWS(write_fpq(failing, path, "second"));
  CHECK(read_fpq_header(path).description == "first");
  CHECK(same(read_all(trace_file(path, "fpq")), kMade));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST_CASE("fpq: flashpq trace convert writes a generator's requests", "[fpq][cli]") {
  TempDir dir;
  const std::string out = dir.file("y.fpq");
  const std::string cmd = std::string(FLASHPQ_BINARY) + " trace convert generator:ycsb " + out +
                          " --set trace.workload=f --set trace.record_count=500 --set "
                          "trace.operation_count=3000 --seed 4 --transform 'limit "
                          "requests=2500' > " +
                          dir.file("log") + " 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  TraceConfig y;
  y.format = "generator";
  y.params.set("trace.generator", "ycsb");
  y.params.set("trace.workload", "f");
  y.params.set("trace.record_count", 500);
  y.params.set("trace.operation_count", 3000);
  y.params.set("trace.transforms", "limit requests=2500");
  y.seed = 4;
  CHECK(same(read_all(trace_file(out, "fpq")), read_all(y)));
  CHECK_THAT(read_fpq_header(out).description,
             Catch::Contains("generator:ycsb") && Catch::Contains("limit requests=2500"));
  const std::string bad = std::string(FLASHPQ_BINARY) + " trace convert generator:ycsb " +
                          dir.file("z.txt") + " > " + dir.file("log2") + " 2>&1";
  CHECK(WEXITSTATUS(std::system(bad.c_str())) == 2);
}

}  // namespace
}  // namespace flashpq::test_fpq
