// devices/simflash/ftl.cpp — the page-mapped FTL: frontiers, garbage collection, victim
// policies, invariants. See ftl.h for the model and its sources.
#include "devices/simflash/ftl.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace flashpq {

FtlCounters FtlCounters::operator-(const FtlCounters& e) const {
  FtlCounters d;
  d.host_pages_written = host_pages_written - e.host_pages_written;
  d.host_pages_read = host_pages_read - e.host_pages_read;
  d.host_pages_read_unmapped = host_pages_read_unmapped - e.host_pages_read_unmapped;
  d.host_pages_trimmed = host_pages_trimmed - e.host_pages_trimmed;
  d.host_pages_trimmed_mapped = host_pages_trimmed_mapped - e.host_pages_trimmed_mapped;
  d.nand_pages_written = nand_pages_written - e.nand_pages_written;
  d.nand_pages_read = nand_pages_read - e.nand_pages_read;
  d.gc_pages_copied = gc_pages_copied - e.gc_pages_copied;
  d.gc_runs = gc_runs - e.gc_runs;
  d.gc_victims = gc_victims - e.gc_victims;
  d.gc_victims_empty = gc_victims_empty - e.gc_victims_empty;
  d.erases = erases - e.erases;
  d.superblock_erases = superblock_erases - e.superblock_erases;
  d.fdp_media_reallocated_events = fdp_media_reallocated_events - e.fdp_media_reallocated_events;
  d.fdp_media_reallocated_pages = fdp_media_reallocated_pages - e.fdp_media_reallocated_pages;
  d.fdp_invalid_placement_events = fdp_invalid_placement_events - e.fdp_invalid_placement_events;
  d.fdp_misplaced_writes = fdp_misplaced_writes - e.fdp_misplaced_writes;
  d.zone_resets = zone_resets - e.zone_resets;
  d.zone_finishes = zone_finishes - e.zone_finishes;
  d.zone_appends = zone_appends - e.zone_appends;
  d.zone_implicit_closes = zone_implicit_closes - e.zone_implicit_closes;
  return d;
}

void Ftl::PageMap::Free::operator()(uint32_t* p) const {
  std::free(p);
}

void Ftl::PageMap::assign(size_t n, uint32_t value) {
  constexpr size_t kHuge = size_t{2} << 20;
  const size_t bytes = std::max<size_t>((n * sizeof(uint32_t) + kHuge - 1) / kHuge * kHuge, kHuge);
  void* p = std::aligned_alloc(kHuge, bytes);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, bytes, MADV_HUGEPAGE);  // advisory: failure only costs speed
#endif
  data_.reset(static_cast<uint32_t*>(p));
  size_ = n;
  std::fill_n(data_.get(), n, value);
}

void Ftl::FastDiv::init(uint32_t divisor) {
  d = divisor;
  pow2 = (divisor & (divisor - 1)) == 0;
  shift = 0;
  while ((uint64_t{1} << shift) < divisor) ++shift;
  m = pow2 ? 0 : ~uint64_t{0} / divisor + 1;
}

