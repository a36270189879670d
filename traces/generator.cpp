// traces/generator.cpp — the "generator" format and the generator registry
// (traces/generator.h).
#include "traces/generator.h"

namespace flashpq {

// The registry, in registration order: one X(...) line per generator, each defined in its own
// file. The list both declares the generators and fills the table.
#define FLASHPQ_TRACE_GENERATORS(X) X(kDeviceIoGenerator)

#define FLASHPQ_DECLARE(generator) extern const TraceGenerator generator;
FLASHPQ_TRACE_GENERATORS(FLASHPQ_DECLARE)
#undef FLASHPQ_DECLARE

const std::vector<const TraceGenerator*>& trace_generators() {
#define FLASHPQ_ADDRESS(generator) &generator,
  static const std::vector<const TraceGenerator*> generators = {
      FLASHPQ_TRACE_GENERATORS(FLASHPQ_ADDRESS)};
#undef FLASHPQ_ADDRESS
  return generators;
}

namespace {

std::vector<std::string> generator_names() {
  std::vector<std::string> v;
  for (const TraceGenerator* g : trace_generators()) v.push_back(g->spec().name);
  return v;
}

const ComponentSpec& generator_format_spec() {
  static const ComponentSpec spec = [] {
    std::vector<ComponentSpec> choices;
    for (const TraceGenerator* g : trace_generators()) choices.push_back(g->spec());
    return ComponentSpec{
        "generator",          "no file: requests made by the generator trace.generator names",
        {generator_key()},    {},
        generator_key().name, choices};
  }();
  return spec;
}

}  // namespace

const KeySpec& generator_key() {
  static const KeySpec k = key("trace.generator", ValueType::kEnum)
                               .def("device_io")
                               .choices(generator_names())
                               .strict_to_readers()
                               .desc("the request generator");
  return k;
}

const TraceGenerator& trace_generator(const TraceConfig& config) {
  const std::string name = config.params.get<std::string>(generator_key());
  for (const TraceGenerator* g : trace_generators()) {
    if (g->spec().name == name) return *g;
  }
  throw_unknown_name("trace.generator", name, generator_names());
}

extern const TraceFormat kGeneratorFormat{
    &generator_format_spec,
    [](const TraceConfig& config) { return trace_generator(config).open(config); },
    [](const TraceConfig& config) {
      return text_content_hash(trace_generator(config).identity(config));
    },
    [](const TraceConfig& config) { trace_generator(config).check(config); }};

}  // namespace flashpq
