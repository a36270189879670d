#include "experiments/results.h"

#include <filesystem>
#include <stdexcept>

namespace flashpq {

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

ResultsWriter::ResultsWriter(const std::string& path) : path_(path) {
  const std::filesystem::path p(path);
  json_ = p.extension() == ".jsonl" || p.extension() == ".json";
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw std::runtime_error(path + ": cannot create directory: " + ec.message());
  }
  out_.open(path, std::ios::out | std::ios::trunc);
  if (!out_) throw std::runtime_error(path + ": cannot create the results file");
}

void ResultsWriter::write(const ResultRow& row) {
  if (columns_.empty()) {
    for (const auto& c : row) columns_.push_back(c.name);
    if (!json_) {
      for (size_t i = 0; i < row.size(); ++i) out_ << (i ? "," : "") << csv_field(row[i].name);
      out_ << '\n';
    }
  } else {
    bool same = row.size() == columns_.size();
    for (size_t i = 0; same && i < row.size(); ++i) same = row[i].name == columns_[i];
    if (!same) throw std::logic_error("results row with different columns");
  }
  if (json_) {
    out_ << '{';
    for (size_t i = 0; i < row.size(); ++i) {
      out_ << (i ? "," : "") << json_string(row[i].name) << ':';
      if (row[i].numeric)
        out_ << (row[i].text.empty() ? "null" : row[i].text);
      else
        out_ << json_string(row[i].text);
    }
    out_ << "}\n";
  } else {
    for (size_t i = 0; i < row.size(); ++i) out_ << (i ? "," : "") << csv_field(row[i].text);
    out_ << '\n';
  }
  out_.flush();
  if (!out_) throw std::runtime_error(path_ + ": write error");
}

}  // namespace flashpq
