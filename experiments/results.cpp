#include "experiments/results.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "experiments/columns.h"
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

const std::string& StoredRow::field(const std::string& name) const {
  static const std::string none;
  const auto it = fields.find(name);
  return it == fields.end() ? none : it->second;
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
  std::vector<std::vector<std::string>> keys;  // each line's, in order
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
      if (!kv.first.IsScalar()) {
        throw std::runtime_error(fmt::format("{}:{}: a key that is not a string", path, line));
      }
      const std::string key = kv.first.Scalar();
      columns.push_back(key);
      row.fields[key] = kv.second.IsNull() ? "" : kv.second.Scalar();
    }
    if (keys.empty() || columns != keys.back()) keys.push_back(std::move(columns));
    out.rows.push_back(std::move(row));
  }
  // Lines of one set of keys keep their order; lines of several merge in the declared order.
  out.columns = keys.size() == 1 ? keys[0] : merge_columns(keys);
  return out;
}

namespace {

// One CSV record of `fields` under `columns` (a column without a field: empty).
std::string csv_record(const std::vector<std::string>& columns,
                       const std::map<std::string, std::string>& fields) {
  std::string text;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i != 0) text += ',';
    if (const auto it = fields.find(columns[i]); it != fields.end()) text += csv_field(it->second);
  }
  return text;
}

// The fields of one CSV record written under `columns`.
std::map<std::string, std::string> csv_fields(const std::vector<std::string>& columns,
                                              const std::string& text, const std::string& path) {
  bool truncated = false;
  const std::vector<CsvRecord> r = split_csv(text + "\n", path, truncated);
  if (r.size() != 1 || r[0].fields.size() != columns.size()) {
    throw std::logic_error(path + ": a row written does not read back under its header");
  }
  std::map<std::string, std::string> fields;
  for (size_t i = 0; i < columns.size(); ++i) fields[columns[i]] = r[0].fields[i];
  return fields;
}

}  // namespace

ResultsWriter::ResultsWriter(const std::string& path, const std::vector<std::string>& columns,
                             const std::vector<StoredRow>& kept)
    : path_(path), json_(is_json_results(path)), columns_(columns) {
  if (const std::filesystem::path p(path); p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
  }
  const std::set<std::string> header(columns.begin(), columns.end());
  for (const StoredRow& row : kept) {
    if (json_) {
      texts_.push_back(row.text);
      continue;
    }
    for (const auto& [name, text] : row.fields) {
      if (!text.empty() && !header.contains(name)) {
        throw std::logic_error(path + ": a kept row's column '" + name + "' is not in the header");
      }
    }
    texts_.push_back(csv_record(columns_, row.fields));
  }
  rewrite();
}

void ResultsWriter::replace(const std::string& path, const std::vector<std::string>& columns,
                            const std::vector<std::string>& texts) {
  const std::string tmp = path + ".tmp";
  std::error_code ec;
  {
    std::ofstream t(tmp, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!t) throw std::runtime_error(tmp + ": cannot create the results file");
    if (!is_json_results(path)) {
      for (size_t i = 0; i < columns.size(); ++i) t << (i ? "," : "") << csv_field(columns[i]);
      t << '\n';
    }
    for (const std::string& text : texts) t << text << '\n';
    t.flush();
    if (!t) {
      t.close();
      std::filesystem::remove(tmp, ec);  // path is as it was
      throw std::runtime_error(tmp + ": write error");
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    std::filesystem::remove(tmp, ec);
    throw std::runtime_error(path + ": cannot replace it with " + tmp + ": " + why);
  }
}

void ResultsWriter::rewrite() {
  out_.close();
  replace(path_, columns_, texts_);
  header_written_ = true;
  out_.open(path_, std::ios::out | std::ios::app | std::ios::binary);
  if (!out_) throw std::runtime_error(path_ + ": cannot reopen the results file");
}

ResultsWriter::ResultsWriter(const std::string& path, const std::vector<std::string>& columns)
    : path_(path), json_(is_json_results(path)), columns_(columns) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) throw std::runtime_error(path + ": cannot create directory: " + ec.message());
  }
  out_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) throw std::runtime_error(path + ": cannot create the results file");
  if (!json_ && !columns_.empty()) {
    for (size_t i = 0; i < columns_.size(); ++i) out_ << (i ? "," : "") << csv_field(columns_[i]);
    out_ << '\n';
    out_.flush();
    if (!out_) throw std::runtime_error(path + ": cannot write the header");
    header_written_ = true;
  }
}

std::string ResultsWriter::write(const ResultRow& row) {
  std::map<std::string, std::string> fields;
  std::vector<std::string> names;
  for (const Column& c : row) {
    if (!fields.emplace(c.name, c.text).second) {
      throw std::logic_error("results row with the column '" + c.name + "' twice");
    }
    names.push_back(c.name);
  }
  std::string cell = "?";
  if (const auto it = fields.find("cell"); it != fields.end()) cell = it->second;
  // The first row of a file without a header gives it; a row with a column the header lacks
  // widens it (in the declared order).
  const std::set<std::string> known(columns_.begin(), columns_.end());
  const bool wider = std::any_of(names.begin(), names.end(),
                                 [&](const std::string& n) { return !known.contains(n); });
  const std::vector<std::string> merged = columns_.empty() ? names
                                          : wider          ? merge_columns({columns_, names})
                                                           : columns_;
  if (wider) {
    if (!json_ && header_written_) {
      // A column the header lacks (an if_set column): the rows so far under the wider header.
      std::vector<std::string> texts;
      for (const std::string& t : texts_)
        texts.push_back(csv_record(merged, csv_fields(columns_, t, path_)));
      columns_ = merged;
      texts_ = std::move(texts);
      try {
        rewrite();
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(fmt::format(
            "{}: cannot add the columns of cell {} to the header: {}; the rows written before it "
            "are kept (--resume runs the others)",
            path_, cell, e.what()));
      }
    } else {
      columns_ = merged;
    }
  }
  if (!json_ && !header_written_) {
    for (size_t i = 0; i < columns_.size(); ++i) out_ << (i ? "," : "") << csv_field(columns_[i]);
    out_ << '\n';
    header_written_ = true;
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
    text = csv_record(columns_, fields);
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
  texts_.push_back(text);
  return text;
}

}  // namespace flashpq
