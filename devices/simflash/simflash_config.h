// devices/simflash/simflash_config.h — the `device.simflash` section: flash geometry, exported
// capacity, garbage-collection policy and NAND timings, and the named device profiles.
//
// Geometry (docs/DESIGN.md "Data flow", the device): channels × dies per channel × planes per die ×
// blocks per plane × pages per block, pages of page_size_bytes. A superblock is block k of every
// (channel, die, plane) — the "aggregated erase block across all parallel chips" of the RIPQ
// paper §3 — so there are blocks_per_plane superblocks, each of
// channels × dies_per_channel × planes_per_die erase blocks. The FTL (ftl.h) maps page-sized
// logical pages, writes superblocks striped across all (channel, die, plane) and garbage-collects
// whole superblocks.
//
// Capacity: utilization ρ = exported logical pages ÷ physical pages (Desnoyers, "Analytic models
// of SSD write performance", ACM ToS 10(2) 2014, uses the same ρ with α = 1/ρ). Over-provisioning
// is the spare factor relative to the exported capacity, (physical − exported) ÷ exported, as in
// Hu, Eleftheriou, Haas, Iliadis, Pletka, "Write amplification analysis in flash-based solid
// state drives", SYSTOR'09; it is the alternative way to set ρ = 1 / (1 + over_provisioning).
// (MQSim's Overprovisioning_Ratio is relative to the physical capacity instead: exported =
// physical × (1 − ratio); the "mqsim" profile converts it.)
//
// Profiles: simflash_profile(name) returns a complete, valid config; every field can then be
// overridden key by key. Every number in a profile cites its source in simflash_config.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/params.h"

namespace flashpq {

/// Victim selection of the garbage collector (the victim is always a whole superblock). greedy,
/// fifo and cost_benefit take a sealed superblock with no valid page first if there is one
/// (reclaiming it costs no copy); d_choices takes only what it draws.
enum class GcPolicy : uint8_t {
  /// Fewest valid pages (Hu et al. SYSTOR'09; Desnoyers ToS'14 §5 "greedy"). O(1) amortized.
  kGreedy,
  /// Oldest sealed superblock first (Desnoyers' LRW / FIFO).
  kFifo,
  /// Highest (1 − u)·age / 2u, u = valid fraction, age = host page writes since the superblock
  /// was sealed (Rosenblum & Ousterhout, LFS, ACM TOCS 1992; Kawaguchi et al., USENIX'95).
  /// O(superblocks) per victim.
  kCostBenefit,
  /// d superblocks drawn uniformly at random (with replacement), fewest valid pages among them
  /// (Van Houdt, "A mean field model for a class of garbage collection algorithms in flash-based
  /// solid state drives", SIGMETRICS'13). d = 1 is the random policy; MQSim's RGA is the same
  /// with d distinct candidates. Takes only what it draws: a superblock emptied by TRIM waits
  /// until drawn.
  kDChoices,
};

/// Where garbage-collection copies are written.
enum class GcStream : uint8_t {
  /// Their own write frontier (a second open superblock), as MQSim does.
  kSeparate,
  /// The host's write frontier, as FEMU and the analytic models (Desnoyers) do.
  kShared,
};

/// Flexible Data Placement (NVMe TP4146, in NVMe Base 2.1 §3.2.4 and §8.1.10;
/// docs/reference/fdp-spec.md): what garbage collection may do with data written through a
/// reclaim unit handle (RUH type, Base 2.1 Fig. 281).
enum class FdpIsolation : uint8_t {
  /// Initially isolated: GC may move the data of every handle into one reclaim unit.
  kInitial,
  /// Persistently isolated: GC moves a handle's data only into reclaim units holding that
  /// handle's data.
  kPersistent,
};

/// "greedy", "fifo", "cost_benefit", "d_choices", in the order of GcPolicy.
const std::vector<std::string>& gc_policy_names();
/// "separate", "shared", in the order of GcStream.
const std::vector<std::string>& gc_stream_names();
/// "greedy", "fifo", "cost_benefit", "d_choices".
const char* gc_policy_name(GcPolicy policy);
/// Inverse of gc_policy_name. Throws std::invalid_argument naming the allowed values.
GcPolicy parse_gc_policy(const std::string& name);
/// "separate", "shared".
const char* gc_stream_name(GcStream stream);
/// Inverse of gc_stream_name. Throws std::invalid_argument naming the allowed values.
GcStream parse_gc_stream(const std::string& name);
/// "initial", "persistent", in the order of FdpIsolation.
const std::vector<std::string>& fdp_isolation_names();
const char* fdp_isolation_name(FdpIsolation isolation);
/// Inverse of fdp_isolation_name. Throws std::invalid_argument naming the allowed values.
FdpIsolation parse_fdp_isolation(const std::string& name);

/// The `device.simflash` section. Default-constructed, it is the "tiny" profile.
struct SimFlashConfig {
  // --- Geometry -------------------------------------------------------------------------
  /// Flash channels. Default 2. Range [1, 1024].
  uint32_t channels = 2;
  /// Dies (LUNs) on each channel. MQSim's chips × dies per chip. Default 2. Range [1, 1024].
  uint32_t dies_per_channel = 2;
  /// Planes in each die. Default 1. Range [1, 64].
  uint32_t planes_per_die = 1;
  /// Erase blocks in each plane = number of superblocks. Default 64. Range [2, 2^24].
  uint32_t blocks_per_plane = 64;
  /// Pages in each erase block. Default 16. Range [1, 65535].
  uint32_t pages_per_block = 16;
  /// Page size in bytes; also the device's logical block size (the mapping unit). Default
  /// 4096. REQUIRES: a power of two in [512, 1 MiB].
  uint32_t page_size_bytes = 4096;

