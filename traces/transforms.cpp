// traces/transforms.cpp — trace transforms (traces/transforms.h).
#include "traces/transforms.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "fmt/format.h"
#include "sim/rng.h"

namespace flashpq {

namespace {

constexpr size_t kBatch = 4096;

// The i-th derived key of `key` (i ≥ 1): amplify_keys' copies, repeat's fresh laps.
uint64_t derived_key(uint64_t key, uint64_t i) {
  return splitmix64_mix(key ^ splitmix64_mix(i * 0x9E3779B97F4A7C15ull + 0xA0761D6478BD642Full));
}

// A transform's reader: the one before it, wrapped. path() names the source.
class Wrapper : public TraceReader {
 public:
  explicit Wrapper(std::unique_ptr<TraceReader> in) : in_(std::move(in)) {}
  const std::string& path() const override { return in_->path(); }
  uint64_t preconditioning_requests() const override { return in_->preconditioning_requests(); }

 protected:
  std::unique_ptr<TraceReader> in_;
};

// Transforms that keep or change requests one for one, in place: `keep` returns whether a
// request stays (and may change it). read() returns 0 only at the source's end.
template <class Keep>
class FilterReader final : public Wrapper {
 public:
  FilterReader(std::unique_ptr<TraceReader> in, Keep keep)
      : Wrapper(std::move(in)), keep_(std::move(keep)) {}
  size_t read(std::span<Request> out) override {
    for (;;) {
      const size_t n = in_->read(out);
      if (n == 0) return 0;
      size_t kept = 0;
      for (size_t i = 0; i < n; ++i) {
        Request r = out[i];
        if (keep_(r)) out[kept++] = r;
      }
      if (kept > 0) return kept;
    }
  }

 private:
  Keep keep_;
};

template <class Keep>
std::unique_ptr<TraceReader> filter(std::unique_ptr<TraceReader> in, Keep keep) {
  return std::make_unique<FilterReader<Keep>>(std::move(in), std::move(keep));
}

// Transforms that turn one request into several: `count(r)` copies, `nth(r, i)` the i-th.
template <class Count, class Nth>
class ExpandReader final : public Wrapper {
 public:
  ExpandReader(std::unique_ptr<TraceReader> in, Count count, Nth nth)
      : Wrapper(std::move(in)), count_(std::move(count)), nth_(std::move(nth)), buf_(kBatch) {}
  size_t read(std::span<Request> out) override {
    size_t w = 0;
    while (w < out.size()) {
      if (pos_ == n_) {
        if (w > 0) break;  // hand out what is ready before reading more
        n_ = in_->read(buf_);
        pos_ = 0;
        copy_ = 0;
        if (n_ == 0) break;
      }
      const Request& r = buf_[pos_];
      const uint64_t copies = count_(r);
      while (copy_ < copies && w < out.size()) out[w++] = nth_(r, copy_++);
      if (copy_ == copies) {
        ++pos_;
        copy_ = 0;
      }
    }
    return w;
  }

 private:
  Count count_;
  Nth nth_;
  std::vector<Request> buf_;
  size_t pos_ = 0, n_ = 0;
  uint64_t copy_ = 0;
};

template <class Count, class Nth>
std::unique_ptr<TraceReader> expand(std::unique_ptr<TraceReader> in, Count count, Nth nth) {
  return std::make_unique<ExpandReader<Count, Nth>>(std::move(in), std::move(count),
                                                    std::move(nth));
}

class LimitReader final : public Wrapper {
 public:
  LimitReader(std::unique_ptr<TraceReader> in, uint64_t limit)
      : Wrapper(std::move(in)), left_(limit) {}
  size_t read(std::span<Request> out) override {
    if (left_ == 0) return 0;
    const size_t n =
        in_->read(out.first(static_cast<size_t>(std::min<uint64_t>(out.size(), left_))));
    left_ -= n;
    return n;
  }

 private:
  uint64_t left_;
};

class RepeatReader final : public Wrapper {
 public:
  RepeatReader(std::unique_ptr<TraceReader> in, uint64_t requests, bool fresh_keys,
               std::function<std::unique_ptr<TraceReader>()> reopen)
      : Wrapper(std::move(in)),
        left_(requests),
        fresh_keys_(fresh_keys),
        reopen_(std::move(reopen)) {}
  size_t read(std::span<Request> out) override {
    while (left_ > 0) {
      const size_t n =
          in_->read(out.first(static_cast<size_t>(std::min<uint64_t>(out.size(), left_))));
      if (n > 0) {
        for (size_t i = 0; i < n; ++i) {
          Request& r = out[i];
          if (lap_ == 0) {
            if (count_ == 0) first_ns_ = r.time_ns;
            last_ns_ = r.time_ns;
            ++count_;
          } else {
            r.time_ns += shift_ns_ * lap_;
            if (fresh_keys_) r.key = derived_key(r.key, lap_);
          }
        }
        left_ -= n;
        return n;
      }
      if (count_ == 0) return 0;  // an empty source repeats to nothing
      // The next lap: shifted by the span plus one mean gap, so arrivals stay evenly spaced.
      if (lap_ == 0 && count_ > 1) {
        const uint64_t span = last_ns_ - first_ns_;
        shift_ns_ = span + span / (count_ - 1);
      }
      ++lap_;
      in_ = reopen_();
    }
    return 0;
  }

