// experiments/run/runners.h — which runner times a cell, and what each needs.
//
//   functional  timing.mode none on a simulated device: no clock, counts only, as fast as the
//               CPU allows (experiments/run/replay.h);
//   simulated   timing.mode simulated: the discrete-event clock over simflash's dies and
//               channels (experiments/run/simulated_runner.h); needs device simflash;
//   wall        timing.mode wall, or any cell on a device that is real hardware (timed anyway):
//               the host's monotonic clock (experiments/run/wall_runner.h); needs such a device.
// Their requirements are declared as data (experiments/config/runner_requirements.h) and checked
// with every component's by the experiment loader (experiments/config/cell_config.cpp).
#pragma once

#include <string>
#include <vector>

#include "experiments/config/cell_config.h"
#include "experiments/config/runner_requirements.h"
#include "experiments/run/measure.h"
#include "sim/params.h"

namespace flashpq {

enum class RunnerKind { kFunctional, kSimulated, kWall };

/// The runner of `cell`: simulated for timing.mode simulated (on a device whose type declares
/// DeviceClock::kSimulated); wall for timing.mode wall or a device whose type is timed by the
/// wall clock (DeviceClock::kWall); functional otherwise.
RunnerKind runner_for(const CellConfig& cell);

class BlockDevice;
class ServiceModel;

/// The functional runner: the trace through the cache (or framework direct onto the device) as
/// fast as the CPU allows. Throws as the components and the trace reader.
Measurement run_functional(const CellConfig& cell, const CellPlan& plan, Device& device);
/// The functional runner of a hierarchy (plan.tiers enabled; engine/tiers.h): a DRAM tier over
/// the cell's cache over a backing store. Throws as run_functional.
Measurement run_tiered(const CellConfig& cell, const CellPlan& plan, Device& device);
/// The simulated-time runner of a hierarchy (experiments/run/tiered_cell.cpp): the flash tier on
/// `device`, timed by its service model `model`, the backing store on cell.backing's
/// fixed_latency device or a second device on the same clock, NHC's controller in the nhc
/// modes. Throws as run_functional.
Measurement run_tiered_simulated(const CellConfig& cell, const CellPlan& plan, Device& device,
                                 ServiceModel& model);
/// The wall-clock runner of a hierarchy (experiments/run/tiered_cell.cpp): the flash tier on
/// the real `device`, every request timed from the start to the end of the hierarchy's access
/// (DRAM's work on the host, flash's I/O on the device); the backing store counted. Throws as
/// run_on_wall_clock.
Measurement run_tiered_on_wall_clock(const CellConfig& cell, const CellPlan& plan,
                                     BlockDevice& device);
/// The simulated-time runner (experiments/run/simulated_runner.h): `device` timed by its service
/// model `model` (DeviceType::service_model); a hierarchy's goes to run_tiered_simulated.
/// Throws as run_functional.
Measurement run_simulated(const CellConfig& cell, const CellPlan& plan, Device& device,
                          ServiceModel& model);
/// The wall-clock runner (experiments/run/wall_cell.h): a cache timed request by request, or
/// framework direct with requests in flight. Throws as run_functional, and on an I/O error.
Measurement run_on_wall_clock(const CellConfig& cell, const CellPlan& plan, BlockDevice& device);

/// The columns a runner adds to the row (the wall clock's fio names: iops, bw_bytes, clat_ns,
/// lat_ns), every runner's in order; empty in rows of the other runners.
const std::vector<std::string>& runner_column_names();

}  // namespace flashpq
