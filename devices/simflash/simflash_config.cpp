// devices/simflash/simflash_config.cpp — SimFlashConfig validation and the named profiles.
//
// Sources of the profile numbers (each restated next to the value it gives):
//   [MQSim]  CMU-SAFARI/MQSim, ssdconfig.xml (the default device configuration shipped with
//            the simulator) and src/exec/Device_Parameter_Set.cpp; MQSim's FTL computes
//            total_logical_pages = total_physical_pages × (1 − Overprovisioning_Ratio)
//            (Address_Mapping_Unit_Base.cpp), GC starts on a plane when its free block pool is
//            below GC_Exec_Threshold × blocks_per_plane (GC_and_WL_Unit_Base.cpp,
//            block_pool_gc_threshold), and RGA draws rga_set_size = log2(blocks_per_plane)
//            random candidates (GC_and_WL_Unit_Page_Level.cpp). Tavakkol et al., "MQSim: A
//            Framework for Enabling Realistic Studies of Modern Multi-Queue SSD Devices",
//            FAST'18.
//   [FEMU]   MoatLab/FEMU, hw/femu/femu.c device properties (bb_params defaults),
//            femu-scripts/run-blackbox.sh (ssd_size=12288 MB, "consider a default 25%
//            overprovisioning ratio") and hw/femu/bbssd/ftl.c (lines = superblocks of one block
//            per LUN, a priority queue on valid pages for victims, one write pointer shared by
//            host writes and GC copies, foreground GC while free lines ≤ gc_thres_lines_high =
//            (1 − gc_thres_pcent_high/100) × lines). Li et al., "The CASE of FEMU: Cheap,
//            Accurate, Scalable and Extensible Flash Emulator", FAST'18.
//   [RIPQ]   Tang et al., "RIPQ: Advanced Photo Caching on Flash for Facebook", FAST'15 (the
//            seed paper): §3 "Model A" 670 GiB flash card, 90 % utilization (§6: "All flash
//            devices are configured with 90% space utilization, leaving the remaining 10% for
//            the FTL"), 256 MiB writes needed for peak random-write throughput, peak 590 MiB/s.
#include "devices/simflash/simflash_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "devices/device.h"
#include "devices/host_ftl/host_ftl.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

[[noreturn]] void fail(const std::string& key, const std::string& expected,
                       const std::string& found) {
  throw std::invalid_argument("device." + key + ": expected " + expected + ", found " + found);
}

std::string num(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

void check_range(const char* key, uint64_t value, uint64_t lo, uint64_t hi) {
  if (value < lo || value > hi) {
    fail(key, "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
         std::to_string(value));
  }
}

void check_positive_time(const char* key, double value) {
  if (!std::isfinite(value) || value <= 0.0) fail(key, "a time > 0 in µs", num(value));
}

}  // namespace

const char* gc_policy_name(GcPolicy policy) {
  switch (policy) {
    case GcPolicy::kGreedy:
      return "greedy";
    case GcPolicy::kFifo:
      return "fifo";
    case GcPolicy::kCostBenefit:
      return "cost_benefit";
    case GcPolicy::kDChoices:
      return "d_choices";
  }
  return "?";
}

GcPolicy parse_gc_policy(const std::string& name) {
  for (GcPolicy p :
       {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit, GcPolicy::kDChoices}) {
    if (name == gc_policy_name(p)) return p;
  }
  throw_unknown_name("device.gc_policy", name, gc_policy_names());
}

const std::vector<std::string>& gc_policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (GcPolicy p :
         {GcPolicy::kGreedy, GcPolicy::kFifo, GcPolicy::kCostBenefit, GcPolicy::kDChoices}) {
      v.emplace_back(gc_policy_name(p));
    }
    return v;
  }();
  return names;
}

const std::vector<std::string>& gc_stream_names() {
  static const std::vector<std::string> names = {gc_stream_name(GcStream::kSeparate),
                                                 gc_stream_name(GcStream::kShared)};
  return names;
}

const char* gc_stream_name(GcStream stream) {
  return stream == GcStream::kSeparate ? "separate" : "shared";
}

GcStream parse_gc_stream(const std::string& name) {
  if (name == "separate") return GcStream::kSeparate;
  if (name == "shared") return GcStream::kShared;
  throw_unknown_name("device.gc_stream", name, gc_stream_names());
}

const std::vector<std::string>& fdp_isolation_names() {
  static const std::vector<std::string> names = {fdp_isolation_name(FdpIsolation::kInitial),
                                                 fdp_isolation_name(FdpIsolation::kPersistent)};
  return names;
}

const char* fdp_isolation_name(FdpIsolation isolation) {
  return isolation == FdpIsolation::kInitial ? "initial" : "persistent";
}

FdpIsolation parse_fdp_isolation(const std::string& name) {
  if (name == "initial") return FdpIsolation::kInitial;
  if (name == "persistent") return FdpIsolation::kPersistent;
  throw_unknown_name("device.fdp.isolation", name, fdp_isolation_names());
}

uint64_t SimFlashConfig::exported_pages() const {
  if (zoned()) return uint64_t{zones()} * (zone_size_bytes() / page_size_bytes);
  return static_cast<uint64_t>(
      std::floor(effective_utilization() * static_cast<double>(physical_pages())));
}