 private:
  uint64_t left_;
  bool fresh_keys_;
  std::function<std::unique_ptr<TraceReader>()> reopen_;
  uint64_t lap_ = 0, count_ = 0, first_ns_ = 0, last_ns_ = 0, shift_ns_ = 0;
};

class FastForwardReader final : public Wrapper {
 public:
  FastForwardReader(std::unique_ptr<TraceReader> in, uint64_t requests, double seconds)
      : Wrapper(std::move(in)), skip_(requests), seconds_(seconds) {}
  size_t read(std::span<Request> out) override {
    for (;;) {
      const size_t n = in_->read(out);
      if (n == 0 || done_) return n;
      size_t from = 0;
      if (seconds_ > 0) {
        if (!started_) {
          started_ = true;
          end_ns_ = out[0].time_ns + static_cast<uint64_t>(std::llround(seconds_ * 1e9));
        }
        while (from < n && out[from].time_ns < end_ns_) ++from;
      } else {
        from = static_cast<size_t>(std::min<uint64_t>(n, skip_));
        skip_ -= from;
      }
      if (from < n) {
        done_ = true;
        std::copy(out.begin() + static_cast<ptrdiff_t>(from),
                  out.begin() + static_cast<ptrdiff_t>(n), out.begin());
        return n - from;
      }
    }
  }

