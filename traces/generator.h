// traces/generator.h — the "generator" trace format: requests made, not read. `trace.generator`
// selects one registered generator; each is one file of this folder (its reader, its keys, its
// TraceGenerator) plus one line in the registry of traces/generator.cpp:
//   device_io   block I/O for framework direct: a sequential fill, then sequential or uniform
//               random reads or writes (traces/device_io.h);
//   zipf        gets of N keys with Zipf(alpha) popularity, optionally scrambled over the key
//               space, objects sized by traces/object_sizes.h (traces/zipf.h);
//   ycsb        YCSB's CoreWorkload a-f: gets, sets, scans and read-modify-writes with YCSB's
//               scrambled zipfian, latest, hotspot or uniform keys (traces/ycsb.h);
//   cachebench  CacheBench's stressor shape: op ratios, piecewise-uniform key and value sizes,
//               uniform or zipf keys (traces/cachebench.cpp).
// A generator is seeded by the cell's seed (TraceConfig::seed) and its content hash is the hash
// of its parameters (TraceGenerator::identity), so the same cell gives the same requests and
// the same trace_hash.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

namespace flashpq {

/// A generator as registered (traces/generator.cpp, one line per generator).
struct TraceGenerator {
  /// Name, summary, keys and requirements.
  const ComponentSpec& (*spec)();
  /// Starts the generator. Throws std::invalid_argument quoting a bad value.
  std::unique_ptr<TraceReader> (*open)(const TraceConfig& config);
  /// A stable text of every parameter (the seed and the device geometry included) whose hash is
  /// the trace's content hash.
  std::string (*identity)(const TraceConfig& config);
  /// Checks the config before anything runs. Throws std::invalid_argument quoting a bad value.
  void (*check)(const TraceConfig& config);
};

/// The registered generators, in registration order.
const std::vector<const TraceGenerator*>& trace_generators();
/// The generator that config's trace.generator names. Throws std::invalid_argument naming the
/// allowed names.
const TraceGenerator& trace_generator(const TraceConfig& config);

/// trace.generator: which generator the "generator" format runs (its allowed values are the
/// registered names).
const KeySpec& generator_key();

/// trace.rate and trace.arrival, read by the generators of key-value requests: with a rate > 0
/// request i's time is i / rate seconds (constant) or the i-th arrival of a Poisson process of
/// that rate (sim/arrivals.h, from a stream of its own); with rate 0 every time is 0.
const std::vector<KeySpec>& generator_time_keys();
/// `reader` with its times set by trace.rate and trace.arrival (unchanged at rate 0).
std::unique_ptr<TraceReader> with_arrivals(std::unique_ptr<TraceReader> reader,
                                           const TraceConfig& config);
/// The arrival keys' part of a generator's identity ("" at rate 0, so rate-less identities and
/// content hashes stay as they were).
std::string arrivals_identity(const TraceConfig& config);

/// trace.requests, read by every generator: how many requests it yields (device_io: after its
/// fill). Default 1,000,000; range [1, 2^50].
const KeySpec& generator_requests_key();

}  // namespace flashpq
