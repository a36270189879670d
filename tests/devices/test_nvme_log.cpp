// tests/devices/test_nvme_log.cpp — the drive's write counters from nvme-cli's JSON (fixtures in
// tests/data/nvme/, see its README): units, the 128-bit hi/lo halves, the legacy float form,
// errors, and wa_device from two snapshots (values hand-computed from the fixtures).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "devices/block/nvme_log.h"

namespace flashpq::test_nvme_log {
namespace {

using Catch::Contains;

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(FLASHPQ_SOURCE_DIR) + "/tests/data/nvme/" + name);
  REQUIRE(f);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

uint64_t u64(const std::optional<unsigned __int128>& v) {
  REQUIRE(v.has_value());
  REQUIRE(*v <= UINT64_MAX);
  return static_cast<uint64_t>(*v);
}

TEST_CASE("smart-log: host bytes = data_units_written × 1000 × 512", "[nvme]") {
  CHECK(u64(parse_smart_log_host_bytes(fixture("smart-log-before.json"), "f")) ==
        1234567ull * 512000);
  // nvme-cli 1.x: floats ("64663716.000000"), tab-indented, " : ".
  CHECK(u64(parse_smart_log_host_bytes(fixture("smart-log-legacy.json"), "f")) ==
        64663716ull * 512000);
  // Quoted strings (how nvme-cli prints some 64-bit counters).
  CHECK(u64(parse_smart_log_host_bytes(R"({"data_units_written":"42"})", "f")) == 42ull * 512000);
  CHECK(!parse_smart_log_host_bytes(R"({"temperature":300})", "f").has_value());
}

TEST_CASE("ocp smart-add-log: media bytes = hi·2^64 + lo", "[nvme]") {
  CHECK(u64(parse_ocp_media_bytes(fixture("ocp-smart-add-log-before.json"), "f")) ==
        700000000000000ull);
  const auto big = parse_ocp_media_bytes(fixture("ocp-smart-add-log-hi.json"), "f");
  REQUIRE(big.has_value());
  CHECK(*big == (static_cast<unsigned __int128>(1) << 64) + 5);
  CHECK(!parse_ocp_media_bytes(fixture("smart-log-before.json"), "f").has_value());
}

TEST_CASE("endurance-log: host and media bytes in data units", "[nvme]") {
  const EnduranceBytes e = parse_endurance_log(fixture("endurance-log-before.json"), "f");
  CHECK(u64(e.host_bytes) == 1234000ull * 512000);
  CHECK(u64(e.media_bytes) == 2000000ull * 512000);
}

TEST_CASE("nvme parsers: bad input names the source and the field", "[nvme]") {
  CHECK_THROWS_WITH(parse_smart_log_host_bytes("not json {", "nvme smart-log /dev/x"),
                    Contains("nvme smart-log /dev/x"));
  CHECK_THROWS_WITH(parse_smart_log_host_bytes("[1, 2]", "src"), Contains("JSON object"));
  CHECK_THROWS_WITH(parse_smart_log_host_bytes(R"({"data_units_written":-5})", "src"),
                    Contains("data_units_written") && Contains("-5"));
  CHECK_THROWS_WITH(parse_smart_log_host_bytes(R"({"data_units_written":1.5})", "src"),
                    Contains("non-negative integer"));
  CHECK_THROWS_WITH(parse_ocp_media_bytes(R"({"Physical media units written":7})", "src"),
                    Contains("hi"));
  CHECK_THROWS_WITH(
      parse_smart_log_host_bytes(
          R"({"data_units_written":999999999999999999999999999999999999999999})", "src"),
      Contains("128 bits"));
}

// A CommandRunner replaying fixtures by command.
CommandRunner replay(std::map<std::string, std::string> outputs) {
  return [outputs](const std::string& cmd) -> std::optional<std::string> {
    const auto it = outputs.find(cmd);
    if (it == outputs.end()) return std::nullopt;
    return fixture(it->second);
  };
}

TEST_CASE("wa_device from two snapshots: OCP media bytes over SMART host bytes", "[nvme]") {
  const std::string d = "/dev/nvme0n1";
  auto at = [&](const char* when) {
    return replay({{"nvme smart-log " + d + " -o json", std::string("smart-log-") + when + ".json"},
                   {"nvme ocp smart-add-log " + d + " -o json",
                    std::string("ocp-smart-add-log-") + when + ".json"}});
  };
  const NvmeSnapshot before = snapshot_nvme(d, at("before"));
  const NvmeSnapshot after = snapshot_nvme(d, at("after"));
  CHECK(before.media_source == "ocp");
  const NvmeWriteDelta delta = nvme_delta(before, after);
  CHECK(delta.host_bytes == 20000ull * 512000);  // 10,240,000,000 bytes
  CHECK(delta.media_bytes == 25600000000ull);
  REQUIRE(delta.wa_device.has_value());
  CHECK(*delta.wa_device == Approx(2.5));
  CHECK(delta.media_source == "ocp");
  // Backwards: another drive, or a reset.
  CHECK_THROWS_WITH(nvme_delta(after, before), Contains("backwards"));
}

TEST_CASE("wa_device falls back to the endurance log without the OCP log", "[nvme]") {
  const std::string d = "/dev/nvme1n1";
  auto at = [&](const char* when) {
    return replay({{"nvme smart-log " + d + " -o json", std::string("smart-log-") + when + ".json"},
                   {"nvme endurance-log " + d + " --group-id=1 -o json",
                    std::string("endurance-log-") + when + ".json"}});
  };
  const NvmeWriteDelta delta =
      nvme_delta(snapshot_nvme(d, at("before")), snapshot_nvme(d, at("after")));
  CHECK(delta.media_source == "endurance");
  CHECK(delta.host_bytes == 20000ull * 512000);  // SMART log: 1254567 − 1234567 units
  CHECK(delta.media_bytes == 30000ull * 512000);
  CHECK(*delta.wa_device == Approx(1.5));
}

TEST_CASE("no counters, no wa_device -- a path with shell metacharacters is refused", "[nvme]") {
  const NvmeSnapshot none = snapshot_nvme("/dev/nvme9n1", replay({}));
  CHECK(!none.host_bytes);
  CHECK(!none.media_bytes);
  const NvmeWriteDelta d = nvme_delta(none, none);
  CHECK(!d.wa_device);
  CHECK(!d.host_bytes);
  CHECK_THROWS_AS(snapshot_nvme("/dev/nvme0n1; rm -rf /", replay({})), std::invalid_argument);
}

}  // namespace
}  // namespace flashpq::test_nvme_log
