// engine/write_rate_admission.cpp — the write-rate admission controller
// (engine/write_rate_admission.h).
#include "engine/write_rate_admission.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

namespace flashpq {

void WriteRateAdmissionConfig::validate() const {
  auto bad = [](const char* key, const std::string& expected, double found) {
    throw std::invalid_argument(
        fmt::format("key 'tiers.{}': expected {}, found {}", key, expected, found));
  };
  if (!(target_rate_bytes_s > 0)) {
    bad("admission_write_rate_mib_s", "a rate > 0", target_rate_bytes_s / (1024.0 * 1024.0));
  }
  if (!(max_rate_bytes_s >= 0)) {
    bad("admission_max_write_rate_mib_s", "a rate >= 0 (0 = no cap)",
        max_rate_bytes_s / (1024.0 * 1024.0));
  }
  if (update_interval_ns == 0) bad("admission_update_interval_s", "> 0", 0);
  if (!(probability_seed >= WriteRateAdmission::kFactorLowerBound &&
        probability_seed <= WriteRateAdmission::kFactorUpperBound)) {
    bad("admission_probability_seed", "a value in [0.001, 10]", probability_seed);
  }
  if (base_size_bytes == 0) bad("admission_base_size", "a size > 0", 0);
  if (!(size_decay >= 0 && size_decay <= 1)) {
    bad("admission_size_decay", "a value in [0, 1]", size_decay);
  }
  if (!(change_window > 0 && change_window < 1)) {
    bad("admission_change_window", "a value in (0, 1)", change_window);
  }
}

WriteRateAdmission::WriteRateAdmission(const WriteRateAdmissionConfig& config)
    : config_(config),
      base_bits_(static_cast<unsigned>(std::bit_width(config.base_size_bytes))),
      factor_(config.probability_seed) {}

void WriteRateAdmission::tick(uint64_t now_ns, uint64_t bytes_written) {
  if (!started_) [[unlikely]] {
    started_ = true;
    start_ns_ = now_ns;
    update_ns_ = now_ns;
    bytes_last_update_ = bytes_written;
    return;
  }
  if (now_ns - update_ns_ < config_.update_interval_ns) [[likely]] {
    return;
  }
  const double elapsed_s = static_cast<double>(now_ns - update_ns_) * 1e-9;
  update_ns_ = now_ns;
  observed_ = static_cast<double>(bytes_written - bytes_last_update_) / elapsed_s;
  if (observed_ == 0) return;
  ++updates_;
  const double day_s = static_cast<double>(kDayNs) * 1e-9;
  const double since_start_s = static_cast<double>(now_ns - start_ns_) * 1e-9;
  const double written_tomorrow = config_.target_rate_bytes_s * (since_start_s + day_s);
  const double written = static_cast<double>(bytes_written);
  target_now_ = written < written_tomorrow ? (written_tomorrow - written) / day_s : 0;
  if (config_.max_rate_bytes_s > 0) target_now_ = std::min(target_now_, config_.max_rate_bytes_s);
  const double change =
      std::clamp(target_now_ / observed_, 1 - config_.change_window, 1 + config_.change_window);
  factor_ = std::clamp(factor_ * change, kFactorLowerBound, kFactorUpperBound);
  bytes_last_update_ = bytes_written;
}

double WriteRateAdmission::base_probability(uint32_t size_bytes) const {
  const unsigned bits = static_cast<unsigned>(std::bit_width(size_bytes));
  return std::pow(static_cast<double>(base_bits_) / static_cast<double>(std::max(bits, 1u)),
                  config_.size_decay);
}

double WriteRateAdmission::probability(uint32_t size_bytes) const {
  return std::clamp(base_probability(size_bytes) * factor_, 0.0, 1.0);
}

}  // namespace flashpq