double SimFlashConfig::peak_write_mib_s() const {
  const double mib = 1024.0 * 1024.0;
  const double program =
      double(erase_blocks_per_superblock()) * page_size_bytes / mib / (tPROG_us * 1e-6);
  if (channel_bandwidth_mib_s <= 0.0) return program;
  return std::min(program, channel_bandwidth_mib_s * channels);
}

uint64_t SimFlashConfig::host_ftl_exported_bytes() const {
  return uint64_t{host_ftl_exposed_zones(zones(), zns_host_ftl_op_rate, zns_max_active_zones,
                                         "device.zns.host_ftl_op_rate",
                                         "device.zns.max_active_zones")} *
         zns_zone_capacity_bytes;
}

void SimFlashConfig::validate_zoned(uint64_t sb_pages, uint64_t phys) const {
  const uint64_t sb_bytes = sb_pages * page_size_bytes;
  if (zns_zone_capacity_bytes % sb_bytes != 0 || zns_zone_capacity_bytes > phys * page_size_bytes) {
    const uint64_t k = std::max<uint64_t>(1, zns_zone_capacity_bytes / sb_bytes);
    fail("zns.zone_capacity",
         "a whole number of superblocks (" + std::to_string(sb_bytes) +
             " B each, the zone's erase unit), at most the device's " +
             std::to_string(phys * page_size_bytes) + " B: e.g. " +
             std::to_string(std::min<uint64_t>(k, blocks_per_plane) * sb_bytes),
         std::to_string(zns_zone_capacity_bytes));
  }
  const uint64_t size = zone_size_bytes();
  if (size < zns_zone_capacity_bytes || size % page_size_bytes != 0) {
    fail("zns.zone_size",
         "at least the zone capacity (" + std::to_string(zns_zone_capacity_bytes) +
             " B), a multiple of the page (" + std::to_string(page_size_bytes) + " B)",
         std::to_string(size));
  }
  if (exported_pages() > 0xFFFFFFFEull) {
    fail("zns.zone_size", "zones × zone size of at most 4294967294 pages (32-bit page map)",
         std::to_string(size));
  }
  check_range("zns.max_open_zones", zns_max_open_zones, 0, uint64_t{1} << 20);
  check_range("zns.max_active_zones", zns_max_active_zones, 0, uint64_t{1} << 20);
  if (zns_max_open_zones > 0 && zns_max_active_zones > 0 &&
      zns_max_open_zones > zns_max_active_zones) {
    fail("zns.max_open_zones",
         "at most zns.max_active_zones (" + std::to_string(zns_max_active_zones) +
             "): an open zone is active",
         std::to_string(zns_max_open_zones));
  }
  if (fdp_handles > 0) {
    fail("fdp.handles", "0 on a zoned device (ZNS and FDP are different interfaces)",
         std::to_string(fdp_handles));
  }
  if (zns_host_ftl) {
    host_ftl_exposed_zones(zones(), zns_host_ftl_op_rate, zns_max_active_zones,
                           "device.zns.host_ftl_op_rate", "device.zns.max_active_zones");
  }
  if (precondition) {
    fail("precondition",
         "false on a zoned device: a zone is written from its start after a reset, so there "
         "is no valid data to leave behind",
         "true");
  }
}