Ftl::Ftl(const SimFlashConfig& config) : config_(config), rng_(config.seed, RngStream::kGcStream) {
  config_.validate();
  lanes_ = config_.erase_blocks_per_superblock();
  sb_pages_ = config_.pages_per_superblock();
  nsb_ = config_.superblocks();
  sb_div_.init(sb_pages_);
  lane_div_.init(lanes_);

  l2p_.assign(config_.exported_pages(), kUnmapped);
  p2l_.assign(config_.physical_pages(), kNone);
  sb_valid_.assign(nsb_, 0);
  block_valid_.assign(size_t(nsb_) * lanes_, 0);
  erase_count_.assign(nsb_, 0);
  state_.assign(nsb_, SbState::kFree);
  seal_time_.assign(nsb_, 0);
  free_ring_.resize(nsb_);
  for (uint32_t i = 0; i < nsb_; ++i) free_ring_[i] = i;
  free_count_ = nsb_;

  zoned_ = config_.zoned();
  if (zoned_) {
    // Every superblock belongs to a zone (or to none past the last whole zone): none is free.
    zone_sbs_ = config_.zone_superblocks();
    zone_cap_pages_ = uint64_t{zone_sbs_} * sb_pages_;
    zone_size_pages_ = config_.zone_size_bytes() / config_.page_size_bytes;
    zones_.assign(config_.zones(), Zone{});
    open_list_.reserve(zones_.size());
    std::fill(state_.begin(), state_.end(), SbState::kZoned);
    free_count_ = 0;
  }
  host_.assign(config_.host_frontiers(), Frontier{});
  gc_.assign(config_.gc_frontiers(), Frontier{});
  fdp_ = config_.fdp();
  if (fdp_) {
    const bool persistent = config_.fdp_isolation == FdpIsolation::kPersistent;
    for (uint32_t h = 0; h < host_.size(); ++h) host_[h].owner = static_cast<uint16_t>(h);
    for (uint32_t g = 0; g < gc_.size(); ++g) {
      gc_[g].owner = persistent ? static_cast<uint16_t>(g) : kMixed;
    }
    p2h_.assign(config_.physical_pages(), 0);
    sb_owner_.assign(nsb_, 0);
    fdp_counters_.assign(config_.fdp_handles, FdpHandleCounters{});
    misplace_ = config_.fdp_misplaced_fraction > 0.0 && config_.fdp_handles > 1;
    misplace_rng_ = RngStream(config_.seed, RngStream::kFdpMisplacementStream);
  }

  next_.assign(nsb_, kNone);
  prev_.assign(nsb_, kNone);
  switch (config_.gc_policy) {
    case GcPolicy::kGreedy:
      bucket_head_.assign(size_t(sb_pages_) + 1, kNone);
      break;
    case GcPolicy::kDChoices:
      sealed_.reserve(nsb_);
      sealed_pos_.assign(nsb_, kNone);
      break;
    case GcPolicy::kFifo:
    case GcPolicy::kCostBenefit:
      empty_ring_.assign(nsb_, kNone);
      break;
  }
}

void Ftl::throw_out_of_range(uint64_t lpn) const {
  throw std::out_of_range("simflash: logical page " + std::to_string(lpn) + " ≥ " +
                          std::to_string(l2p_.size()) + " exported pages");
}

void Ftl::write_extent(uint64_t lpn, uint64_t count, uint32_t placement) {
  if (count == 0) return;
  if (lpn >= l2p_.size() || count > l2p_.size() - lpn) throw_out_of_range(lpn + count - 1);
  if (zoned_) [[unlikely]] {
    zoned_write(lpn, count);
    return;
  }
  const uint32_t h = handle_of(placement);
  for (uint64_t p = lpn; p < lpn + count; ++p) {
    const uint32_t old = l2p_[p];
    if (old == kUnmapped) continue;
    invalidate(old);
    l2p_[p] = kUnmapped;
  }
  for (uint64_t p = lpn; p < lpn + count; ++p) {
    while (host_[h].sb == kNone) open_host_frontier(h);
    program(host_[h], static_cast<uint32_t>(p), FlashOpCause::kHost, h);
  }
  counters_.host_pages_written += count;
  if (fdp_) fdp_counters_[h].host_pages_written += count;
}

// ---- Zoned Namespaces (ftl.h "Zoned Namespaces") ----

void Ftl::zone_fail(uint16_t status, const char* name, uint32_t z, uint64_t lpn, uint64_t count,
                    const std::string& why) const {
  static const char* const kStates[] = {"empty", "implicitly open", "closed", "full"};
  const Zone& zone = zones_[z];
  char code[8];
  std::snprintf(code, sizeof code, "0x%02X", status);
  throw ZoneError(
      status, "simflash ZNS: " + std::string(name) + " (NVMe status " + code + ") for a write of " +
                  std::to_string(count) + " pages at page " + std::to_string(lpn) + ": zone " +
                  std::to_string(z) + " (pages " + std::to_string(uint64_t{z} * zone_size_pages_) +
                  " to " + std::to_string(uint64_t{z} * zone_size_pages_ + zone_cap_pages_ - 1) +
                  ", " + kStates[static_cast<int>(zone.state)] + ", write pointer at " +
                  std::to_string(uint64_t{z} * zone_size_pages_ + zone.wp) + "): " + why);
}

