// engine/admission.cpp — the admission seam's own policy (engine/admission.h).
#include "engine/admission.h"

namespace flashpq {

const ComponentSpec& NoAdmission::spec() {
  static const ComponentSpec spec{"none", "admits every object", {}, {}, {}, {}};
  return spec;
}

}  // namespace flashpq
