#include "engine/admission.h"

#include <sstream>
#include <stdexcept>

namespace flashpq {

const std::vector<std::string>& admission_names() {
  static const std::vector<std::string> names = {"none", "tinylfu"};
  return names;
}

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& expected, double found) {
  std::ostringstream s;
  s << "admission." << field << ": expected " << expected << ", found " << found;
  throw std::invalid_argument(s.str());
}

}  // namespace

void AdmissionConfig::validate() const {
  if (name != "none" && name != "tinylfu") {
    throw std::invalid_argument("admission.name: unknown admission policy '" + name +
                                "' (allowed: none, tinylfu)");
  }
  if (sample_factor < 1 || sample_factor > 1000) {
    bad("sample_factor", "an integer in [1, 1000]", sample_factor);
  }
  // Written as !(in range) so that NaN is rejected too.
  if (!(counters_multiplier > 0 && counters_multiplier <= 64)) {
    bad("counters_multiplier", "a number in (0, 64]", counters_multiplier);
  }
  if (!(doorkeeper_insertions_multiplier > 0 && doorkeeper_insertions_multiplier <= 64)) {
    bad("doorkeeper_insertions_multiplier", "a number in (0, 64]",
        doorkeeper_insertions_multiplier);
  }
  if (!(doorkeeper_fpp > 0 && doorkeeper_fpp <= 0.5)) {
    bad("doorkeeper_fpp", "a probability in (0, 0.5]", doorkeeper_fpp);
  }
}

}  // namespace flashpq
