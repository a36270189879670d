// tests/experiments/test_calibrate.cpp — experiments/characterize.h and experiments/calibrate.h:
// the plan, the characterization file, calibration against a known truth (simflash
// characterized with parameters the test chooses), with and without noise, profile files, and
// bad input.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "devices/block/safety.h"
#include "devices/simflash/simflash_config.h"
#include "experiments/calibrate.h"
#include "experiments/characterize.h"
#include "experiments/experiment.h"
#include "sim/rng.h"
#include "tests/block_test_util.h"
#include "tests/test_util.h"

namespace flashpq::test_calibrate {

using flashpq::testing::TempDir;

namespace {

// The truth of the known-truth tests: 2 channels × 4 dies × 2 planes, tR 80 µs, tPROG 600 µs,
// 256 MiB/s per channel, 15 µs host overhead. Chosen so that every fitted value leaves a mark
// on the plan: random reads at depth 32 are die-bound (8 dies / 80 µs = 100 k IOPS < the
// channels' 2 / 15.3 µs = 131 k), sequential reads channel-bound (multi-plane reads could give
// 200 k pages/s), sequential writes die-bound (16 planes / 600 µs), and 128 KiB against 4 KiB
// reads at depth 1 separate the transfer time from tR and the host overhead.
SimFlashConfig truth() {
  SimFlashConfig c = simflash_profile("tiny");
  c.channels = 2;
  c.dies_per_channel = 4;
  c.planes_per_die = 2;
  c.tR_us = 80;
  c.tPROG_us = 600;
  c.channel_bandwidth_mib_s = 256;
  c.host_overhead_us = 15;
  return c;
}

// The fit found truth()'s geometry, tR, tPROG and channel bandwidth (within 5 %).
void check_truth_recovered(const CalibrationResult& r) {
  CHECK(r.converged);
  CHECK(r.config.channels == 2);
  CHECK(r.config.dies_per_channel == 4);
  CHECK(r.config.planes_per_die == 2);
  CHECK(r.config.tR_us == Approx(80).epsilon(0.05));
  CHECK(r.config.tPROG_us == Approx(600).epsilon(0.05));
  CHECK(r.config.channel_bandwidth_mib_s == Approx(256).epsilon(0.05));
}

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.file(name)) << text;
  return dir.file(name);
}

std::string csv_of(const Characterization& c) {
  std::ostringstream s;
  write_characterization(c, s);
  return s.str();
}

}  // namespace

TEST_CASE("characterize: the plan holds the patterns the design names, once each", "[calibrate]") {
  const auto& plan = characterization_plan();
  REQUIRE(plan.size() == 13);
  std::vector<std::string> names;
  for (const IoPatternSpec& p : plan) names.push_back(p.name);
  const std::vector<std::string> expected = {
      "randread_4k_qd1",  "randread_4k_qd4",   "randread_4k_qd16", "randread_4k_qd32",
      "read_128k_qd1",    "read_128k_qd32",    "read_1m_qd1",      "read_1m_qd32",
      "randwrite_4k_qd1", "randwrite_4k_qd32", "write_1m_qd1",     "write_1m_qd32",
      "randrw70_4k_qd16"};
  CHECK(names == expected);
  CHECK(plan.back().rwmixread == 70);
  CHECK(plan[8].rwmixread == 0);
  CHECK(plan[7].bs == 1048576);
}

TEST_CASE("characterize: simflash at depth 1 shows tR + transfer + host overhead, by hand",
          "[calibrate]") {
  // One 4 KiB random read at a time: the die reads (tR), the channel carries the page out
  // (4096 B / 256 MiB/s = 15.2588 µs, rounded to whole ns), then the host overhead.
  const SimFlashConfig c = truth();
  const auto rows = simulate_plan(c, {characterization_plan()[0], characterization_plan()[8]});
  const double xfer_us = std::round(4096.0 / (256.0 * 1048576.0) * 1e9) / 1e3;
  CHECK(rows[0].lat_mean_us == Approx(80 + xfer_us + 15).epsilon(1e-9));
  CHECK(rows[0].iops == Approx(1e6 / (80 + xfer_us + 15)).epsilon(1e-3));
  // A random write: transfer in, program, host overhead.
  CHECK(rows[1].lat_mean_us == Approx(xfer_us + 600 + 15).epsilon(1e-9));
  // Without the overhead, 15 µs less (and the row's key shows the value used).
  SimFlashConfig none = c;
  none.host_overhead_us = 0;
  const auto r0 = simulate_plan(none, {characterization_plan()[0]});
  CHECK(rows[0].lat_mean_us - r0[0].lat_mean_us == Approx(15).epsilon(1e-9));
}

