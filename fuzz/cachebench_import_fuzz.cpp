// fuzz/cachebench_import_fuzz.cpp — the fuzz target `cachebench_import`
// (fuzz/cachebench_import_fuzz.h; registered in fuzz/targets.cpp's table, its seeds in
// fuzz/corpus/cachebench_import/: the shipped configs of tests/data/cachebench/).
#include "fuzz/cachebench_import_fuzz.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <typeinfo>

#include "experiments/config/cell_config.h"
#include "experiments/experiment.h"
#include "experiments/import/cachebench.h"
#include "fuzz/targets.h"
#include "yaml-cpp/exceptions.h"
#include "yaml-cpp/yaml.h"

namespace flashpq::fuzz {

namespace {

constexpr const char* kName = "cachebench_import";

// Writes `text` to `path` (truncating), as fuzz/targets.cpp's write_input.
void write_file(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) report_finding(kName, "(harness: cannot create a file)", std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) report_finding(kName, "(harness: cannot write a file)", "");
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

void check(bool ok, const char* what) {
  if (!ok) report_finding(kName, "invariant", what);
}

}  // namespace

void cachebench_import_target(std::span<const uint8_t> data, const std::string& scratch) {
  const std::string_view all(reinterpret_cast<const char*>(data.data()), data.size());
  const size_t nul = all.find('\0');
  const std::string json(all.substr(0, std::min(nul, all.size())));
  write_file(scratch + "/dist.json",
             nul == std::string_view::npos ? std::string_view() : all.substr(nul + 1));

  CachebenchImport imported;
  try {
    imported = import_cachebench(json, "fuzz.json", scratch);
  } catch (const YAML::Exception& e) {
    report_finding(kName, "YAML::Exception", e.what());
  } catch (const std::invalid_argument& e) {
    // The documented refusal: it names the file and a line.
    check(std::string_view(e.what()).rfind("fuzz.json:", 0) == 0 ||
              std::string_view(e.what()).find("dist.json:") != std::string_view::npos,
          "a refusal that does not start with FILE:LINE");
    return;
  } catch (const std::exception& e) {
    report_finding(kName, typeid(e).name(), e.what());
  } catch (...) {
    report_finding(kName, "(not a std::exception)", "");
  }

  // What an accepted import promises.
  check(imported.yaml.rfind("# FlashPQ experiment imported from the CacheBench config fuzz.json",
                            0) == 0,
        "the YAML does not open with its header");
  for (const std::string& u : imported.unmapped) {
    check(u.find(": ") != std::string::npos, "an unmapped line without its reason");
    check(std::none_of(u.begin(), u.end(), [](char c) { return c == '\n' || c == '\r'; }),
          "an unmapped line with a line break");
    check(imported.yaml.find(u.substr(0, u.find(' '))) != std::string::npos,
          "an unmapped key missing from the YAML's header");
  }
  try {
    const YAML::Node y = YAML::Load(imported.yaml);
    check(y.IsMap() && y["trace"] && y["cache"] && y["framework"], "a section is missing");
  } catch (const YAML::Exception& e) {
    report_finding(kName, "imported YAML unreadable: YAML::Exception", e.what());
  }
  const std::string path = scratch + "/imported.yaml";
  write_file(path, imported.yaml);
  try {
    const Experiment ex = load_experiment(path, {});
    check(ex.cells.size() == 1, "an import of more than one cell");
  } catch (const ConfigError& e) {
    report_finding(kName, "the loader refuses an accepted import: ConfigError", e.what());
  } catch (const YAML::Exception& e) {
    report_finding(kName, "YAML::Exception from the loader", e.what());
  } catch (const std::exception& e) {
    report_finding(kName, typeid(e).name(), e.what());
  }
}

}  // namespace flashpq::fuzz
