// tests/experiments/test_schema.cpp — the experiment schema assembled from the registries
// (experiments/config/schema.h): the column order rule on sections made up here, the checks of
// declarations, which components read which key, the requirements gathered, and the rules
// make_cell applies to strict and shared keys.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/config/schema.h"
#include "experiments/experiment.h"
#include "tests/test_util.h"

namespace flashpq::test_schema {
namespace {

using Catch::Contains;
using namespace flashpq::testing;  // tests/test_util.h

KeySpec k(const std::string& name) {
  return key(name, ValueType::kInt).def("0").range(0, 9).desc(name);
}

std::vector<std::string> names(const AssembledSchema& s) {
  std::vector<std::string> out;
  for (const SchemaKey& key : s.keys) out.push_back(key.spec.name);
  return out;
}

TEST_CASE("schema: a section's keys first, then every component's in its declared order",
          "[schema]") {
  // a reads x.p, x.s; b reads x.q, x.s; c reads x.r. The shared x.s must follow both x.p
  // (a's order) and x.q (b's), so it waits for b; earlier registrations go first otherwise.
  const SectionSpec x{"x",
                      {key("x.name", ValueType::kEnum).def("a").choices({"a", "b", "c"})},
                      "x.name",
                      {ComponentSpec{"a", "", {k("x.p"), k("x.s")}, {}, {}, {}},
                       ComponentSpec{"b", "", {k("x.q"), k("x.s")}, {}, {}, {}},
                       ComponentSpec{"c", "", {k("x.r")}, {}, {}, {}}}};
  const AssembledSchema s = assemble_schema({&x}, {});
  CHECK(names(s) == std::vector<std::string>{"x.name", "x.p", "x.q", "x.s", "x.r"});
  CHECK(s.keys[0].selector);
  CHECK(s.keys[0].readers.empty());  // a section key: every cell reads it
  CHECK(s.keys[3].reader_names() == "a, b");
  CHECK(s.keys[3].readers_text() == "x.name a or b");
}

TEST_CASE("schema: nested choices follow their selector -- their keys name the whole selection",
          "[schema]") {
  const SectionSpec t{"t",
                      {key("t.mode", ValueType::kEnum).def("none").choices({"none", "on"})},
                      "t.mode",
                      {ComponentSpec{"none", "", {}, {}, {}, {}},
                       ComponentSpec{"on",
                                     "",
                                     {k("t.how")},
                                     {Requirement{{}, "d.name", {"real"}, "on needs a real d"}},
                                     "t.how",
                                     {ComponentSpec{"fast", "", {k("t.rate")}, {}, {}, {}}}}}};
  const AssembledSchema s = assemble_schema({&t}, {});
  CHECK(names(s) == std::vector<std::string>{"t.mode", "t.how", "t.rate"});
  CHECK(s.keys[1].selector);  // a nested selector selects too
  const SchemaKey& rate = s.keys[2];
  REQUIRE(rate.readers.size() == 1);
  CHECK(rate.readers[0] ==
        std::vector<std::pair<std::string, std::string>>{{"t.mode", "on"}, {"t.how", "fast"}});
  CHECK(rate.readers_text() == "t.how fast");
  // A component's requirement holds under its selection.
  REQUIRE(s.requirements.size() == 1);
  CHECK(s.requirements[0].when.size() == 1);
  CHECK(s.requirements[0].when[0].key == "t.mode");
  CHECK(s.requirements[0].when[0].values == std::vector<std::string>{"on"});
}

TEST_CASE("schema: a key declared twice differently, or contradictory orders, are errors",
          "[schema]") {
  KeySpec other = k("x.s");
  other.default_value = "1";
  const SectionSpec twice{"x",
                          {},
                          "",
                          {ComponentSpec{"a", "", {k("x.s")}, {}, {}, {}},
                           ComponentSpec{"b", "", {other}, {}, {}, {}}}};
  CHECK_THROWS_WITH(assemble_schema({&twice}, {}), Contains("x.s") && Contains("differently"));
  const SectionSpec crossed{"x",
                            {},
                            "",
                            {ComponentSpec{"a", "", {k("x.p"), k("x.q")}, {}, {}, {}},
                             ComponentSpec{"b", "", {k("x.q"), k("x.p")}, {}, {}, {}}}};
  CHECK_THROWS_WITH(assemble_schema({&crossed}, {}), Contains("contradict"));
}

TEST_CASE("the experiment schema: assembled without error -- who reads what", "[schema]") {
  REQUIRE_NOTHROW(experiment_schema());
  auto readers = [](const std::string& name) {
    const SchemaKey* key = find_key(name);
    REQUIRE(key != nullptr);
    return key->reader_names();
  };
  CHECK(readers("framework.block_size") == "ripq, sipq");
  CHECK(readers("framework.read_hits") ==
        "exact, ripq, sipq, bighash, blockcache, kangaroo, hybrid");
  CHECK(readers("framework.offset_unit") == "direct");
  CHECK(readers("policy.segments") == "slru, gdsf");
  CHECK(readers("trace.path") ==
        "oracleGeneral, kvcache_csv, csv, twitter, msr, fio_iolog, cachelib_block, fpq, lcs");
  CHECK(readers("trace.pattern") == "device_io");
  CHECK(readers("timing.clients") == "closed_loop");
  CHECK(readers("device.channels") == "simflash");
  CHECK(readers("cache.capacity").empty());
  CHECK(find_key("framework.offset_unit")->spec.strict);
  CHECK_FALSE(find_key("framework.insertion_points")->spec.strict);
  // The components' requirements and the runners', all gathered.
  std::vector<std::string> why;
  for (const Requirement& r : schema_requirements()) why.push_back(r.why);
  auto has = [&](const std::string& text) {
    return std::any_of(why.begin(), why.end(),
                       [&](const std::string& w) { return w.find(text) != std::string::npos; });
  };
  CHECK(has("wtinylfu"));
  CHECK(has("device_io"));
  CHECK(has("simulated needs device simflash"));
  CHECK(has("wall needs device block"));
}

TEST_CASE("make_cell: a shared key of another component is shown, a strict one refused",
          "[schema]") {
  TempDir dir;
  const std::string trace = FLASHPQ_SOURCE_DIR "/traces/data/adaptsize-request.oracleGeneral.zst";
  const std::string file = dir.write("s.yaml", "trace: {path: " + trace +
                                                   "}\nframework: {name: exact, "
                                                   "insertion_points: 4}\n");
  const Experiment ex = load_experiment(file, {});
  auto param = [&](const std::string& name) {
    for (const auto& [k, v] : ex.cells[0].parameters) {
      if (k == name) return v;
    }
    return std::string("?");
  };
  CHECK(param("framework.insertion_points") == "4");  // shown, not read by exact
  CHECK(param("framework.offset_unit").empty());      // strict, not read: empty
  CHECK_THROWS_WITH(
      load_experiment(file, {{"framework.offset_unit", "512"}}),
      Contains("framework.offset_unit") && Contains("it applies to framework.name direct only"));
  // A value of a shared key is still checked.
  CHECK_THROWS_WITH(load_experiment(file, {{"framework.insertion_points", "65"}}),
                    Contains("framework.insertion_points") && Contains("[1, 64]"));
}

}  // namespace
}  // namespace flashpq::test_schema