void SimFlashConfig::validate() const {
  check_range("channels", channels, 1, 1024);
  check_range("dies_per_channel", dies_per_channel, 1, 1024);
  check_range("planes_per_die", planes_per_die, 1, 64);
  check_range("blocks_per_plane", blocks_per_plane, 2, uint64_t{1} << 24);
  check_range("pages_per_block", pages_per_block, 1, 65535);
  if (page_size_bytes < 512 || page_size_bytes > (1u << 20) ||
      (page_size_bytes & (page_size_bytes - 1)) != 0) {
    fail("page_size", "a power of two in [512, 1048576]", std::to_string(page_size_bytes));
  }
  // 64-bit products: the uint32 accessors are only safe once these pass.
  const uint64_t lanes = uint64_t{channels} * dies_per_channel * planes_per_die;
  const uint64_t sb_pages = lanes * pages_per_block;
  const uint64_t phys = sb_pages * blocks_per_plane;  // ≤ 2^42 · 2^24: no overflow
  if (phys > 0xFFFFFFFEull) {
    fail("blocks_per_plane", "a geometry of at most 4294967294 physical pages (32-bit page map)",
         std::to_string(phys) + " pages (" + std::to_string(lanes) + " lanes × " +
             std::to_string(blocks_per_plane) + " blocks × " + std::to_string(pages_per_block) +
             " pages)");
  }

  if (zoned()) {
    validate_zoned(sb_pages, phys);
  } else {
    if (zns_host_ftl) {
      fail("zns.host_ftl",
           "false on a device without zones: a host FTL runs over zones (set "
           "device.zns.zone_capacity)",
           "true");
    }
    if (over_provisioning) {
      const double op = *over_provisioning;
      if (!std::isfinite(op) || op <= 0.0 || op > 1000.0) {
        fail("over_provisioning", "a number in (0, 1000] ((physical − exported) ÷ exported)",
             num(op));
      }
    } else if (!std::isfinite(utilization) || utilization <= 0.0 || utilization >= 1.0) {
      fail("utilization", "a number in (0, 1) (exported ÷ physical pages)", num(utilization));
    }
    const uint64_t exported = exported_pages();
    if (exported < sb_pages) {
      fail(over_provisioning ? "over_provisioning" : "utilization",
           "an exported capacity of at least one superblock (" + std::to_string(sb_pages) +
               " pages)",
           std::to_string(exported) + " pages (ρ = " + num(effective_utilization()) + " of " +
               std::to_string(phys) + ")");
    }

    check_range("gc_d", gc_d, 1, 1024);
    check_range("fdp.handles", fdp_handles, 0, 256);
    if (!(fdp_misplaced_fraction >= 0.0 && fdp_misplaced_fraction <= 1.0)) {
      fail("fdp.misplaced_fraction", "a share in [0, 1]", num(fdp_misplaced_fraction));
    }
    // A shared GC stream writes its first copies into the host frontier that just opened, unless
    // FDP gives each handle a frontier of its own: the victim's may need a free superblock too.
    const uint32_t min_low = gc_stream == GcStream::kSeparate || fdp_handles > 1 ? 2 : 1;
    if (gc_low_watermark < min_low) {
      fail("gc_low_watermark",
           std::string("at least ") + std::to_string(min_low) +
               " free superblocks with gc_stream " + gc_stream_name(gc_stream) +
               (fdp_handles > 1 ? " and FDP handles" : "") +
               " (GC must start while a free superblock is left for its copies)",
           std::to_string(gc_low_watermark));
    }
    if (gc_high_watermark < gc_low_watermark) {
      fail("gc_high_watermark",
           "at least gc_low_watermark (" + std::to_string(gc_low_watermark) + ")",
           std::to_string(gc_high_watermark));
    }
    // Progress: with high − 1 free superblocks and every frontier open (and empty), the sealed
    // superblocks must hold an invalid page, i.e. exported < (B − high + 1 − frontiers) × S.
    const int64_t usable = int64_t{blocks_per_plane} - gc_high_watermark + 1 - frontiers();
    if (usable <= 0 || exported >= uint64_t(usable) * sb_pages) {
      fail("gc_high_watermark",
           "a watermark GC can reach: exported pages (" + std::to_string(exported) +
               ") < (superblocks " + std::to_string(blocks_per_plane) + " − high + 1 − frontiers " +
               std::to_string(frontiers()) + ") × " + std::to_string(sb_pages) +
               " pages per superblock",
           std::to_string(gc_high_watermark));
    }
  }
  check_positive_time("tR_us", tR_us);
  check_positive_time("tPROG_us", tPROG_us);
  check_positive_time("tBERS_us", tBERS_us);
  if (!std::isfinite(host_overhead_us) || host_overhead_us < 0.0 || host_overhead_us > 1e9) {
    fail("host_overhead_us", "a time in [0, 1e9] us", num(host_overhead_us));
  }
  if (!std::isfinite(host_command_us) || host_command_us < 0.0 || host_command_us > 1e9) {
    fail("host_command_us", "a time in [0, 1e9] us", num(host_command_us));
  }
  if (!std::isfinite(host_link_mib_s) || host_link_mib_s < 0.0 || host_link_mib_s > 1e9) {
    fail("host_link_mib_s", "a rate in [0, 1e9] MiB/s (0 = instant)", num(host_link_mib_s));
  }
  if (!std::isfinite(channel_bandwidth_mib_s) || channel_bandwidth_mib_s < 0.0) {
    fail("channel_bandwidth_mib_s", "a rate ≥ 0 in MiB/s (0 = transfers take no time)",
         num(channel_bandwidth_mib_s));
  }
}

std::vector<std::string> simflash_profile_names() {
  return {"tiny", "mqsim", "femu", "model_a"};
}

namespace {

// A profile file read once per version: cells decode their device keys several times (checked
// at load, resolved for the row, built for the run, a hierarchy's second device), and each
// decode starts from the profile. A file is parsed again only when its size or modification
// time changed; an entry is looked up, never iterated.
SimFlashConfig profile_file_config(const std::string& path) {
  struct Version {
    std::filesystem::file_time_type mtime;
    std::uintmax_t size;
  };
  static std::mutex mutex;
  static std::map<std::string, std::pair<Version, SimFlashConfig>> parsed;
  std::error_code ec;
  const Version v{std::filesystem::last_write_time(path, ec), std::filesystem::file_size(path, ec)};
  if (ec) return load_simflash_profile(path).config;  // its error names the file
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto it = parsed.find(path);
    if (it != parsed.end() && it->second.first.mtime == v.mtime &&
        it->second.first.size == v.size) {
      return it->second.second;
    }
  }
  const SimFlashConfig c = load_simflash_profile(path).config;
  const std::lock_guard<std::mutex> lock(mutex);
  parsed.insert_or_assign(path, std::make_pair(v, c));
  return c;
}

}  // namespace