TEST_CASE("characterize: the controller serves one request at a time, the link carries payloads",
          "[calibrate]") {
  // A controller of 50 µs per request bounds 4 KiB random reads at depth 32 to 1 / 50 µs =
  // 20 000 IOPS (the flash alone does 8 dies / 80 µs = 100 000).
  SimFlashConfig c = truth();
  c.host_overhead_us = 0;
  c.host_command_us = 50;
  const auto rows = simulate_plan(c, {characterization_plan()[3], characterization_plan()[0]});
  CHECK(rows[0].iops == Approx(20000).epsilon(0.01));
  // At depth 1 it adds its 50 µs to the flash's 80 + 15.26 µs.
  const double xfer_us = std::round(4096.0 / (256.0 * 1048576.0) * 1e9) / 1e3;
  CHECK(rows[1].lat_mean_us == Approx(80 + xfer_us + 50).epsilon(1e-9));
  // A host link of 1024 MiB/s: a 1 MiB read at depth 1 takes 1/1024 s = 976.5625 µs more.
  SimFlashConfig l = truth();
  l.host_link_mib_s = 1024;
  const auto with_link = simulate_plan(l, {characterization_plan()[6]});
  const auto without = simulate_plan(truth(), {characterization_plan()[6]});
  CHECK(with_link[0].lat_mean_us - without[0].lat_mean_us == Approx(976.5625).epsilon(1e-6));
}

TEST_CASE("characterize: a characterization file reads back as written", "[calibrate]") {
  TempDir dir;
  Characterization c = characterize_simflash(truth());
  c.model = "Model, with \"quotes\"";
  c.serial = "S123";
  const std::string path = write_file(dir, "c.csv", csv_of(c));
  const Characterization back = read_characterization(path);
  CHECK(csv_of(back) == csv_of(c));
  CHECK(back.model == c.model);
  REQUIRE(back.medians().size() == 13);
  CHECK(back.medians()[3].iops == c.rows[3].iops);
}

TEST_CASE("characterize: medians are taken per pattern over the repeats", "[calibrate]") {
  Characterization c = characterize_simflash(truth());
  std::vector<PatternMeasurement> rows;
  for (const PatternMeasurement& r : c.rows) {
    for (uint32_t k = 1; k <= 3; ++k) {
      PatternMeasurement m = r;
      m.repeat = k;
      m.iops = r.iops * k;  // 1x, 2x, 3x: the median is 2x
      rows.push_back(m);
    }
  }
  c.rows = rows;
  const auto med = c.medians();
  REQUIRE(med.size() == 13);
  CHECK(med[0].iops == Approx(2 * rows[0].iops));
  CHECK(med[0].repeat == 0);
}

