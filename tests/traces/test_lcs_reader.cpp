// tests/traces/test_lcs_reader.cpp — the lcs format (traces/lcs_reader.cpp): fixtures written
// field by field from libCacheSim's lcs.h (tests/data/traces/make_lcs_fixtures.py) in versions
// 1, 2 and 7, their requests by hand; v1 against the same records as oracleGeneral; compressed
// and plain alike; a truncated file, a count that lies, a bad magic and an unknown operation as
// errors naming the record and byte offset.
#include <zstd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/traces/format_test_util.h"

namespace flashpq::test_lcs_reader {
namespace {

using namespace format_test;
using testing::TempDir;

std::string bytes_of(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST_CASE("lcs: versions 1, 2 and 7 as lcs.h defines them", "[lcs]") {
  const auto v1 = read_all(trace_file(kFixtures + "/lcs_v1.lcs", "lcs"));
  REQUIRE(v1.size() == 5);
  for (const Request& r : v1) CHECK(r.op == Op::kGet);  // v1 has no op
  CHECK(v1[4].time_ns == 5'000'000'000ull);
  CHECK(v1[4].key == 10);
  CHECK(v1[4].size_bytes == 4096);
  CHECK(same(v1, read_all(trace_file(kFixtures + "/lcs_v1.oracleGeneral"))));
  // get 1, set 3, gets 2, delete 9, write 13.
  const Op ops[] = {Op::kGet, Op::kSet, Op::kGet, Op::kDelete, Op::kSet};
  for (const char* name : {"lcs_v2.lcs", "lcs_v7.lcs"}) {
    INFO(name);
    const auto r = read_all(trace_file(kFixtures + "/" + name, "lcs"));
    REQUIRE(r.size() == 5);  // v7's sixth record has size 0: skipped
    for (size_t i = 0; i < 5; ++i) {
      CHECK(r[i].op == ops[i]);
      CHECK(r[i].key == v1[i].key);
      CHECK(r[i].size_bytes == v1[i].size_bytes);
      CHECK(r[i].time_ns == v1[i].time_ns);
    }
  }
}

TEST_CASE("lcs: zstd-compressed reads the same", "[lcs]") {
  TempDir dir;
  const std::string plain = bytes_of(kFixtures + "/lcs_v7.lcs");
  std::string packed(ZSTD_compressBound(plain.size()), '\0');
  const size_t n = ZSTD_compress(packed.data(), packed.size(), plain.data(), plain.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  const std::string z = dir.write("v7.lcs.zst", packed.substr(0, n));
  CHECK(
      same(read_all(trace_file(z, "lcs")), read_all(trace_file(kFixtures + "/lcs_v7.lcs", "lcs"))));
}

TEST_CASE("lcs: a bad file is an error naming the record and byte offset", "[lcs]") {
  TempDir dir;
  const std::string v2 = bytes_of(kFixtures + "/lcs_v2.lcs");
  auto error_of = [&](const std::string& content) {
    const std::string path = dir.write("bad.lcs", content);
    try {
      read_all(trace_file(path, "lcs"));
    } catch (const std::exception& e) {  // TraceError, or the check's invalid_argument
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // Records of 28 bytes from 8192: cut inside record 3.
  CHECK_THAT(error_of(v2.substr(0, 8192 + 3 * 28 + 10)), Catch::Contains("truncated") &&
                                                             Catch::Contains("record 3") &&
                                                             Catch::Contains("byte offset 8276"));
  std::string lies = v2;
  lies[24] = 9;  // n_req 9
  CHECK_THAT(error_of(lies), Catch::Contains("n_req is 9") && Catch::Contains("5 records"));
  std::string magic = v2;
  magic[0] = 0;
  CHECK_THAT(error_of(magic), Catch::Contains("magic"));
  std::string version = v2;
  version[8] = 9;
  CHECK_THAT(error_of(version), Catch::Contains("version 1 to 8") && Catch::Contains("found 9"));
  std::string op = v2;
  op[8192 + 28 + 16] = 42;  // record 1's op
  CHECK_THAT(error_of(op), Catch::Contains("record 1 at byte offset 8236") &&
                               Catch::Contains("unknown operation 42"));
  CHECK_THAT(error_of(v2.substr(0, 100)), Catch::Contains("shorter than"));
}

}  // namespace
}  // namespace flashpq::test_lcs_reader