 private:
  uint64_t skip_;
  double seconds_;
  bool started_ = false, done_ = false;
  uint64_t end_ns_ = 0;
};

// Keys of the transforms (short names; the transform's name prefixes them in errors).
const KeySpec kRate =
    key("rate", ValueType::kFloat).range(1e-9, 1).desc("fraction of the key space kept");
const KeySpec kRule = key("rule", ValueType::kEnum)
                          .def("shards")
                          .choices({"shards", "libcachesim"})
                          .desc("shards: h mod 2^24 < r 2^24; libcachesim: h mod floor(1/r) = 0");
const KeySpec kFactorInt = key("factor", ValueType::kInt)
                               .range(1, 1e6)
                               .desc("copies of each request (CacheBench ampFactor)");
const KeySpec kFactor = key("factor", ValueType::kFloat).range(1e-9, 1e9).desc("the multiplier");
const KeySpec kRequests =
    key("requests", ValueType::kInt).units("requests").range(0, 1125899906842624.0).desc("count");
const KeySpec kForwardRequests = key("requests", ValueType::kInt)
                                     .def("0")
                                     .units("requests")
                                     .range(0, 1125899906842624.0)
                                     .desc("requests skipped");
const KeySpec kSeconds = key("seconds", ValueType::kFloat)
                             .def("0")
                             .units("s")
                             .range(0, 1e12)
                             .desc("skip the requests within this time of the first");
const KeySpec kFreshKeys =
    key("fresh_keys", ValueType::kBool).def("false").desc("a new key space for every lap");
const KeySpec kKeep = key("keep", ValueType::kString).desc("operations kept: get,set,delete");
const KeySpec kPageSize = key("page_size", ValueType::kSize)
                              .def("4KiB")
                              .units("bytes")
                              .range(1, 4294967295.0)
                              .desc("bytes per page");

using Wrap = std::unique_ptr<TraceReader> (*)(std::unique_ptr<TraceReader>, const Params&,
                                              const std::function<std::unique_ptr<TraceReader>()>&);

struct Transform {
  const char* name;
  std::vector<KeySpec> keys;
  Wrap wrap;
};

uint64_t key_hash(uint64_t key) {
  return XXH3_64bits(&key, sizeof key);  // little-endian, as libCacheSim hashes obj_id
}

std::unique_ptr<TraceReader> wrap_sample(std::unique_ptr<TraceReader> in, const Params& p,
                                         const std::function<std::unique_ptr<TraceReader>()>&) {
  const double rate = p.get<double>(kRate);
  if (p.get<std::string>(kRule) == "libcachesim") {
    const auto inv = static_cast<uint64_t>(1.0 / rate);  // (int)(1.0 / sampling_ratio)
    return filter(std::move(in), [inv](Request& r) { return key_hash(r.key) % inv == 0; });
  }
  constexpr uint64_t kModulus = uint64_t{1} << 24;  // SHARDS' P
  const auto threshold = static_cast<uint64_t>(rate * static_cast<double>(kModulus));
  return filter(std::move(in),
                [threshold](Request& r) { return key_hash(r.key) % kModulus < threshold; });
}

std::unique_ptr<TraceReader> wrap_amplify(std::unique_ptr<TraceReader> in, const Params& p,
                                          const std::function<std::unique_ptr<TraceReader>()>&) {
  const auto k = p.get<uint64_t>(kFactorInt);
  return expand(
      std::move(in), [k](const Request&) { return k; },
      [](const Request& r, uint64_t i) {
        Request c = r;
        if (i > 0) c.key = derived_key(r.key, i);
        return c;
      });
}

std::unique_ptr<TraceReader> wrap_scale_sizes(
    std::unique_ptr<TraceReader> in, const Params& p,
    const std::function<std::unique_ptr<TraceReader>()>&) {
  const double f = p.get<double>(kFactor);
  return filter(std::move(in), [f](Request& r) {
    const double s = std::round(static_cast<double>(r.size_bytes) * f);
    r.size_bytes = static_cast<uint32_t>(std::clamp(s, 1.0, 4294967295.0));
    return true;
  });
}

std::unique_ptr<TraceReader> wrap_fast_forward(
    std::unique_ptr<TraceReader> in, const Params& p,
    const std::function<std::unique_ptr<TraceReader>()>&) {
  const auto n = p.get<uint64_t>(kForwardRequests);
  const double s = p.get<double>(kSeconds);
  if (n > 0 && s > 0) {
    throw std::invalid_argument(fmt::format(
        "key 'requests': expected requests or seconds, not both, found requests={} seconds={}", n,
        s));
  }
  return std::make_unique<FastForwardReader>(std::move(in), n, s);
}

std::unique_ptr<TraceReader> wrap_limit(std::unique_ptr<TraceReader> in, const Params& p,
                                        const std::function<std::unique_ptr<TraceReader>()>&) {
  return std::make_unique<LimitReader>(std::move(in), p.get<uint64_t>(kRequests));
}

std::unique_ptr<TraceReader> wrap_repeat(
    std::unique_ptr<TraceReader> in, const Params& p,
    const std::function<std::unique_ptr<TraceReader>()>& reopen) {
  return std::make_unique<RepeatReader>(std::move(in), p.get<uint64_t>(kRequests),
                                        p.get<bool>(kFreshKeys), reopen);
}

std::unique_ptr<TraceReader> wrap_time_scale(std::unique_ptr<TraceReader> in, const Params& p,
                                             const std::function<std::unique_ptr<TraceReader>()>&) {
  const double f = p.get<double>(kFactor);
  return filter(std::move(in), [f](Request& r) {
    r.time_ns = static_cast<uint64_t>(std::llround(static_cast<double>(r.time_ns) * f));
    return true;
  });
}

// "get,set" → a bit per Op. Throws naming an unknown operation.
unsigned ops_mask(const std::string& text) {
  unsigned mask = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string op = text.substr(start, end - start);
    op.erase(0, op.find_first_not_of(' '));
    op.erase(op.find_last_not_of(' ') + 1);
    if (op == "get") {
      mask |= 1u << static_cast<unsigned>(Op::kGet);
    } else if (op == "set") {
      mask |= 1u << static_cast<unsigned>(Op::kSet);
    } else if (op == "delete") {
      mask |= 1u << static_cast<unsigned>(Op::kDelete);
    } else {
      throw std::invalid_argument(
          fmt::format("key 'keep': expected get, set or delete, found '{}'", op));
    }
    start = end + 1;
  }
  return mask;
}

std::unique_ptr<TraceReader> wrap_filter_ops(std::unique_ptr<TraceReader> in, const Params& p,
                                             const std::function<std::unique_ptr<TraceReader>()>&) {
  const unsigned mask = ops_mask(p.get<std::string>(kKeep));
  return filter(std::move(in),
                [mask](Request& r) { return (mask >> static_cast<unsigned>(r.op) & 1u) != 0; });
}

std::unique_ptr<TraceReader> wrap_split_blocks(
    std::unique_ptr<TraceReader> in, const Params& p,
    const std::function<std::unique_ptr<TraceReader>()>&) {
  const auto page = p.get<uint64_t>(kPageSize);
  return expand(
      std::move(in),
      [page](const Request& r) { return (r.key + r.size_bytes - 1) / page - r.key / page + 1; },
      [page](const Request& r, uint64_t i) {
        return Request{r.time_ns, r.key / page + i, static_cast<uint32_t>(page), r.op};
      });
}

// The table: one line per transform.
const std::vector<Transform>& transforms() {
  static const std::vector<Transform> table{
      {"sample", {kRate, kRule}, &wrap_sample},
      {"amplify_keys", {kFactorInt}, &wrap_amplify},
      {"scale_sizes", {kFactor}, &wrap_scale_sizes},
      {"fast_forward", {kForwardRequests, kSeconds}, &wrap_fast_forward},
      {"limit", {kRequests}, &wrap_limit},
      {"repeat", {kRequests, kFreshKeys}, &wrap_repeat},
      {"time_scale", {kFactor}, &wrap_time_scale},
      {"filter_ops", {kKeep}, &wrap_filter_ops},
      {"split_blocks", {kPageSize}, &wrap_split_blocks},
  };
  return table;
}

const Transform& transform_named(const std::string& name, size_t position) {
  for (const Transform& t : transforms()) {
    if (name == t.name) return t;
  }
  std::string allowed;
  for (const Transform& t : transforms())
    allowed += (allowed.empty() ? "" : ", ") + std::string(t.name);
  throw std::invalid_argument(
      fmt::format("key 'trace.transforms': transform {}: expected one of {}, found '{}'", position,
                  allowed, name));
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t") + 1);
  return s;
}

}  // namespace