SimFlashConfig simflash_profile(const std::string& name) {
  if (is_yaml_file_name(name)) return profile_file_config(name);
  SimFlashConfig c;  // the defaults are "tiny"
  if (name == "tiny") {
    // 2 channels × 2 dies × 1 plane × 64 blocks × 16 pages × 4 KiB: 16 MiB physical, 64
    // superblocks of 256 KiB, 12 MiB exported at ρ = 0.75. Small enough for unit tests and
    // sanitizers; timings from [MQSim] (the struct defaults).
    return c;
  }
  if (name == "mqsim") {
    // [MQSim] ssdconfig.xml: Flash_Channel_Count 8, Chip_No_Per_Channel 4, Die_No_Per_Chip 2
    // (→ 8 dies per channel), Plane_No_Per_Die 2, Block_No_Per_Plane 2048, Page_No_Per_Block
    // 256, Page_Capacity 8192. 512 GiB physical, 2048 superblocks of 256 MiB.
    c.channels = 8;
    c.dies_per_channel = 4 * 2;
    c.planes_per_die = 2;
    c.blocks_per_plane = 2048;
    c.pages_per_block = 256;
    c.page_size_bytes = 8192;
    // [MQSim] Overprovisioning_Ratio 0.07 of the physical capacity: ρ = 1 − 0.07.
    c.utilization = 0.93;
    // [MQSim] GC_Block_Selection_Policy RGA with rga_set_size = log2(2048) = 11.
    c.gc_policy = GcPolicy::kDChoices;
    c.gc_d = 11;
    // [MQSim] GC writes go to a GC write frontier of their own (Block_Pool_Slot per stream).
    c.gc_stream = GcStream::kSeparate;
    // [MQSim] GC_Exec_Threshold 0.05: GC when fewer than 0.05 × 2048 = 102 blocks of a plane
    // are free, one victim per trigger. (MQSim collects one plane's block at a time; simflash
    // collects superblocks.)
    c.gc_low_watermark = 102;
    c.gc_high_watermark = 102;
    c.seed = 321;  // [MQSim] ssdconfig.xml Seed
    // [MQSim] Page_Read_Latency 75000 ns, Page_Program_Latency 750000 ns,
    // Block_Erase_Latency 3800000 ns; Channel_Transfer_Rate 333 MT/s × Flash_Channel_Width 1 B.
    c.tR_us = 75.0;
    c.tPROG_us = 750.0;
    c.tBERS_us = 3800.0;
    c.channel_bandwidth_mib_s = 333e6 / (1024.0 * 1024.0);
    return c;
  }
  if (name == "femu") {
    // [FEMU] femu.c: nchs 8, luns_per_ch 8, pls_per_lun 1, blks_per_pl 256, pgs_per_blk 256,
    // secs_per_pg 8 × secsz 512 = 4 KiB pages. 16 GiB physical, 256 lines (superblocks) of
    // 64 MiB.
    c.channels = 8;
    c.dies_per_channel = 8;
    c.planes_per_die = 1;
    c.blocks_per_plane = 256;
    c.pages_per_block = 256;
    c.page_size_bytes = 4096;
    // [FEMU] run-blackbox.sh: ssd_size=12288 MB exported of 16384 MiB: ρ = 0.75.
    c.utilization = 0.75;
    // [FEMU] ftl.c: victim = the line with fewest valid pages (victim_line_pq on vpc); GC
    // copies go through the host's write pointer.
    c.gc_policy = GcPolicy::kGreedy;
    c.gc_stream = GcStream::kShared;
    // [FEMU] gc_thres_pcent_high 95: foreground GC while free lines ≤ (int)(0.05 × 256) = 12,
    // i.e. until 13 are free. (FEMU's background GC at ≤ 25 % free lines, which only takes
    // victims with ≥ 1/8 invalid pages, is not modelled.)
    c.gc_low_watermark = 13;
    c.gc_high_watermark = 13;
    // [FEMU] femu.c: pg_rd_lat 40000 ns, pg_wr_lat 200000 ns, blk_er_lat 2000000 ns,
    // ch_xfer_lat 0 (no channel transfer time).
    c.tR_us = 40.0;
    c.tPROG_us = 200.0;
    c.tBERS_us = 2000.0;
    c.channel_bandwidth_mib_s = 0.0;
    return c;
  }
  if (name == "model_a") {
    // An approximation of [RIPQ] Model A, derived (the paper withholds the vendor and model):
    //  * superblock 256 MiB (§3: the minimum write size for peak throughput at 90 %
    //    utilization is 256–512 MiB, the aggregated erase block across all parallel chips).
    //    Assumed NAND: MLC with 16 KiB pages and 256 pages per block (4 MiB erase blocks), so
    //    a superblock spans 256 MiB ÷ 4 MiB = 64 (channel, die, plane) lanes: 8 channels × 4
    //    dies × 2 planes.
    //  * capacity: 670 GiB exported at ρ = 0.9 → 670 ÷ 0.9 = 744.4 GiB physical = 2977.8
    //    superblocks → 2978 blocks per plane (744.5 GiB); exported = floor(0.9 × 2978 ×
    //    16384) pages = 670.05 GiB.
    //  * peak write 590 MiB/s (§3): the 64 lanes program 64 × 16 KiB = 1 MiB per tPROG, so
    //    tPROG = 1 MiB ÷ 590 MiB/s = 1695 µs (peak_write_mib_s() = 589.97). The channels
    //    carry 8 lanes × 16 KiB per tPROG = 75 MiB/s each, far below their 317 MiB/s.
    //  * tR, tBERS and the channel rate: MLC values of [MQSim] (75 µs, 3.8 ms, 333 MT/s).
    c.channels = 8;
    c.dies_per_channel = 4;
    c.planes_per_die = 2;
    c.blocks_per_plane = 2978;
    c.pages_per_block = 256;
    c.page_size_bytes = 16384;
    c.utilization = 0.9;
    c.gc_policy = GcPolicy::kGreedy;
    c.gc_stream = GcStream::kSeparate;
    c.gc_low_watermark = 2;
    c.gc_high_watermark = 2;
    c.tR_us = 75.0;
    c.tPROG_us = 1695.0;
    c.tBERS_us = 3800.0;
    c.channel_bandwidth_mib_s = 333e6 / (1024.0 * 1024.0);
    return c;
  }
  throw_unknown_name("device.profile", name, simflash_profile_names());
}

