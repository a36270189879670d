// traces/generator.cpp — the "generator" format and the generator registry
// (traces/generator.h).
#include "traces/generator.h"

#include "fmt/format.h"
#include "sim/arrivals.h"

namespace flashpq {

// The registry, in registration order: one X(...) line per generator, each defined in its own
// file. The list both declares the generators and fills the table.
#define FLASHPQ_TRACE_GENERATORS(X) \
  X(kDeviceIoGenerator) X(kZipfGenerator) X(kYcsbGenerator) X(kCachebenchGenerator)

#define FLASHPQ_DECLARE(generator) extern const TraceGenerator generator;
FLASHPQ_TRACE_GENERATORS(FLASHPQ_DECLARE)
#undef FLASHPQ_DECLARE

const KeySpec& generator_requests_key() {
  static const KeySpec k = key("trace.requests", ValueType::kInt)
                               .strict_to_readers()
                               .def("1000000")
                               .units("requests")
                               .range(1, 1125899906842624.0)
                               .desc("requests the generator yields (device_io: after its fill)");
  return k;
}

namespace {

const KeySpec kRate = key("trace.rate", ValueType::kFloat)
                          .strict_to_readers()
                          .def("0")
                          .units("requests/s")
                          .range(0, 1e12)
                          .desc("request times at this rate (0: every time 0)");
const KeySpec kArrival = key("trace.arrival", ValueType::kEnum)
                             .strict_to_readers()
                             .def("constant")
                             .choices({"constant", "poisson"})
                             .desc("request times: a fixed period, or a Poisson process");

// Sets each request's time from the arrival process (sim/arrivals.h).
class ArrivalsReader final : public TraceReader {
 public:
  ArrivalsReader(std::unique_ptr<TraceReader> in, const TimingConfig& t, uint64_t seed)
      : in_(std::move(in)), arrivals_(t, seed) {}
  size_t read(std::span<Request> out) override {
    const size_t n = in_->read(out);
    for (size_t i = 0; i < n; ++i) out[i].time_ns = arrivals_.next(0);
    return n;
  }
  const std::string& path() const override { return in_->path(); }
  uint64_t preconditioning_requests() const override { return in_->preconditioning_requests(); }

 private:
  std::unique_ptr<TraceReader> in_;
  OpenLoopArrivals arrivals_;
};

}  // namespace

const std::vector<KeySpec>& generator_time_keys() {
  static const std::vector<KeySpec> keys{kRate, kArrival};
  return keys;
}

std::unique_ptr<TraceReader> with_arrivals(std::unique_ptr<TraceReader> reader,
                                           const TraceConfig& config) {
  const double rate = config.params.get<double>(kRate);
  if (rate == 0) return reader;
  TimingConfig t;
  t.arrival = config.params.get<std::string>(kArrival) == "poisson" ? ArrivalProcess::kPoisson
                                                                    : ArrivalProcess::kConstant;
  t.rate_rps = rate;
  // Stream 1 (arrivals) of a seed of its own, so a timed cell's Poisson arrivals on the same
  // cell seed are not these.
  const uint64_t seed = config.seed ^ 0x7E5A11A7E5A11A7Eull;
  return std::make_unique<ArrivalsReader>(std::move(reader), t, seed);
}

std::string arrivals_identity(const TraceConfig& config) {
  const double rate = config.params.get<double>(kRate);
  if (rate == 0) return "";
  return fmt::format(" rate={} arrival={}", rate, config.params.get<std::string>(kArrival));
}

const std::vector<const TraceGenerator*>& trace_generators() {
#define FLASHPQ_ADDRESS(generator) &generator,
  static const std::vector<const TraceGenerator*> generators = {
      FLASHPQ_TRACE_GENERATORS(FLASHPQ_ADDRESS)};
#undef FLASHPQ_ADDRESS
  return generators;
}

namespace {

const ComponentSpec& generator_format_spec() {
  static const ComponentSpec spec{
      "generator",          "no file: requests made by the generator trace.generator names",
      {generator_key()},    {},
      generator_key().name, entry_specs(trace_generators())};
  return spec;
}

}  // namespace

const KeySpec& generator_key() {
  static const KeySpec k = key("trace.generator", ValueType::kEnum)
                               .def("device_io")
                               .choices(entry_names(trace_generators()))
                               .strict_to_readers()
                               .desc("the request generator");
  return k;
}

const TraceGenerator& trace_generator(const TraceConfig& config) {
  return entry_named(trace_generators(), config.params.get<std::string>(generator_key()),
                     generator_key().name);
}

extern const TraceFormat kGeneratorFormat{
    &generator_format_spec,
    [](const TraceConfig& config) { return trace_generator(config).open(config); },
    [](const TraceConfig& config) {
      return text_content_hash(trace_generator(config).identity(config));
    },
    [](const TraceConfig& config) { trace_generator(config).check(config); }};

}  // namespace flashpq
