// devices/service_model.h — the simulated clock a device type may declare
// (DeviceType::service_model, devices/device.h).
//
// Every device is functional: an operation through the Device interface changes its state and
// counters at once. A device with a simulated clock also says how long the operations of each
// request take, on the discrete-event kernel (sim/des.h): the simulated runner
// (experiments/run/simulated_runner.h) calls begin() before a request's operations run through
// the Device interface, submit() after them, and hands the model every event the model
// scheduled (kDieDone, kChannelDone and kRequestDone, with ids from its Options::id_base), until
// the model reports the request's device work done. The runner knows nothing of what the model
// simulates: simflash's (devices/simflash/simflash_service.h) queues the NAND operations its FTL
// logged on dies and channels, then serves the request on its host side. Adding a device with a
// clock is its folder and one registration line (docs/guide/extending.md "A device with a
// clock").
#pragma once

#include <cstdint>
#include <vector>

#include "sim/des.h"

namespace flashpq {

class ServiceModel {
 public:
  /// How a runner places a model on its clock.
  struct Options {
    /// The model's event ids start here (a second device on the same clock takes another
    /// range; its events are routed to it by id).
    uint32_t id_base = 0;
    /// Whether the device's host side (its controller and link) is modelled; a hierarchy's
    /// backing device is modelled without it.
    bool host_side = true;
  };

  virtual ~ServiceModel() = default;

  /// A request's device operations are about to run through the Device interface at the
  /// clock's `now_ns`: the model starts recording them.
  virtual void begin(uint64_t now_ns) = 0;
  /// Queues what the operations recorded since begin() cost, for the request in slot `slot`
  /// (below 2^30) with a payload of `bytes`, on `events`. Returns false when they take no time
  /// (the request's device work is then done at once, and never reported by handle()).
  virtual bool submit(uint32_t slot, uint64_t bytes, EventQueue& events) = 0;
  /// Handles an event the model scheduled; appends to `done` the slots whose device work it
  /// completed (each slot once per submit() that returned true).
  virtual void handle(const Event& event, EventQueue& events, std::vector<uint32_t>& done) = 0;
  /// Bytes the device has written to its medium so far (its own count, e.g. NAND pages × page
  /// size): the media side of a timed run's series (experiments/run/interval_stats.h).
  virtual uint64_t media_bytes_written() const = 0;
};

}  // namespace flashpq
