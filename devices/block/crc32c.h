// devices/block/crc32c.h — CRC32C (Castagnoli), the checksum of verify mode's block headers.
//
// Source: RFC 3720 (iSCSI) §12.1 and Appendix B.4: generator polynomial 0x1EDC6F41 (reflected
// 0x82F63B78), initial value and final XOR 0xFFFFFFFF, bits reflected — the CRC that SSE4.2's
// crc32 instruction computes (Intel SDM Vol. 2A, "CRC32"). crc32c() uses the instruction when the
// CPU has it (checked once at run time) and a table (Sarwate, "Computation of cyclic redundancy
// checks via table look-up", CACM 1988) otherwise; both give the same value.
#pragma once

#include <cstddef>
#include <cstdint>

namespace flashpq {

/// CRC32C of `len` bytes at `data`, continuing from `crc` (pass the result of a previous call to
/// checksum a buffer in pieces; 0 to start). crc32c("123456789") == 0xE3069283.
uint32_t crc32c(const void* data, size_t len, uint32_t crc = 0);

/// The table implementation alone (for tests: it must agree with the hardware one).
uint32_t crc32c_portable(const void* data, size_t len, uint32_t crc = 0);

/// True when crc32c() uses the SSE4.2 instruction on this CPU.
bool crc32c_hardware();

}  // namespace flashpq
