#include "experiments/calibrate.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <unsupported/Eigen/NonLinearOptimization>

#include "devices/block/safety.h"
#include "experiments/config/cell_config.h"
#include "fmt/format.h"

namespace flashpq {

namespace {

constexpr double kWeightThroughput = 1.0, kWeightP50 = 0.5, kWeightP99 = 0.25;
// ln tR, ln tPROG, ln channel bandwidth, ln(1 + host overhead), ln(1 + host command),
// ln host link bandwidth.
constexpr int kParams = 6;
constexpr double kStep = 0.02;  // forward-difference step in log space (see the header)
const char* const kNames[kParams] = {
    "tR_us",           "tPROG_us",       "channel_bandwidth_mib_s", "host_overhead_us",
    "host_command_us", "host_link_mib_s"};

// The search space, in µs and MiB/s: wide enough for any NAND (SLC reads of a few µs to QLC
// programs of several ms; ONFI channels of 10 MB/s to several GB/s), bounded so that a wild
// step of the fit never overflows the simulated clock.
constexpr double kLo[kParams] = {0.1, 1.0, 1.0, 0.0, 0.0, 1.0};
constexpr double kHi[kParams] = {1e5, 1e6, 1e5, 1e5, 1e5, 1e6};

SimFlashConfig with_values(SimFlashConfig c, const Eigen::VectorXd& x) {
  auto at = [&](int j, double v) { return std::clamp(v, kLo[j], kHi[j]); };
  c.tR_us = at(0, std::exp(x[0]));
  c.tPROG_us = at(1, std::exp(x[1]));
  c.channel_bandwidth_mib_s = at(2, std::exp(x[2]));
  c.host_overhead_us = at(3, std::exp(x[3]) - 1.0);
  c.host_command_us = at(4, std::exp(x[4]) - 1.0);
  c.host_link_mib_s = at(5, std::exp(x[5]));
  return c;
}

// The residual functor of Eigen's LevenbergMarquardt: operator() gives the residuals, df the
// forward-difference Jacobian.
struct Residuals {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  SimFlashConfig geometry;
  std::vector<IoPatternSpec> patterns;
  std::vector<PatternMeasurement> device;  // medians, in the order of patterns
  SimulatedPlanOptions simulation;
  uint64_t* evaluations;

  int inputs() const { return kParams; }
  int values() const { return static_cast<int>(3 * patterns.size()); }

  void residuals(const std::vector<PatternMeasurement>& model, Eigen::VectorXd& f) const {
    for (size_t i = 0; i < patterns.size(); ++i) {
      const PatternMeasurement& d = device[i];
      const PatternMeasurement& m = model[i];
      auto lr = [](double a, double b) { return std::log(std::max(a, 1e-12) / b); };
      f[3 * i] = kWeightThroughput * lr(m.iops, d.iops);
      f[3 * i + 1] = kWeightP50 * lr(m.lat_p50_us, d.lat_p50_us);
      f[3 * i + 2] = kWeightP99 * lr(m.lat_p99_us, d.lat_p99_us);
    }
  }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& f) const {
    f.resize(values());
    ++*evaluations;
    try {
      residuals(simulate_plan(with_values(geometry, x), patterns, simulation), f);
    } catch (const std::invalid_argument&) {
      f.setConstant(10.0);  // outside simflash's ranges: far from any fit
    }
    return 0;
  }
  int df(const Eigen::VectorXd& x, Eigen::MatrixXd& jac) const {
    Eigen::VectorXd f0(values()), f1(values());
    (*this)(x, f0);
    jac.resize(values(), kParams);
    for (int j = 0; j < kParams; ++j) {
      Eigen::VectorXd xj = x;
      xj[j] += kStep;
      (*this)(xj, f1);
      jac.col(j) = (f1 - f0) / kStep;
    }
    return 0;
  }
};

const char* status_text(Eigen::LevenbergMarquardtSpace::Status s) {
  using namespace Eigen::LevenbergMarquardtSpace;
  switch (s) {
    case ImproperInputParameters:
      return "improper input parameters";
    case RelativeReductionTooSmall:
      return "converged: relative reduction of the loss below ftol";
    case RelativeErrorTooSmall:
      return "converged: relative change of the parameters below xtol";
    case RelativeErrorAndReductionTooSmall:
      return "converged: loss and parameters both stable";
    case CosinusTooSmall:
      return "converged: residuals orthogonal to the Jacobian";
    case TooManyFunctionEvaluation:
      return "not converged: evaluation limit reached";
    case FtolTooSmall:
      return "converged: no further reduction of the loss possible";
    case XtolTooSmall:
      return "converged: no further improvement of the parameters possible";
    case GtolTooSmall:
      return "converged: gradient orthogonal to the residuals";
    default:
      return "stopped";
  }
}

struct Fit {
  CalibrateOptions::Geometry g{};
  Eigen::VectorXd x;
  double loss = 0;
  Eigen::LevenbergMarquardtSpace::Status status{};
};

}  // namespace

