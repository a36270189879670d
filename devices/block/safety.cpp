#include "devices/block/safety.h"

#include <blkid/blkid.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "fmt/format.h"

namespace flashpq {

namespace fs = std::filesystem;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c) && c != '\0'; };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string read_attr(const std::string& path) {
  return trim(read_text(path));
}

uint64_t read_u64_attr(const std::string& path) {
  const std::string t = read_attr(path);
  if (t.empty()) return 0;
  try {
    return std::stoull(t);
  } catch (const std::exception&) {
    return 0;
  }
}

// procfs and mountinfo escape ' ', '\t', '\n' and '\\' as \ooo (octal).
std::string unescape_octal(std::string_view s) {
  const auto oct = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && oct(s[i + 1]) && oct(s[i + 2]) && oct(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

bool parse_dev_numbers(std::string_view t, uint32_t* major, uint32_t* minor) {
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos) return false;
  try {
    *major = static_cast<uint32_t>(std::stoul(std::string(t.substr(0, colon))));
    *minor = static_cast<uint32_t>(std::stoul(std::string(t.substr(colon + 1))));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

std::string canonical_or_empty(const std::string& p) {
  std::error_code ec;
  const fs::path c = fs::canonical(p, ec);
  return ec ? std::string() : c.string();
}

struct Dev {
  uint32_t major, minor;
  bool operator<(const Dev& o) const {
    return major != o.major ? major < o.major : minor < o.minor;
  }
};

// Identity of a block device from sysfs: kernel name, partition, disk, serial, WWID, model.
void identify_block(DeviceIdentity& id, const SystemPaths& sys) {
  const std::string link = fmt::format("{}/{}:{}", sys.sys_dev_block, id.major, id.minor);
  const std::string dir = canonical_or_empty(link);
  if (dir.empty()) return;
  id.kernel_name = fs::path(dir).filename().string();
  id.partition = fs::exists(fs::path(dir) / "partition");
  id.disk_name = id.partition ? fs::path(dir).parent_path().filename().string() : id.kernel_name;
  const std::string disk = sys.sys_class_block + "/" + id.disk_name;
  for (const char* f : {"/device/serial", "/serial"}) {
    if (id.serial.empty()) id.serial = read_attr(disk + f);
  }
  for (const char* f : {"/wwid", "/device/wwid"}) {
    if (id.wwid.empty()) id.wwid = read_attr(disk + f);
  }
  id.model = read_attr(disk + "/device/model");
  id.loop_backing_file = read_attr(disk + "/loop/backing_file");
}

void blkid_signatures(const std::string& path, std::vector<Signature>& out) {
  blkid_probe pr = blkid_new_probe_from_filename(path.c_str());
  if (!pr) {
    throw std::runtime_error(path + ": libblkid cannot probe it: " + std::strerror(errno));
  }
  // The probe wipefs(8) runs: every superblock and partition-table signature, one per call.
  blkid_probe_enable_superblocks(pr, 1);
  blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE |
                                            BLKID_SUBLKS_USAGE | BLKID_SUBLKS_LABEL |
                                            BLKID_SUBLKS_BADCSUM);
  blkid_probe_enable_partitions(pr, 1);
  blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
  auto value = [&](const char* name) -> std::string {
    const char* v = nullptr;
    size_t len = 0;
    if (blkid_probe_lookup_value(pr, name, &v, &len) != 0 || !v) return {};
    return std::string(v, strnlen(v, len));
  };
  while (blkid_do_probe(pr) == 0) {
    Signature s;
    if (!(s.type = value("TYPE")).empty()) {
      s.usage = value("USAGE");
      s.label = value("LABEL");
      const std::string off = value("SBMAGIC_OFFSET");
      s.offset = off.empty() ? 0 : std::stoull(off);
    } else if (!(s.type = value("PTTYPE")).empty()) {
      s.usage = "partition table";
      const std::string off = value("PTMAGIC_OFFSET");
      s.offset = off.empty() ? 0 : std::stoull(off);
    } else {
      continue;
    }
    out.push_back(std::move(s));
  }
  blkid_free_probe(pr);
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
  // proc(5): ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
  std::vector<MountEntry> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const auto f = split_ws(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (f.size() < 7) continue;
    MountEntry e;
    if (!parse_dev_numbers(f[2], &e.major, &e.minor)) continue;
    e.mount_point = unescape_octal(f[4]);
    size_t sep = 6;
    while (sep < f.size() && f[sep] != "-") ++sep;
    if (sep + 1 < f.size()) e.fs_type = std::string(f[sep + 1]);
    if (sep + 2 < f.size()) e.source = unescape_octal(f[sep + 2]);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> parse_swaps(std::string_view text) {
  std::vector<std::string> out;
  size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const auto f = split_ws(text.substr(pos, eol - pos));
    pos = eol + 1;
    if (header) {  // "Filename Type Size Used Priority"
      header = false;
      if (!f.empty() && f[0] == "Filename") continue;
    }
    if (!f.empty()) out.push_back(unescape_octal(f[0]));
  }
  return out;
}

std::string DeviceIdentity::force_identity() const {
  if (!wwid.empty()) return wwid;
  if (!serial.empty()) return serial;
  return real_path;
}

DeviceReport inspect_device(const std::string& path, const SystemPaths& sys) {
  DeviceReport r;
  DeviceIdentity& id = r.identity;
  DeviceGeometry& g = r.geometry;
  id.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw std::runtime_error(path + ": " + std::strerror(errno));
  }
  id.real_path = canonical_or_empty(path);
  if (S_ISBLK(st.st_mode)) {
    id.block_device = true;
    id.major = major(st.st_rdev);
    id.minor = minor(st.st_rdev);
  } else if (S_ISREG(st.st_mode)) {
    id.major = major(st.st_dev);
    id.minor = minor(st.st_dev);
  } else {
    throw std::runtime_error(path + ": neither a block device nor a regular file");
  }
  identify_block(id, sys);  // for a file: the device holding its filesystem, if any
  if (!id.block_device) {
    // A file has no serial of its own; the device under it is only informative.
    id.partition = false;
    id.serial.clear();
    id.wwid.clear();
    id.model.clear();
    id.loop_backing_file.clear();
  }
  if (std::regex_match(id.disk_name, std::regex("nvme[0-9]+n[0-9]+"))) {
    r.nvme_namespace = "/dev/" + id.disk_name;
  }

  // Geometry.
  struct statx sx {};
  if (::statx(AT_FDCWD, path.c_str(), 0, STATX_BASIC_STATS | STATX_DIOALIGN, &sx) == 0 &&
      (sx.stx_mask & STATX_DIOALIGN)) {
    g.dio_mem_align = sx.stx_dio_mem_align;
    g.dio_offset_align = sx.stx_dio_offset_align;
  }
  if (id.block_device) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw std::runtime_error(path +
                               ": cannot open to read its geometry: " + std::strerror(errno));
    int lbs = 0, ro = 0;
    unsigned int pbs = 0, iomin = 0, ioopt = 0;
    uint64_t size = 0;
    if (::ioctl(fd, BLKSSZGET, &lbs) == 0) g.logical_block_bytes = static_cast<uint32_t>(lbs);
    if (::ioctl(fd, BLKPBSZGET, &pbs) == 0) g.physical_block_bytes = pbs;
    if (::ioctl(fd, BLKGETSIZE64, &size) == 0) g.size_bytes = size;
    if (::ioctl(fd, BLKROGET, &ro) == 0) g.read_only = ro != 0;
    if (::ioctl(fd, BLKIOMIN, &iomin) == 0) g.io_min_bytes = iomin;
    if (::ioctl(fd, BLKIOOPT, &ioopt) == 0) g.io_opt_bytes = ioopt;
    ::close(fd);
    const std::string queue = sys.sys_class_block + "/" + id.disk_name + "/queue/";
    g.rotational = read_attr(queue + "rotational") == "1";
    g.discard_max_bytes = read_u64_attr(queue + "discard_max_bytes");
    g.discard_granularity_bytes =
        static_cast<uint32_t>(read_u64_attr(queue + "discard_granularity"));
  } else {
    g.size_bytes = static_cast<uint64_t>(st.st_size);
    g.physical_block_bytes = static_cast<uint32_t>(st.st_blksize);
    g.logical_block_bytes =
        g.dio_offset_align ? g.dio_offset_align : static_cast<uint32_t>(st.st_blksize);
    struct statvfs vfs {};
    g.read_only = ::access(path.c_str(), W_OK) != 0 ||
                  (::statvfs(path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY));
  }

  // Partitions of a whole disk.
  std::set<Dev> devs;
  std::set<std::string> dev_paths;
  std::vector<std::string> names;
  if (id.block_device) {
    devs.insert({id.major, id.minor});
    if (!id.real_path.empty()) dev_paths.insert(id.real_path);
    if (!id.kernel_name.empty()) {
      dev_paths.insert("/dev/" + id.kernel_name);
      names.push_back(id.kernel_name);
    }
    if (!id.partition && !id.kernel_name.empty()) {
      std::error_code ec;
      const fs::path dir = fs::path(sys.sys_class_block) / id.kernel_name;
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::error_code ec2;
        if (!e.is_directory(ec2) || !fs::exists(e.path() / "partition", ec2)) continue;
        const std::string name = e.path().filename().string();
        r.partitions.push_back(name);
        names.push_back(name);
        dev_paths.insert("/dev/" + name);
        Dev d{};
        if (parse_dev_numbers(read_attr((e.path() / "dev").string()), &d.major, &d.minor)) {
          devs.insert(d);
        }
      }
      std::sort(r.partitions.begin(), r.partitions.end());
    }
  }

  // Mounts (block devices; a file's own "mount" is a loop device, found among the holders).
  if (id.block_device) {
    for (const MountEntry& m : parse_mountinfo(read_text(sys.mountinfo))) {
      bool hit = devs.count({m.major, m.minor}) > 0;
      if (!hit && !m.source.empty() && m.source[0] == '/') {
        const std::string c = canonical_or_empty(m.source);
        hit = dev_paths.count(m.source) > 0 || (!c.empty() && dev_paths.count(c) > 0);
      }
      if (hit) {
        r.mounts.push_back(fmt::format("{} on {} type {}", m.source, m.mount_point, m.fs_type));
      }
    }
  }

  // Swap.
  for (const std::string& p : parse_swaps(read_text(sys.swaps))) {
    struct stat s {};
    bool hit = false;
    if (::stat(p.c_str(), &s) == 0) {
      if (id.block_device && S_ISBLK(s.st_mode)) {
        hit = devs.count({major(s.st_rdev), minor(s.st_rdev)}) > 0;
      } else if (!id.block_device && S_ISREG(s.st_mode)) {
        hit = s.st_dev == st.st_dev && s.st_ino == st.st_ino;
      }
    }
    if (!hit) hit = dev_paths.count(p) > 0 || (!id.block_device && p == id.real_path);
    if (hit) r.swaps.push_back(p);
  }

  // Holders; for a file, the loop devices it backs.
  if (id.block_device) {
    for (const std::string& name : names) {
      std::error_code ec;
      for (const auto& e :
           fs::directory_iterator(fs::path(sys.sys_class_block) / name / "holders", ec)) {
        r.holders.push_back(name + " is held by " + e.path().filename().string());
      }
    }
  } else {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(sys.sys_class_block, ec)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("loop", 0) != 0) continue;
      std::string backing = read_attr((e.path() / "loop" / "backing_file").string());
      if (backing.empty()) continue;
      const std::string deleted = " (deleted)";
      if (backing.size() > deleted.size() &&
          backing.compare(backing.size() - deleted.size(), deleted.size(), deleted) == 0) {
        continue;  // backs an unlinked file, not this one
      }
      struct stat s {};
      if ((::stat(backing.c_str(), &s) == 0 && s.st_dev == st.st_dev && s.st_ino == st.st_ino) ||
          backing == id.real_path) {
        r.holders.push_back(name + " is backed by this file");
      }
    }
  }
  std::sort(r.holders.begin(), r.holders.end());

  blkid_signatures(path, r.signatures);
  return r;
}