  // --- Exported capacity ----------------------------------------------------------------
  /// ρ = exported logical pages ÷ physical pages. Default 0.75. Range (0, 1).
  double utilization = 0.75;
  /// If set, replaces utilization: ρ = 1 / (1 + over_provisioning), over_provisioning =
  /// (physical − exported) ÷ exported. Default unset. Range (0, 1000].
  std::optional<double> over_provisioning;

  // --- Garbage collection ---------------------------------------------------------------
  /// Victim selection. Default greedy.
  GcPolicy gc_policy = GcPolicy::kGreedy;
  /// d_choices: candidates per victim. Default 2 (Van Houdt's "power of two choices"). Range
  /// [1, 1024]; ignored by the other policies.
  uint32_t gc_d = 2;
  /// Frontier for GC copies. Default separate.
  GcStream gc_stream = GcStream::kSeparate;
  /// GC starts when, after the host frontier has taken a free superblock, fewer than this many free
  /// superblocks remain. Default 2: the least that lets a separate GC frontier always find a
  /// free superblock to continue into (with a shared frontier, 1 suffices: the superblock the
  /// host just opened receives the first copies). Every idle free superblock is space taken
  /// from garbage collection, so the default keeps the reserve at that minimum; raise it to
  /// model background GC. Range: ≥ 2 (separate) or ≥ 1 (shared).
  uint32_t gc_low_watermark = 2;
  /// GC runs until at least this many free superblocks exist. Default 2 (one victim's worth
  /// per trigger, as MQSim's and FEMU's foreground GC). REQUIRES: ≥ gc_low_watermark, and GC
  /// must be able to reach it (validate()).
  uint32_t gc_high_watermark = 2;
  /// Seed of the FTL's own RNG (d_choices sampling). Default 1.
  uint64_t seed = 1;

  /// Write every exported page once, in order, when the device is built (before the warm-up):
  /// a drive in service, whose logical pages a cache does not use still hold valid data, as
  /// against a fresh one whose unwritten pages are free space to the FTL. Default false.
  bool precondition = false;