void Ftl::check_zone(uint32_t z) const {
  if (z >= zones_.size()) {
    throw std::out_of_range("simflash ZNS: zone " + std::to_string(z) + " ≥ " +
                            std::to_string(zones_.size()) + " zones");
  }
}

void Ftl::zone_release(uint32_t z) {
  Zone& zone = zones_[z];
  if (zone.state == ZoneState::kImplicitlyOpen) {
    open_list_.erase(std::find(open_list_.begin(), open_list_.end(), z));
    --open_zones_;
    --active_zones_;
  } else if (zone.state == ZoneState::kClosed) {
    --active_zones_;
  }
}

void Ftl::zone_open_for_write(uint32_t z) {
  Zone& zone = zones_[z];
  // The active limit is checked before any zone is closed for the open limit, so a refused
  // write changes nothing (QEMU closes first, then checks).
  if (zone.state == ZoneState::kEmpty && config_.zns_max_active_zones > 0 &&
      active_zones_ >= config_.zns_max_active_zones) {
    zone_fail(0xBD, "Too Many Active Zones", z, uint64_t{z} * zone_size_pages_ + zone.wp, 0,
              std::to_string(active_zones_) + " zones are open or closed, the limit " +
                  "(device.zns.max_active_zones): finish or reset one first");
  }
  if (config_.zns_max_open_zones > 0 && open_zones_ >= config_.zns_max_open_zones) {
    const uint32_t first = open_list_.front();
    open_list_.erase(open_list_.begin());
    zones_[first].state = ZoneState::kClosed;
    --open_zones_;
    ++counters_.zone_implicit_closes;
  }
  if (zone.state == ZoneState::kEmpty) ++active_zones_;
  zone.state = ZoneState::kImplicitlyOpen;
  ++open_zones_;
  open_list_.push_back(z);
}

void Ftl::zoned_write(uint64_t lpn, uint64_t count) {
  const auto z = static_cast<uint32_t>(lpn / zone_size_pages_);
  const uint64_t off = lpn - uint64_t{z} * zone_size_pages_;
  Zone& zone = zones_[z];
  if (zone.state == ZoneState::kFull) {
    zone_fail(0xB9, "Zone Is Full", z, lpn, count, "reset the zone before writing it again");
  }
  if (off != zone.wp) {
    zone_fail(0xBC, "Zone Invalid Write", z, lpn, count,
              "a zone is written sequentially, at its write pointer");
  }
  if (count > zone_cap_pages_ - off) {
    zone_fail(
        0xB8, "Zone Boundary Error", z, lpn, count,
        "the write runs past the zone capacity of " + std::to_string(zone_cap_pages_) + " pages");
  }
  if (zone.state != ZoneState::kImplicitlyOpen) zone_open_for_write(z);
  const uint32_t sb0 = z * zone_sbs_;
  for (uint64_t p = off; p < off + count; ++p) {
    const uint32_t sb = sb0 + static_cast<uint32_t>(p / sb_pages_);
    const auto in = static_cast<uint32_t>(p % sb_pages_);
    const uint32_t ppn = sb * sb_pages_ + in;
    const uint64_t l = lpn + (p - off);
    l2p_[l] = ppn;
    p2l_[ppn] = static_cast<uint32_t>(l);
    ++sb_valid_[sb];
    ++block_valid_[size_t(sb) * lanes_ + lane_div_.mod(in)];
    if (op_log_) op_log_->push_back({FlashOpKind::kProgram, FlashOpCause::kHost, ppn});
  }
  counters_.host_pages_written += count;
  counters_.nand_pages_written += count;
  zone.wp += count;
  if (zone.wp == zone_cap_pages_) {
    zone_release(z);
    zone.state = ZoneState::kFull;
  }
}

uint64_t Ftl::zone_append(uint32_t z, uint64_t count) {
  check_zone(z);
  const uint64_t lpn = uint64_t{z} * zone_size_pages_ + zones_[z].wp;
  if (count == 0) return lpn;
  zoned_write(lpn, count);
  ++counters_.zone_appends;
  return lpn;
}

