#include "experiments/results.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "fmt/format.h"

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

bool is_json_results(const std::string& path) {
  const std::filesystem::path p(path);
  return p.extension() == ".jsonl" || p.extension() == ".json";
}

std::vector<CsvRecord> split_csv(const std::string& data, const std::string& path,
                                 bool& truncated_tail) {
  std::vector<CsvRecord> records;
  size_t line = 1, i = 0;
  while (i < data.size()) {
    CsvRecord r;
    r.line = line;
    const size_t start = i;
    std::string field;
    bool quoted = false, ended = false;
    for (; i < data.size(); ++i) {
      const char ch = data[i];
      if (quoted) {
        if (ch == '"' && i + 1 < data.size() && data[i + 1] == '"') {
          field += '"';
          ++i;
        } else if (ch == '"') {
          quoted = false;
        } else {
          if (ch == '\n') ++line;
          field += ch;
        }
      } else if (ch == '"') {
        if (!field.empty()) {
          throw std::runtime_error(
              fmt::format("{}:{}: a quote inside an unquoted field", path, line));
        }
        quoted = true;
      } else if (ch == ',') {
        r.fields.push_back(std::move(field));
        field.clear();
      } else if (ch == '\n') {
        r.fields.push_back(std::move(field));
        r.text = data.substr(start, i - start);
        ++line;
        ++i;
        ended = true;
        break;
      } else {
        field += ch;
      }
    }
    if (!ended) {  // the file ends inside this record: an unfinished write
      truncated_tail = true;
      break;
    }
    records.push_back(std::move(r));
  }
  return records;
}

StoredResults read_results(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the results file");
  std::ostringstream buf;
  buf << in.rdbuf();
  std::string data = buf.str();
  // A UTF-8 byte order mark, as an editor or a spreadsheet may write one, is not part of the
  // first column's name or the first row's text.
  if (data.starts_with("\xEF\xBB\xBF")) data.erase(0, 3);
  StoredResults out;
  if (!is_json_results(path)) {
    const auto records = split_csv(data, path, out.truncated_tail);
    if (records.empty()) return out;
    out.columns = records.front().fields;
    for (size_t k = 1; k < records.size(); ++k) {
      const CsvRecord& r = records[k];
      if (r.fields.size() != out.columns.size()) {
        throw std::runtime_error(fmt::format("{}:{}: {} fields, the header has {}", path, r.line,
                                             r.fields.size(), out.columns.size()));
      }
      StoredRow row;
      row.text = r.text;
      for (size_t c = 0; c < r.fields.size(); ++c) row.fields[out.columns[c]] = r.fields[c];
      out.rows.push_back(std::move(row));
    }
    return out;
  }
  size_t line = 0;
  for (size_t i = 0; i < data.size();) {
    ++line;
    const size_t end = data.find('\n', i);
    if (end == std::string::npos) {  // an unfinished write
      out.truncated_tail = true;
      break;
    }
    StoredRow row;
    row.text = data.substr(i, end - i);
    i = end + 1;
    YAML::Node node;
    try {
      node = YAML::Load(row.text);
    } catch (const YAML::Exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: not a JSON object: {}", path, line, e.msg));
    }
    if (!node.IsMap())
      throw std::runtime_error(fmt::format("{}:{}: not a JSON object", path, line));
    std::vector<std::string> columns;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      columns.push_back(key);
      row.fields[key] = kv.second.IsNull() ? "" : kv.second.Scalar();
    }
    if (out.columns.empty()) out.columns = columns;
    if (columns != out.columns) {
      throw std::runtime_error(fmt::format("{}:{}: other keys than the first line's", path, line));
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

ResultsWriter::ResultsWriter(const std::string& path, const std::vector<std::string>& columns,
                             const std::vector<std::string>& kept)
    : path_(path), json_(is_json_results(path)), columns_(columns) {
  if (const std::filesystem::path p(path); p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream t(tmp, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!t) throw std::runtime_error(tmp + ": cannot create the results file");
    if (!json_) {
      for (size_t i = 0; i < columns.size(); ++i) t << (i ? "," : "") << csv_field(columns[i]);
      t << '\n';
    }
    for (const std::string& text : kept) t << text << '\n';
    t.flush();
    if (!t) throw std::runtime_error(tmp + ": write error");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error(path + ": cannot replace it with " + tmp + ": " + ec.message());
  out_.open(path, std::ios::out | std::ios::app | std::ios::binary);
  if (!out_) throw std::runtime_error(path + ": cannot reopen the results file");
}

ResultsWriter::ResultsWriter(const std::string& path) : path_(path) {
  const std::filesystem::path p(path);
  json_ = is_json_results(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw std::runtime_error(path + ": cannot create directory: " + ec.message());
  }
  out_.open(path, std::ios::out | std::ios::trunc);
  if (!out_) throw std::runtime_error(path + ": cannot create the results file");
}

std::string ResultsWriter::write(const ResultRow& row) {
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
  std::string text;
  if (json_) {
    text += '{';
    for (size_t i = 0; i < row.size(); ++i) {
      if (i != 0) text += ',';
      text += json_string(row[i].name);
      text += ':';
      if (row[i].numeric)
        text += row[i].text.empty() ? "null" : row[i].text;
      else
        text += json_string(row[i].text);
    }
    text += '}';
  } else {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i != 0) text += ',';
      text += csv_field(row[i].text);
    }
  }
  std::string cell = "?";
  for (const auto& c : row) {
    if (c.name == "cell") cell = c.text;
  }
  errno = 0;
  out_ << text << '\n';
  out_.flush();
  if (!out_) {
    // A full disk, a quota, an I/O error: the rows before this one are whole in the file (an
    // unfinished last record is dropped by read_results(), so --resume keeps the others).
    throw std::runtime_error(fmt::format(
        "{}: cannot write the row of cell {}: {}; the rows written before it are kept (--resume "
        "runs the others)",
        path_, cell, errno != 0 ? std::strerror(errno) : "write error"));
  }
  return text;
}

}  // namespace flashpq
