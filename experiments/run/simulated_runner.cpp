// experiments/run/simulated_runner.cpp — the discrete-event engine of a simulated run
// (experiments/run/simulated_runner.h), compiled once for every cache type.
#include "experiments/run/simulated_runner.h"

namespace flashpq {

// Named, not anonymous: SimulatedReplay::State (declared in the header) holds these types, and
// the unity build includes this file into another translation unit.
namespace simulated_replay {

constexpr uint32_t kNone = 0xFFFFFFFFu;

// A request in flight.
struct Slot {
  uint64_t index;
  uint64_t arrival_ns;
  uint64_t bytes;
  uint32_t parts;   // parts not yet finished: the device's, the second device's, the work issue
                    // returned
  uint32_t client;  // closed loop; or the free-list link when free
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
  State(ServiceModel& m, const TimingConfig& t, uint64_t warmup, BatchSource source,
        CompletionObserver o, ServiceModel* second)
      : model(m),
        model2(second),
        timing(t),
        warmup_requests(warmup),
        observe(o),
        closed(t.arrival == ArrivalProcess::kClosedLoop),
        reader(source) {
    done.reserve(64);
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
    slots[s] =
        simulated_replay::Slot{index, events.now(), r.size_bytes, 0, client, op_class(r), measured};
    result.max_in_flight = std::max(result.max_in_flight, ++in_flight);
    model.begin(events.now());
    if (model2 != nullptr) model2->begin(events.now());
    return s;
  }

  // The second half, once the request's device operations are logged.
  void end_issue(uint32_t s, uint64_t elsewhere_ns) {
    const bool timed = model.submit(s, slots[s].bytes, events);
    const bool timed2 = model2 != nullptr && model2->submit(s, slots[s].bytes, events);
    slots[s].parts =
        (timed ? 1u : 0u) + (timed2 ? 1u : 0u) + (elsewhere_ns > events.now() ? 1u : 0u);
    if (slots[s].parts == 0) {
      complete(s);  // no NAND operation: no host overhead either
    } else if (elsewhere_ns > events.now()) {
      events.schedule(elsewhere_ns, EventKind::kElsewhereDone, s);
    }
  }

  // An event a device's service model scheduled: the second device's by its id range.
  void device_event(const Event& e) {
    ServiceModel& m = model2 != nullptr && e.id >= kSecondDeviceIds ? *model2 : model;
    done.clear();
    m.handle(e, events, done);
    for (const uint32_t s : done) part_done(s);
  }

  ServiceModel& model;
  ServiceModel* model2;
  const TimingConfig& timing;
  uint64_t warmup_requests;
  CompletionObserver observe;
  bool closed;
  EventQueue events;
  std::vector<uint32_t> done;  // device_event's slots
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

SimulatedReplay::SimulatedReplay(ServiceModel& model, const TimingConfig& timing,
                                 uint64_t warmup_requests, uint64_t seed, BatchSource source,
                                 CompletionObserver observe, ServiceModel* second) {
  timing.validate();
  if (timing.mode != TimingMode::kSimulated) {
    throw std::invalid_argument(std::string("run_timed: timing.mode must be simulated, got ") +
                                timing_mode_name(timing.mode));
  }
  s_ = std::make_unique<State>(model, timing, warmup_requests, source, observe, second);
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
      case EventKind::kRequestDone:
        st.device_event(e);
        break;
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
  if (result.metrics.requests != 0) {
    result.metrics.interval_ns = st.last_completion_ns - st.first_arrival_ns;
  }
  return result;
}

}  // namespace flashpq
