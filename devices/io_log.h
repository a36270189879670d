// devices/io_log.h — the fio iolog of a device: every write, read and trim a cell sends to its
// device, as fio's trace file format version 3, so `fio --read_iolog=FILE` replays a cache's
// device traffic on any drive (docs/DESIGN.md "Calibration").
//
// Format (fio HOWTO, "Trace file format v3", fio ≥ 3.31; iolog.c read_iolog and log_io_u):
//     fio version 3 iolog
//     0 NAME add
//     0 NAME open
//     TIMESTAMP NAME read|write|trim OFFSET LENGTH
//     ...
//     TIMESTAMP NAME close
// TIMESTAMP is the issue time in µs from the start of the run (fio writes utime_since_now and
// sleeps that many µs between entries on replay); OFFSET and LENGTH are bytes (fio reads the
// length as an unsigned int: every I/O here is at most 4 GiB − 1, or it is split). The issue
// time is the runner's clock: simulated time on simflash, the monotonic clock since the run's
// start on a real device, and 0 in the functional mode, which has no clock (fio then replays as
// fast as ordering allows). The log holds the whole run, warm-up included, so that a replay
// leaves the drive in the state the cell left it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace flashpq {

class FioIoLog {
 public:
  enum Action : uint8_t { kRead, kWrite, kTrim };

  /// Creates (truncates) `path` and writes the header, `add` and `open` for `name` (the file
  /// name fio will open: a device path, or any name to be redirected with fio's
  /// --replay_redirect). Throws std::runtime_error naming the path when it cannot be written,
  /// std::invalid_argument for a name with white space (fio's parser splits at it).
  FioIoLog(const std::string& path, const std::string& name);
  /// Closes the file if finish() was not called (errors ignored).
  ~FioIoLog();
  FioIoLog(const FioIoLog&) = delete;
  FioIoLog& operator=(const FioIoLog&) = delete;

  /// The issue time of the next entries, ns from the start of the run. Never goes back: a time
  /// before the previous one is taken as the previous one.
  void set_now_ns(uint64_t ns) {
    if (ns > now_ns_) now_ns_ = ns;
  }
  /// Appends one entry at the current time.
  void record(Action action, uint64_t offset, uint64_t len);
  /// Writes `close` and closes the file. Throws std::runtime_error naming the path when a
  /// write failed (a full disk) — the iolog is then incomplete.
  void finish();

  uint64_t entries() const { return entries_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_, name_;
  std::FILE* f_ = nullptr;
  uint64_t now_ns_ = 0;
  uint64_t entries_ = 0;
};

}  // namespace flashpq
