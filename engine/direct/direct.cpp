// engine/direct/direct.cpp — the direct framework's key and its request mapping
// (engine/direct/direct.h).
#include "engine/direct/direct.h"

#include <stdexcept>

namespace flashpq {

const KeySpec kOffsetUnitKey =
    key("framework.offset_unit", ValueType::kSize)
        .def("1")
        .units("bytes")
        .range(1, 4294967296.0)
        .strict_to_readers()
        .desc(
            "bytes per unit of the trace's key (byte offset = key x unit; 512 for sector "
            "numbers)");

const ComponentSpec& DirectFramework::spec() {
  static const ComponentSpec spec{
      "direct",
      "no cache: every request is block I/O at byte offset key x offset_unit (get read, set "
      "write, delete trim)",
      {kOffsetUnitKey},
      {},
      {},
      {}};
  return spec;
}

DirectConfig DirectConfig::from(const Params& params) {
  DirectConfig c;
  c.offset_unit_bytes = params.get<uint64_t>(kOffsetUnitKey);
  return c;
}

DirectIo direct_io_of(const Device& device, const Request& r, uint64_t offset_unit_bytes,
                      uint64_t index) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument("request " + std::to_string(index) + " (" +
                                std::string(op_name(r.op)) + " key " + std::to_string(r.key) +
                                " size " + std::to_string(r.size_bytes) + "): " + why);
  };
  DirectIo io{};
  io.kind = r.op == Op::kGet   ? DirectIo::kRead
            : r.op == Op::kSet ? DirectIo::kWrite
                               : DirectIo::kTrim;
  io.len = r.size_bytes;
  if (__builtin_mul_overflow(r.key, offset_unit_bytes, &io.offset)) {
    fail("byte offset key x " + std::to_string(offset_unit_bytes) + " overflows 64 bits");
  }
  try {
    device.check_extent(io.offset, io.len,
                        io.kind == DirectIo::kRead    ? "read"
                        : io.kind == DirectIo::kWrite ? "write"
                                                      : "trim");
  } catch (const std::invalid_argument& e) {
    fail(e.what());
  }
  return io;
}

}  // namespace flashpq
