#include "devices/io_log.h"

#include <cinttypes>
#include <stdexcept>

namespace flashpq {

FioIoLog::FioIoLog(const std::string& path, const std::string& name) : path_(path), name_(name) {
  if (name.empty() || name.find_first_of(" \t\n") != std::string::npos) {
    throw std::invalid_argument("iolog: the device name '" + name +
                                "' is empty or holds white space, which fio's parser splits at");
  }
  f_ = std::fopen(path.c_str(), "w");
  if (!f_) throw std::runtime_error("iolog: cannot create " + path);
  std::fprintf(f_, "fio version 3 iolog\n0 %s add\n0 %s open\n", name_.c_str(), name_.c_str());
}

FioIoLog::~FioIoLog() {
  if (f_) std::fclose(f_);
}

void FioIoLog::record(Action action, uint64_t offset, uint64_t len) {
  static const char* const kNames[] = {"read", "write", "trim"};
  const uint64_t us = now_ns_ / 1000;
  constexpr uint64_t kMax = UINT32_MAX & ~uint64_t{4095};  // fio's %u, 4 KiB-aligned pieces
  while (len > 0) {
    const uint64_t piece = len > kMax ? kMax : len;
    std::fprintf(f_, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", us, name_.c_str(),
                 kNames[action], offset, piece);
    offset += piece;
    len -= piece;
    ++entries_;
  }
}

void FioIoLog::finish() {
  if (!f_) return;
  std::fprintf(f_, "%" PRIu64 " %s close\n", now_ns_ / 1000, name_.c_str());
  const bool failed = std::ferror(f_) != 0;
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (failed || !closed) throw std::runtime_error("iolog: writing " + path_ + " failed");
}

}  // namespace flashpq