namespace {

// The keys of the simflash device: its profile, then any field of it, overridden key by key
// (unset: the profile's value, shown resolved in the results row).
KeySpec field(const std::string& name, ValueType type) {
  return key("device." + name, type).from("device.profile").strict_to_readers();
}

const KeySpec kProfile = key("device.profile", ValueType::kEnum)
                             .def("tiny")
                             .choices(simflash_profile_names())
                             .existing_file()
                             .strict_to_readers()
                             .desc(
                                 "base geometry and timings: a built-in name, or a profile "
                                 "file from `flashpq device calibrate`");
const KeySpec kBlocksPerPlane = field("blocks_per_plane", ValueType::kInt)
                                    .units("blocks")
                                    .range(2, 16777216)
                                    .desc("erase blocks per plane = superblocks");
const KeySpec kUtilization = field("utilization", ValueType::kFloat)
                                 .units("fraction")
                                 .range(1e-9, 0.999999999)
                                 .desc("rho = exported / physical pages, in (0, 1)");
const KeySpec kOverProvisioning =
    field("over_provisioning", ValueType::kFloat)
        .units("fraction")
        .range(1e-9, 1000)
        .desc("(physical - exported) / exported, instead of utilization");

const KeySpec kSizeToCache =
    key("device.size_to_cache", ValueType::kBool)
        .def("false")
        .strict_to_readers()
        .desc(
            "blocks_per_plane chosen per cell so the exported space is the smallest that holds "
            "the cache's device blocks: a cache that fills its device (excludes "
            "device.blocks_per_plane)");

// A number as the results row shows it: {fmt}'s shortest text.
std::string shown_number(double v) {
  return fmt::format("{}", v);
}

// How a key reaches its SimFlashConfig field: read() sets the field from the key's value (the
// cell sets the key), show() gives the field as the results row's text.
struct FieldBinding {
  void (*read)(SimFlashConfig& f, const Params& params, const KeySpec& key);
  std::string (*show)(const SimFlashConfig& f);
};

// The binding of a plain field M (uint32_t, uint64_t, double or bool): the key's value as is,
// shown as the loader would read it back.
template <auto M>
FieldBinding plain() {
  using T = std::remove_cvref_t<decltype(std::declval<SimFlashConfig&>().*M)>;
  return {
      [](SimFlashConfig& f, const Params& params, const KeySpec& k) { f.*M = params.get<T>(k); },
      [](const SimFlashConfig& f) -> std::string {
        if constexpr (std::is_same_v<T, double>) {
          return shown_number(f.*M);
        } else if constexpr (std::is_same_v<T, bool>) {
          return f.*M ? "true" : "false";
        } else {
          return std::to_string(f.*M);
        }
      }};
}

// The binding of an enumeration field M, through its name functions.
template <auto M, auto Parse, auto Name>
FieldBinding named() {
  return {[](SimFlashConfig& f, const Params& params, const KeySpec& k) {
            f.*M = Parse(params.get<std::string>(k));
          },
          [](const SimFlashConfig& f) -> std::string { return Name(f.*M); }};
}

struct SimFlashField {
  KeySpec key;
  FieldBinding binding;
};

// simflash's keys that set a SimFlashConfig field (devices/simflash/simflash_config.h), in
// column order, each declared once: its key (type, default from the profile, unit, range,
// description: sim/params.h) and its field. simflash_config() reads every one the cell sets over
// the profile's value; show_simflash_config() writes every one back. The keys with rules of
// their own — device.profile, device.size_to_cache and device.capacity — are handled beside it.
const std::vector<SimFlashField>& simflash_fields() {
  static const std::vector<SimFlashField> fields = {
      {field("channels", ValueType::kInt).range(1, 1024).desc("flash channels"),
       plain<&SimFlashConfig::channels>()},
      {field("dies_per_channel", ValueType::kInt).range(1, 1024).desc("dies on each channel"),
       plain<&SimFlashConfig::dies_per_channel>()},
      {field("planes_per_die", ValueType::kInt).range(1, 64).desc("planes in each die"),
       plain<&SimFlashConfig::planes_per_die>()},
      {kBlocksPerPlane, plain<&SimFlashConfig::blocks_per_plane>()},
      {field("pages_per_block", ValueType::kInt)
           .units("pages")
           .range(1, 65535)
           .desc("pages per erase block"),
       plain<&SimFlashConfig::pages_per_block>()},
      {field("page_size", ValueType::kSize)
           .units("bytes")
           .desc("page size = mapping unit = logical block (power of two, 512B..1MiB)"),
       {[](SimFlashConfig& f, const Params& params, const KeySpec& k) {
          const uint64_t ps = params.get<uint64_t>(k);
          f.page_size_bytes = ps > UINT32_MAX ? 0 : static_cast<uint32_t>(ps);  // 0: validate()
        },
        [](const SimFlashConfig& f) { return std::to_string(f.page_size_bytes); }}},
      // utilization and over_provisioning exclude each other (simflash_config() refuses both);
      // the one the cell sets wins over the profile's.
      {kUtilization,
       {[](SimFlashConfig& f, const Params& params, const KeySpec& k) {
          f.over_provisioning.reset();
          f.utilization = params.get<double>(k);
        },
        [](const SimFlashConfig& f) { return shown_number(f.effective_utilization()); }}},
      {kOverProvisioning,
       {[](SimFlashConfig& f, const Params& params, const KeySpec& k) {
          f.over_provisioning = params.get<double>(k);
        },
        [](const SimFlashConfig& f) {
          return f.over_provisioning ? shown_number(*f.over_provisioning) : std::string();
        }}},
      {field("gc_policy", ValueType::kEnum).choices(gc_policy_names()).desc("GC victim selection"),
       named<&SimFlashConfig::gc_policy, parse_gc_policy, gc_policy_name>()},
      {field("gc_d", ValueType::kInt).range(1, 1024).desc("d_choices: candidates per victim"),
       plain<&SimFlashConfig::gc_d>()},
      {field("gc_stream", ValueType::kEnum)
           .choices(gc_stream_names())
           .desc("frontier of GC copies"),
       named<&SimFlashConfig::gc_stream, parse_gc_stream, gc_stream_name>()},
      {field("gc_low_watermark", ValueType::kInt)
           .units("superblocks")
           .range(1, 16777216)
           .desc("GC starts below this many free superblocks"),
       plain<&SimFlashConfig::gc_low_watermark>()},
      {field("gc_high_watermark", ValueType::kInt)
           .units("superblocks")
           .range(1, 16777216)
           .desc("GC runs until this many are free"),
       plain<&SimFlashConfig::gc_high_watermark>()},
      {field("precondition", ValueType::kBool)
           .desc("write every exported page once before the run: unused pages hold valid data"),
       plain<&SimFlashConfig::precondition>()},
      {field("fdp.handles", ValueType::kInt)
           .range(0, 256)
           .desc("FDP reclaim unit handles, a write frontier each (0: FDP off)"),
       plain<&SimFlashConfig::fdp_handles>()},
      {field("fdp.isolation", ValueType::kEnum)
           .choices(fdp_isolation_names())
           .desc("FDP handle type: may GC mix handles' data"),
       named<&SimFlashConfig::fdp_isolation, parse_fdp_isolation, fdp_isolation_name>()},
      {field("fdp.misplaced_fraction", ValueType::kFloat)
           .units("fraction")
           .range(0, 1)
           .desc("FDP: share of writes sent through another handle than their own (misclassified)"),
       plain<&SimFlashConfig::fdp_misplaced_fraction>()},
      {field("zns.zone_capacity", ValueType::kSize)
           .units("bytes")
           .range(0, 1099511627776.0)
           .desc("ZNS: writable bytes per zone, whole superblocks (0: not zoned, the FTL with GC)"),
       plain<&SimFlashConfig::zns_zone_capacity_bytes>()},
      {field("zns.zone_size", ValueType::kSize)
           .units("bytes")
           .range(0, 1099511627776.0)
           .desc("ZNS: logical bytes from one zone to the next, >= the capacity (0: the capacity)"),
       {plain<&SimFlashConfig::zns_zone_size_bytes>().read,
        [](const SimFlashConfig& f) {
          return std::to_string(f.zoned() ? f.zone_size_bytes() : 0);  // resolved
        }}},
      {field("zns.max_open_zones", ValueType::kInt)
           .units("zones")
           .range(0, 1048576)
           .desc("ZNS: zones open at once (0: no limit)"),
       plain<&SimFlashConfig::zns_max_open_zones>()},
      {field("zns.max_active_zones", ValueType::kInt)
           .units("zones")
           .range(0, 1048576)
           .desc("ZNS: zones open or closed at once (0: no limit)"),
       plain<&SimFlashConfig::zns_max_active_zones>()},
      {field("zns.host_ftl", ValueType::kBool)
           .desc("ZNS: a host FTL over the zones (dm-zap's page-mapped log, greedy collection): "
                 "the cache sees a conventional device"),
       plain<&SimFlashConfig::zns_host_ftl>()},
      {field("zns.host_ftl_op_rate", ValueType::kFloat)
           .units("fraction")
           .range(0, 1)
           .desc("ZNS host FTL: share of the zones held back as its spare (dm-zap's op_rate)"),
       plain<&SimFlashConfig::zns_host_ftl_op_rate>()},
      {field("tR_us", ValueType::kFloat).units("us").range(0, 1e9).desc("page read latency"),
       plain<&SimFlashConfig::tR_us>()},
      {field("tPROG_us", ValueType::kFloat).units("us").range(0, 1e9).desc("page program latency"),
       plain<&SimFlashConfig::tPROG_us>()},
      {field("tBERS_us", ValueType::kFloat).units("us").range(0, 1e9).desc("block erase latency"),
       plain<&SimFlashConfig::tBERS_us>()},
      {field("channel_bandwidth_mib_s", ValueType::kFloat)
           .units("MiB/s")
           .range(0, 1e9)
           .desc("transfer rate of one channel (0 = instant)"),
       plain<&SimFlashConfig::channel_bandwidth_mib_s>()},
      {field("host_overhead_us", ValueType::kFloat)
           .units("us")
           .range(0, 1e9)
           .desc("fixed host time added to each request that reaches the flash (timed mode)"),
       plain<&SimFlashConfig::host_overhead_us>()},
      {field("host_command_us", ValueType::kFloat)
           .units("us")
           .range(0, 1e9)
           .desc("controller time per request, one at a time (timed mode)"),
       plain<&SimFlashConfig::host_command_us>()},
      {field("host_link_mib_s", ValueType::kFloat)
           .units("MiB/s")
           .range(0, 1e9)
           .desc("host link bandwidth, one request at a time (0 = instant)"),
       plain<&SimFlashConfig::host_link_mib_s>()},
  };
  return fields;
}

}  // namespace

