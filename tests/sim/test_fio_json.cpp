// tests/sim/test_fio_json.cpp — fio's JSON names for a latency histogram (sim/fio_json.h).
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/fio_json.h"

namespace flashpq::test_fio_json {
namespace {

// ---------------------------------------------------------------------------------------------
// fio's JSON names

TEST_CASE("fio_latency_json uses fio's names and percentile keys", "[block][timing]") {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 10000; ++v) h.record(v * 100);
  const YAML::Node j = YAML::Load(fio_latency_json(h));
  CHECK(j["N"].as<uint64_t>() == 10000);
  CHECK(j["min"].as<uint64_t>() == 100);
  CHECK(j["max"].as<uint64_t>() == 1'000'000);
  CHECK(j["mean"].as<double>() == Approx(500050));
  const YAML::Node p = j["percentile"];
  REQUIRE(p.size() == 17);
  CHECK(p["50.000000"].as<uint64_t>() == h.percentile_ns(0.5));
  CHECK(p["99.900000"].as<uint64_t>() == h.percentile_ns(0.999));
  CHECK(p["99.990000"].as<uint64_t>() == h.percentile_ns(0.9999));
  CHECK(p["1.000000"].as<uint64_t>() == h.percentile_ns(0.01));
}

}  // namespace
}  // namespace flashpq::test_fio_json