CalibrationResult calibrate(const Characterization& c, const CalibrateOptions& o,
                            std::ostream& log) {
  const std::vector<PatternMeasurement> medians = c.medians();
  std::map<std::string, PatternMeasurement> by_name;
  for (const PatternMeasurement& m : medians) by_name[m.pattern.name] = m;
  Residuals base_fn;
  for (const IoPatternSpec& p : characterization_plan()) {
    const bool fit =
        o.fit_patterns.empty() ||
        std::find(o.fit_patterns.begin(), o.fit_patterns.end(), p.name) != o.fit_patterns.end();
    if (fit) {
      base_fn.patterns.push_back(p);
      base_fn.device.push_back(by_name.at(p.name));
    }
  }
  for (const std::string& name : o.fit_patterns) {
    if (!by_name.count(name)) {
      std::vector<std::string> names;
      for (const IoPatternSpec& p : characterization_plan()) names.push_back(p.name);
      throw std::invalid_argument(unknown_name_message("--fit-patterns", name, names));
    }
  }
  if (3 * base_fn.patterns.size() <= kParams) {
    throw std::invalid_argument(fmt::format(
        "--fit-patterns: {} patterns give {} residuals for {} parameters: expected at least {} "
        "patterns",
        base_fn.patterns.size(), 3 * base_fn.patterns.size(), kParams, kParams / 3 + 1));
  }
  std::vector<CalibrateOptions::Geometry> grid = o.geometries;
  for (const CalibrateOptions::Geometry& g : grid) {
    // Each candidate is simulated: at most 1024 (channel, die, plane) lanes, as large as the
    // largest drives' parallelism, so that a simulated plan stays small.
    const uint64_t lanes = uint64_t{g.channels} * g.dies_per_channel * g.planes_per_die;
    if (g.channels < 1 || g.channels > 1024 || g.dies_per_channel < 1 ||
        g.dies_per_channel > 1024 || g.planes_per_die < 1 || g.planes_per_die > 64 ||
        lanes > 1024) {
      throw std::invalid_argument(fmt::format(
          "--geometries: expected channels in [1, 1024], dies per channel in [1, 1024], planes "
          "in [1, 64] and at most 1024 lanes in all, found {}x{}x{}",
          g.channels, g.dies_per_channel, g.planes_per_die));
    }
  }
  if (grid.empty()) {
    for (uint32_t ch : {1u, 2u, 4u, 8u, 16u})
      for (uint32_t d : {1u, 2u, 4u, 8u})
        for (uint32_t p : {1u, 2u, 4u}) grid.push_back({ch, d, p});
  }
  CalibrationResult result;
  uint64_t evaluations = 0;
  base_fn.evaluations = &evaluations;

  // A start from the data for geometry g: random 4 KiB reads at depth 32 are die-bound (tR =
  // dies ÷ IOPS), sequential writes at depth 32 program every plane of every die (tPROG =
  // lanes × page ÷ bandwidth), the fastest sequential read fills the channels, and the rest of
  // a single random read's latency is host overhead.
  const double page = o.base.page_size_bytes;
  auto start = [&](const CalibrateOptions::Geometry& g) {
    const double dies = double(g.channels) * g.dies_per_channel;
    const double lat1 = by_name.at("randread_4k_qd1").lat_mean_us;
    double tR = dies / by_name.at("randread_4k_qd32").iops * 1e6;
    tR = std::min(tR, 0.8 * lat1);
    const double seq_read =
        std::max(by_name.at("read_1m_qd32").bw_mib_s, by_name.at("read_128k_qd32").bw_mib_s);
    const double bw = 1.2 * seq_read / g.channels;
    const double write_pages = by_name.at("write_1m_qd32").bw_mib_s * 1048576.0 / page;
    const double tPROG = dies * g.planes_per_die / write_pages * 1e6;
    // The controller: half the time of one request at the highest IOPS seen; the link: half
    // again the highest bandwidth seen.
    double max_iops = 0, max_mib_s = 0;
    for (const PatternMeasurement& m : medians) {
      max_iops = std::max(max_iops, m.iops);
      max_mib_s = std::max(max_mib_s, m.bw_mib_s);
    }
    const double cmd = 0.5 * 1e6 / max_iops;
    const double link = 1.5 * max_mib_s;
    const double h = std::max(0.05 * lat1, lat1 - tR - cmd - page / (bw * 1048576.0) * 1e6);
    Eigen::VectorXd x(kParams);
    x << std::log(tR), std::log(tPROG), std::log(bw), std::log(1.0 + h), std::log(1.0 + cmd),
        std::log(link);
    return x;
  };
  auto fit = [&](const CalibrateOptions::Geometry& g, Eigen::VectorXd x, double scale,
                 uint32_t max_evals) {
    Residuals fn = base_fn;
    fn.geometry = o.base;
    fn.geometry.channels = g.channels;
    fn.geometry.dies_per_channel = g.dies_per_channel;
    fn.geometry.planes_per_die = g.planes_per_die;
    fn.simulation = o.simulation;
    fn.simulation.scale = scale;
    Eigen::LevenbergMarquardt<Residuals> lm(fn);
    lm.parameters.maxfev = max_evals;
    lm.parameters.factor = 1.0;  // first step at most |x| in log space
    lm.parameters.xtol = 1e-4;
    lm.parameters.ftol = 1e-6;
    Fit f;
    f.g = g;
    f.status = lm.minimize(x);
    f.x = x;
    Eigen::VectorXd r(fn.values());
    fn(x, r);
    f.loss = 0.5 * r.squaredNorm();
    return f;
  };

  // 1. Search: every candidate at a quarter of the simulated I/O.
  std::vector<Fit> fits;
  for (const CalibrateOptions::Geometry& g : grid) {
    Fit f = fit(g, start(g), 0.25, std::max<uint32_t>(o.max_evaluations / 3, 12));
    log << fmt::format("  geometry {:>2} x {} x {}: loss {:.5f}\n", g.channels, g.dies_per_channel,
                       g.planes_per_die, f.loss)
        << std::flush;
    fits.push_back(f);
  }
  std::stable_sort(fits.begin(), fits.end(),
                   [](const Fit& a, const Fit& b) { return a.loss < b.loss; });
  for (const Fit& f : fits) {
    result.search.push_back(fmt::format("{}x{}x{} {:.6f}", f.g.channels, f.g.dies_per_channel,
                                        f.g.planes_per_die, f.loss));
  }
  // 2. Refine the best at full length.
  Fit best;
  bool have = false;
  for (size_t i = 0; i < std::min<size_t>(std::max<uint32_t>(o.refine, 1), fits.size()); ++i) {
    Fit f = fit(fits[i].g, fits[i].x, 1.0, o.max_evaluations);
    log << fmt::format("  refined {} x {} x {}: loss {:.5f} ({})\n", f.g.channels,
                       f.g.dies_per_channel, f.g.planes_per_die, f.loss, status_text(f.status))
        << std::flush;
    if (!have || f.loss < best.loss) best = f, have = true;
  }

  // 3. The result: profile, standard errors, errors on every pattern.
  Residuals fn = base_fn;
  fn.geometry = o.base;
  fn.geometry.channels = best.g.channels;
  fn.geometry.dies_per_channel = best.g.dies_per_channel;
  fn.geometry.planes_per_die = best.g.planes_per_die;
  fn.simulation = o.simulation;
  fn.simulation.scale = 1.0;
  result.config = with_values(fn.geometry, best.x);
  Eigen::MatrixXd jac;
  fn.df(best.x, jac);
  Eigen::VectorXd r(fn.values());
  fn(best.x, r);
  const double m = static_cast<double>(r.size());
  const double s2 = r.squaredNorm() / std::max(1.0, m - kParams);
  // Parameters the residuals do not move (a column of J that is zero: a host link so fast it
  // never shows, a value at its bound) are not constrained: their error is infinite, and the
  // others' comes from the rest of J.
  std::vector<int> moved;
  for (int j = 0; j < kParams; ++j) {
    if (jac.col(j).norm() > 1e-9) moved.push_back(j);
  }
  Eigen::VectorXd se_log = Eigen::VectorXd::Constant(kParams, INFINITY);
  if (!moved.empty()) {
    Eigen::MatrixXd jr(jac.rows(), static_cast<Eigen::Index>(moved.size()));
    for (size_t k = 0; k < moved.size(); ++k)
      jr.col(static_cast<Eigen::Index>(k)) = jac.col(moved[k]);
    Eigen::FullPivLU<Eigen::MatrixXd> lu(jr.transpose() * jr);
    if (lu.isInvertible()) {
      const Eigen::VectorXd d = (s2 * lu.inverse()).diagonal().cwiseMax(0).cwiseSqrt();
      for (size_t k = 0; k < moved.size(); ++k) se_log[moved[k]] = d[static_cast<Eigen::Index>(k)];
    }
  }
  const SimFlashConfig& fc = result.config;
  const double values[kParams] = {
      fc.tR_us,           fc.tPROG_us,       fc.channel_bandwidth_mib_s, fc.host_overhead_us,
      fc.host_command_us, fc.host_link_mib_s};
  for (int j = 0; j < kParams; ++j) {
    const double dv = std::exp(best.x[j]);  // d value / d x, in every parametrization here
    result.fitted.push_back({kNames[j], values[j], dv * se_log[j]});
  }
  result.loss = 0.5 * r.squaredNorm();
  result.rms_residual = std::sqrt(r.squaredNorm() / m);
  using namespace Eigen::LevenbergMarquardtSpace;
  result.converged = best.status != TooManyFunctionEvaluation &&
                     best.status != ImproperInputParameters && best.status != UserAsked;
  result.status = status_text(best.status);
  const std::vector<PatternMeasurement> model =
      simulate_plan(result.config, characterization_plan(), fn.simulation);
  evaluations++;
  for (size_t i = 0; i < model.size(); ++i) {
    const PatternMeasurement& d = by_name.at(model[i].pattern.name);
    PatternError e;
    e.pattern = d.pattern.name;
    e.fitted = std::any_of(base_fn.patterns.begin(), base_fn.patterns.end(),
                           [&](const IoPatternSpec& p) { return p.name == e.pattern; });
    e.iops_device = d.iops;
    e.iops_model = model[i].iops;
    e.p50_device_us = d.lat_p50_us;
    e.p50_model_us = model[i].lat_p50_us;
    e.p99_device_us = d.lat_p99_us;
    e.p99_model_us = model[i].lat_p99_us;
    result.errors.push_back(e);
  }
  result.evaluations = evaluations;
  return result;
}

