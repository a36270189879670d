// experiments/run/simulated_runner.cpp — the discrete-event engine of a simulated run
// (experiments/run/simulated_runner.h), compiled once for every cache type.
#include "experiments/run/simulated_runner.h"

namespace flashpq {

// Named, not anonymous: SimulatedReplay::State (declared in the header) holds these types, and
// the unity build includes this file into another translation unit.
namespace simulated_replay {

constexpr uint32_t kNone = 0xFFFFFFFFu;
// The second device's events carry ids from kSecondIds on (FlashTiming's id_base).
constexpr uint32_t kSecondIds = 1u << 30;

// A request in flight.
struct Slot {
  uint64_t index;
  uint64_t arrival_ns;
  uint64_t bytes;
  uint32_t outstanding;   // flash jobs not yet finished
  uint32_t outstanding2;  // the second device's jobs not yet finished
  uint32_t parts;         // parts not yet finished: the flash side, the second device's, the work
                          // issue returned
  uint32_t client;        // closed loop; or the free-list link when free
  OpClass op;
  bool measured;
};

// Reads a BatchSource one request at a time, 1024 requests ahead (RequestReader's buffering).
class BatchReader {
 public:
  explicit BatchReader(BatchSource source) : source_(source), buffer_(1024) {}
  bool next(Request& out) {
    if (pos_ == size_) {
      size_ = source_.read(source_.context, std::span<Request>(buffer_));
      pos_ = 0;
      if (size_ == 0) return false;
    }
    out = buffer_[pos_++];
    return true;
  }

 private:
  BatchSource source_;
  std::vector<Request> buffer_;
  size_t pos_ = 0;
  size_t size_ = 0;
};

}  // namespace simulated_replay

struct SimulatedReplay::State {
  State(SimFlashDevice& d, const TimingConfig& t, uint64_t warmup, BatchSource source,
        CompletionObserver o, SimFlashDevice* second)
      : device(d),
        timing(t),
        warmup_requests(warmup),
        observe(o),
        closed(t.arrival == ArrivalProcess::kClosedLoop),
        flash(d.ftl().config()),
        guard(d.ftl(), &log),
        reader(source) {
    const SimFlashConfig& fc = d.ftl().config();
    host_overhead_ns = static_cast<uint64_t>(std::llround(fc.host_overhead_us * 1e3));
    host_command_ns = static_cast<uint64_t>(std::llround(fc.host_command_us * 1e3));
    link_ns_per_byte = fc.host_link_mib_s > 0 ? 1e9 / (fc.host_link_mib_s * 1048576.0) : 0.0;
    host_side = host_overhead_ns != 0 || host_command_ns != 0 || link_ns_per_byte != 0;
    log.reserve(4096);
    if (second != nullptr) {
      flash2.emplace(second->ftl().config(), simulated_replay::kSecondIds);
      log2.reserve(4096);
      guard2.emplace(second->ftl(), &log2);
    }
  }

  void complete(uint32_t s) {
    const uint64_t now = events.now();
    simulated_replay::Slot& slot = slots[s];
    observe.call(observe.context, slot.index, slot.arrival_ns, now, slot.bytes, slot.op);
    TimingMetrics& m = result.metrics;
    if (slot.measured) {
      m.record(slot.op, now - slot.arrival_ns, slot.bytes);
      last_completion_ns = std::max(last_completion_ns, now);
    }
    --in_flight;
    if (closed) events.schedule(now + timing.think_time_ns, EventKind::kClientReady, slot.client);
    slot.client = free_slot;
    free_slot = s;
  }

  void part_done(uint32_t s) {
    if (--slots[s].parts == 0) complete(s);
  }

  // The first half of a request's issue: its slot, the logs cleared; returns the slot.
  uint32_t begin_issue(const Request& r, uint32_t client) {
    const uint64_t index = result.requests++;
    uint32_t s;
    if (free_slot != simulated_replay::kNone) {
      s = free_slot;
      free_slot = slots[s].client;
    } else {
      s = static_cast<uint32_t>(slots.size());
      slots.emplace_back();
    }
    const bool measured = index >= warmup_requests;
    if (index == warmup_requests) first_arrival_ns = events.now();
    slots[s] = simulated_replay::Slot{index, events.now(), r.size_bytes, 0,       0,
                                      0,     client,       op_class(r),  measured};
    result.max_in_flight = std::max(result.max_in_flight, ++in_flight);
    log.clear();
    log2.clear();
    if (FioIoLog* io_log = device.io_log()) io_log->set_now_ns(events.now());
    return s;
  }

  // The second half, once the request's device operations are logged.
  void end_issue(uint32_t s, uint64_t elsewhere_ns) {
    const uint32_t jobs = flash.submit(log, s, events);
    const uint32_t jobs2 = flash2 ? flash2->submit(log2, s, events) : 0;
    slots[s].outstanding = jobs;
    slots[s].outstanding2 = jobs2;
    slots[s].parts =
        (jobs != 0 ? 1u : 0u) + (jobs2 != 0 ? 1u : 0u) + (elsewhere_ns > events.now() ? 1u : 0u);
    if (slots[s].parts == 0) {
      complete(s);  // no NAND operation: no host overhead either
    } else if (elsewhere_ns > events.now()) {
      events.schedule(elsewhere_ns, EventKind::kElsewhereDone, s);
    }
  }