std::vector<TransformSpec> parse_transforms(const std::string& text) {
  std::vector<TransformSpec> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = trim(text.substr(start, end - start));
    start = end + 1;
    if (part.empty()) continue;
    const size_t position = out.size() + 1;
    TransformSpec spec;
    size_t sp = part.find_first_of(" \t");
    spec.name = part.substr(0, sp);
    const Transform& t = transform_named(spec.name, position);
    std::string rest = sp == std::string::npos ? "" : trim(part.substr(sp));
    while (!rest.empty()) {
      const size_t word_end = rest.find_first_of(" \t");
      const std::string word = rest.substr(0, word_end);
      rest = word_end == std::string::npos ? "" : trim(rest.substr(word_end));
      const size_t eq = word.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw std::invalid_argument(
            fmt::format("key 'trace.transforms': transform {} ({}): expected KEY=VALUE, found '{}'",
                        position, spec.name, word));
      }
      const std::string k = word.substr(0, eq);
      const auto it =
          std::find_if(t.keys.begin(), t.keys.end(), [&](const KeySpec& s) { return s.name == k; });
      if (it == t.keys.end()) {
        std::string allowed;
        for (const KeySpec& s : t.keys) allowed += (allowed.empty() ? "" : ", ") + s.name;
        throw std::invalid_argument(
            fmt::format("key 'trace.transforms': transform {} ({}): unknown key '{}' (allowed: {})",
                        position, spec.name, k, allowed));
      }
      if (spec.params.has(k)) {
        throw std::invalid_argument(
            fmt::format("key 'trace.transforms': transform {} ({}): key '{}' given twice", position,
                        spec.name, k));
      }
      spec.params.set(k, word.substr(eq + 1));
    }
    // Every key's value (and every required key) checked now, before anything runs: the
    // transform is built once on no source, reading its keys as it will.
    try {
      (void)t.wrap(nullptr, spec.params, {});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("key 'trace.transforms': transform {} ({}): {}",
                                              position, spec.name, e.what()));
    }
    out.push_back(std::move(spec));
  }
  return out;
}

const std::vector<std::string>& transform_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Transform& t : transforms()) v.emplace_back(t.name);
    return v;
  }();
  return names;
}

const std::vector<KeySpec>& transform_keys(const std::string& name) {
  return transform_named(name, 0).keys;
}

std::unique_ptr<TraceReader> apply_transforms(
    std::unique_ptr<TraceReader> source, const std::vector<TransformSpec>& specs,
    const std::function<std::unique_ptr<TraceReader>()>& reopen) {
  for (size_t i = 0; i < specs.size(); ++i) {
    // What transform i wraps, opened again: the source and the transforms before it.
    std::function<std::unique_ptr<TraceReader>()> again = [reopen, specs, i] {
      const std::vector<TransformSpec> before(specs.begin(),
                                              specs.begin() + static_cast<ptrdiff_t>(i));
      return apply_transforms(reopen(), before, reopen);
    };
    source = transform_named(specs[i].name, i + 1).wrap(std::move(source), specs[i].params, again);
  }
  return source;
}

double transforms_sample_rate(const std::vector<TransformSpec>& specs) {
  double rate = 1;
  for (const TransformSpec& s : specs) {
    if (s.name == "sample") rate *= s.params.get<double>(kRate);
  }
  return rate;
}

const KeySpec& transforms_key() {
  static const KeySpec k =
      key("trace.transforms", ValueType::kString)
          .from("none")
          .yaml_list_of_maps()
          .desc(
              "transforms applied in order: a YAML list of {name: ..., KEY: VALUE} (sample, "
              "amplify_keys, scale_sizes, fast_forward, limit, repeat, time_scale, "
              "filter_ops, split_blocks; traces/transforms.h)");
  return k;
}

}  // namespace flashpq
