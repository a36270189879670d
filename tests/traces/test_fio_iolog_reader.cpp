// tests/traces/test_fio_iolog_reader.cpp — the fio_iolog format (traces/fio_iolog_reader.cpp):
// version 3 and version 2 logs written by hand from fio's HOWTO ("Trace file format"), times,
// keys and operations computed by hand, and malformed lines as errors naming file and line.
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/traces/format_test_util.h"

namespace flashpq::test_fio_iolog_reader {
namespace {

using namespace format_test;
using testing::TempDir;

std::string write(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

TEST_CASE("fio_iolog: version 3, timestamps in µs, file actions skipped", "[fio_iolog]") {
  TempDir dir;
  const std::string p = write(dir, "v3.iolog",
                              "fio version 3 iolog\n"
                              "0 /dev/sdb add\n"
                              "0 /dev/sdb open\n"
                              "12 /dev/sdb write 4096 8192\n"
                              "15 /dev/sdb read 0 4096\n"
                              "15 /dev/sdb sync 0 0\n"
                              "1000000 /dev/sdb trim 8192 4096\n"
                              "1000001 /dev/sdb write 0 0\n"
                              "1000002 /dev/sdb close\n");
  const auto r = read_all(trace_file(p, "fio_iolog"));
  REQUIRE(r.size() == 3);  // sync and the empty write carry no data
  CHECK(r[0].time_ns == 12'000);
  CHECK(r[0].op == Op::kSet);
  CHECK(r[0].key == 4096);
  CHECK(r[0].size_bytes == 8192);
  CHECK(r[1].op == Op::kGet);
  CHECK(r[1].key == 0);
  CHECK(r[2].op == Op::kDelete);
  CHECK(r[2].time_ns == 1'000'000'000);
}

TEST_CASE("fio_iolog: version 2, waits add up, two files get two key spaces", "[fio_iolog]") {
  TempDir dir;
  const std::string p = write(dir, "v2.iolog",
                              "fio version 2 iolog\n"
                              "/dev/a add\n/dev/b add\n/dev/a open\n/dev/b open\n"
                              "/dev/a write 0 4096\n"
                              "/dev/a wait 250 0\n"
                              "/dev/b read 4096 4096\n"
                              "/dev/b wait 750 0\n"
                              "/dev/a read 0 4096\n"
                              "/dev/a close\n");
  const auto r = read_all(trace_file(p, "fio_iolog"));
  REQUIRE(r.size() == 3);
  CHECK(r[0].time_ns == 0);
  CHECK(r[1].time_ns == 250'000);                 // after the first wait of 250 µs
  CHECK(r[1].key == (uint64_t{1} << 48) + 4096);  // /dev/b: the second file named
  CHECK(r[2].time_ns == 1'000'000);               // 250 + 750 µs
  CHECK(r[2].key == 0);
}

TEST_CASE("fio_iolog: bad logs are errors naming the file and line", "[fio_iolog]") {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    const std::string p = write(dir, "bad.iolog", text);
    try {
      read_all(trace_file(p, "fio_iolog"));
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  using Catch::Contains;
  CHECK_THAT(error_of("fio version 1 iolog\n"), Contains("bad.iolog:1") && Contains("version 3"));
  CHECK_THAT(error_of("fio version 3 iolog\n0 f add\n5 f erase 0 4096\n"),
             Contains("bad.iolog:3") && Contains("'erase'"));
  CHECK_THAT(error_of("fio version 3 iolog\n5 f read 0\n"),
             Contains("bad.iolog:2") && Contains("3 or 5 fields"));
  CHECK_THAT(error_of("fio version 3 iolog\nx f read 0 4096\n"),
             Contains("bad.iolog:2") && Contains("TIMESTAMP"));
  CHECK_THAT(error_of("fio version 2 iolog\nf read 0 -4\n"),
             Contains("bad.iolog:2") && Contains("LENGTH"));
  CHECK_THAT(error_of(""), Contains("empty"));
}

}  // namespace
}  // namespace flashpq::test_fio_iolog_reader