  void flash_done(const Event& e) {
    if (flash2 && e.id >= simulated_replay::kSecondIds) {
      for (const uint32_t s : flash2->handle(e, events)) {
        if (--slots[s].outstanding2 == 0) part_done(s);
      }
      return;
    }
    for (const uint32_t s : flash.handle(e, events)) {
      if (--slots[s].outstanding != 0) continue;
      if (!host_side) {
        part_done(s);
        continue;
      }
      // The controller serves requests in the order their flash work finished.
      const uint64_t service =
          host_command_ns + static_cast<uint64_t>(std::llround(
                                link_ns_per_byte * static_cast<double>(slots[s].bytes)));
      controller_free_ns = std::max(controller_free_ns, events.now()) + service;
      events.schedule(controller_free_ns + host_overhead_ns, EventKind::kRequestDone, s);
    }
  }

  SimFlashDevice& device;
  const TimingConfig& timing;
  uint64_t warmup_requests;
  CompletionObserver observe;
  bool closed;
  uint64_t host_overhead_ns = 0;
  uint64_t host_command_ns = 0;
  double link_ns_per_byte = 0;  // ns per payload byte over the host link (0: instant)
  bool host_side = false;
  uint64_t controller_free_ns = 0;  // when the controller finishes its last request
  FlashTiming flash;
  EventQueue events;
  std::vector<FlashOp> log;
  detail::OpLogGuard guard;
  std::optional<FlashTiming> flash2;
  std::vector<FlashOp> log2;
  std::optional<detail::OpLogGuard> guard2;
  simulated_replay::BatchReader reader;
  std::vector<simulated_replay::Slot> slots;
  uint32_t free_slot = simulated_replay::kNone;
  uint32_t in_flight = 0;
  uint64_t first_arrival_ns = 0;
  uint64_t last_completion_ns = 0;
  TimedRunResult result;
  Request pending;
  std::optional<OpenLoopArrivals> arrivals;
  // The request being issued (between next() and issued()): its slot, and whether it is an
  // open-loop arrival, after whose issue the next arrival is read and scheduled.
  uint32_t issuing = simulated_replay::kNone;
  bool issuing_arrival = false;
};

SimulatedReplay::SimulatedReplay(SimFlashDevice& device, const TimingConfig& timing,
                                 uint64_t warmup_requests, uint64_t seed, BatchSource source,
                                 CompletionObserver observe, SimFlashDevice* second) {
  timing.validate();
  if (timing.mode != TimingMode::kSimulated) {
    throw std::invalid_argument(std::string("run_timed: timing.mode must be simulated, got ") +
                                timing_mode_name(timing.mode));
  }
  s_ = std::make_unique<State>(device, timing, warmup_requests, source, observe, second);
  State& st = *s_;
  if (st.closed) {
    for (uint32_t c = 0; c < timing.clients; ++c) st.events.schedule(0, EventKind::kClientReady, c);
  } else {
    st.arrivals.emplace(timing, seed);
    if (st.reader.next(st.pending)) {
      st.events.schedule(st.arrivals->next(st.pending.time_ns), EventKind::kArrival, 0);
    }
  }
}

SimulatedReplay::~SimulatedReplay() = default;

bool SimulatedReplay::next(Request& r, uint64_t& index, uint64_t& now_ns) {
  State& st = *s_;
  while (!st.events.empty()) {
    const Event e = st.events.pop();
    switch (e.kind) {
      case EventKind::kArrival:
        r = st.pending;
        st.issuing = st.begin_issue(r, 0);
        st.issuing_arrival = true;
        index = st.slots[st.issuing].index;
        now_ns = st.events.now();
        return true;
      case EventKind::kClientReady:
        if (st.reader.next(r)) {  // else the client retires
          st.issuing = st.begin_issue(r, e.id);
          st.issuing_arrival = false;
          index = st.slots[st.issuing].index;
          now_ns = st.events.now();
          return true;
        }
        break;
      case EventKind::kDieDone:
      case EventKind::kChannelDone:
        st.flash_done(e);
        break;
      case EventKind::kRequestDone:
      case EventKind::kElsewhereDone:
        st.part_done(e.id);
        break;
    }
  }
  return false;
}

void SimulatedReplay::issued(uint64_t elsewhere_ns) {
  State& st = *s_;
  st.end_issue(st.issuing, elsewhere_ns);
  st.issuing = simulated_replay::kNone;
  if (st.issuing_arrival && st.reader.next(st.pending)) {
    st.events.schedule(st.arrivals->next(st.pending.time_ns), EventKind::kArrival, 0);
  }
}

TimedRunResult SimulatedReplay::finish() {
  State& st = *s_;
  TimedRunResult result = st.result;
  result.events = st.events.popped();
  result.end_ns = st.events.now();
  result.flash = st.flash.counters();
  if (result.metrics.requests != 0) {
    result.metrics.interval_ns = st.last_completion_ns - st.first_arrival_ns;
  }
  return result;
}

}  // namespace flashpq