std::string error_table(const CalibrationResult& r) {
  std::string s = fmt::format(
      "{:<20} {:<8} {:>10} {:>10} {:>7} {:>9} {:>9} {:>7} {:>9} {:>9} {:>7}\n", "pattern", "",
      "iops_dev", "iops_sim", "err", "p50_dev", "p50_sim", "err", "p99_dev", "p99_sim", "err");
  for (const PatternError& e : r.errors) {
    s += fmt::format(
        "{:<20} {:<8} {:>10.0f} {:>10.0f} {:>+6.1f}% {:>9.1f} {:>9.1f} {:>+6.1f}% {:>9.1f} "
        "{:>9.1f} "
        "{:>+6.1f}%\n",
        e.pattern, e.fitted ? "fitted" : "held-out", e.iops_device, e.iops_model,
        100 * e.iops_error(), e.p50_device_us, e.p50_model_us, 100 * e.p50_error(), e.p99_device_us,
        e.p99_model_us, 100 * e.p99_error());
  }
  return s;
}

void write_profile(const CalibrationResult& r, const Characterization& c,
                   const std::string& characterization_file, const std::string& base_name,
                   std::ostream& out) {
  const SimFlashConfig& f = r.config;
  auto q = [](const std::string& s) {
    std::string o = "\"";
    for (const char ch : s) {
      if (ch == '"' || ch == '\\') o += '\\';
      o += ch;
    }
    return o + "\"";
  };
  out << "# A simflash profile fitted by `flashpq device calibrate` (docs/DESIGN.md "
         "\"Calibration\").\n"
         "# Use it as `device.profile: THIS_FILE` wherever tiny, mqsim, femu or model_a go.\n"
         "# tBERS, page size, pages per block, utilization and GC are the base profile's: the\n"
         "# characterization does not constrain them.\n";
  out << "format: flashpq-simflash-profile 1\n";
  out << "base: " << base_name << "\n";
  out << "device:\n";
  out << fmt::format("  channels: {}\n  dies_per_channel: {}\n  planes_per_die: {}\n", f.channels,
                     f.dies_per_channel, f.planes_per_die);
  out << fmt::format("  tR_us: {}\n  tPROG_us: {}\n  channel_bandwidth_mib_s: {}\n", f.tR_us,
                     f.tPROG_us, f.channel_bandwidth_mib_s);
  out << fmt::format("  host_overhead_us: {}\n  host_command_us: {}\n  host_link_mib_s: {}\n",
                     f.host_overhead_us, f.host_command_us, f.host_link_mib_s);
  out << fmt::format("  tBERS_us: {}\n", f.tBERS_us);
  out << "identity:\n";
  out << "  path: " << q(c.device_path) << "\n  kind: " << q(c.device_kind)
      << "\n  kernel_name: " << q(c.kernel_name) << "\n  model: " << q(c.model)
      << "\n  serial: " << q(c.serial) << "\n  size_bytes: " << c.device_size_bytes << "\n";
  out << "fit:\n";
  out << "  converged: " << (r.converged ? "true" : "false") << "\n";
  out << "  status: " << q(r.status) << "\n";
  out << fmt::format("  loss: {}\n  rms_residual: {}\n  evaluations: {}\n", r.loss, r.rms_residual,
                     r.evaluations);
  out << "  standard_errors:\n";
  for (const FittedValue& v : r.fitted)
    out << fmt::format("    {}: {}\n", v.name, v.standard_error);
  out << "  errors:  # (model - device) / device per pattern\n";
  for (const PatternError& e : r.errors) {
    out << fmt::format(
        "    - {{pattern: {}, fitted: {}, iops: {:.4f}, p50: {:.4f}, p99: {:.4f}}}\n", e.pattern,
        e.fitted ? "true" : "false", e.iops_error(), e.p50_error(), e.p99_error());
  }
  out << "  geometry_search:\n";
  for (const std::string& s : r.search) out << "    - " << q(s) << "\n";
  out << "characterization:\n";
  out << "  file: " << q(characterization_file) << "\n  date: " << q(c.date)
      << "\n  region_bytes: " << c.region_bytes << "\n  engine: " << q(c.engine)
      << "\n  o_direct: " << (c.o_direct ? "true" : "false") << "\n";
}

}  // namespace flashpq

