// devices/block/nvme_log.h — the drive's own write counters, read through nvme-cli's JSON
// output, for the device-level write amplification of a run (wa_device).
//
// Sources (units are the specification's; field names are nvme-cli's JSON keys, nvme-cli 2.x
// nvme-print.c json_smart_log / json_endurance_log and plugins/ocp ocp_print_C0_log_json):
//   * `nvme smart-log DEV -o json` — NVMe Base Specification 2.0, Figure 207, SMART / Health
//     Information log page 02h: "data_units_written", in thousands of 512-byte units, rounded
//     up ("a value of 1 corresponds to 1,000 units of 512 bytes written"). Host bytes written.
//   * `nvme ocp smart-add-log DEV -o json` — OCP Datacenter NVMe SSD Specification, SMART /
//     Health Information Extended log page C0h, field SMART-1 "Physical Media Units Written":
//     bytes written to the NAND media, user and system data, 128 bits, printed by nvme-cli as
//     {"hi": H, "lo": L} = H·2^64 + L. Media bytes written.
//   * `nvme endurance-log DEV --group-id=N -o json` — NVMe Base Specification 2.0, Endurance
//     Group Information log page 09h: "data_units_written" (host) and "media_units_written"
//     (media), both in thousands of 512-byte units.
// nvme-cli prints 128-bit counters as bare integers (2.x), 64-bit ones sometimes as quoted
// strings, and older versions as floats ("64663716.000000"): every form is accepted.
//
// wa_device = Δ media bytes ÷ Δ host bytes over the run, when both counters exist: media bytes
// from the OCP log (preferred: byte resolution) or the endurance log, host bytes from the
// SMART log (or the endurance log). The thousand-unit rounding bounds the error of a delta by
// 512,000 bytes per counter: runs should write gigabytes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace flashpq {

/// Bytes per "data unit" of the SMART and endurance logs: 1,000 × 512 bytes.
constexpr uint64_t kNvmeDataUnitBytes = 512'000;

/// Host bytes written (data_units_written × 512,000) from `nvme smart-log -o json` output.
/// std::nullopt when the field is missing. Throws std::invalid_argument (naming `source` and the
/// field) when the text is not JSON or the field is not a non-negative integer.
std::optional<unsigned __int128> parse_smart_log_host_bytes(std::string_view json,
                                                            const std::string& source);

/// Media bytes written (Physical media units written, hi·2^64 + lo) from
/// `nvme ocp smart-add-log -o json` output. std::nullopt when missing; throws as above.
std::optional<unsigned __int128> parse_ocp_media_bytes(std::string_view json,
                                                       const std::string& source);

/// Host and media bytes written (data_units_written, media_units_written × 512,000) from
/// `nvme endurance-log -o json` output; each std::nullopt when missing; throws as above.
struct EnduranceBytes {
  std::optional<unsigned __int128> host_bytes;
  std::optional<unsigned __int128> media_bytes;
};
EnduranceBytes parse_endurance_log(std::string_view json, const std::string& source);

/// The counters of one drive at one instant; each unset when the drive (or nvme-cli) does not
/// report it.
struct NvmeSnapshot {
  std::optional<unsigned __int128> host_bytes;   // SMART log, else endurance log
  std::optional<unsigned __int128> media_bytes;  // OCP log, else endurance log
  std::string media_source;                      // "ocp" or "endurance", empty when unset
};

/// Runs a shell command and returns its standard output; std::nullopt if it failed (non-zero
/// exit, not found). Injected so tests replay saved outputs.
using CommandRunner = std::function<std::optional<std::string>(const std::string& command)>;

/// The runner used outside tests: popen(command + " 2>/dev/null").
CommandRunner shell_command_runner();

/// Reads the counters of NVMe device `device` (a /dev/nvmeX controller or /dev/nvmeXnY
/// namespace; the caller quotes nothing: `device` must be a plain /dev path) with nvme-cli:
/// smart-log, `ocp smart-add-log`, and endurance-log for `endurance_group` (1 unless the
/// namespace names another). Outputs that fail to run are skipped; outputs that do not parse
/// throw std::invalid_argument.
NvmeSnapshot snapshot_nvme(const std::string& device, const CommandRunner& run,
                           uint32_t endurance_group = 1);

/// Write counters of a run: the deltas of two snapshots.
struct NvmeWriteDelta {
  std::optional<uint64_t> host_bytes;
  std::optional<uint64_t> media_bytes;
  /// media ÷ host when both exist and host > 0.
  std::optional<double> wa_device;
  std::string media_source;
};
/// Throws std::runtime_error if a counter went backwards (not the same drive, or reset).
NvmeWriteDelta nvme_delta(const NvmeSnapshot& before, const NvmeSnapshot& after);

}  // namespace flashpq
