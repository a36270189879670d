// engine/tiers.cpp — the `tiers:` section (engine/tiers.h).
#include "engine/tiers.h"

#include <bit>
#include <cmath>

namespace flashpq {

const KeySpec kTiersModeKey =
    key("tiers.mode", ValueType::kEnum)
        .def("none")
        .choices({"none", "wt", "wb", "wa", "wo", "pt", "nhc_wa", "nhc_wb"})
        .desc(
            "none = the cache alone; else a DRAM tier over the cache over a backing store, in "
            "Open CAS's cache mode: wt write-through, wb write-back, wa write-around, wo "
            "write-only, pt pass-through; or non-hierarchical caching over wa or wb (Orthus, "
            "FAST '21: reads that hit flash offloaded to the backing device as it saturates)");

namespace {

const KeySpec kDramCapacity =
    key("tiers.dram_capacity", ValueType::kCapacity)
        .def("0.01")
        .units("bytes or fraction")
        .desc("the DRAM tier's capacity: bytes with a unit, or a fraction of the working set");
const KeySpec kDramPolicy = key("tiers.dram_policy", ValueType::kString)
                                .def("lru")
                                .desc(
                                    "the DRAM tier's policy at its keys' defaults, on an exact "
                                    "queue: any policy but the offline "
                                    "bounds (belady, pfoo_l) and the complete caches (wtinylfu)");
const KeySpec kDram =
    key("tiers.dram", ValueType::kBool)
        .def("true")
        .desc("false = no DRAM tier: the cache is the first tier (Open CAS's SSD over a core)");
const KeySpec kDramLatency =
    key("tiers.dram_latency_us", ValueType::kFloat)
        .def("0")
        .units("us")
        .range(0, 1e9)
        .desc("timed: the time every request spends in the DRAM tier (requests overlap in it)");
const KeySpec kFlashAdmission =
    key("tiers.flash_admission", ValueType::kEnum)
        .def("all")
        .choices({"all", "random", "rate_limited", "nhit", "tinylfu", "retention", "reject_first"})
        .desc(
            "which DRAM evictions enter flash: all; random (probability admit_probability); "
            "rate_limited (random, steered to a flash write rate: navy's dynamic random "
            "admission); nhit (from a key's nhit-th request on); tinylfu (more frequent than "
            "flash's next victim); retention (eviction age at most retention_requests); "
            "reject_first (CacheLib's RejectFirstAP: a key's second DRAM eviction, or one hit in "
            "DRAM)");
const KeySpec kAdmitProbability = key("tiers.admit_probability", ValueType::kUnitInterval)
                                      .def("0.5")
                                      .desc("random: the probability a DRAM eviction enters flash");
const KeySpec kNHit = key("tiers.nhit", ValueType::kInt)
                          .def("2")
                          .units("requests")
                          .range(1, 1e9)
                          .desc("nhit: a key enters flash from its nhit-th request on");
const KeySpec kNHitSlots =
    key("tiers.nhit_table_slots", ValueType::kInt)
        .def("1048576")
        .units("keys")
        .range(1, 1 << 30)
        .desc("nhit: slots of the table of recent keys (a power of two; 16 B each)");
const KeySpec kRetention =
    key("tiers.retention_requests", ValueType::kInt)
        .def("1000000")
        .units("requests")
        .range(0, 1e18)
        .desc(
            "retention: the largest DRAM eviction age (requests since the last request) admitted");
// reject_first (engine/approx_split_set.h; CacheLib's enableRejectFirstAPForNvm arguments).
const KeySpec kRejectFirstEntries =
    key("tiers.reject_first_entries", ValueType::kInt)
        .def("1000000")
        .units("keys")
        .range(1, 1e12)
        .desc(
            "reject_first: the recent DRAM victims' keys remembered (CacheLib's numEntries; "
            "about 7 B each)");
const KeySpec kRejectFirstSplits =
    key("tiers.reject_first_splits", ValueType::kInt)
        .def("20")
        .range(1, 1e6)
        .desc("reject_first: the splits the keys are forgotten by, oldest first (numSplits)");
const KeySpec kRejectFirstDramHitSignal =
    key("tiers.reject_first_dram_hit_signal", ValueType::kBool)
        .def("true")
        .desc(
            "reject_first: a victim hit in DRAM since it entered DRAM is admitted "
            "(useDramHitSignal)");
// rate_limited (engine/write_rate_admission.h; the defaults are navy's DynamicRandomAP's).
const KeySpec kWriteRate =
    key("tiers.admission_write_rate_mib_s", ValueType::kFloat)
        .def("100")
        .units("MiB/s")
        .range(1e-6, 1e9)
        .desc(
            "rate_limited: the flash write rate to hold on average over a day "
            "(CacheBench's navyAdmissionWriteRateMB)");
const KeySpec kMaxWriteRate =
    key("tiers.admission_max_write_rate_mib_s", ValueType::kFloat)
        .def("160")
        .units("MiB/s")
        .range(0, 1e9)
        .desc("rate_limited: the largest rate the controller steers to (0 = no cap)");
const KeySpec kWriteRateInterval =
    key("tiers.admission_update_interval_s", ValueType::kFloat)
        .def("60")
        .units("s")
        .range(1e-6, 1e9)
        .desc("rate_limited: time between two updates of the probability factor");
const KeySpec kWriteRateSeed = key("tiers.admission_probability_seed", ValueType::kFloat)
                                   .def("1")
                                   .range(0.001, 10)
                                   .desc("rate_limited: the probability factor's initial value");
const KeySpec kWriteRateBaseSize =
    key("tiers.admission_base_size", ValueType::kSize)
        .def("4KiB")
        .units("bytes")
        .range(1, 4294967295.0)
        .desc("rate_limited: the object size admitted with base probability 1");
const KeySpec kWriteRateSizeDecay =
    key("tiers.admission_size_decay", ValueType::kUnitInterval)
        .def("0.3")
        .desc("rate_limited: exponent of the size penalty (0 = none)");
const KeySpec kWriteRateWindow =
    key("tiers.admission_change_window", ValueType::kFloat)
        .def("0.25")
        .range(1e-6, 0.999999)
        .desc("rate_limited: the factor changes by at most this fraction per update");
const KeySpec kCleanerStaleness =
    key("tiers.cleaner_staleness_requests", ValueType::kInt)
        .def("0")
        .units("requests")
        .range(0, 1e18)
        .desc("wb, wo: the cleaner flushes objects dirty for this many requests (0 = no cleaner)");
const KeySpec kCleanerInterval = key("tiers.cleaner_interval_requests", ValueType::kInt)
                                     .def("1000")
                                     .units("requests")
                                     .range(1, 1e18)
                                     .desc("wb, wo: the cleaner wakes every this many requests");

// NHC's controller (engine/nhc.h; the defaults are ocf-mf's mf_monitor.c constants).
const KeySpec kNhcStep = key("tiers.nhc_step", ValueType::kFloat)
                             .def("0.01")
                             .range(1e-6, 0.5)
                             .desc("nhc: the step of load_admit (LOAD_ADMIT_TUNING_STEP)");
const KeySpec kNhcInterval =
    key("tiers.nhc_interval_us", ValueType::kFloat)
        .def("25000")
        .units("us")
        .range(1, 1e12)
        .desc("nhc: how long each load_admit is measured (MEASURE_THROUGHPUT_INTERVAL_US)");
const KeySpec kNhcStableThreshold =
    key("tiers.nhc_stable_threshold", ValueType::kUnitInterval)
        .def("0.0015")
        .desc("nhc: the miss ratio is stable within this (WAIT_STABLE_THRESHOLD)");
const KeySpec kNhcStableInterval =
    key("tiers.nhc_stable_interval_us", ValueType::kFloat)
        .def("100000")
        .units("us")
        .range(1, 1e12)
        .desc("nhc: between two readings of the miss ratio (WAIT_STABLE_SLEEP_INTERVAL_US)");
const KeySpec kNhcWorkloadChange =
    key("tiers.nhc_workload_change", ValueType::kUnitInterval)
        .def("0.2")
        .desc("nhc: a miss ratio this far above its base restarts (WORKLOAD_CHANGE_THRESHOLD)");

ComponentSpec mode_component(const std::string& name, const std::string& summary) {
  std::vector<KeySpec> keys = {kDramCapacity, kDramPolicy, kDram, kDramLatency, kFlashAdmission};
  if (name == "wb" || name == "wo" || name == "nhc_wb") {
    keys.push_back(kCleanerStaleness);
    keys.push_back(kCleanerInterval);
  }
  if (name.starts_with("nhc_")) {
    for (const KeySpec& k :
         {kNhcStep, kNhcInterval, kNhcStableThreshold, kNhcStableInterval, kNhcWorkloadChange}) {
      keys.push_back(k);
    }
  }
  return ComponentSpec{
      name,
      summary,
      keys,
      {},
      kFlashAdmission.name,
      {ComponentSpec{"all", "every DRAM eviction", {}, {}, {}, {}},
       ComponentSpec{"random", "CacheLib's random admission", {kAdmitProbability}, {}, {}, {}},
       ComponentSpec{"rate_limited",
                     "navy's dynamic random admission at a target write rate",
                     {kWriteRate, kMaxWriteRate, kWriteRateInterval, kWriteRateSeed,
                      kWriteRateBaseSize, kWriteRateSizeDecay, kWriteRateWindow},
                     {},
                     {},
                     {}},
       ComponentSpec{"nhit", "Open CAS's promotion policy nhit", {kNHit, kNHitSlots}, {}, {}, {}},
       ComponentSpec{"tinylfu", "TinyLFU's rule against flash's next victim", {}, {}, {}, {}},
       ComponentSpec{
           "retention", "CacheBench's retention-time threshold", {kRetention}, {}, {}, {}},
       ComponentSpec{"reject_first",
                     "CacheLib's RejectFirstAP",
                     {kRejectFirstEntries, kRejectFirstSplits, kRejectFirstDramHitSignal},
                     {},
                     {},
                     {}}}};
}

// The cleaner's keys (wb, wo).
TiersConfig with_cleaner(TiersConfig c, const Params& params) {
  c.cleaner_staleness_requests = params.get<uint64_t>(kCleanerStaleness);
  c.cleaner_interval_requests = params.get<uint64_t>(kCleanerInterval);
  return c;
}

}  // namespace

const SectionSpec& tiers_section() {
  static const SectionSpec section{
      "tiers",
      {kTiersModeKey},
      kTiersModeKey.name,
      {ComponentSpec{"none", "the cell's cache alone", {}, {}, {}, {}},
       mode_component("wt", "write-through"), mode_component("wb", "write-back"),
       mode_component("wa", "write-around"), mode_component("wo", "write-only"),
       mode_component("pt", "pass-through"),
       mode_component("nhc_wa", "non-hierarchical caching over write-around (Orthus's mfwa)"),
       mode_component("nhc_wb", "non-hierarchical caching over write-back (Orthus's mfwb)")}};
  return section;
}

TiersConfig TiersConfig::from(const Params& params, uint64_t seed) {
  TiersConfig c;
  c.seed = seed;
  const std::string mode = params.get<std::string>(kTiersModeKey);
  c.mode = mode == "wt"       ? CacheMode::kWriteThrough
           : mode == "wb"     ? CacheMode::kWriteBack
           : mode == "wa"     ? CacheMode::kWriteAround
           : mode == "wo"     ? CacheMode::kWriteOnly
           : mode == "pt"     ? CacheMode::kPassThrough
           : mode == "nhc_wa" ? CacheMode::kNhcWriteAround
           : mode == "nhc_wb" ? CacheMode::kNhcWriteBack
                              : CacheMode::kNone;
  if (!c.enabled()) return c;
  c.dram_capacity = CapacitySpec::parse(params.get<std::string>(kDramCapacity));
  c.dram_policy = params.get<std::string>(kDramPolicy);
  c.dram = params.get<bool>(kDram);
  c.dram_latency_ns = static_cast<uint64_t>(std::llround(params.get<double>(kDramLatency) * 1e3));
  if (c.nhc()) {
    c.nhc_config.step = params.get<double>(kNhcStep);
    c.nhc_config.interval_ns =
        static_cast<uint64_t>(std::llround(params.get<double>(kNhcInterval) * 1e3));
    c.nhc_config.stable_threshold = params.get<double>(kNhcStableThreshold);
    c.nhc_config.stable_interval_ns =
        static_cast<uint64_t>(std::llround(params.get<double>(kNhcStableInterval) * 1e3));
    c.nhc_config.workload_change = params.get<double>(kNhcWorkloadChange);
    c.nhc_config.validate();
  }
  const std::string admission = params.get<std::string>(kFlashAdmission);
  c.flash_admission = admission == "random"         ? FlashAdmission::kRandom
                      : admission == "rate_limited" ? FlashAdmission::kRateLimited
                      : admission == "nhit"         ? FlashAdmission::kNHit
                      : admission == "tinylfu"      ? FlashAdmission::kTinyLfu
                      : admission == "retention"    ? FlashAdmission::kRetention
                      : admission == "reject_first" ? FlashAdmission::kRejectFirst
                                                    : FlashAdmission::kAll;
  if (c.flash_admission == FlashAdmission::kRateLimited) {
    constexpr double kMiB = 1024.0 * 1024.0;
    WriteRateAdmissionConfig& w = c.write_rate;
    w.target_rate_bytes_s = params.get<double>(kWriteRate) * kMiB;
    w.max_rate_bytes_s = params.get<double>(kMaxWriteRate) * kMiB;
    w.update_interval_ns =
        static_cast<uint64_t>(std::llround(params.get<double>(kWriteRateInterval) * 1e9));
    w.probability_seed = params.get<double>(kWriteRateSeed);
    w.base_size_bytes = static_cast<uint32_t>(params.get<uint64_t>(kWriteRateBaseSize));
    w.size_decay = params.get<double>(kWriteRateSizeDecay);
    w.change_window = params.get<double>(kWriteRateWindow);
    w.validate();
  }
  if (c.flash_admission == FlashAdmission::kRetention) {
    c.retention_requests = params.get<uint64_t>(kRetention);
    if (!c.dram) {
      throw std::invalid_argument(
          "key 'tiers.flash_admission': retention measures the age of DRAM evictions and needs "
          "a DRAM tier (tiers.dram: true), found 'retention' with tiers.dram false");
    }
  }
  if (c.flash_admission == FlashAdmission::kRejectFirst) {
    c.reject_first_entries = params.get<uint64_t>(kRejectFirstEntries);
    c.reject_first_splits = params.get<uint32_t>(kRejectFirstSplits);
    c.reject_first_dram_hit_signal = params.get<bool>(kRejectFirstDramHitSignal);
    if (c.reject_first_entries < c.reject_first_splits) {
      throw std::invalid_argument(
          "key 'tiers.reject_first_entries': expected at least tiers.reject_first_splits (" +
          std::to_string(c.reject_first_splits) + ") keys, one a split, found " +
          std::to_string(c.reject_first_entries));
    }
  }
  if (c.flash_admission == FlashAdmission::kRandom) {
    c.admit_probability = params.get<double>(kAdmitProbability);
  }
  if (c.flash_admission != FlashAdmission::kNHit)
    return c.writes_back() ? with_cleaner(c, params) : c;
  c.nhit = params.get<uint32_t>(kNHit);
  c.nhit_table_slots = params.get<uint32_t>(kNHitSlots);
  if (!std::has_single_bit(c.nhit_table_slots)) {
    throw std::invalid_argument("key 'tiers.nhit_table_slots': expected a power of two, found " +
                                std::to_string(c.nhit_table_slots));
  }
  return c.writes_back() ? with_cleaner(c, params) : c;
}

}  // namespace flashpq