TEST_CASE("characterize: a bad characterization file is an error naming the file and what",
          "[calibrate]") {
  TempDir dir;
  const std::string good = csv_of(characterize_simflash(truth()));
  SECTION("a missing pattern") {
    std::string text;
    std::istringstream in(good);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("write_1m_qd1,", 0) != 0) text += line + "\n";
    }
    const std::string p = write_file(dir, "c.csv", text);
    REQUIRE_THROWS_WITH(read_characterization(p),
                        Catch::Contains(p) && Catch::Contains("'write_1m_qd1' is missing"));
  }
  SECTION("a NaN") {
    std::string text = good;
    const size_t at = text.find("\nrandread_4k_qd4,");
    // Replace this row's iops (the 9th field) with nan.
    size_t f = at + 1;
    for (int i = 0; i < 8; ++i) f = text.find(',', f) + 1;
    const size_t end = text.find(',', f);
    text.replace(f, end - f, "nan");
    const std::string p = write_file(dir, "c.csv", text);
    REQUIRE_THROWS_WITH(read_characterization(p), Catch::Contains(p + ":3") &&
                                                      Catch::Contains("'iops'") &&
                                                      Catch::Contains("'nan'"));
  }
  SECTION("a negative block size") {
    std::string text = good;
    const size_t at = text.find("\nrandread_4k_qd4,randread,4096,");
    text.replace(at + std::string("\nrandread_4k_qd4,randread,").size(), 4, "-4096");
    const std::string p = write_file(dir, "c.csv", text);
    REQUIRE_THROWS_WITH(read_characterization(p), Catch::Contains(p + ":3") &&
                                                      Catch::Contains("'bs'") &&
                                                      Catch::Contains("whole number"));
  }
  SECTION("an unknown column") {
    std::string text = good;
    text.replace(0, text.find(','), "patern");
    const std::string p = write_file(dir, "c.csv", text);
    REQUIRE_THROWS_WITH(read_characterization(p), Catch::Contains("unknown column 'patern'"));
  }
  SECTION("a quoted field that never closes (the header's: no record at all)") {
    const std::string p = write_file(dir, "c.csv", "pattern,\"rw,bs\n" + good);
    REQUIRE_THROWS_WITH(read_characterization(p),
                        Catch::Contains(p + ":1") && Catch::Contains("quoted field is not closed"));
  }
  SECTION("two devices in one file") {
    std::string text = good;
    const size_t last = text.rfind("simflash,simflash");
    text.replace(last, 8, "/dev/sdx");
    const std::string p = write_file(dir, "c.csv", text);
    REQUIRE_THROWS_WITH(read_characterization(p), Catch::Contains("is of one device"));
  }
}

TEST_CASE("calibrate: recovers tR, tPROG, channel bandwidth and the geometry of a known truth",
          "[calibrate][slow]") {
  const Characterization c = characterize_simflash(truth());
  CalibrateOptions o;
  o.base = simflash_profile("tiny");
  std::ostringstream log;
  const CalibrationResult r = calibrate(c, o, log);
  check_truth_recovered(r);
  // The host side: with the controller never the bottleneck, only the time a request spends
  // there unloaded (delay + controller) is seen, not how it splits.
  CHECK(r.config.host_overhead_us + r.config.host_command_us == Approx(15).epsilon(0.1));
  CHECK(r.rms_residual < 0.01);
  for (const PatternError& e : r.errors) {
    INFO(e.pattern);
    CHECK(std::abs(e.iops_error()) < 0.02);
  }
}

TEST_CASE("calibrate: the same on a three-candidate grid", "[calibrate][slow]") {
  const Characterization c = characterize_simflash(truth());
  CalibrateOptions o;
  o.base = simflash_profile("tiny");
  o.geometries = {{4, 2, 1}, {2, 4, 2}, {2, 2, 2}};
  o.refine = 1;
  std::ostringstream log;
  const CalibrationResult r = calibrate(c, o, log);
  check_truth_recovered(r);
  REQUIRE(r.fitted.size() == 6);
  CHECK(r.fitted[0].name == "tR_us");
  CHECK(std::isfinite(r.fitted[0].standard_error));
}

TEST_CASE("calibrate: 5 % noise on every figure degrades the fit gracefully", "[calibrate][slow]") {
  Characterization c = characterize_simflash(truth());
  // Three noisy repeats per pattern: every figure × (1 + e), e uniform in [−5 %, +5 %].
  RngStream rng(7, RngStream::kBenchDeviceStream);
  std::vector<PatternMeasurement> rows;
  for (const PatternMeasurement& r : c.rows) {
    for (uint32_t k = 1; k <= 3; ++k) {
      auto noisy = [&](double v) { return v * (1 + 0.1 * (rng.uniform() - 0.5)); };
      PatternMeasurement m = r;
      m.repeat = k;
      m.iops = noisy(r.iops);
      m.bw_mib_s = m.iops * r.pattern.bs / 1048576.0;
      m.lat_mean_us = noisy(r.lat_mean_us);
      m.lat_p50_us = noisy(r.lat_p50_us);
      m.lat_p99_us = noisy(r.lat_p99_us);
      m.lat_p99_9_us = noisy(r.lat_p99_9_us);
      rows.push_back(m);
    }
  }
  c.rows = rows;
  CalibrateOptions o;
  o.base = simflash_profile("tiny");
  // The geometry search is the noiseless tests'; here the continuous fit under noise, among
  // the three-candidate grid.
  o.geometries = {{4, 2, 1}, {2, 4, 2}, {2, 2, 2}};
  std::ostringstream log;
  const CalibrationResult r = calibrate(c, o, log);
  CHECK(r.converged);
  // The fit follows the noise a little: within 15 % of the truth, the same parallelism per
  // operation (dies for reads; dies × planes for programs), residuals at the noise's level.
  CHECK(r.config.tR_us == Approx(80).epsilon(0.15));
  CHECK(r.config.tPROG_us == Approx(600).epsilon(0.15));
  CHECK(r.config.channel_bandwidth_mib_s * r.config.channels == Approx(512).epsilon(0.15));
  CHECK(r.rms_residual < 0.05);
  CHECK(r.rms_residual > 0.001);  // the noise is seen, not fitted away
  for (const PatternError& e : r.errors) {
    INFO(e.pattern);
    CHECK(std::abs(e.iops_error()) < 0.1);
  }
}