void Ftl::zone_reset(uint32_t z) {
  check_zone(z);
  Zone& zone = zones_[z];
  if (zone.state == ZoneState::kEmpty) return;
  zone_release(z);
  const uint64_t start = uint64_t{z} * zone_size_pages_;
  for (uint64_t l = start; l < start + zone.wp; ++l) {
    p2l_[l2p_[l]] = kNone;
    l2p_[l] = kUnmapped;
  }
  // The superblocks the zone wrote into are erased (a finished zone's untouched ones are clean).
  const uint32_t written = static_cast<uint32_t>((zone.wp + sb_pages_ - 1) / sb_pages_);
  for (uint32_t i = 0; i < written; ++i) {
    const uint32_t sb = z * zone_sbs_ + i;
    sb_valid_[sb] = 0;
    std::fill_n(block_valid_.begin() + size_t(sb) * lanes_, lanes_, uint16_t{0});
    ++erase_count_[sb];
    counters_.erases += lanes_;
    ++counters_.superblock_erases;
    if (op_log_) op_log_->push_back({FlashOpKind::kErase, FlashOpCause::kHost, sb});
  }
  zone.wp = 0;
  zone.state = ZoneState::kEmpty;
  ++counters_.zone_resets;
}

void Ftl::zone_finish(uint32_t z) {
  check_zone(z);
  Zone& zone = zones_[z];
  if (zone.state == ZoneState::kFull) return;
  zone_release(z);
  zone.state = ZoneState::kFull;
  ++counters_.zone_finishes;
}

FlashAddress Ftl::locate(uint32_t ppn) const {
  const uint32_t sb = sb_div_.div(ppn);
  const uint32_t off = ppn - sb * sb_pages_;
  const uint32_t lane = lane_div_.mod(off);
  FlashAddress a;
  a.block = sb;
  a.page = lane_div_.div(off);
  a.channel = lane % config_.channels;
  a.die = (lane / config_.channels) % config_.dies_per_channel;
  a.plane = lane / (config_.channels * config_.dies_per_channel);
  return a;
}

uint32_t Ftl::valid_pages_in_block(uint32_t channel, uint32_t die, uint32_t plane,
                                   uint32_t block) const {
  const uint32_t lane = (plane * config_.dies_per_channel + die) * config_.channels + channel;
  return block_valid_[size_t(block) * lanes_ + lane];
}

EraseCountStats Ftl::erase_count_stats() const {
  EraseCountStats s;
  s.min = *std::min_element(erase_count_.begin(), erase_count_.end());
  s.max = *std::max_element(erase_count_.begin(), erase_count_.end());
  uint64_t sum = 0;
  for (uint32_t c : erase_count_) sum += c;
  s.mean = double(sum) / double(nsb_);  // every superblock has the same number of blocks
  return s;
}

// --- Circular doubly linked lists over next_/prev_ ---------------------------------------

void Ftl::list_push_back(uint32_t sb, uint32_t& head) {
  if (head == kNone) {
    next_[sb] = prev_[sb] = sb;
    head = sb;
    return;
  }
  const uint32_t tail = prev_[head];
  next_[sb] = head;
  prev_[sb] = tail;
  next_[tail] = sb;
  prev_[head] = sb;
}

void Ftl::list_unlink(uint32_t sb, uint32_t& head) {
  const uint32_t n = next_[sb];
  if (n == sb) {
    head = kNone;
  } else {
    const uint32_t p = prev_[sb];
    next_[p] = n;
    prev_[n] = p;
    if (head == sb) head = n;
  }
  next_[sb] = prev_[sb] = kNone;
}

// --- d_choices: array of sealed superblocks ------------------------------------------------

void Ftl::sealed_insert(uint32_t sb) {
  sealed_pos_[sb] = uint32_t(sealed_.size());
  sealed_.push_back(sb);  // capacity nsb_ reserved: never reallocates
}

