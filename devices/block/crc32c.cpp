#include "devices/block/crc32c.h"

#include <array>
#include <cstring>

namespace flashpq {

namespace {

constexpr uint32_t kPolyReflected = 0x82F63B78u;  // 0x1EDC6F41 bit-reversed (RFC 3720 §12.1)

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const void* data, size_t len,
                                                        uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t c = ~crc;
  while (len >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    len -= 8;
  }
  auto c32 = static_cast<uint32_t>(c);
  while (len-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return ~c32;
}
#endif

bool detect_hardware() {
#if defined(__x86_64__)
  __builtin_cpu_init();  // required before __builtin_cpu_supports in a static initializer
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

const bool kHardware = detect_hardware();

}  // namespace

uint32_t crc32c_portable(const void* data, size_t len, uint32_t crc) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (len-- > 0) c = kTable[(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

uint32_t crc32c(const void* data, size_t len, uint32_t crc) {
#if defined(__x86_64__)
  if (kHardware) return crc32c_sse42(data, len, crc);
#endif
  return crc32c_portable(data, len, crc);
}

bool crc32c_hardware() {
  return kHardware;
}

}  // namespace flashpq