TEST_CASE("calibrate: held-out patterns are predicted, not fitted", "[calibrate][slow]") {
  const Characterization c = characterize_simflash(truth());
  CalibrateOptions o;
  o.base = simflash_profile("tiny");
  o.geometries = {{2, 4, 2}};
  o.fit_patterns = {"randread_4k_qd1", "randread_4k_qd32", "read_128k_qd1",
                    "read_1m_qd32",    "randwrite_4k_qd1", "write_1m_qd32"};
  std::ostringstream log;
  const CalibrationResult r = calibrate(c, o, log);
  int held_out = 0;
  for (const PatternError& e : r.errors) held_out += !e.fitted;
  CHECK(held_out == 7);
  // The truth is in the model family: held-out patterns are predicted within a few percent.
  for (const PatternError& e : r.errors) {
    INFO(e.pattern);
    CHECK(std::abs(e.iops_error()) < 0.05);
  }
  o.fit_patterns = {"randread_4k_qd1", "no_such_pattern"};
  REQUIRE_THROWS_WITH(calibrate(c, o, log), Catch::Contains("'no_such_pattern'"));
  o.fit_patterns = {"randread_4k_qd1"};
  REQUIRE_THROWS_WITH(calibrate(c, o, log), Catch::Contains("at least 3 patterns"));
  o.fit_patterns = {"randread_4k_qd1", "randread_4k_qd32"};  // 6 residuals, 6 parameters
  REQUIRE_THROWS_WITH(calibrate(c, o, log), Catch::Contains("at least 3 patterns"));
  o.fit_patterns.clear();
  o.geometries = {{64, 64, 1}};
  REQUIRE_THROWS_WITH(calibrate(c, o, log),
                      Catch::Contains("at most 1024 lanes") && Catch::Contains("64x64x1"));
}

TEST_CASE("calibrate: the profile written loads as device.profile, values intact", "[calibrate]") {
  TempDir dir;
  const Characterization c = characterize_simflash(truth());
  CalibrateOptions o;
  o.base = simflash_profile("tiny");
  o.geometries = {{2, 4, 2}};
  o.refine = 1;  // the file's format is checked here, not the fit
  std::ostringstream log;
  const CalibrationResult r = calibrate(c, o, log);
  const std::string path = dir.file("fitted.yaml");
  {
    std::ofstream out(path);
    write_profile(r, c, "c.csv", "tiny", out);
  }
  const SimFlashProfileFile f = load_simflash_profile(path);
  CHECK(f.config.channels == 2);
  CHECK(f.config.dies_per_channel == 4);
  CHECK(f.config.tR_us == r.config.tR_us);
  CHECK(f.config.host_overhead_us == r.config.host_overhead_us);
  CHECK(f.config.page_size_bytes == 4096);  // the base's
  REQUIRE(!f.identity.empty());
  CHECK(simflash_profile(path).tPROG_us == r.config.tPROG_us);

  // In an experiment, relative to the experiment file.
  write_file(dir, "e.yaml", R"(name: e
trace:
  format: generator
  generator: device_io
  pattern: uniform_random
  requests: 2000
seed: 1
framework:
  name: direct
device:
  name: simflash
  profile: fitted.yaml
  blocks_per_plane: 32
timing:
  mode: simulated
  arrival: closed_loop
  clients: 1
)");
  const Experiment ex = load_experiment(dir.file("e.yaml"), {});
  REQUIRE(ex.cells.size() == 1);
}

