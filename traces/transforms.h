// traces/transforms.h — trace transforms: `trace.transforms` reshapes any source (a file of any
// format, or a generator) the way the literature does, applied in the order written, each one a
// reader wrapped around the one before.
//
// In YAML a list of maps, `transforms: [{name: sample, rate: 0.01}, {name: limit, requests:
// 1000000}]`; the experiment loader writes it as the text "sample rate=0.01; limit
// requests=1000000", which may also be written directly (and is the results column). Each
// transform is one entry of the table in traces/transforms.cpp with its keys (type, default,
// range, description), so an unknown transform or key is an error naming the allowed ones:
//   sample        spatial sampling by key hash at `rate` r, `rule: shards` (keep when h mod 2^24
//                 < r · 2^24; Waldspurger et al., "Efficient MRC construction with SHARDS",
//                 FAST'15) or `rule: libcachesim` (keep when h mod ⌊1/r⌋ = 0; libCacheSim's
//                 traceReader/sampling/spatial.c), h = XXH3-64 of the key's 8 bytes
//                 (libCacheSim's get_hash_value_int_64 with its default XXHASH3). A sampled
//                 trace emulates a cache 1/r times larger (the RIPQ paper §6 scales its caches
//                 this way): the row's trace_sample_rate is the product of the rates;
//   amplify_keys  CacheBench's ampFactor k: every request is replayed k times, the first with its
//                 key, the others with keys derived from (key, i) by a fixed mix;
//   scale_sizes   every size × factor, rounded, at least 1 byte;
//   fast_forward  skip the first `requests` requests, or those within `seconds` of the first
//                 request's time;
//   limit         stop after `requests` requests;
//   repeat        loop the source to `requests` requests, each lap's times shifted by the span
//                 of the source plus one mean inter-arrival gap, with `fresh_keys` a new key
//                 space per lap (CacheBench's binary replayer repeats a trace shorter than the
//                 run);
//   time_scale    every time × factor (0.5: twice the request rate);
//   filter_ops    keep the operations listed in `keep` ("get,set": any of get, set, delete);
//   split_blocks  a block request (key = byte offset, size = length) becomes one get or set per
//                 `page_size` page it touches (default 4 KiB), key = the page number, size =
//                 the page size, so block traces run on a key-value cache.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/params.h"
#include "traces/trace_reader.h"

namespace flashpq {

/// One transform as written: its name and its keys (short names: "rate").
struct TransformSpec {
  std::string name;
  Params params;
};

/// Parses "name k=v k=v; name k=v" (empty or blank: no transform). Throws
/// std::invalid_argument naming the transform (by position and name) and the key: an unknown
/// transform or key, a key without '=', a value its declaration refuses.
std::vector<TransformSpec> parse_transforms(const std::string& text);

/// The registered transforms' names, in registration order.
const std::vector<std::string>& transform_names();

/// The keys of transform `name` (short names), for help. Throws std::invalid_argument for an
/// unknown name.
const std::vector<KeySpec>& transform_keys(const std::string& name);

/// `source` with every transform of `specs` applied in order. `reopen` opens the source again
/// (repeat reads it once per lap). Throws as parse_transforms.
std::unique_ptr<TraceReader> apply_transforms(
    std::unique_ptr<TraceReader> source, const std::vector<TransformSpec>& specs,
    const std::function<std::unique_ptr<TraceReader>()>& reopen);

/// The product of the sample transforms' rates (1 without one): the fraction of the key space
/// a sampled trace keeps.
double transforms_sample_rate(const std::vector<TransformSpec>& specs);

/// The transforms of `config` (its trace.transforms), parsed. Throws as parse_transforms.
std::vector<TransformSpec> trace_transforms(const TraceConfig& config);

/// trace.transforms: the transforms of every trace section (the text form above; empty: none).
const KeySpec& transforms_key();

}  // namespace flashpq