const ComponentSpec& simflash_spec() {
  static const ComponentSpec spec = [] {
    ComponentSpec s{"simflash",
                    "simulated flash: page-mapped FTL with GC over channels x dies x planes, timed "
                    "by a discrete-event model",
                    {kProfile},
                    {},
                    {},
                    {}};
    for (const SimFlashField& f : simflash_fields()) s.keys.push_back(f.key);
    for (const KeySpec& k : {kSizeToCache, device_capacity_key(), device_endurance_dwpd_key(),
                             device_warranty_years_key()}) {
      s.keys.push_back(k);
    }
    return s;
  }();
  return spec;
}

SimFlashConfig simflash_config(const Params& params, uint64_t seed) {
  SimFlashConfig f = simflash_profile(params.get<std::string>(kProfile));
  if (params.get<bool>(kSizeToCache) && params.has(kBlocksPerPlane.name)) {
    throw std::invalid_argument(
        "key 'device.size_to_cache': sizes device.blocks_per_plane for the cache itself; "
        "expected no device.blocks_per_plane with it, found '" +
        params.text(kBlocksPerPlane.name) + "'");
  }
  if (params.has(kUtilization.name) && params.has(kOverProvisioning.name)) {
    throw std::invalid_argument(
        "key 'device.over_provisioning': expected either device.utilization or "
        "device.over_provisioning, not both, found '" +
        params.text(kOverProvisioning.name) + "'");
  }
  for (const SimFlashField& field : simflash_fields()) {
    if (params.has(field.key.name)) field.binding.read(f, params, field.key);
  }
  f.seed = seed;  // the FTL's d_choices stream follows the cell seed
  if (params.has(device_capacity_key().name)) {
    if (params.has(kBlocksPerPlane.name) || params.get<bool>(kSizeToCache)) {
      throw std::invalid_argument(
          "key 'device.capacity': sizes device.blocks_per_plane itself; expected neither "
          "device.blocks_per_plane nor device.size_to_cache with it, found '" +
          params.text(device_capacity_key().name) + "'");
    }
    f.blocks_per_plane =
        simflash_blocks_per_plane_for(f, params.get<uint64_t>(device_capacity_key()));
  }
  if (params.get<bool>(kSizeToCache) && f.zoned() && f.zns_host_ftl) {
    // Sized per cell (DeviceType::size_for_cache); until then at least the zones the host
    // FTL's spare needs, so that the profile's geometry is not refused for a count it will not
    // have.
    f.blocks_per_plane = std::max(f.blocks_per_plane, simflash_blocks_per_plane_for(f, 1));
  }
  f.validate();
  return f;
}