  // --- Flexible Data Placement (ftl.h "Flexible Data Placement") -------------------------
  /// Reclaim unit handles, each with its own open reclaim unit (a superblock); a write's
  /// placement handle h < fdp_handles names RUH h. 0 (default): FDP off, one host frontier,
  /// every placement ignored. Range [0, 256].
  uint32_t fdp_handles = 0;
  /// The handles' type. Default initial (FEMU's II handle; CacheLib's drives). Ignored when
  /// FDP is off.
  FdpIsolation fdp_isolation = FdpIsolation::kInitial;
  /// Share of host writes whose placement the host got wrong: each write request goes, with
  /// this probability, through another handle than its own, drawn uniformly (a misclassified
  /// lifetime, as WARP, FAST'26, studies). Seeded (stream kFdpMisplacementStream of the seed).
  /// Default 0. Range [0, 1]; needs at least 2 handles to act.
  double fdp_misplaced_fraction = 0.0;

  // --- Zoned Namespaces (ftl.h "Zoned Namespaces") ---------------------------------------
  /// Writable bytes of each zone (NVMe ZNS Command Set 1.1: the zone capacity): a whole number
  /// of superblocks, the zone's erase unit. 0 (default): not zoned, the page-mapped FTL with
  /// its GC. Zoned, the device exports every superblock as zones (no spare: without device GC
  /// none is needed), utilization and over_provisioning are not used, and there is no GC.
  uint64_t zns_zone_capacity_bytes = 0;
  /// Logical bytes from one zone's start to the next's (the zone size; the bytes past the
  /// capacity are never writable). 0 (default): the capacity. REQUIRES: ≥ the capacity, a
  /// multiple of the page size.
  uint64_t zns_zone_size_bytes = 0;
  /// Zones open at once (implicitly, by a write) at most; 0 (default): no limit. At the limit, a
  /// write to a zone not open closes the implicitly open zone opened first (QEMU's and FEMU's
  /// nvme_zrm_auto_transition_zone). Range [0, 2^20].
  uint32_t zns_max_open_zones = 0;
  /// Zones open or closed (active: written, not full) at most; 0 (default): no limit. A write
  /// that would activate one more fails with Too Many Active Zones. Range [0, 2^20]; ≥ the open
  /// limit when both are set.
  uint32_t zns_max_active_zones = 0;
  /// A host FTL over the zones (devices/host_ftl/host_ftl.h, dm-zap's design): the device the
  /// cache sees is conventional, any offset writable at any time, and exports
  /// host_ftl_exported_bytes(); its collection's copies are host writes to the zones. Default
  /// false. REQUIRES: zoned().
  bool zns_host_ftl = false;
  /// The host FTL's spare: ⌊zones × rate⌋ zones held back (dm-zap's op_rate, a share of all
  /// the zones, as 1 − utilization is of a conventional drive's flash). Default 0.07, MQSim's
  /// Overprovisioning_Ratio (the mqsim profile's utilization 0.93). Range [0, 1), at least 3
  /// zones.
  double zns_host_ftl_op_rate = 0.07;

  // --- Timing (read by the timed mode; the functional FTL ignores them) ------------------
  /// Page read (array to register) latency in µs. Default 75 (MQSim ssdconfig.xml).
  double tR_us = 75.0;
  /// Page program latency in µs. Default 750 (MQSim ssdconfig.xml).
  double tPROG_us = 750.0;
  /// Block erase latency in µs. Default 3800 (MQSim ssdconfig.xml).
  double tBERS_us = 3800.0;
  /// Transfer rate of one channel in MiB/s; 0 = transfers take no time (FEMU's default
  /// ch_xfer_lat = 0). Default 317.57 = 333 MT/s × 1 byte (MQSim ssdconfig.xml NV-DDR2).
  double channel_bandwidth_mib_s = 333e6 / (1024.0 * 1024.0);
  /// Fixed host-side time of one I/O in µs — submission, driver, interrupt, controller
  /// firmware: added once to the completion of every request that caused at least one NAND
  /// operation. A delay, not a resource: requests overlap in it (an infinite server). Default
  /// 0 (the built-in profiles model the NAND alone); `flashpq device calibrate` fits it
  /// (docs/DESIGN.md "Calibration"). Range [0, 1e9].
  double host_overhead_us = 0.0;
  /// Controller time per request in µs, one request at a time: command fetch, firmware
  /// processing, completion posting — what bounds a drive's small-block IOPS when its flash
  /// could do more (MQSim's host interface layer serves requests in order; here a FIFO
  /// server every request that reaches the flash passes once, after its NAND operations).
  /// Default 0 (none). Range [0, 1e9].
  double host_command_us = 0.0;
  /// Host link bandwidth in MiB/s (PCIe, SATA, virtio): every request's payload crosses it,
  /// one request at a time, in the same FIFO server as host_command_us. 0 (default): the link
  /// takes no time. Range [0, 1e9].
  double host_link_mib_s = 0.0;