std::vector<std::string> safety_refusals(const DeviceReport& r, uint64_t capacity_bytes,
                                         const std::string& force_destroy) {
  std::vector<std::string> out;
  const std::string identity = r.identity.force_identity();
  for (const auto& m : r.mounts) out.push_back("mounted: " + m);
  for (const auto& s : r.swaps) out.push_back("used as swap: " + s);
  for (const auto& h : r.holders) out.push_back("in use: " + h);
  if (r.geometry.read_only) out.push_back("read-only");
  if (r.identity.block_device && capacity_bytes > r.geometry.size_bytes) {
    out.push_back(fmt::format("too small: {} bytes, the configured capacity is {} bytes",
                              r.geometry.size_bytes, capacity_bytes));
  }
  if (!force_destroy.empty() && force_destroy != identity) {
    out.push_back(
        fmt::format("--force-destroy={} does not name this device, whose identity is '{}'",
                    force_destroy, identity));
  }
  if (!r.signatures.empty() && force_destroy != identity) {
    std::string sigs;
    for (const auto& s : r.signatures) {
      sigs += fmt::format("{}{} ({}) at offset {}", sigs.empty() ? "" : ", ", s.type, s.usage,
                          s.offset);
    }
    out.push_back(fmt::format(
        "carries signatures: {}; its contents would be destroyed: to proceed anyway, pass "
        "--force-destroy={}",
        sigs, identity));
  }
  return out;
}

