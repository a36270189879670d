// engine/intrusive_list.h — a doubly linked list of ObjectTable entries through their own
// `prev`/`next` words: the segments of the exact relative queue (engine/exact/relative_queue.h)
// and the regions of W-TinyLFU (policies/wtinylfu.h). No allocation: the links live in the
// entries, the list is its two ends and the bytes of its objects (16 bytes).
//
// The head is the most recently pushed entry (an LRU list's MRU end), the tail the oldest.
// Membership is the caller's to record (e.g. in the entry's `slot`): an entry is in at most
// one list at a time, and every call below REQUIRES the entry to be (or, for push_front, not
// to be) in this list.
#pragma once

#include <cstdint>

#include "engine/object_table.h"

namespace flashpq {

struct IntrusiveList {
  Handle head = kNoHandle;
  Handle tail = kNoHandle;
  /// Bytes of the entries in the list (ObjectEntry::size_bytes summed).
  uint64_t bytes = 0;

  bool empty() const { return head == kNoHandle; }

  /// Links h at the head and counts its bytes. REQUIRES: h in no list.
  void push_front(ObjectTable& t, Handle h) {
    ObjectEntry& e = t[h];
    e.prev = kNoHandle;
    e.next = head;
    if (head != kNoHandle)
      t[head].prev = h;
    else
      tail = h;
    head = h;
    bytes += e.size_bytes;
  }

  /// Unlinks h and uncounts its bytes. REQUIRES: h in this list.
  void unlink(ObjectTable& t, Handle h) {
    ObjectEntry& e = t[h];
    if (e.prev != kNoHandle)
      t[e.prev].next = e.next;
    else
      head = e.next;
    if (e.next != kNoHandle)
      t[e.next].prev = e.prev;
    else
      tail = e.prev;
    bytes -= e.size_bytes;
  }

  /// Moves h, in this list but not at its head, to the head; the bytes stay. Inlined into the
  /// hit path of LRU (an LRU hit is this relink and nothing else).
  [[gnu::always_inline]] void move_to_front(ObjectTable& t, Handle h) {
    // h is not the head, so it has a predecessor and the list a head.
    ObjectEntry& e = t[h];
    t[e.prev].next = e.next;
    if (e.next != kNoHandle)
      t[e.next].prev = e.prev;
    else
      tail = e.prev;
    t[head].prev = h;
    e.prev = kNoHandle;
    e.next = head;
    head = h;
  }
};
static_assert(sizeof(IntrusiveList) == 16);

}  // namespace flashpq
