// experiments/calibrate.h — `flashpq device calibrate`: simflash's timing and parallelism
// fitted to a device's characterization (experiments/characterize.h; docs/DESIGN.md
// "Calibration").
//
// The model is simflash itself: a candidate profile is judged by running the characterization
// plan on it in simulated time (simulate_plan) and comparing, pattern by pattern, with the
// medians measured on the device. Residuals, for each fitted pattern (relative errors, as log
// ratios so that too fast and too slow weigh alike):
//     w_tput · ln(iops_sim / iops_dev),  w_p50 · ln(p50_sim / p50_dev),  w_p99 · ln(p99_sim /
//     p99_dev)
// with weights 1, 0.5 and 0.25 (throughput first: it is what a cache's device time adds up
// to; p99 least: it holds the device's hiccups, which a queueing model does not have).
// Fitted:
//   * continuous: tR, tPROG, channel bandwidth and the fixed host overhead per I/O (in log
//     space, so they stay positive), by Levenberg-Marquardt (Eigen's
//     unsupported/Eigen/NonLinearOptimization, the MINPACK lmder algorithm: Moré, "The
//     Levenberg-Marquardt algorithm: implementation and theory", LNM 630, 1978) with a
//     forward-difference Jacobian of step 2 % (the simulator's times are integer ns and its
//     percentiles histogram buckets of about 1 %: a smaller step sees steps, not slopes);
//   * discrete: the geometry, channels × dies per channel × planes per die, by search: every
//     candidate is fitted from a start derived from the data (below) at a quarter of the
//     simulated I/O, and the best `refine` candidates are fitted again at full length; the
//     lowest loss wins.
//   * not fitted: tBERS, page size, pages per block, utilization and GC — the plan's write
//     patterns are too short to reach garbage collection on a preconditioned device, so the
//     data do not constrain them; they are the base profile's (and say so in the profile).
// Standard errors: from the Jacobian J of the final fit, cov = s² (JᵀJ)⁻¹ with s² = RSS / (m −
// n) (the usual asymptotic covariance of nonlinear least squares; Seber & Wild, "Nonlinear
// Regression", §2.1), converted from log space: SE(θ) ≈ θ · SE(ln θ).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "devices/simflash/simflash_config.h"
#include "experiments/characterize.h"

namespace flashpq {

/// Options of calibrate().
struct CalibrateOptions {
  /// The profile whose geometry unknowns and unfitted fields (page size, pages per block,
  /// utilization, GC, tBERS) the fit starts from. Default tiny.
  SimFlashConfig base;
  std::string base_name = "tiny";
  /// Patterns fitted (names of the plan); empty = all. The others are predicted only (held
  /// out), their errors reported as for the fitted ones.
  std::vector<std::string> fit_patterns;
  /// Geometry candidates (channels, dies per channel, planes per die). Empty = the default
  /// grid: channels 1, 2, 4, 8, 16 × dies per channel 1, 2, 4, 8 × planes 1, 2.
  struct Geometry {
    uint32_t channels, dies_per_channel, planes_per_die;
  };
  std::vector<Geometry> geometries;
  /// Candidates fitted again at full length. Default 3.
  uint32_t refine = 3;
  /// Function evaluations per fit (Levenberg-Marquardt maxfev). Default 60.
  uint32_t max_evaluations = 60;
  /// Options of the simulated plan (region, seed); scale is set by the search.
  SimulatedPlanOptions simulation;
};

/// The error of the fitted profile on one pattern.
struct PatternError {
  std::string pattern;
  bool fitted = false;  // false: held out
  double iops_device = 0, iops_model = 0;
  double p50_device_us = 0, p50_model_us = 0;
  double p99_device_us = 0, p99_model_us = 0;
  /// (model − device) ÷ device.
  double iops_error() const { return iops_model / iops_device - 1; }
  double p50_error() const { return p50_model_us / p50_device_us - 1; }
  double p99_error() const { return p99_model_us / p99_device_us - 1; }
};

/// One fitted value: estimate and standard error, in its unit.
struct FittedValue {
  std::string name;  // tR_us, tPROG_us, channel_bandwidth_mib_s, host_overhead_us
  double value = 0, standard_error = 0;
};

/// What calibrate() found.
struct CalibrationResult {
  /// The fitted profile: the base with the geometry and the fitted values.
  SimFlashConfig config;
  std::vector<FittedValue> fitted;
  /// ½ Σ residual² of the final fit, and its root-mean-square residual (≈ relative error).
  double loss = 0, rms_residual = 0;
  /// Levenberg-Marquardt reached a minimum (MINPACK info 1–4 or 6–8), not its evaluation limit.
  bool converged = false;
  std::string status;        // MINPACK's reason, in words
  uint64_t evaluations = 0;  // simulated plans run, search included
  /// Every pattern of the plan, in plan order.
  std::vector<PatternError> errors;
  /// The candidates tried: "CxDxP loss", best first.
  std::vector<std::string> search;
};

/// Fits `options.base` to the medians of `c` (see the file comment). Progress goes to `log`.
/// Throws std::invalid_argument for an unknown pattern name in fit_patterns, no more fitted
/// residuals than parameters (fewer than 3 patterns), or a geometry out of simflash's ranges or
/// above 1024 lanes.
CalibrationResult calibrate(const Characterization& c, const CalibrateOptions& options,
                            std::ostream& log);

/// The profile file (simflash_config.h load_simflash_profile reads it): format, base, device
/// keys, identity of the characterized device, the fit (values, standard errors, loss, status,
/// per-pattern errors) and the characterization's file, date and region.
void write_profile(const CalibrationResult& r, const Characterization& c,
                   const std::string& characterization_file, const std::string& base_name,
                   std::ostream& out);

/// The errors as a table (pattern, fitted/held out, device and model IOPS, p50, p99, errors).
std::string error_table(const CalibrationResult& r);

}  // namespace flashpq

namespace flashpq {

struct CellConfig;

/// The simulated-versus-real check (docs/DESIGN.md "Calibration"): when simflash cells run on a
/// profile file that names the device it was calibrated to (its `identity`) and block cells run
/// on a device, the two must be the same device — compared by kernel name, model and serial of
/// the disk (for a file, the disk holding it). Throws std::invalid_argument naming both
/// devices when they differ, or when a block cell's path does not exist yet (nothing to
/// compare), unless allow_other_device.
void check_profile_devices(const std::vector<CellConfig>& cells, bool allow_other_device);

}  // namespace flashpq