void show_simflash_config(const SimFlashConfig& f, Params& shown) {
  for (const SimFlashField& field : simflash_fields()) {
    shown.set(field.key.name, field.binding.show(f));
  }
}

}  // namespace flashpq

namespace flashpq {

bool simflash_size_to_cache(const Params& params) {
  return params.get<bool>(kSizeToCache);
}

Params simflash_with_blocks_per_plane(Params params, uint32_t blocks_per_plane) {
  params.set(kBlocksPerPlane.name, blocks_per_plane);
  params.set(kSizeToCache.name, false);
  return params;
}

uint32_t simflash_blocks_per_plane_for(SimFlashConfig base, uint64_t bytes) {
  // Both conditions hold from some n on: the exported space ⌊ρ · n · pages per superblock⌋
  // grows with n, and so does the slack validate() needs for GC to reach its high watermark,
  // (n − high + 1 − frontiers) · pages per superblock − exported ≈ ((1 − ρ) · n − high + 1 −
  // frontiers) · pages. Start just below the larger estimate, take the first n that passes.
  if (base.zoned() && base.zns_host_ftl) {
    // Whole zones, the host FTL's spare held back: the fewest zones whose exposed part holds
    // the bytes. Start just below (zones the bytes need) ÷ (1 − op_rate).
    const uint64_t k = base.zone_superblocks();
    const uint64_t cap = base.zns_zone_capacity_bytes;
    const double need = std::ceil(static_cast<double>(bytes) / static_cast<double>(cap));
    const double share = std::max(1.0 - base.zns_host_ftl_op_rate, 1e-9);
    const auto first = static_cast<uint64_t>(std::clamp(need / share - 2, 4.0, 16777216.0));
    std::string last_error = "no exported space large enough";
    for (uint64_t z = first; z <= first + 1024 && z * k <= (uint64_t{1} << 24); ++z) {
      base.blocks_per_plane = static_cast<uint32_t>(z * k);
      try {
        base.validate();
        if (base.cache_visible_bytes() >= bytes) return base.blocks_per_plane;
      } catch (const std::invalid_argument& e) {
        last_error = e.what();
      }
    }
    throw std::invalid_argument(
        "device.size_to_cache: no zoned simflash device with a host FTL of this geometry "
        "holds " +
        std::to_string(bytes) + " B: " + last_error);
  }
  if (base.zoned()) {
    // Whole zones, no spare: the fewest zones that hold the bytes (at least 2 superblocks).
    const uint64_t k = base.zone_superblocks();
    const uint64_t zone = base.zone_size_bytes();
    const uint64_t n = std::max<uint64_t>(2, (bytes + zone - 1) / zone * k);
    if (n > (uint64_t{1} << 24)) {
      throw std::invalid_argument(
          "device.size_to_cache: no zoned simflash device of this "
          "geometry holds " +
          std::to_string(bytes) + " B");
    }
    base.blocks_per_plane = static_cast<uint32_t>(n);
    base.validate();
    return static_cast<uint32_t>(n);
  }
  const double rho = base.effective_utilization();
  const double per_superblock = rho * static_cast<double>(base.superblock_bytes());
  const double for_bytes = std::ceil(static_cast<double>(bytes) / std::max(per_superblock, 1.0));
  const double for_gc =
      (base.gc_high_watermark - 1.0 + base.frontiers()) / std::max(1.0 - rho, 1e-9);
  const double max_n = static_cast<double>(uint64_t{1} << 24);
  const auto first = static_cast<uint64_t>(std::clamp(std::max(for_bytes, for_gc) - 2, 2.0, max_n));
  std::string last_error = "no exported space large enough";
  for (uint64_t n = first, end = std::min<uint64_t>(uint64_t{1} << 24, first + 1024); n <= end;
       ++n) {
    base.blocks_per_plane = static_cast<uint32_t>(n);
    if (base.exported_bytes() < bytes) continue;
    try {
      base.validate();
      return static_cast<uint32_t>(n);
    } catch (const std::invalid_argument& e) {
      last_error = e.what();
    }
  }
  throw std::invalid_argument("device.size_to_cache: no simflash device of this geometry holds " +
                              std::to_string(bytes) + " B: " + last_error);
}

}  // namespace flashpq