void Ftl::sealed_remove(uint32_t sb) {
  const uint32_t pos = sealed_pos_[sb];
  const uint32_t last = sealed_.back();
  sealed_[pos] = last;
  sealed_pos_[last] = pos;
  sealed_.pop_back();
  sealed_pos_[sb] = kNone;
}

// --- Frontiers -----------------------------------------------------------------------------

void Ftl::open(Frontier& f) {
  if (free_count_ == 0) {
    throw std::logic_error("simflash: no free superblock for a write frontier (GC invariant)");
  }
  const uint32_t sb = free_ring_[free_head_];
  if (++free_head_ == nsb_) free_head_ = 0;
  --free_count_;
  ++open_count_;
  state_[sb] = SbState::kOpen;
  if (fdp_) sb_owner_[sb] = f.owner;
  f.sb = sb;
  f.next = 0;
  f.lane = 0;
}

void Ftl::open_host_frontier(uint32_t h) {
  open(host_[h]);
  if (free_count_ < config_.gc_low_watermark) run_gc();
}

void Ftl::seal(Frontier& f) {
  const uint32_t sb = f.sb;
  f.sb = kNone;
  --open_count_;
  state_[sb] = SbState::kSealed;
  seal_time_[sb] = counters_.host_pages_written;
  const uint32_t v = sb_valid_[sb];
  switch (config_.gc_policy) {
    case GcPolicy::kGreedy:
      list_push_back(sb, bucket_head_[v]);
      min_bucket_ = std::min(min_bucket_, v);
      return;
    case GcPolicy::kFifo:
      list_push_back(sb, fifo_head_);
      break;
    case GcPolicy::kDChoices:
      sealed_insert(sb);
      return;
    case GcPolicy::kCostBenefit:
      break;
  }
  if (v == 0) empty_push(sb);
}

void Ftl::empty_push(uint32_t sb) {
  uint32_t tail = empty_head_ + empty_count_;
  if (tail >= nsb_) tail -= nsb_;
  empty_ring_[tail] = sb;
  ++empty_count_;
}

void Ftl::sealed_lost_page(uint32_t sb, uint32_t v) {
  if (config_.gc_policy == GcPolicy::kGreedy) {
    list_unlink(sb, bucket_head_[v + 1]);
    list_push_back(sb, bucket_head_[v]);
    if (v < min_bucket_) min_bucket_ = v;
  } else if (v == 0 && config_.gc_policy != GcPolicy::kDChoices) {
    empty_push(sb);
  }
}

// --- Garbage collection --------------------------------------------------------------------

void Ftl::run_gc() {
  ++counters_.gc_runs;
  // Each victim gains at least one page when validate()'s progress condition holds and the
  // policy takes a superblock with an invalid page; fifo cycles through all sealed ones and
  // d_choices eventually draws one. The bound only turns a broken invariant into an error.
  const uint64_t limit = uint64_t{64} * nsb_ + 1024;
  uint64_t victims = 0;
  while (free_count_ < config_.gc_high_watermark) {
    const uint32_t sb = select_victim();
    if (sb == kNone || ++victims > limit) {
      throw std::logic_error("simflash: garbage collection cannot reach the high watermark (" +
                             std::to_string(free_count_) + " free of " +
                             std::to_string(config_.gc_high_watermark) + ")");
    }
    collect(sb);
  }
}