  // --- Derived values (REQUIRES: validate() passed, for the 64-bit products) ------------
  /// (channel, die, plane) lanes = erase blocks per superblock.
  uint32_t erase_blocks_per_superblock() const {
    return channels * dies_per_channel * planes_per_die;
  }
  uint32_t superblocks() const { return blocks_per_plane; }
  uint32_t pages_per_superblock() const { return erase_blocks_per_superblock() * pages_per_block; }
  uint64_t superblock_bytes() const { return uint64_t{pages_per_superblock()} * page_size_bytes; }
  uint64_t physical_pages() const { return uint64_t{pages_per_superblock()} * superblocks(); }
  uint64_t physical_bytes() const { return physical_pages() * page_size_bytes; }
  /// ρ after over_provisioning is applied.
  double effective_utilization() const {
    return over_provisioning ? 1.0 / (1.0 + *over_provisioning) : utilization;
  }
  /// floor(ρ × physical pages); zoned: zones() × zone size in pages.
  uint64_t exported_pages() const;
  /// Whether the device is zoned (zns_zone_capacity_bytes > 0).
  bool zoned() const { return zns_zone_capacity_bytes > 0; }
  /// Zoned: the zone size in bytes (zns_zone_size_bytes, or the capacity when 0).
  uint64_t zone_size_bytes() const {
    return zns_zone_size_bytes > 0 ? zns_zone_size_bytes : zns_zone_capacity_bytes;
  }
  /// Zoned: superblocks per zone (capacity ÷ superblock bytes).
  uint32_t zone_superblocks() const {
    return static_cast<uint32_t>(zns_zone_capacity_bytes / superblock_bytes());
  }
  /// Zoned: zones = ⌊superblocks ÷ superblocks per zone⌋; 0 when not zoned.
  uint32_t zones() const { return zoned() ? superblocks() / zone_superblocks() : 0; }
  uint64_t exported_bytes() const { return exported_pages() * page_size_bytes; }
  /// Zoned with a host FTL: the bytes it exports, its exposed zones × the zone capacity
  /// (host_ftl_exposed_zones, devices/host_ftl/host_ftl.h). REQUIRES: validate() passed.
  uint64_t host_ftl_exported_bytes() const;
  /// The bytes the cache addresses: host_ftl_exported_bytes() with a host FTL, else
  /// exported_bytes(). REQUIRES: validate() passed.
  uint64_t cache_visible_bytes() const {
    return zns_host_ftl ? host_ftl_exported_bytes() : exported_bytes();
  }
  /// Whether FDP is on (fdp_handles > 0).
  bool fdp() const { return fdp_handles > 0; }
  /// Host write frontiers: one per reclaim unit handle (1 without FDP).
  uint32_t host_frontiers() const { return fdp_handles > 0 ? fdp_handles : 1; }
  /// GC write frontiers: none with a shared GC stream; else one, or one per handle when the
  /// handles are persistently isolated.
  uint32_t gc_frontiers() const {
    if (gc_stream == GcStream::kShared) return 0;
    return fdp() && fdp_isolation == FdpIsolation::kPersistent ? fdp_handles : 1;
  }
  /// Open write frontiers: host_frontiers() + gc_frontiers() (without FDP: 2 with a separate
  /// GC stream, 1 shared).
  uint32_t frontiers() const { return host_frontiers() + gc_frontiers(); }
  /// Peak program bandwidth in MiB/s: every plane of every die programs a page per tPROG,
  /// capped by the channels' transfer rate (0 = uncapped). A bound, not a timing model.
  double peak_write_mib_s() const;

