#include "traces/zstd_stream.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "traces/trace_reader.h"

namespace flashpq {

namespace {

constexpr size_t kMagicBytes = 4;
constexpr uint32_t kZstdMagic = 0xFD2FB528u;
constexpr uint32_t kSkippableMagicMask = 0xFFFFFFF0u;
constexpr uint32_t kSkippableMagic = 0x184D2A50u;

uint32_t load_le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

void ByteStream::FileCloser::operator()(std::FILE* f) const {
  std::fclose(f);
}

void ByteStream::DCtxFreer::operator()(ZSTD_DCtx_s* d) const {
  ZSTD_freeDCtx(d);
}

void ByteStream::InflateEnder::operator()(z_stream_s* z) const {
  inflateEnd(z);
  delete z;
}

ByteStream::ByteStream(const std::string& path) : path_(path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw TraceError("cannot open trace '" + path + "': " + std::strerror(errno));
  }
  file_.reset(f);

  // Sniff the magic number. Whatever is read stays in in_ and is handed out first.
  in_.resize(kMagicBytes);
  in_size_ = read_file(in_.data(), kMagicBytes);
  if (in_size_ == kMagicBytes) {
    const uint32_t magic = load_le32(in_.data());
    if (magic == kZstdMagic || (magic & kSkippableMagicMask) == kSkippableMagic) {
      dctx_.reset(ZSTD_createDCtx());
      if (!dctx_) throw TraceError(path_ + ": cannot allocate a zstd decompression context");
      in_.resize(kFuzzingBuild ? 64 : std::max<size_t>(ZSTD_DStreamInSize(), 128 * 1024));
    } else if (in_[0] == 0x1f && in_[1] == 0x8b) {
      gzip_.reset(new z_stream_s{});
      // 15 + 16: a gzip wrapper only (RFC 1952), the largest window.
      if (inflateInit2(gzip_.get(), 15 + 16) != Z_OK) {
        gzip_.release();
        throw TraceError(path_ + ": cannot allocate a gzip decompression stream");
      }
      in_.resize(kFuzzingBuild ? 64 : 128 * 1024);
    }
  }
}

ByteStream::~ByteStream() = default;
ByteStream::ByteStream(ByteStream&&) noexcept = default;
ByteStream& ByteStream::operator=(ByteStream&&) noexcept = default;

uint64_t ByteStream::file_offset() const {
  return in_file_offset_ + in_pos_;
}

size_t ByteStream::read_file(void* dst, size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  size_t got = 0;
  while (got < n && !file_eof_) {
    const size_t r = std::fread(out + got, 1, n - got, file_.get());
    got += r;
    if (r == 0 || got < n) {
      if (std::ferror(file_.get())) {
        throw TraceError(path_ + ": read error at byte offset " +
                         std::to_string(in_file_offset_ + in_size_ + got) + ": " +
                         std::strerror(errno));
      }
      if (std::feof(file_.get())) file_eof_ = true;
    }
  }
  return got;
}

size_t ByteStream::read(void* dst, size_t n) {
  if (done_ || n == 0) return 0;
  return dctx_ ? read_zstd(dst, n) : gzip_ ? read_gzip(dst, n) : read_plain(dst, n);
}

size_t ByteStream::read_plain(void* dst, size_t n) {
  auto* out = static_cast<unsigned char*>(dst);
  size_t got = 0;
  if (in_pos_ < in_size_) {  // The sniffed bytes come first.
    got = std::min(n, in_size_ - in_pos_);
    std::memcpy(out, in_.data() + in_pos_, got);
    in_pos_ += got;
  }
  if (got < n) {
    const size_t r = read_file(out + got, n - got);
    // Keep file_offset() exact: account the bytes as consumed straight from the file.
    in_file_offset_ += r;
    got += r;
  }
  if (got == 0) done_ = true;
  return got;
}

size_t ByteStream::read_zstd(void* dst, size_t n) {
  ZSTD_outBuffer out{dst, n, 0};
  while (out.pos < out.size) {
    if (in_pos_ == in_size_ && !file_eof_) {
      in_file_offset_ += in_size_;
      in_pos_ = 0;
      in_size_ = 0;
      in_size_ = read_file(in_.data(), in_.size());
    }
    ZSTD_inBuffer in{in_.data(), in_size_, in_pos_};
    const size_t out_before = out.pos;
    const size_t in_before = in.pos;
    const size_t ret = ZSTD_decompressStream(dctx_.get(), &out, &in);
    in_pos_ = in.pos;
    if (ZSTD_isError(ret)) {
      throw TraceError(path_ + ": corrupt zstd data at compressed byte offset " +
                       std::to_string(file_offset()) + ": " + ZSTD_getErrorName(ret));
    }
    const bool progress = in.pos != in_before || out.pos != out_before;
    // A call without progress after a finished frame already reports the next frame's header
    // size, so only calls that did something tell whether the current frame is complete.
    if (progress) frame_hint_ = ret;
    if (file_eof_ && in_pos_ == in_size_ && !progress) {
      // No input left and the decoder made no progress: the stream is over.
      if (frame_hint_ != 0) {
        throw TraceError(path_ +
                         ": truncated zstd frame: the file ends at compressed byte offset " +
                         std::to_string(file_offset()) + " before the frame is complete");
      }
      done_ = true;
      break;
    }
  }
  return out.pos;
}

size_t ByteStream::read_gzip(void* dst, size_t n) {
  z_stream_s& z = *gzip_;
  z.next_out = static_cast<Bytef*>(dst);
  z.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
  const uInt want = z.avail_out;
  while (z.avail_out > 0) {
    if (in_pos_ == in_size_) {
      if (file_eof_) {
        if (member_open_) {
          throw TraceError(path_ +
                           ": truncated gzip member: the file ends at compressed byte "
                           "offset " +
                           std::to_string(file_offset()) + " before the member is complete");
        }
        done_ = true;
        break;
      }
      in_file_offset_ += in_size_;
      in_pos_ = 0;
      in_size_ = read_file(in_.data(), in_.size());
      continue;
    }
    z.next_in = in_.data() + in_pos_;
    z.avail_in = static_cast<uInt>(in_size_ - in_pos_);
    const int ret = inflate(&z, Z_NO_FLUSH);
    in_pos_ = in_size_ - z.avail_in;
    member_open_ = true;
    if (ret == Z_STREAM_END) {
      // A member ends; another may follow (concatenated gzip files decode as one stream).
      member_open_ = false;
      if (inflateReset(&z) != Z_OK) throw TraceError(path_ + ": cannot reset the gzip stream");
    } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
      throw TraceError(path_ + ": corrupt gzip data at compressed byte offset " +
                       std::to_string(file_offset()) + ": " + (z.msg ? z.msg : "zlib error"));
    }
  }
  return want - z.avail_out;
}

}  // namespace flashpq
