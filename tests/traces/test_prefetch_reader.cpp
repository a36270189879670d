// Tests of traces/prefetch_reader.h: same stream as the inner reader, errors in place.
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <vector>

#include "traces/prefetch_reader.h"

namespace flashpq::test_prefetch_reader {
namespace {

// A reader of requests with keys 0..n-1 that throws TraceError after `fail_after` of them
// (never when fail_after >= n), handing out at most `chunk` per call.
class CountingReader final : public TraceReader {
 public:
  CountingReader(uint64_t n, uint64_t fail_after, size_t chunk)
      : n_(n), fail_after_(fail_after), chunk_(chunk) {}
  size_t read(std::span<Request> out) override {
    size_t k = 0;
    while (k < out.size() && k < chunk_ && next_ < n_) {
      if (next_ == fail_after_) {
        if (k > 0) break;  // the requests before the fault are delivered first
        throw TraceError("counting: fault at request " + std::to_string(next_));
      }
      out[k++] = Request{next_ * 10, next_, 1, Op::kGet};
      ++next_;
    }
    return k;
  }
  const std::string& path() const override { return path_; }

 private:
  uint64_t n_, fail_after_, next_ = 0;
  size_t chunk_;
  std::string path_ = "counting";
};

std::vector<uint64_t> drain_keys(TraceReader& r, size_t span) {
  std::vector<Request> buf(span);
  std::vector<uint64_t> keys;
  for (size_t n; (n = r.read(buf)) != 0;) {
    for (size_t i = 0; i < n; ++i) keys.push_back(buf[i].key);
  }
  return keys;
}

}  // namespace

TEST_CASE("prefetch reader yields the inner reader's stream in order", "[traces]") {
  for (size_t batch : {1, 3, 1000}) {
    for (size_t span : {1, 7, 4096}) {
      PrefetchReader r(std::make_unique<CountingReader>(10'000, UINT64_MAX, 333), batch, 3);
      const std::vector<uint64_t> keys = drain_keys(r, span);
      REQUIRE(keys.size() == 10'000);
      for (uint64_t i = 0; i < keys.size(); ++i) REQUIRE(keys[i] == i);
      std::vector<Request> buf(8);
      REQUIRE(r.read(buf) == 0);  // keeps returning 0 at the end
    }
  }
}

TEST_CASE("prefetch reader re-throws an inner error after the requests before it", "[traces]") {
  PrefetchReader r(std::make_unique<CountingReader>(10'000, 4321, 100), 256, 2);
  std::vector<Request> buf(1000);
  uint64_t got = 0;
  bool threw = false;
  try {
    for (size_t n; (n = r.read(buf)) != 0;) {
      for (size_t i = 0; i < n; ++i) REQUIRE(buf[i].key == got + i);
      got += n;
    }
  } catch (const TraceError& e) {
    threw = true;
    REQUIRE_THAT(e.what(), Catch::Contains("fault at request 4321"));
  }
  REQUIRE(threw);
  REQUIRE(got == 4321);
}

TEST_CASE("prefetch reader can be destroyed before the end", "[traces]") {
  PrefetchReader r(std::make_unique<CountingReader>(1'000'000, UINT64_MAX, 1000), 64, 2);
  std::vector<Request> buf(10);
  REQUIRE(r.read(buf) == 10);
  // The destructor must stop the producer, which is blocked on a full ring.
}

}  // namespace flashpq::test_prefetch_reader
