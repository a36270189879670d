// tests/traces/test_transforms.cpp — trace transforms (traces/transforms.h): each transform on a
// tiny trace against the requests computed by hand, their composition in order, reads in
// batches of one (a transform's state across reads), the parse errors, and open_trace applying
// trace.transforms to a real file.
#include <xxhash.h>

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <vector>

#include "traces/transforms.h"

namespace flashpq::test_transforms {
namespace {

class VectorReader final : public TraceReader {
 public:
  explicit VectorReader(std::vector<Request> reqs) : reqs_(std::move(reqs)) {}
  size_t read(std::span<Request> out) override {
    const size_t n = std::min(out.size(), reqs_.size() - pos_);
    std::copy(reqs_.begin() + static_cast<ptrdiff_t>(pos_),
              reqs_.begin() + static_cast<ptrdiff_t>(pos_ + n), out.begin());
    pos_ += n;
    return n;
  }
  const std::string& path() const override { return name_; }

 private:
  std::vector<Request> reqs_;
  size_t pos_ = 0;
  std::string name_ = "vector";
};

// The requests of `trace` through `transforms`, read in batches of `batch`.
std::vector<Request> run(const std::vector<Request>& trace, const std::string& transforms,
                         size_t batch = 1000) {
  auto open = [trace] { return std::make_unique<VectorReader>(trace); };
  auto reader = apply_transforms(open(), parse_transforms(transforms), open);
  std::vector<Request> out, buf(batch);
  for (size_t n; (n = reader->read(buf)) != 0;) out.insert(out.end(), buf.begin(), buf.begin() + n);
  return out;
}

std::vector<uint64_t> keys(const std::vector<Request>& r) {
  std::vector<uint64_t> k;
  for (const Request& x : r) k.push_back(x.key);
  return k;
}
std::vector<uint64_t> times(const std::vector<Request>& r) {
  std::vector<uint64_t> t;
  for (const Request& x : r) t.push_back(x.time_ns);
  return t;
}

// Five requests: time (s), key, size, op.
const std::vector<Request> kTiny = {
    {0, 10, 100, Op::kGet},
    {1'000'000'000, 11, 3, Op::kSet},
    {2'000'000'000, 10, 1, Op::kGet},
    {3'000'000'000, 12, 7, Op::kDelete},
    {4'000'000'000, 13, 50, Op::kGet},
};

TEST_CASE("transforms: limit and fast_forward cut the trace", "[transforms]") {
  CHECK(keys(run(kTiny, "limit requests=3")) == std::vector<uint64_t>{10, 11, 10});
  CHECK(run(kTiny, "limit requests=0").empty());
  CHECK(keys(run(kTiny, "fast_forward requests=2")) == std::vector<uint64_t>{10, 12, 13});
  CHECK(run(kTiny, "fast_forward requests=9").empty());
  // Requests within 1.5 s of the first (at 0 s, 1 s) are skipped.
  CHECK(keys(run(kTiny, "fast_forward seconds=1.5")) == std::vector<uint64_t>{10, 12, 13});
  for (size_t batch : {1, 2, 1000}) {
    INFO("batch " << batch);
    CHECK(keys(run(kTiny, "fast_forward requests=1; limit requests=2", batch)) ==
          std::vector<uint64_t>{11, 10});
  }
}

TEST_CASE("transforms: scale_sizes, time_scale and filter_ops change each request",
          "[transforms]") {
  const auto s = run(kTiny, "scale_sizes factor=0.5");
  std::vector<uint32_t> sizes;
  for (const Request& r : s) sizes.push_back(r.size_bytes);
  // round(50), round(1.5), round(0.5) (away from zero), at least 1, round(3.5), round(25).
  CHECK(sizes == std::vector<uint32_t>{50, 2, 1, 4, 25});
  CHECK(times(run(kTiny, "time_scale factor=0.5")) ==
        std::vector<uint64_t>{0, 500'000'000, 1'000'000'000, 1'500'000'000, 2'000'000'000});
  CHECK(keys(run(kTiny, "filter_ops keep=get,delete")) == std::vector<uint64_t>{10, 10, 12, 13});
  CHECK(keys(run(kTiny, "filter_ops keep=set")) == std::vector<uint64_t>{11});
}

TEST_CASE("transforms: amplify_keys replays each request k times with distinct keys",
          "[transforms]") {
  for (size_t batch : {1, 4, 1000}) {
    INFO("batch " << batch);
    const auto a = run(kTiny, "amplify_keys factor=3", batch);
    REQUIRE(a.size() == 15);
    for (size_t i = 0; i < kTiny.size(); ++i) {
      CHECK(a[3 * i].key == kTiny[i].key);  // the first copy keeps the key
      for (size_t c = 0; c < 3; ++c) {
        CHECK(a[3 * i + c].time_ns == kTiny[i].time_ns);
        CHECK(a[3 * i + c].size_bytes == kTiny[i].size_bytes);
        CHECK(a[3 * i + c].op == kTiny[i].op);
      }
    }
    // Copies of one key are one key each time it recurs: key 10's copies at 0-2 and 6-8.
    CHECK(a[1].key == a[7].key);
    CHECK(a[2].key == a[8].key);
    // Four distinct keys × 3 copies = 12 distinct keys.
    std::set<uint64_t> distinct;
    for (const Request& r : a) distinct.insert(r.key);
    CHECK(distinct.size() == 12);
  }
}

TEST_CASE("transforms: repeat loops the source, times shifted by span plus one gap",
          "[transforms]") {
  const std::vector<Request> three = {
      {10, 1, 8, Op::kGet}, {20, 2, 8, Op::kGet}, {30, 3, 8, Op::kGet}};
  for (size_t batch : {1, 2, 1000}) {
    INFO("batch " << batch);
    const auto r = run(three, "repeat requests=7", batch);
    // Span 20 ns, mean gap 10 ns: each lap 30 ns later.
    CHECK(times(r) == std::vector<uint64_t>{10, 20, 30, 40, 50, 60, 70});
    CHECK(keys(r) == std::vector<uint64_t>{1, 2, 3, 1, 2, 3, 1});
  }
  const auto fresh = run(three, "repeat requests=6 fresh_keys=true");
  const std::vector<uint64_t> fresh_keys = keys(fresh);
  REQUIRE(fresh_keys.size() == 6);
  CHECK(std::vector<uint64_t>(fresh_keys.begin(), fresh_keys.begin() + 3) ==
        std::vector<uint64_t>{1, 2, 3});
  std::set<uint64_t> distinct;
  for (const Request& x : fresh) distinct.insert(x.key);
  CHECK(distinct.size() == 6);
  // Shorter than the source: a limit.
  CHECK(keys(run(three, "repeat requests=2")) == std::vector<uint64_t>{1, 2});
  CHECK(run({}, "repeat requests=5").empty());
}

TEST_CASE("transforms: split_blocks makes one request per page touched", "[transforms]") {
  const std::vector<Request> blocks = {
      {5, 4000, 200, Op::kGet},   // bytes 4000..4199: pages 0 and 1
      {6, 8192, 4096, Op::kSet},  // exactly page 2
      {7, 0, 1, Op::kGet},        // page 0
      {8, 4096, 8193, Op::kSet},  // bytes 4096..12288: pages 1, 2, 3
  };
  for (size_t batch : {1, 1000}) {
    INFO("batch " << batch);
    const auto p = run(blocks, "split_blocks", batch);
    CHECK(keys(p) == std::vector<uint64_t>{0, 1, 2, 0, 1, 2, 3});
    CHECK(times(p) == std::vector<uint64_t>{5, 5, 6, 7, 8, 8, 8});
    for (const Request& r : p) CHECK(r.size_bytes == 4096);
    CHECK(p[2].op == Op::kSet);
  }
  CHECK(keys(run(blocks, "split_blocks page_size=8KiB")) == std::vector<uint64_t>{0, 1, 0, 0, 1});
}

TEST_CASE("transforms: sample keeps a key's every request, at the rate, by either rule",
          "[transforms]") {
  std::vector<Request> trace;
  for (uint64_t i = 0; i < 200'000; ++i) trace.push_back({i, i % 50'000, 1, Op::kGet});
  for (const char* rule : {"shards", "libcachesim"}) {
    INFO(rule);
    const auto s = run(trace, std::string("sample rate=0.25 rule=") + rule);
    std::map<uint64_t, int> per_key;
    for (const Request& r : s) ++per_key[r.key];
    for (const auto& [k, n] : per_key) CHECK(n == 4);  // each kept key's 4 requests
    // 50,000 keys at 0.25: 12,500 expected, sd 97.
    CHECK(std::abs(static_cast<double>(per_key.size()) - 12'500) < 500);
    // The rule, key by key: XXH3-64 of the key's 8 bytes.
    for (uint64_t k = 0; k < 1000; ++k) {
      const uint64_t h = XXH3_64bits(&k, sizeof k);
      const bool kept = std::string(rule) == "shards" ? h % (1u << 24) < (1u << 22) : h % 4 == 0;
      CHECK(per_key.count(k) == (kept ? 1u : 0u));
    }
  }
  CHECK(transforms_sample_rate(parse_transforms("sample rate=0.5; limit requests=3; sample "
                                                "rate=0.1")) == Approx(0.05));
  CHECK(transforms_sample_rate(parse_transforms("")) == 1);
}

TEST_CASE("transforms: applied in the order written", "[transforms]") {
  CHECK(run(kTiny, "limit requests=2; amplify_keys factor=2").size() == 4);
  const auto a = run(kTiny, "amplify_keys factor=2; limit requests=3");
  REQUIRE(a.size() == 3);
  CHECK(a[0].key == 10);
  CHECK(a[2].key == 11);
  CHECK(keys(run(kTiny, "filter_ops keep=get; fast_forward requests=1")) ==
        std::vector<uint64_t>{10, 13});
  CHECK(keys(run(kTiny, "fast_forward requests=1; filter_ops keep=get")) ==
        std::vector<uint64_t>{10, 13});
  CHECK(keys(run(kTiny, "limit requests=2; repeat requests=5")) ==
        std::vector<uint64_t>{10, 11, 10, 11, 10});
}

TEST_CASE("transforms: a bad transform is an error naming it, its key and the value",
          "[transforms]") {
  CHECK(parse_transforms("").empty());
  CHECK(parse_transforms("  ;  ").empty());
  CHECK_THROWS_WITH(parse_transforms("smaple rate=0.1"), Catch::Contains("transform 1") &&
                                                             Catch::Contains("'smaple'") &&
                                                             Catch::Contains("sample"));
  CHECK_THROWS_WITH(parse_transforms("limit requests=5; sample rat=0.1"),
                    Catch::Contains("transform 2 (sample)") && Catch::Contains("'rat'") &&
                        Catch::Contains("rate, rule"));
  CHECK_THROWS_WITH(parse_transforms("sample rate=2"),
                    Catch::Contains("rate") && Catch::Contains("'2'"));
  CHECK_THROWS_WITH(parse_transforms("limit"), Catch::Contains("requests"));
  CHECK_THROWS_WITH(parse_transforms("limit requests"), Catch::Contains("KEY=VALUE"));
  CHECK_THROWS_WITH(parse_transforms("filter_ops keep=get,put"), Catch::Contains("'put'"));
  CHECK_THROWS_WITH(parse_transforms("fast_forward requests=1 seconds=2"),
                    Catch::Contains("not both"));
  CHECK_THROWS_WITH(parse_transforms("limit requests=1 requests=2"), Catch::Contains("twice"));
}

TEST_CASE("transforms: open_trace applies trace.transforms to a file", "[transforms]") {
  TraceConfig c = trace_file(FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst");
  auto count = [](const TraceConfig& t) {
    auto r = open_trace(t);
    std::vector<Request> buf(4096);
    uint64_t n = 0;
    for (size_t k; (k = r->read(buf)) != 0;) n += k;
    return n;
  };
  const uint64_t whole = count(c);
  c.params.set("trace.transforms", "fast_forward requests=1000; limit requests=500");
  CHECK(count(c) == 500);
  c.params.set("trace.transforms", "repeat requests=" + std::to_string(whole * 2 + 7));
  CHECK(count(c) == whole * 2 + 7);
}

}  // namespace
}  // namespace flashpq::test_transforms