namespace flashpq {

void check_profile_devices(const std::vector<CellConfig>& cells, bool allow_other_device) {
  if (allow_other_device) return;
  struct Profiled {
    std::string profile, kernel_name, model, serial;
  };
  std::vector<Profiled> profiles;
  std::vector<std::string> block_paths;
  for (const CellConfig& cell : cells) {
    if (cell.device.name == "simflash") {
      const std::string& p = cell.device.params.text("device.profile");
      if (!is_yaml_file_name(p)) continue;
      if (std::any_of(profiles.begin(), profiles.end(),
                      [&](const Profiled& x) { return x.profile == p; }))
        continue;
      const SimFlashProfileFile f = load_simflash_profile(p);
      Profiled x{p, "", "", ""};
      bool any = false;
      for (const auto& [k, v] : f.identity) {
        if (k == "kernel_name") x.kernel_name = v, any = true;
        if (k == "model") x.model = v, any = true;
        if (k == "serial") x.serial = v, any = true;
      }
      if (any) profiles.push_back(x);
    } else if (cell.device.name == "block") {
      const std::string& p = cell.device.params.text("device.path");
      if (!p.empty() && std::find(block_paths.begin(), block_paths.end(), p) == block_paths.end())
        block_paths.push_back(p);
    }
  }
  if (profiles.empty() || block_paths.empty()) return;
  for (const std::string& path : block_paths) {
    DeviceIdentity id;
    if (std::filesystem::exists(path)) {
      id = inspect_device(path).identity;
    } else {
      // A file the run will create: the device holding its directory, as inspect_device
      // names it for a file (its kernel name; a file has no model or serial of its own).
      const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
      struct stat st {};
      std::error_code ec;
      if (::stat(dir.c_str(), &st) == 0) {
        id.kernel_name =
            std::filesystem::read_symlink(
                fmt::format("/sys/dev/block/{}:{}", major(st.st_dev), minor(st.st_dev)), ec)
                .filename()
                .string();
      }
      if (id.kernel_name.empty()) {
        throw std::invalid_argument(fmt::format(
            "{}: does not exist and the device holding its directory is unknown, so it cannot "
            "be compared with the device simflash was calibrated to ({}): create it, or pass "
            "--allow-other-device",
            path, profiles[0].profile));
      }
    }
    const std::string serial = !id.serial.empty() ? id.serial : id.wwid;
    for (const Profiled& x : profiles) {
      if (x.kernel_name == id.kernel_name && x.model == id.model && x.serial == serial) continue;
      throw std::invalid_argument(fmt::format(
          "{} was calibrated to device '{} {} ({})', but the block cells run on {}, device '{} "
          "{} ({})': calibrate simflash to this device (flashpq device characterize, flashpq "
          "device calibrate), or pass --allow-other-device to compare anyway",
          x.profile, x.model, x.serial, x.kernel_name, path, id.model, serial, id.kernel_name));
    }
  }
}

}  // namespace flashpq
