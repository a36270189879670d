// tests/devices/test_io_log.cpp — devices/io_log.h: the fio iolog a cell writes with
// `flashpq run --iolog`: its text by hand, a cache cell's iolog replayed by fio on a file (fio's
// byte counts against the row's), and read back as a trace (format fio_iolog) whose direct
// replay writes and reads what the cache did.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "devices/io_log.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_io_log {
namespace {

using namespace flashpq::testing;

std::string q(const std::string& s) {
  std::string out = "'";
  for (const char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

// Column `name` of the first data row of a results CSV.
std::string cell_value(const std::string& csv_path, const std::string& name) {
  const auto rows = parse_csv(slurp(csv_path));
  REQUIRE(rows.size() >= 2);
  for (size_t j = 0; j < rows[0].size(); ++j) {
    if (rows[0][j] == name) return rows[1][j];
  }
  FAIL("no column " << name);
  return "";
}

// Sums of the iolog's entries by action, in bytes.
std::map<std::string, uint64_t> iolog_bytes(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::map<std::string, uint64_t> out;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    uint64_t ts, off, len;
    std::string name, action;
    if (ls >> ts >> name >> action >> off >> len) out[action] += len;
  }
  return out;
}

TEST_CASE("io_log: the text is fio's version 3, by hand", "[io_log]") {
  TempDir dir;
  const std::string p = dir.file("x.iolog");
  FioIoLog log(p, "/dev/sdz");
  log.set_now_ns(1'500);
  log.record(FioIoLog::kWrite, 0, 65536);
  log.set_now_ns(1'000);  // never back
  log.record(FioIoLog::kRead, 4096, 4096);
  log.set_now_ns(2'000'999);
  log.record(FioIoLog::kTrim, 8192, 8192);
  // A length beyond fio's unsigned int is split into pieces it can read.
  log.record(FioIoLog::kWrite, 0, uint64_t{5} << 30);
  log.finish();
  const uint64_t piece = 0xFFFFF000u;
  const std::string expected =
      "fio version 3 iolog\n0 /dev/sdz add\n0 /dev/sdz open\n"
      "1 /dev/sdz write 0 65536\n1 /dev/sdz read 4096 4096\n2000 /dev/sdz trim 8192 8192\n"
      "2000 /dev/sdz write 0 " +
      std::to_string(piece) + "\n2000 /dev/sdz write " + std::to_string(piece) + " " +
      std::to_string((uint64_t{5} << 30) - piece) + "\n2000 /dev/sdz close\n";
  CHECK(slurp(p) == expected);
  CHECK(log.entries() == 5);
  CHECK_THROWS_WITH(FioIoLog(dir.file("y"), "a b"), Catch::Contains("white space"));
  CHECK_THROWS_WITH(FioIoLog(dir.file("no/such/dir/y"), "a"), Catch::Contains("cannot create"));
}

TEST_CASE("io_log: a cache cell's iolog replays in fio with the row's bytes, and reads back",
          "[io_log][block]") {
  if (shell("fio --version") != 0) {
    WARN("fio is not installed: skipped");
    return;
  }
  TempDir dir(scratch_dir());
  const std::string trace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";
  // RIPQ on simflash sized for the cache, timed in simulated time, no warm-up: every device
  // I/O of the run is in the row and in the iolog.
  const std::string yaml =
      dir.write("e.yaml", "trace: {path: " + trace +
                              "}\ncache: {capacity: 16MiB}\n"
                              "policy: {name: lru}\n"
                              "framework: {name: ripq, block_size: 0.00390625}\n"
                              "device: {name: simflash, size_to_cache: true, "
                              "utilization: 0.8, pages_per_block: 64}\n"
                              "timing: {mode: simulated}\n");
  const std::string bin = FLASHPQ_BINARY;
  const std::string iolog = dir.file("cell.iolog"), rows = dir.file("r.csv");
  REQUIRE(std::system((q(bin) + " run " + q(yaml) + " -o " + q(rows) + " --iolog " + q(iolog) +
                       " > " + q(dir.file("log")) + " 2>&1")
                          .c_str()) == 0);
  const auto bytes = iolog_bytes(iolog);
  const uint64_t written = std::stoull(cell_value(rows, "host_bytes_written"));
  const uint64_t read = std::stoull(cell_value(rows, "device_read_bytes"));
  REQUIRE(written > 0);
  REQUIRE(read > 0);
  CHECK(bytes.at("write") == written);
  CHECK(bytes.at("read") == read);
  // Issue times are simulated time: they grow, and the last is within the run.
  CHECK(slurp(iolog).find("\n0 flashpq-simflash write ") != std::string::npos);

  // fio replays it on a file of the device's size, as fast as ordering allows.
  const std::string target = dir.file("target.img");
  const uint64_t exported = std::stoull(cell_value(rows, "device_exported_bytes"));
  REQUIRE(shell("truncate -s " + std::to_string(exported) + " " + q(target)) == 0);
  const std::string json = dir.file("fio.json");
  const int rc = std::system(("fio --name=replay --read_iolog=" + q(iolog) +
                              " --replay_redirect=" + q(target) +
                              " --replay_no_stall=1 --ioengine=psync --direct=1 "
                              "--output-format=json --output=" +
                              q(json) + " > /dev/null 2>&1")
                                 .c_str());
  REQUIRE(rc == 0);
  const std::string out = slurp(json);
  auto io_bytes = [&](const std::string& dir_name) {
    const size_t at = out.find("\"" + dir_name + "\" : {");
    REQUIRE(at != std::string::npos);
    const size_t b = out.find("\"io_bytes\" : ", at);
    return std::stoull(out.substr(b + 13));
  };
  CHECK(io_bytes("write") == written);
  CHECK(io_bytes("read") == read);

  // Read back as a block trace for framework direct: the same writes and reads.
  const std::string back = dir.write("b.yaml", "trace: {path: " + iolog +
                                                   ", format: fio_iolog}\n"
                                                   "framework: {name: direct}\n"
                                                   "device: {name: simflash, utilization: 0.8, "
                                                   "pages_per_block: 64, capacity: " +
                                                   std::to_string(exported) + "}\n");
  const std::string back_rows = dir.file("b.csv");
  REQUIRE(std::system((q(bin) + " run " + q(back) + " -o " + q(back_rows) + " > " +
                       q(dir.file("log2")) + " 2>&1")
                          .c_str()) == 0);
  CHECK(std::stoull(cell_value(back_rows, "host_bytes_written")) == written);
  CHECK(std::stoull(cell_value(back_rows, "device_read_bytes")) == read);
}

}  // namespace
}  // namespace flashpq::test_io_log
