// sim/columns.cpp — number formatting for results columns (sim/columns.h).
#include "sim/columns.h"

#include <cmath>

#include "fmt/format.h"

namespace flashpq {

std::string format_number(uint64_t v) {
  return std::to_string(v);
}

std::string format_number(double v) {
  return std::isnan(v) ? std::string() : fmt::format("{}", v);
}

}  // namespace flashpq