void enforce_safety(const DeviceReport& report, uint64_t capacity_bytes,
                    const std::string& force_destroy) {
  const auto refusals = safety_refusals(report, capacity_bytes, force_destroy);
  if (refusals.empty()) return;
  std::string msg = report.identity.path + ": refusing to write:";
  for (const auto& r : refusals) msg += "\n  - " + r;
  throw SafetyError(msg);
}

std::string describe_device(const DeviceReport& r) {
  const DeviceIdentity& id = r.identity;
  const DeviceGeometry& g = r.geometry;
  std::string out;
  auto line = [&](const char* key, const std::string& value) {
    out += fmt::format("  {:<22} {}\n", key, value.empty() ? "-" : value);
  };
  out += "identity\n";
  line("path", id.path);
  line("canonical path", id.real_path);
  line("type", id.block_device ? (id.partition ? "block device (partition)" : "block device")
                               : "regular file");
  line(id.block_device ? "device" : "on device",
       id.kernel_name.empty() ? fmt::format("{}:{}", id.major, id.minor)
                              : fmt::format("{} ({}:{})", id.kernel_name, id.major, id.minor));
  if (id.block_device) {
    line("disk", id.disk_name);
    line("model", id.model);
    line("serial", id.serial);
    line("wwid", id.wwid);
    if (!id.loop_backing_file.empty()) line("loop backing file", id.loop_backing_file);
  }
  line("nvme namespace", r.nvme_namespace);
  line("--force-destroy=", id.force_identity());
  out += "geometry\n";
  line("size", fmt::format("{} bytes", g.size_bytes));
  line("logical block", fmt::format("{} bytes", g.logical_block_bytes));
  line("physical block", fmt::format("{} bytes", g.physical_block_bytes));
  line("O_DIRECT alignment", g.dio_offset_align ? fmt::format("offset {} bytes, memory {} bytes",
                                                              g.dio_offset_align, g.dio_mem_align)
                                                : std::string("unknown (no STATX_DIOALIGN)"));
  if (id.block_device) {
    line("io min / opt", fmt::format("{} / {} bytes", g.io_min_bytes, g.io_opt_bytes));
    line("rotational", g.rotational ? "yes" : "no");
    line("discard", g.discard_max_bytes
                        ? fmt::format("up to {} bytes, granularity {} bytes", g.discard_max_bytes,
                                      g.discard_granularity_bytes)
                        : std::string("not supported"));
  } else {
    line("discard", "punch holes (if the filesystem supports it)");
  }
  line("read-only", g.read_only ? "yes" : "no");
  auto list = [&](const char* title, const std::vector<std::string>& v) {
    out += fmt::format("{}{}\n", title, v.empty() ? ": none" : "");
    for (const auto& s : v) out += "  " + s + "\n";
  };
  if (id.block_device) list("partitions", r.partitions);
  if (id.block_device) list("mounts", r.mounts);
  list("swap", r.swaps);
  list("holders", r.holders);
  std::vector<std::string> sigs;
  for (const auto& s : r.signatures) {
    sigs.push_back(fmt::format("{} ({}) at offset {}{}", s.type, s.usage, s.offset,
                               s.label.empty() ? "" : ", label '" + s.label + "'"));
  }
  list("signatures", sigs);
  const auto refusals = safety_refusals(r, 0, "");
  out += refusals.empty() ? "verdict: FlashPQ may write this device\n"
                          : "verdict: FlashPQ refuses to write this device:\n";
  for (const auto& s : refusals) out += "  - " + s + "\n";
  return out;
}

}  // namespace flashpq