namespace flashpq {

SimFlashProfileFile load_simflash_profile(const std::string& path) {
  auto fail = [&](const YAML::Node& at, const std::string& what) {
    const YAML::Mark m = at.Mark();
    throw std::invalid_argument(m.line >= 0 ? fmt::format("{}:{}: {}", path, m.line + 1, what)
                                            : path + ": " + what);
  };
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw std::invalid_argument(path + ": cannot read the simflash profile file");
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(path + ": not YAML: " + e.what());
  }
  if (!root.IsMap()) fail(root, "expected a map with format, base and device, found another node");
  // A key as text; YAML allows a map or a list as a key ("? {a: 1}"), a profile does not.
  auto key_text = [&](const YAML::Node& k) {
    if (!k.IsScalar()) fail(k, "expected a key (a name), found a map or a list");
    return k.as<std::string>();
  };
  static const char* const kFormat = "flashpq-simflash-profile 1";
  static const std::vector<std::string> kTop = {"format",   "base", "device",
                                                "identity", "fit",  "characterization"};
  for (const auto& kv : root) {
    const std::string k = key_text(kv.first);
    if (std::find(kTop.begin(), kTop.end(), k) == kTop.end()) {
      fail(kv.first, unknown_name_message("key", k, kTop));
    }
  }
  if (!root["format"] || !root["format"].IsScalar() ||
      root["format"].as<std::string>() != kFormat) {
    fail(root["format"] ? root["format"] : root,
         fmt::format(
             "key 'format': expected '{}', found '{}'", kFormat,
             root["format"] && root["format"].IsScalar() ? root["format"].as<std::string>() : ""));
  }
  Params params;
  const std::string base = root["base"] && root["base"].IsScalar() ? root["base"].as<std::string>()
                                                                   : std::string("tiny");
  const std::vector<std::string> builtin = simflash_profile_names();
  if (std::find(builtin.begin(), builtin.end(), base) == builtin.end()) {
    fail(root["base"] ? root["base"] : root, unknown_name_message("key 'base'", base, builtin));
  }
  params.set(kProfile.name, base);
  const YAML::Node device = root["device"];
  if (!device || !device.IsMap()) fail(root, "key 'device': expected a map of simflash keys");
  const ComponentSpec& spec = simflash_spec();
  std::vector<std::string> allowed;
  for (const KeySpec& k : spec.keys) {
    if (k.name != kProfile.name && k.name != kSizeToCache.name &&
        k.name != device_capacity_key().name) {
      allowed.push_back(std::string(k.leaf()));
    }
  }
  for (const auto& kv : device) {
    const std::string k = key_text(kv.first);
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      fail(kv.first, unknown_name_message("key 'device." + k + "'", k, allowed));
    }
    if (!kv.second.IsScalar()) fail(kv.second, "key 'device." + k + "': expected a value");
    const std::string text = kv.second.as<std::string>();
    for (const KeySpec& ks : spec.keys) {
      if (ks.name != "device." + k) continue;
      try {
        check_value(ks, text);
      } catch (const std::invalid_argument& e) {
        fail(kv.second, e.what());
      }
    }
    params.set("device." + k, text);
  }
  SimFlashProfileFile out;
  try {
    out.config = simflash_config(params, simflash_profile(base).seed);
  } catch (const std::invalid_argument& e) {
    fail(device, e.what());
  }
  if (const YAML::Node id = root["identity"]) {
    if (!id.IsMap()) fail(id, "key 'identity': expected a map");
    for (const auto& kv : id) {
      out.identity.emplace_back(key_text(kv.first),
                                kv.second.IsScalar() ? kv.second.as<std::string>() : "");
    }
  }
  return out;
}

}  // namespace flashpq