TEST_CASE("calibrate: a bad profile file is an error naming file, line and key", "[calibrate]") {
  TempDir dir;
  SECTION("unknown device key") {
    const std::string p = write_file(dir, "p.yaml",
                                     "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n"
                                     "  channels: 2\n  tr_us: 50\n");
    REQUIRE_THROWS_WITH(load_simflash_profile(p),
                        Catch::Contains(p + ":5") && Catch::Contains("tr_us"));
  }
  SECTION("bad value") {
    const std::string p = write_file(dir, "p.yaml",
                                     "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n"
                                     "  channels: two\n");
    REQUIRE_THROWS_WITH(load_simflash_profile(p),
                        Catch::Contains(p + ":4") && Catch::Contains("'two'"));
  }
  SECTION("no format line") {
    const std::string p = write_file(dir, "p.yaml", "base: tiny\ndevice:\n  channels: 2\n");
    REQUIRE_THROWS_WITH(load_simflash_profile(p), Catch::Contains("flashpq-simflash-profile 1"));
  }
  SECTION("unknown top-level key") {
    const std::string p =
        write_file(dir, "p.yaml", "format: flashpq-simflash-profile 1\ndevice: {}\nextra: 1\n");
    REQUIRE_THROWS_WITH(load_simflash_profile(p), Catch::Contains("'extra'"));
  }
  SECTION("a map as a key (YAML's '? ' form), at any level") {
    for (const char* where :
         {"? {a: 1}\n: 2\n", "device: {channels: 2}\nidentity:\n  ? kind: file\n",
          "device:\n  ? [channels]\n  : 2\n"}) {
      const std::string p = write_file(
          dir, "p.yaml", std::string("format: flashpq-simflash-profile 1\nbase: tiny\n") + where);
      REQUIRE_THROWS_WITH(load_simflash_profile(p),
                          Catch::Contains(p + ":") &&
                              Catch::Contains("expected a key (a name), found a map or a list"));
    }
  }
  SECTION("missing file") {
    REQUIRE_THROWS_WITH(load_simflash_profile(dir.file("none.yaml")),
                        Catch::Contains("cannot read"));
  }
}

TEST_CASE("a profile file is read once per version: a changed file is read again", "[calibrate]") {
  // simflash_profile() keeps each file's parsed config by path, size and modification time:
  // the same file gives the same config without a second parse, a rewritten one its new values
  // (a file of another size; and one of the same size once its time moves), a refused one its
  // error.
  TempDir dir;
  const std::string p = write_file(dir, "p.yaml",
                                   "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n"
                                   "  channels: 2\n  tR_us: 50\n");
  CHECK(simflash_profile(p).tR_us == 50);
  CHECK(simflash_profile(p).tR_us == 50);
  write_file(dir, "p.yaml",
             "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n"
             "  channels: 2\n  tR_us: 61.25\n");
  CHECK(simflash_profile(p).tR_us == 61.25);
  write_file(dir, "p.yaml",
             "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n"
             "  channels: 2\n  tR_us: 62.25\n");
  std::filesystem::last_write_time(p,
                                   std::filesystem::last_write_time(p) + std::chrono::seconds(2));
  CHECK(simflash_profile(p).tR_us == 62.25);
  write_file(dir, "p.yaml",
             "format: flashpq-simflash-profile 1\nbase: tiny\ndevice:\n  channels: two\n");
  CHECK_THROWS_WITH(simflash_profile(p), Catch::Contains("'two'"));
}