uint32_t Ftl::select_victim() {
  uint32_t sb = kNone;
  if (config_.gc_policy == GcPolicy::kGreedy) {
    const uint32_t top = sb_pages_;
    while (min_bucket_ <= top && bucket_head_[min_bucket_] == kNone) ++min_bucket_;
    if (min_bucket_ > top) return kNone;
    sb = bucket_head_[min_bucket_];
    list_unlink(sb, bucket_head_[min_bucket_]);
    state_[sb] = SbState::kVictim;
    return sb;
  }
  // fifo, cost_benefit: empty sealed superblocks first, oldest-emptied first. Entries stay
  // exact: an empty sealed superblock is taken from here before any other path could take it,
  // and it cannot regain valid pages.
  if (empty_count_ != 0) {
    sb = empty_ring_[empty_head_];
    if (++empty_head_ == nsb_) empty_head_ = 0;
    --empty_count_;
    if (config_.gc_policy == GcPolicy::kFifo) list_unlink(sb, fifo_head_);
    state_[sb] = SbState::kVictim;
    return sb;
  }
  switch (config_.gc_policy) {
    case GcPolicy::kFifo:
      sb = fifo_head_;
      if (sb == kNone) return kNone;
      list_unlink(sb, fifo_head_);
      break;
    case GcPolicy::kDChoices: {
      const uint32_t n = uint32_t(sealed_.size());
      if (n == 0) return kNone;
      uint32_t best_valid = kNone;
      for (uint32_t i = 0; i < config_.gc_d; ++i) {
        const uint32_t c = sealed_[static_cast<uint32_t>(rng_.below(n))];
        if (sb_valid_[c] < best_valid) {
          best_valid = sb_valid_[c];
          sb = c;
        }
      }
      sealed_remove(sb);
      break;
    }
    case GcPolicy::kCostBenefit: {
      // (1 − u)·age / 2u with u = valid / S: the common factor 1/(2S) dropped, so compare
      // (S − v)·age / v. v > 0 here (empty superblocks were taken above).
      const uint64_t now = counters_.host_pages_written;
      double best = -1.0;
      for (uint32_t c = 0; c < nsb_; ++c) {
        if (state_[c] != SbState::kSealed) continue;
        const double v = sb_valid_[c];
        const double score = (double(sb_pages_) - v) * double(now - seal_time_[c]) / v;
        if (score > best) {
          best = score;
          sb = c;
        }
      }
      if (sb == kNone) return kNone;
      break;
    }
    case GcPolicy::kGreedy:
      break;
  }
  state_[sb] = SbState::kVictim;
  return sb;
}

void Ftl::collect(uint32_t sb) {
  ++counters_.gc_victims;
  uint32_t remaining = sb_valid_[sb];
  if (remaining == 0) ++counters_.gc_victims_empty;
  const uint32_t base = sb * sb_pages_;
  Frontier& dst = gc_frontier(sb);
  if (fdp_ && remaining != 0 && config_.fdp_isolation == FdpIsolation::kInitial) {
    ++counters_.fdp_media_reallocated_events;  // 80h: initially isolated data moved
    counters_.fdp_media_reallocated_pages += remaining;
  }
  // The map entries the copies rewrite are random: fetch them kAhead pages in advance so the
  // misses overlap (the victim's p2l is read sequentially anyway).
  constexpr uint32_t kAhead = 16;
  for (uint32_t off = 0; off < kAhead && off < sb_pages_; ++off) {
    const uint32_t l = p2l_[base + off];
    if (l != kNone) __builtin_prefetch(&l2p_[l], 1);
  }
  for (uint32_t off = 0; remaining != 0; ++off) {
    if (off + kAhead < sb_pages_) {
      const uint32_t l = p2l_[base + off + kAhead];
      if (l != kNone) __builtin_prefetch(&l2p_[l], 1);
    }
    const uint32_t lpn = p2l_[base + off];
    if (lpn == kNone) continue;
    ++counters_.nand_pages_read;
    if (op_log_) op_log_->push_back({FlashOpKind::kRead, FlashOpCause::kGc, base + off});
    p2l_[base + off] = kNone;
    program(dst, lpn, FlashOpCause::kGc, fdp_ ? p2h_[base + off] : 0);
    ++counters_.gc_pages_copied;
    --remaining;
  }
  erase(sb);
}

void Ftl::erase(uint32_t sb) {
  sb_valid_[sb] = 0;
  std::fill_n(block_valid_.begin() + size_t(sb) * lanes_, lanes_, uint16_t{0});
  ++erase_count_[sb];
  counters_.erases += lanes_;
  ++counters_.superblock_erases;
  if (op_log_) op_log_->push_back({FlashOpKind::kErase, FlashOpCause::kGc, sb});
  state_[sb] = SbState::kFree;
  uint32_t tail = free_head_ + free_count_;
  if (tail >= nsb_) tail -= nsb_;
  free_ring_[tail] = sb;
  ++free_count_;
}

