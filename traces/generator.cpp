// traces/generator.cpp — the "generator" format and the generator registry
// (traces/generator.h).
#include "traces/generator.h"

namespace flashpq {

// The registry, in registration order: one X(...) line per generator, each defined in its own
// file. The list both declares the generators and fills the table.
#define FLASHPQ_TRACE_GENERATORS(X) X(kDeviceIoGenerator) X(kZipfGenerator) X(kYcsbGenerator)

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
