// sim/prefetch.h — a prefetch hint the compiler keeps.
//
// GCC 12 at -O2 deletes some __builtin_prefetch calls outright: its dead-code elimination drops
// the hint when the address is computed through ObjectTable's bucket reduction (an unsigned
// __int128 multiply) or loaded from a table, so the replay loop's prefetches of the index
// (experiments/run/replay.h) were never emitted (seen in the disassembly; -fno-tree-dce or
// -fno-ipa-modref keeps them). An asm statement with the address as a memory operand is never
// deleted. A prefetch reads nothing that reaches a result and never faults.
#pragma once

namespace flashpq {

/// Hints that the cache line holding `p` is read soon (x86 prefetcht0; __builtin_prefetch
/// elsewhere). No effect on any result; `p` need not be dereferenceable.
[[gnu::always_inline]] inline void prefetch(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace flashpq
