// experiments/config/schema.h — the experiment schema, assembled from the registries.
//
// Source: docs/DESIGN.md "Parameters". No key is declared here: every section's keys come
// from the layer that owns it — trace (traces/trace_reader.h and the formats and generators),
// cache (engine/cache.h), policy and admission (policies/registry.h), framework
// (engine/framework.h), device (devices/device.h), timing (sim/timing.h), tiers
// (engine/tiers.h), backing (devices/backing.h) — and the experiment's own two keys, seed and
// warmup. The schema flattens them into one list in results column order: each section's own keys,
// then its components' keys so that every component's keys keep their declared order
// (earlier-registered components first where that leaves a choice). Each key records the selections
// under which a component reads it, and the requirements of every component are gathered with the
// selection they hold under, together with the runners' (experiments/config/runner_requirements.h),
// to be checked in one place (experiments/config/cell_config.cpp).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/params.h"

namespace flashpq {

/// One key of the experiment schema.
struct SchemaKey {
  KeySpec spec;
  /// The section ("trace", "cache", …), or "" for the experiment's own keys (seed, warmup).
  std::string section;
  /// The selections under which a component reads the key, each a chain of (selector key,
  /// value) pairs from the section's root: {{"framework.name", "ripq"}}; {{"timing.mode",
  /// "simulated"}, {"timing.arrival", "closed_loop"}}. Empty: every cell reads it.
  std::vector<std::vector<std::pair<std::string, std::string>>> readers;
  /// A key that selects a component (framework.name, trace.generator, timing.arrival…).
  bool selector = false;

  /// "framework.name ripq or sipq": who reads the key, for messages. "" when readers is empty.
  std::string readers_text() const;
  /// "ripq, sipq": the names of the components that read it, for help. "" when readers is empty.
  std::string reader_names() const;
};

/// A schema: its keys in column order and the requirements across its components.
struct AssembledSchema {
  std::vector<SchemaKey> keys;
  std::vector<Requirement> requirements;
};

/// Flattens `sections` (in order) into a schema, adding `extra_requirements` to the components'.
/// Each section's own keys come first; then its components' keys, placed so that every
/// component's keys (a nested choice's after its selector) keep their declared order, the
/// earliest-registered component's first where that leaves a choice. Throws std::logic_error
/// if a key is declared twice differently or the declared orders contradict each other.
AssembledSchema assemble_schema(const std::vector<const SectionSpec*>& sections,
                                const std::vector<Requirement>& extra_requirements);

/// The sections of an experiment, in results column order: trace, the experiment's own keys
/// (section ""), cache, policy, admission, framework, device, timing, tiers, backing.
const std::vector<const SectionSpec*>& schema_section_specs();

/// Every key an experiment may set, in results column order. Throws std::logic_error at first
/// use if two components declare the same key differently (a programming error; a test checks
/// it never happens).
const std::vector<SchemaKey>& experiment_schema();

/// The key named `name`, or nullptr.
const SchemaKey* find_key(std::string_view name);

/// The sections, in order ("trace", "", "cache", "policy", …; "" = the experiment's keys).
const std::vector<std::string>& schema_sections();

/// Every requirement across components (sim/params.h Requirement): each component's, with the
/// selection it holds under added to its conditions, then the runners'.
const std::vector<Requirement>& schema_requirements();

/// Wraps `text` into lines of at most `width` characters, breaking at spaces (a word longer
/// than a line gets a line of its own), each line prefixed by `indent` and ended by '\n'; a '\n'
/// in `text` starts a new line. "" for an empty text.
std::string wrap_text(std::string_view text, size_t width, std::string_view indent = "");

/// The experiment-key reference of `flashpq keys [SELECTION]`, lines of at most 100 characters.
/// SELECTION "" gives the overview (the sections, their components, how to look further); a
/// section ("framework"; "experiment" for the experiment's own keys name, output, seed and
/// warmup) gives its components and every key; SECTION.COMPONENT ("framework.ripq",
/// "trace.zipf" for a nested choice) the component's summary and the keys it reads; a key
/// ("framework.block_size") that key. Each key shows its default or where its value comes from,
/// its unit, the values it takes, who reads it and its description. Throws
/// std::invalid_argument naming the selection and listing the valid sections (and, under a
/// known section, its components and keys).
std::string keys_reference(std::string_view selection);

/// The whole reference as Markdown (`flashpq keys --markdown`, docs/reference/keys.md): every
/// section with its components and a table of its keys.
std::string keys_markdown();

}  // namespace flashpq
