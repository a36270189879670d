// fuzz/cachebench_import_fuzz.h — the fuzz target `cachebench_import` (fuzz/targets.h): CacheBench
// JSON configs through experiments/import/cachebench.h, and the experiment each accepted one
// imports to through the loader.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace flashpq::fuzz {

/// Runs one input: the config's JSON text, then optionally a NUL byte and the text of a file
/// written as SCRATCH/dist.json (so that a config naming "dist.json" as valSizeDistFile,
/// popDistFile or a trace file reaches it; the file is rewritten, empty without a NUL, on every
/// run). A refusal (std::invalid_argument) is the documented outcome of a bad config; any other
/// exception, a YAML::Exception leaking from the importer, an imported YAML that yaml-cpp cannot
/// read or that the loader refuses (an accepted import must load), or a broken invariant of the
/// result is a finding (report_finding(), which aborts).
void cachebench_import_target(std::span<const uint8_t> data, const std::string& scratch);

}  // namespace flashpq::fuzz
