#include "engine/admission.h"

#include <stdexcept>

namespace flashpq {

void AdmissionConfig::validate() const {
  if (name != "none") {
    throw std::invalid_argument("admission.name: unknown admission policy '" + name +
                                "' (allowed: none)");
  }
}

}  // namespace flashpq
