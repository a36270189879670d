// traces/zstd_stream.h — a streaming byte source that transparently decompresses zstd or gzip.
//
// Every trace reader reads its file through a ByteStream, so any format can be stored plain,
// zstd- or gzip-compressed. Compression is detected from the file's first bytes (the zstd frame
// magic number 0xFD2FB528, little-endian, RFC 8878 section 3.1.1; skippable-frame magics
// 0x184D2A50..0x184D2A5F are accepted too; gzip's 0x1f 0x8b, RFC 1952 section 2.3.1, decoded
// with zlib, concatenated members one after the other as gzip -d does), never from the file
// name. This mirrors what
// libCacheSim does for `.zst` traces in libCacheSim/traceReader/generalReader/zstdReader.c,
// except that libCacheSim decides by the file extension.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

struct ZSTD_DCtx_s;
struct z_stream_s;

namespace flashpq {

/// True in the fuzzing build (CMake FLASHPQ_FUZZ, fuzz/targets.h): the trace readers then start
/// with buffers of a few dozen bytes instead of hundreds of KiB, so that fuzz inputs of a few
/// hundred bytes cross buffer boundaries and grow the line buffer (the paths a large trace
/// takes), and an input costs no page faults for buffers it never fills.
#ifdef FLASHPQ_FUZZING
inline constexpr bool kFuzzingBuild = true;
#else
inline constexpr bool kFuzzingBuild = false;
#endif

/// Reads the bytes of one file front to back, decompressing it on the fly if it is zstd.
///
/// Memory use is bounded: a fixed input buffer (a little over 128 KiB) for compressed files,
/// nothing for plain files; decompressed bytes are written straight into the caller's buffer
/// by ZSTD_decompressStream. The whole file is never held in memory. Concatenated zstd frames
/// are decoded one after the other as a single stream, as the zstd command line does.
///
/// Not thread-safe; movable, not copyable.
class ByteStream {
 public:
  /// Opens `path`. Throws TraceError ("cannot open trace '<path>': <reason>") if the file
  /// cannot be opened or its first bytes cannot be read. An empty file is a valid, empty plain
  /// stream.
  explicit ByteStream(const std::string& path);
  ~ByteStream();
  ByteStream(ByteStream&&) noexcept;
  ByteStream& operator=(ByteStream&&) noexcept;
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  /// Copies up to `n` bytes of the (decompressed) stream into `dst` and returns how many it
  /// wrote. Returns fewer than `n` only at the end of the stream; returns 0 at the end and on
  /// every later call.
  ///
  /// Throws TraceError
  ///  * on an I/O error ("<path>: read error at byte offset N: <strerror>"),
  ///  * on a corrupt zstd frame ("<path>: corrupt zstd data at compressed byte offset N:
  ///    <ZSTD_getErrorName>"), where N is the file offset up to which the decoder had consumed
  ///    input when it failed,
  ///  * when the file ends inside a zstd frame ("<path>: truncated zstd frame: the file ends
  ///    at compressed byte offset N before the frame is complete").
  size_t read(void* dst, size_t n);

  /// True if the file starts with a zstd or a gzip magic number (it is decompressed).
  bool compressed() const { return dctx_ != nullptr || gzip_ != nullptr; }

  /// "zstd", "gzip", or "" for a plain file.
  const char* compression() const { return dctx_ ? "zstd" : gzip_ ? "gzip" : ""; }

  /// The path given to the constructor.
  const std::string& path() const { return path_; }

  /// Bytes of the file consumed so far (compressed bytes for a zstd file).
  uint64_t file_offset() const;

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const;
  };
  struct DCtxFreer {
    void operator()(ZSTD_DCtx_s* d) const;
  };
  struct InflateEnder {
    void operator()(z_stream_s* z) const;
  };

  // Reads up to `n` bytes of the raw file into `dst`; returns fewer only at end of file.
  size_t read_file(void* dst, size_t n);
  size_t read_plain(void* dst, size_t n);
  size_t read_zstd(void* dst, size_t n);
  size_t read_gzip(void* dst, size_t n);

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::unique_ptr<ZSTD_DCtx_s, DCtxFreer> dctx_;
  std::unique_ptr<z_stream_s, InflateEnder> gzip_;
  // Raw file bytes read but not yet consumed: the sniffed magic bytes for a plain file, the
  // compressed input window for a zstd file. Valid range is [in_pos_, in_size_).
  std::vector<unsigned char> in_;
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
  // File offset of in_[0].
  uint64_t in_file_offset_ = 0;
  bool file_eof_ = false;
  bool done_ = false;
  // Last return value of ZSTD_decompressStream: 0 once a frame is fully decoded and flushed.
  size_t frame_hint_ = 0;
  // gzip: a member has begun and not ended.
  bool member_open_ = false;
};

}  // namespace flashpq