TEST_CASE("characterize: a file through the I/O path yields every pattern, positive figures",
          "[calibrate][block]") {
  const std::filesystem::path scratch = flashpq::testing::scratch_dir();
  TempDir dir(scratch);
  BlockConfig b;
  b.path = dir.file("dev.img");
  CharacterizeOptions o;
  o.seconds = 0.05;
  o.repeats = 2;
  o.region_bytes = 8ull << 20;
  std::ostringstream log;
  const Characterization c = characterize_device(b, o, log);
  CHECK(c.rows.size() == 26);
  CHECK(c.device_kind == "file");
  CHECK(c.region_bytes == 8ull << 20);
  CHECK(!c.date.empty());
  CHECK_NOTHROW(c.validate("x"));
  // What the figures say about each other, whatever the machine's speed or load: bw is iops
  // I/Os of the pattern's size, the latency percentiles are in order. How fast one pattern is
  // against another is the device's property and depends on what else uses the disk and the
  // CPUs while each 50 ms window runs (sequential 1 MiB reads at depth 32 measured only about
  // 10× the bandwidth of random 4 KiB reads at depth 1 on a shared virtual disk), so it is not
  // asserted; simflash's shape is checked by hand above.
  for (const PatternMeasurement& r : c.rows) {
    INFO(r.pattern.name << " repeat " << r.repeat);
    CHECK(r.ios > 0);
    CHECK(r.runtime_s > 0);
    CHECK(r.bw_mib_s == Approx(r.iops * r.pattern.bs / 1048576.0).epsilon(1e-12));
    CHECK(r.lat_p50_us <= r.lat_p99_us);
    CHECK(r.lat_p99_us <= r.lat_p99_9_us);
  }
  CHECK(log.str().find("preconditioning 8 MiB") != std::string::npos);
}

TEST_CASE("calibrate: simflash calibrated to one device is not compared with another",
          "[calibrate][block]") {
  TempDir dir(flashpq::testing::scratch_dir());
  const std::string img = dir.file("dev.img");
  std::ofstream(img).close();
  const DeviceIdentity id = inspect_device(img).identity;
  auto profile = [&](const std::string& name, const std::string& kernel_name) {
    return write_file(dir, name,
                      "format: flashpq-simflash-profile 1\nbase: tiny\ndevice: {channels: 2}\n"
                      "identity: {kernel_name: \"" +
                          kernel_name + "\", model: \"" + id.model + "\", serial: \"" +
                          (id.serial.empty() ? id.wwid : id.serial) + "\"}\n");
  };
  profile("same.yaml", id.kernel_name);
  profile("other.yaml", "nvme9n1");
  auto cells = [&](const std::string& p) {
    write_file(dir, "e.yaml",
               "trace:\n  format: generator\n  generator: device_io\n  requests: 100\n"
               "framework: {name: direct}\ndevice: {capacity: 1MiB}\n"
               "zip:\n  device.name: [simflash, block]\n  device.profile: [" +
                   p + ", \"\"]\n  device.path: [\"\", " + img +
                   "]\n  timing.mode: [simulated, wall]\n"
                   "timing: {arrival: closed_loop, clients: 4}\n");
    return load_experiment(dir.file("e.yaml"), {}).cells;
  };
  CHECK_NOTHROW(check_profile_devices(cells("same.yaml"), false));
  CHECK_THROWS_WITH(check_profile_devices(cells("other.yaml"), false),
                    Catch::Contains("other.yaml") && Catch::Contains("nvme9n1") &&
                        Catch::Contains("--allow-other-device"));
  CHECK_NOTHROW(check_profile_devices(cells("other.yaml"), true));
  // A built-in profile names no device: nothing to compare.
  CHECK_NOTHROW(check_profile_devices(cells("tiny"), false));
}

TEST_CASE("calibrate: the command refuses to write a profile from a fit that did not converge",
          "[calibrate]") {
  TempDir dir;
  const std::string csv = dir.file("c.csv");
  {
    std::ofstream out(csv);
    write_characterization(characterize_simflash(truth()), out);
  }
  const std::string bin = FLASHPQ_BINARY;
  const std::string cmd = "'" + bin + "' device calibrate '" + csv + "' -o '" + dir.file("p.yaml") +
                          "' --geometries 1x1x1 --refine 1 " + "--max-evaluations 1 > '" +
                          dir.file("out") + "' 2> '" + dir.file("err") + "'";
  const int rc = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(rc) == 1);
  CHECK(!std::filesystem::exists(dir.file("p.yaml")));
  CHECK(!std::filesystem::exists(dir.file("p.yaml.tmp")));
  std::ifstream err(dir.file("err")), out(dir.file("out"));
  const std::string e((std::istreambuf_iterator<char>(err)), {}),
      o((std::istreambuf_iterator<char>(out)), {});
  CHECK_THAT(e, Catch::Contains("did not converge") && Catch::Contains("no profile written"));
  CHECK_THAT(o, Catch::Contains("randread_4k_qd1"));  // the residuals are shown
}

}  // namespace flashpq::test_calibrate