  /// Throws std::invalid_argument quoting the bad value: a field out of range, a page size
  /// that is not a power of two, more than 2^32 − 2 physical pages, an exported capacity below
  /// one superblock, a low watermark GC cannot start from, or a high watermark it cannot reach
  /// (exported pages must be < (superblocks − high + 1 − frontiers) × pages per superblock:
  /// with `high` − 1 free superblocks and the frontiers open, the sealed superblocks must still
  /// hold an invalid page for GC to make progress); zoned, a zone capacity that is not a whole
  /// number of superblocks, a zone size below it, open zones above active zones, FDP or
  /// precondition with zones; a host FTL without zones, or with fewer than 3 spare zones or an
  /// active-zone limit of 1 (host_ftl_exposed_zones).
  void validate() const;

 private:
  // validate()'s checks of a zoned device: the zns.* fields, and what ZNS excludes.
  void validate_zoned(uint64_t sb_pages, uint64_t phys) const;
};

/// Decodes the simflash keys of the device section: the profile named by device.profile
/// (default "tiny"), then every other device.* key that is set overrides its field
/// (device.utilization and device.over_provisioning exclude each other); `seed` seeds the
/// d_choices GC stream. The result is validated. Throws std::invalid_argument quoting a bad
/// value.
SimFlashConfig simflash_config(const Params& params, uint64_t seed);
/// Sets in `shown` the text of every simflash key for `config` (the resolved values the results
/// row shows), device.profile aside.
void show_simflash_config(const SimFlashConfig& config, Params& shown);
/// device.size_to_cache: whether `params` ask for a device sized for the cache (the experiment
/// sets device.blocks_per_plane per cell with simflash_blocks_per_plane_for). Throws as
/// Params::get.
bool simflash_size_to_cache(const Params& params);
/// `params` with device.blocks_per_plane set to `blocks_per_plane` and device.size_to_cache off:
/// the keys of a device once sized.
Params simflash_with_blocks_per_plane(Params params, uint32_t blocks_per_plane);
/// The smallest blocks_per_plane (superblocks) with which `base`, its other fields unchanged,
/// exports at least `bytes` and passes validate(). Throws std::invalid_argument quoting the
/// bytes when none up to 2^24 does (e.g. the watermarks need more superblocks than allowed).
uint32_t simflash_blocks_per_plane_for(SimFlashConfig base, uint64_t bytes);
/// The simflash device's name, keys and summary.
const ComponentSpec& simflash_spec();

/// Names of the built-in profiles: "tiny", "mqsim", "femu", "model_a".
std::vector<std::string> simflash_profile_names();
/// The profile's config (valid): a built-in name, or the path of a profile file (a name ending
/// in .yaml or .yml, read by load_simflash_profile once per version of the file: read again
/// only when its size or modification time changed). Thread-safe. Throws
/// std::invalid_argument for an unknown name, listing the allowed ones, and as
/// load_simflash_profile.
SimFlashConfig simflash_profile(const std::string& name);

/// A profile file, as `flashpq device calibrate` writes it (docs/DESIGN.md "Calibration"):
///   format: flashpq-simflash-profile 1
///   base: tiny                 # a built-in profile the device keys override
///   device: {channels: 4, tR_us: 61.2, host_overhead_us: 18.5, ...}   # simflash keys
///   identity: {model: ..., serial: ..., path: ..., size_bytes: ...}    # the device measured
///   fit: {...}                 # how the values were found (read by people, not checked)
///   characterization: {...}    # likewise
/// `device` takes the keys of the `device:` section of an experiment for simflash, without
/// the prefix (channels … host_overhead_us; not profile or size_to_cache), each checked as
/// there. Unknown top-level or device keys are errors.
struct SimFlashProfileFile {
  SimFlashConfig config;
  /// The identity map (key → text), empty when the file has none.
  std::vector<std::pair<std::string, std::string>> identity;
};
/// Reads and validates a profile file. Throws std::invalid_argument naming the file, the line
/// and the key: unreadable or not YAML, a missing or unknown format, an unknown key, a bad
/// value, or a config validate() refuses.
SimFlashProfileFile load_simflash_profile(const std::string& path);

}  // namespace flashpq