// --- Invariants ----------------------------------------------------------------------------

void Ftl::check_invariants() const {
  auto fail = [](const std::string& what) {
    throw std::logic_error("simflash invariant: " + what);
  };
  std::vector<uint32_t> sbv(nsb_, 0);
  std::vector<uint32_t> blv(block_valid_.size(), 0);
  for (uint64_t lpn = 0; lpn < l2p_.size(); ++lpn) {
    const uint32_t ppn = l2p_[lpn];
    if (ppn == kUnmapped) continue;
    if (ppn >= p2l_.size() || p2l_[ppn] != lpn) {
      fail("l2p[" + std::to_string(lpn) + "] = " + std::to_string(ppn) + " not mapped back");
    }
  }
  for (uint32_t ppn = 0; ppn < p2l_.size(); ++ppn) {
    const uint32_t lpn = p2l_[ppn];
    if (lpn == kNone) continue;
    if (lpn >= l2p_.size() || l2p_[lpn] != ppn) {
      fail("p2l[" + std::to_string(ppn) + "] = " + std::to_string(lpn) + " stale");
    }
    const uint32_t sb = ppn / sb_pages_;
    ++sbv[sb];
    ++blv[size_t(sb) * lanes_ + (ppn % sb_pages_) % lanes_];
  }
  uint32_t nfree = 0, nopen = 0;
  for (uint32_t sb = 0; sb < nsb_; ++sb) {
    if (sbv[sb] != sb_valid_[sb]) {
      fail("superblock " + std::to_string(sb) + " valid " + std::to_string(sb_valid_[sb]) +
           ", recount " + std::to_string(sbv[sb]));
    }
    if (state_[sb] == SbState::kFree) {
      ++nfree;
      if (sbv[sb] != 0) fail("free superblock " + std::to_string(sb) + " holds valid pages");
    }
    if (state_[sb] == SbState::kOpen) ++nopen;
    if (state_[sb] == SbState::kVictim) fail("superblock " + std::to_string(sb) + " left a victim");
  }
  for (size_t i = 0; i < blv.size(); ++i) {
    if (blv[i] != block_valid_[i]) fail("erase block " + std::to_string(i) + " valid count");
  }
  if (nfree != free_count_) fail("free count " + std::to_string(free_count_));
  if (nopen != open_count_) fail("open count " + std::to_string(open_count_));
  for (uint32_t i = 0; i < free_count_; ++i) {
    const uint32_t sb = free_ring_[(free_head_ + i) % nsb_];
    if (state_[sb] != SbState::kFree) fail("free list holds superblock " + std::to_string(sb));
  }
  for (const std::vector<Frontier>* fs : {&host_, &gc_}) {
    for (const Frontier& f : *fs) {
      if (f.sb != kNone && (state_[f.sb] != SbState::kOpen || f.next >= sb_pages_ ||
                            f.lane != f.next % lanes_ || (fdp_ && sb_owner_[f.sb] != f.owner))) {
        fail("frontier on superblock " + std::to_string(f.sb));
      }
    }
  }
  // ZNS: each zone's pages below its write pointer are mapped at their fixed place, none above;
  // the open and active counts and the open list agree with the states.
  if (zoned_) {
    uint32_t open = 0, active = 0;
    for (uint32_t z = 0; z < zones_.size(); ++z) {
      const Zone& zone = zones_[z];
      const uint64_t start = uint64_t{z} * zone_size_pages_;
      for (uint64_t p = 0; p < zone_size_pages_; ++p) {
        const uint32_t expect =
            p < zone.wp
                ? static_cast<uint32_t>((z * zone_sbs_ + p / sb_pages_) * sb_pages_ + p % sb_pages_)
                : kUnmapped;
        if (l2p_[start + p] != expect) {
          fail("zone " + std::to_string(z) + " page " + std::to_string(p) + " mapped to " +
               std::to_string(l2p_[start + p]));
        }
      }
      if (zone.wp > zone_cap_pages_ ||
          (zone.wp == zone_cap_pages_ && zone.state != ZoneState::kFull) ||
          (zone.wp == 0 && zone.state != ZoneState::kEmpty && zone.state != ZoneState::kFull)) {
        fail("zone " + std::to_string(z) + " state against its write pointer");
      }
      open += zone.state == ZoneState::kImplicitlyOpen;
      active += zone.state == ZoneState::kImplicitlyOpen || zone.state == ZoneState::kClosed;
    }
    if (open != open_zones_ || active != active_zones_ || open_list_.size() != open_zones_) {
      fail("open or active zone count");
    }
    for (const uint32_t z : open_list_) {
      if (zones_[z].state != ZoneState::kImplicitlyOpen)
        fail("open list holds zone " + std::to_string(z));
    }
  }
  // FDP: a superblock opened for handle h holds only h's data when the handles are
  // persistently isolated.
  if (fdp_ && config_.fdp_isolation == FdpIsolation::kPersistent) {
    for (uint32_t ppn = 0; ppn < p2l_.size(); ++ppn) {
      if (p2l_[ppn] == kNone) continue;
      const uint32_t sb = ppn / sb_pages_;
      if (p2h_[ppn] != sb_owner_[sb]) {
        fail("persistently isolated superblock " + std::to_string(sb) + " of handle " +
             std::to_string(sb_owner_[sb]) + " holds data of handle " + std::to_string(p2h_[ppn]));
      }
    }
  }
  // Victim structures hold exactly the sealed superblocks.
  std::vector<uint8_t> seen(nsb_, 0);
  auto walk = [&](uint32_t head, bool check_bucket, uint32_t bucket) {
    if (head == kNone) return;
    uint32_t sb = head;
    do {
      if (state_[sb] != SbState::kSealed || seen[sb])
        fail("victim list entry " + std::to_string(sb));
      if (check_bucket && sb_valid_[sb] != bucket) fail("greedy bucket of " + std::to_string(sb));
      if (check_bucket && bucket < min_bucket_) fail("greedy min bucket");
      seen[sb] = 1;
      if (prev_[next_[sb]] != sb) fail("victim list links at " + std::to_string(sb));
      sb = next_[sb];
    } while (sb != head);
  };
  switch (config_.gc_policy) {
    case GcPolicy::kGreedy:
      for (uint32_t b = 0; b < bucket_head_.size(); ++b) walk(bucket_head_[b], true, b);
      break;
    case GcPolicy::kFifo:
      walk(fifo_head_, false, 0);
      break;
    case GcPolicy::kDChoices:
      for (uint32_t i = 0; i < sealed_.size(); ++i) {
        const uint32_t sb = sealed_[i];
        if (state_[sb] != SbState::kSealed || seen[sb] || sealed_pos_[sb] != i) {
          fail("d_choices entry " + std::to_string(sb));
        }
        seen[sb] = 1;
      }
      break;
    case GcPolicy::kCostBenefit:
      for (uint32_t sb = 0; sb < nsb_; ++sb) seen[sb] = state_[sb] == SbState::kSealed;
      break;
  }
  for (uint32_t sb = 0; sb < nsb_; ++sb) {
    if ((state_[sb] == SbState::kSealed) != bool(seen[sb])) {
      fail("sealed superblock " + std::to_string(sb) + " missing from the victim structure");
    }
  }
  if (config_.gc_policy == GcPolicy::kFifo || config_.gc_policy == GcPolicy::kCostBenefit) {
    std::vector<uint8_t> in_empty(nsb_, 0);
    for (uint32_t i = 0; i < empty_count_; ++i) {
      const uint32_t sb = empty_ring_[(empty_head_ + i) % nsb_];
      if (in_empty[sb] || state_[sb] != SbState::kSealed || sb_valid_[sb] != 0) {
        fail("empty list entry " + std::to_string(sb));
      }
      in_empty[sb] = 1;
    }
    for (uint32_t sb = 0; sb < nsb_; ++sb) {
      if (state_[sb] == SbState::kSealed && sb_valid_[sb] == 0 && !in_empty[sb]) {
        fail("empty sealed superblock " + std::to_string(sb) + " not listed");
      }
    }
  }
}

}  // namespace flashpq
