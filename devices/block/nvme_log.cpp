#include "devices/block/nvme_log.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace flashpq {

namespace {

// nvme-cli's JSON is also YAML 1.2 (flow style): yaml-cpp, already a dependency, reads it and
// keeps every number as its text, so 128-bit counters lose nothing.
YAML::Node parse_json(std::string_view json, const std::string& source) {
  try {
    YAML::Node n = YAML::Load(std::string(json));
    if (!n.IsMap()) throw std::invalid_argument(source + ": expected a JSON object");
    return n;
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(source + ": not JSON: " + e.msg);
  }
}

// "123", "123.000000" (nvme-cli 1.x floats), as bare numbers or quoted strings.
unsigned __int128 parse_counter(const YAML::Node& n, const std::string& source,
                                const std::string& field) {
  const std::string text = n.IsScalar() ? n.Scalar() : std::string();
  unsigned __int128 v = 0;
  size_t i = 0;
  const auto max = ~static_cast<unsigned __int128>(0);
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const unsigned digit = static_cast<unsigned>(text[i] - '0');
    if (v > (max - digit) / 10) {
      throw std::invalid_argument(source + ": field '" + field + "': exceeds 128 bits: " + text);
    }
    v = v * 10 + digit;
  }
  bool ok = i > 0;
  if (ok && i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] == '0'; ++i) {
    }
  }
  if (!ok || i != text.size()) {
    throw std::invalid_argument(source + ": field '" + field +
                                "': expected a non-negative integer, found '" +
                                (n.IsScalar() ? text : YAML::Dump(n)) + "'");
  }
  return v;
}

std::optional<unsigned __int128> units_field(const YAML::Node& root, const char* field,
                                             const std::string& source) {
  const YAML::Node n = root[field];
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  const unsigned __int128 units = parse_counter(n, source, field);
  const auto max = ~static_cast<unsigned __int128>(0);
  if (units > max / kNvmeDataUnitBytes) {
    throw std::invalid_argument(source + ": field '" + std::string(field) + "' overflows");
  }
  return units * kNvmeDataUnitBytes;
}

std::string quote_free(const std::string& device) {
  for (const char c : device) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '/' || c == '_' || c == '-' || c == '.';
    if (!ok) throw std::invalid_argument("nvme device path '" + device + "': unexpected character");
  }
  return device;
}

}  // namespace

std::optional<unsigned __int128> parse_smart_log_host_bytes(std::string_view json,
                                                            const std::string& source) {
  return units_field(parse_json(json, source), "data_units_written", source);
}

std::optional<unsigned __int128> parse_ocp_media_bytes(std::string_view json,
                                                       const std::string& source) {
  const YAML::Node root = parse_json(json, source);
  const char* field = "Physical media units written";
  const YAML::Node n = root[field];
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  if (!n.IsMap() || !n["hi"].IsDefined() || !n["lo"].IsDefined()) {
    throw std::invalid_argument(source + ": field '" + field +
                                "': expected {\"hi\": H, \"lo\": L}, found " + YAML::Dump(n));
  }
  const unsigned __int128 hi = parse_counter(n["hi"], source, std::string(field) + ".hi");
  const unsigned __int128 lo = parse_counter(n["lo"], source, std::string(field) + ".lo");
  if (hi > UINT64_MAX || lo > UINT64_MAX) {
    throw std::invalid_argument(source + ": field '" + field + "': hi and lo are 64-bit halves");
  }
  return (hi << 64) | lo;
}

EnduranceBytes parse_endurance_log(std::string_view json, const std::string& source) {
  const YAML::Node root = parse_json(json, source);
  return {units_field(root, "data_units_written", source),
          units_field(root, "media_units_written", source)};
}

CommandRunner shell_command_runner() {
  return [](const std::string& command) -> std::optional<std::string> {
    const std::string full = command + " 2>/dev/null";
    FILE* pipe = ::popen(full.c_str(), "r");
    if (!pipe) return std::nullopt;
    std::string out;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    const int status = ::pclose(pipe);
    if (status != 0) return std::nullopt;
    return out;
  };
}

NvmeSnapshot snapshot_nvme(const std::string& device, const CommandRunner& run,
                           uint32_t endurance_group) {
  const std::string dev = quote_free(device);
  NvmeSnapshot s;
  if (auto out = run("nvme smart-log " + dev + " -o json")) {
    s.host_bytes = parse_smart_log_host_bytes(*out, "nvme smart-log " + dev);
  }
  if (auto out = run("nvme ocp smart-add-log " + dev + " -o json")) {
    s.media_bytes = parse_ocp_media_bytes(*out, "nvme ocp smart-add-log " + dev);
    if (s.media_bytes) s.media_source = "ocp";
  }
  if (!s.media_bytes || !s.host_bytes) {
    const std::string cmd =
        "nvme endurance-log " + dev + " --group-id=" + std::to_string(endurance_group) + " -o json";
    if (auto out = run(cmd)) {
      const EnduranceBytes e = parse_endurance_log(*out, cmd);
      if (!s.host_bytes) s.host_bytes = e.host_bytes;
      if (!s.media_bytes && e.media_bytes) {
        s.media_bytes = e.media_bytes;
        s.media_source = "endurance";
      }
    }
  }
  return s;
}

NvmeWriteDelta nvme_delta(const NvmeSnapshot& before, const NvmeSnapshot& after) {
  auto delta = [](const std::optional<unsigned __int128>& a,
                  const std::optional<unsigned __int128>& b,
                  const char* what) -> std::optional<uint64_t> {
    if (!a || !b) return std::nullopt;
    if (*b < *a) {
      throw std::runtime_error(std::string("nvme ") + what +
                               " bytes written went backwards during the run (counter reset, or "
                               "not the same drive)");
    }
    const unsigned __int128 d = *b - *a;
    if (d > UINT64_MAX) throw std::runtime_error(std::string("nvme ") + what + " delta overflows");
    return static_cast<uint64_t>(d);
  };
  NvmeWriteDelta d;
  d.host_bytes = delta(before.host_bytes, after.host_bytes, "host");
  if (before.media_source == after.media_source) {
    d.media_bytes = delta(before.media_bytes, after.media_bytes, "media");
    d.media_source = after.media_source;
  }
  if (d.host_bytes && d.media_bytes && *d.host_bytes > 0) {
    d.wa_device = static_cast<double>(*d.media_bytes) / static_cast<double>(*d.host_bytes);
  }
  return d;
}

}  // namespace flashpq
