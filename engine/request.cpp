#include "engine/request.h"

namespace flashpq {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::kGet:
      return "get";
    case Op::kSet:
      return "set";
    case Op::kDelete:
      return "delete";
  }
  return "?";
}

}  // namespace flashpq
