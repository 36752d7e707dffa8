#include "conformance/vectors/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "conformance/vectors/op.h"
#include "conformance/vectors/vector_file.h"

namespace mxc::vec {
namespace {

using json = nlohmann::json;

uint64_t get_u64(const json& e, const char* key, const std::string& name,
                 long at) {
  if (!e.contains(key) || !e[key].is_number_unsigned()) {
    throw InputError(
        name, at,
        fmt::format("entry {}: '{}' missing or not a count", at, key));
  }
  return e[key].get<uint64_t>();
}

std::string get_str(const json& e, const char* key, const std::string& name,
                    long at) {
  if (!e.contains(key) || !e[key].is_string()) {
    throw InputError(
        name, at,
        fmt::format("entry {}: '{}' missing or not a string", at, key));
  }
  return e[key].get<std::string>();
}

std::map<std::string, uint64_t> get_counts(const json& e, const char* key,
                                           const std::string& name, long at) {
  std::map<std::string, uint64_t> m;
  if (!e.contains(key)) return m;
  if (!e[key].is_object()) {
    throw InputError(name, at,
                     fmt::format("entry {}: '{}' is not an object", at, key));
  }
  for (const auto& [k, v] : e[key].items()) {
    if (!v.is_number_unsigned()) {
      throw InputError(
          name, at, fmt::format("entry {}: {}.{} is not a count", at, key, k));
    }
    m[k] = v.get<uint64_t>();
  }
  return m;
}

// "i/n" -> (i, n); false when malformed.
bool parse_shard(const std::string& s, size_t& i, size_t& n) {
  char tail = 0;
  return std::sscanf(s.c_str(), "%zu/%zu%c", &i, &n, &tail) == 2 && n > 0 &&
         i < n;
}

std::string device_of(const Report& r) {
  auto it = r.run.find("device_uuid");
  if (it != r.run.end() && !it->second.empty()) return it->second;
  it = r.run.find("device");
  return it == r.run.end() ? "" : it->second;
}

std::string device_label(const Report& r) {
  if (!r.run.count("device")) return "";
  std::string s = "gpu " + r.run.at("device");
  if (r.run.count("device_uuid")) s += " " + r.run.at("device_uuid");
  if (r.run.count("device_pci")) s += " pci " + r.run.at("device_pci");
  return s;
}

// The description without what differs between shards.
std::string strip_shard_words(const std::string& d) {
  std::string out, w;
  size_t i = 0;
  while (i <= d.size()) {
    const size_t j = std::min(d.find(' ', i), d.size());
    w = d.substr(i, j - i);
    if (w.rfind("shard=", 0) != 0 && w.rfind("cases=", 0) != 0 && !w.empty()) {
      if (!out.empty()) out += ' ';
      out += w;
    }
    i = j + 1;
  }
  return out;
}

// The value of `key=` in a description of header words, or nullopt.
std::optional<std::string> description_value(const std::string& d,
                                             const std::string& key) {
  size_t i = 0;
  while (i <= d.size()) {
    const size_t j = std::min(d.find(' ', i), d.size());
    if (d.compare(i, key.size() + 1, key + "=") == 0)
      return d.substr(i + key.size() + 1, j - (i + key.size() + 1));
    i = j + 1;
  }
  return std::nullopt;
}

// An mxc verify entry: its description is the vector header's keys, every
// word key=value (mxc-gpu entries read "PTX | what key=value ...").
bool is_vector_entry(const std::string& d) {
  if (d.empty()) return false;
  size_t i = 0;
  while (i <= d.size()) {
    const size_t j = std::min(d.find(' ', i), d.size());
    const size_t eq = d.find('=', i);
    if (j > i && (eq == std::string::npos || eq >= j || eq == i)) return false;
    i = j + 1;
  }
  return true;
}

uint64_t sum_counts(const std::map<std::string, uint64_t>& m) {
  uint64_t s = 0;
  for (const auto& [k, v] : m) s += v;
  return s;
}

// A report entry must agree with itself (issue 23): an edited count or
// status is refused, not merged. Throws InputError (file:entry, field).
void check_entry(const json& e, const Report& r, const std::string& name,
                 long at) {
  auto bad = [&](const std::string& what) {
    throw InputError(name, at, fmt::format("entry {}: {}", at, what));
  };
  // Vector-file entries (mxc verify: the description is the header's keys)
  // count every mismatch and accepted variation as one of their cases;
  // mxc-gpu entries may also count a failure outside the cases (a CUDA
  // error: mismatches 1, cases 0).
  const auto c = is_vector_entry(r.description)
                     ? description_value(r.description, "cases")
                     : std::nullopt;
  if (c) {
    if (*c != std::to_string(r.cases)) {
      bad(fmt::format("'cases' is {} but its description says cases={}",
                      r.cases, *c));
    }
    if (r.mismatches + r.accepted > r.cases) {
      bad(fmt::format("'mismatches' {} + 'accepted' {} exceed 'cases' {}",
                      r.mismatches, r.accepted, r.cases));
    }
  }
  if (sum_counts(r.by_class) != r.mismatches) {
    bad(fmt::format("'by_class' counts sum to {} but 'mismatches' is {}",
                    sum_counts(r.by_class), r.mismatches));
  }
  if (sum_counts(r.accepted_by) != r.accepted) {
    bad(fmt::format("'accepted_by' counts sum to {} but 'accepted' is {}",
                    sum_counts(r.accepted_by), r.accepted));
  }
  if (r.first.size() > r.mismatches + r.accepted) {
    bad(
        fmt::format("{} 'first_mismatches' lines but 'mismatches' + "
                    "'accepted' is {}",
                    r.first.size(), r.mismatches + r.accepted));
  }
  if (e.contains("status")) {
    if (!e["status"].is_string()) bad("'status' is not a string");
    const std::string st = e["status"].get<std::string>();
    const char* want = r.mismatches ? "fail" : "pass";
    if (st != want) {
      bad(
          fmt::format("'status' is '{}' but 'mismatches' is {} (a report "
                      "passes exactly when it has no mismatches)",
                      st, r.mismatches));
    }
  }
}

// The suite's case count from a vector-file entry's description (the
// header's keys, as mxc verify writes them), or nullopt for entries that
// are not vector files (mxc-gpu families: "ptx | ...").
std::optional<uint64_t> suite_case_count(const Report& t,
                                         const std::string& description,
                                         std::string* why) {
  if (!is_vector_entry(description) || !description_value(description, "cases"))
    return std::nullopt;
  Header h;
  size_t i = 0;
  while (i <= description.size()) {
    const size_t j = std::min(description.find(' ', i), description.size());
    const std::string w = description.substr(i, j - i);
    const size_t eq = w.find('=');
    if (!w.empty() && eq != std::string::npos)
      h.kv[w.substr(0, eq)] = w.substr(eq + 1);
    i = j + 1;
  }
  h.kv["op"] = t.op;
  try {
    return make_op(h)->count();
  } catch (const std::exception& ex) {
    *why = ex.what();
    return std::nullopt;
  }
}

}  // namespace

std::vector<Report> parse_json_report(std::istream& in,
                                      const std::string& name) {
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(name, 0, fmt::format("not JSON: {}", e.what()));
  }
  if (!j.is_array())
    throw InputError(name, 0,
                     "not a report (expected a JSON array of entries)");
  std::vector<Report> out;
  long at = 0;
  for (const json& e : j) {
    if (!e.is_object())
      throw InputError(name, at, fmt::format("entry {} is not an object", at));
    Report r;
    r.file = get_str(e, "file", name, at);
    r.op = get_str(e, "op", name, at);
    r.description = e.contains("description") && e["description"].is_string()
                        ? e["description"].get<std::string>()
                        : "";
    r.cases = get_u64(e, "cases", name, at);
    r.mismatches = get_u64(e, "mismatches", name, at);
    r.accepted = e.contains("accepted") ? get_u64(e, "accepted", name, at) : 0;
    r.by_class = get_counts(e, "by_class", name, at);
    r.accepted_by = get_counts(e, "accepted_by", name, at);
    if (e.contains("first_mismatches")) {
      for (const json& m : e["first_mismatches"]) {
        if (!m.is_object() || !m.contains("line") ||
            !m["line"].is_number_integer()) {
          throw InputError(
              name, at,
              fmt::format("entry {}: malformed first_mismatches", at));
        }
        r.first.push_back({m["line"].get<long>(), get_str(m, "class", name, at),
                           get_str(m, "text", name, at)});
      }
    }
    if (e.contains("run")) {
      if (!e["run"].is_object())
        throw InputError(name, at,
                         fmt::format("entry {}: 'run' is not an object", at));
      for (const auto& [k, v] : e["run"].items()) {
        if (!v.is_string()) {
          throw InputError(
              name, at, fmt::format("entry {}: run.{} is not a string", at, k));
        }
        r.run[k] = v.get<std::string>();
      }
    }
    check_entry(e, r, name, at);
    out.push_back(std::move(r));
    ++at;
  }
  return out;
}

MergeResult merge_reports(const std::vector<MergeInput>& in,
                          size_t max_errors) {
  MergeResult m;
  m.inputs = in.size();
  if (in.empty()) {
    m.errors.push_back("no reports to merge");
    return m;
  }
  // The run every entry must belong to: the first entry's, with where it
  // was seen (for the error message).
  struct Ref {
    std::string value, where;
  };
  std::map<std::string, Ref> ref;          // suite, seed, version
  std::map<std::string, Ref> count_of;     // id -> its shard count (n of i/n)
  std::map<std::string, size_t> index_of;  // id -> merged position
  std::map<std::string, std::set<size_t>> shards_of;  // id -> shard indices
  std::map<std::tuple<std::string, size_t, std::string>, std::string>
      seen;  // -> where
  std::set<size_t> all_shards;
  std::set<std::string> devices;
  // id -> a shard's full description and every input's "path (cases=N)".
  std::map<std::string, std::string> description_of, inputs_of;
  size_t entries = 0;
  for (const MergeInput& mi : in) {
    long at = 0;
    for (const Report& r : mi.reports) {
      const std::string where =
          fmt::format("{} entry {} ({})", mi.path, at++, r.file);
      ++entries;
      bool ok = true;
      for (const char* k : {"suite", "seed", "version", "shard"}) {
        if (!r.run.count(k)) {
          m.errors.push_back(
              fmt::format("{}: no run.{}: not written by mxc verify / mxc-gpu "
                          "of this version, or already a "
                          "merged report (merge the shard reports themselves)",
                          where, k));
          ok = false;
        }
      }
      if (!ok) continue;
      size_t i = 0, n = 0;
      if (!parse_shard(r.run.at("shard"), i, n)) {
        m.errors.push_back(
            fmt::format("{}: run.shard '{}' is not i/n with 0 <= i < n", where,
                        r.run.at("shard")));
        continue;
      }
      const std::pair<const char*, std::string> keys[] = {
          {"suite", r.run.at("suite")},
          {"seed", r.run.at("seed")},
          {"version", r.run.at("version")}};
      for (const auto& [k, v] : keys) {
        auto [it, fresh] = ref.try_emplace(k, Ref{v, where});
        if (!fresh && it->second.value != v) {
          m.errors.push_back(
              fmt::format("different {}: {} has '{}', {} has '{}'", k, where, v,
                          it->second.where, it->second.value));
          ok = false;
        }
      }
      if (!ok) continue;
      const std::string id = r.run.count("id") ? r.run.at("id") : r.file;
      // One shard count per case set (mxc-gpu runs its few cuBLASLt
      // problems unsharded, "0/1", in shard 0 of a sharded run).
      auto [cit, cfresh] =
          count_of.try_emplace(id, Ref{std::to_string(n), where});
      if (!cfresh && cit->second.value != std::to_string(n)) {
        m.errors.push_back(
            fmt::format("different shard count: {} has {}/{}, {} has n = {}",
                        where, i, n, cit->second.where, cit->second.value));
        continue;
      }
      m.shard_count = std::max(m.shard_count, n);
      const std::string dev = device_of(r);
      if (!dev.empty()) devices.insert(dev);
      auto [sit, fresh] = seen.try_emplace({id, i, dev}, where);
      if (!fresh) {
        m.errors.push_back(fmt::format(
            "shard {}/{} given twice: {} and {}{}", i, n, sit->second, where,
            dev.empty() ? "" : " (device " + dev + ")"));
        continue;
      }
      if (n == m.shard_count) all_shards.insert(i);
      shards_of[id].insert(i);
      auto [pit, first] = index_of.try_emplace(id, m.merged.size());
      if (first) {
        Report t;
        t.file = r.file;
        t.op = r.op;
        t.description = strip_shard_words(r.description);
        t.run = r.run;
        t.run.erase("shard");
        t.run.erase("device");
        t.run.erase("device_uuid");
        t.run.erase("device_pci");
        t.run.erase("host");
        t.run["shards"] = std::to_string(n);
        m.merged.push_back(std::move(t));
      }
      description_of.try_emplace(id, r.description);
      inputs_of[id] += fmt::format(
          "{}{} (cases={})", inputs_of[id].empty() ? "" : ", ", where, r.cases);
      Report& t = m.merged[pit->second];
      if (t.file != r.file)
        t.file = id;  // shard files differ: name the case set
      t.cases += r.cases;
      t.mismatches += r.mismatches;
      t.accepted += r.accepted;
      for (const auto& [k, v] : r.by_class) t.by_class[k] += v;
      for (const auto& [k, v] : r.accepted_by) t.accepted_by[k] += v;
      const std::string dl = device_label(r);
      for (const MismatchLine& ml : r.first) {
        if (t.first.size() >= max_errors) break;
        // mxc-gpu names the device in the text already ("[gpu 1 GPU-...] ").
        const bool named = ml.text.rfind("[gpu ", 0) == 0;
        t.first.push_back(
            {ml.line, ml.cls,
             fmt::format("[shard {}/{}{}] {}", i, n,
                         dl.empty() || named ? "" : ", " + dl, ml.text)});
      }
    }
  }
  if (entries == 0) m.errors.push_back("the reports hold no entries");
  m.devices.assign(devices.begin(), devices.end());
  if (!m.errors.empty()) return m;
  // A shard no case set of the largest n has: missing as a whole.
  all_shards.clear();
  for (const auto& [id, ids] : shards_of) {
    if (count_of.at(id).value == std::to_string(m.shard_count))
      all_shards.insert(ids.begin(), ids.end());
  }
  for (size_t i = 0; i < m.shard_count; ++i) {
    if (!all_shards.count(i))
      m.missing.push_back(fmt::format("shard {}/{}", i, m.shard_count));
  }
  // A case set absent from shards the others have (or from some of its own).
  for (Report& t : m.merged) {
    const std::string id = t.run.count("id") ? t.run.at("id") : t.file;
    const size_t n = std::stoul(count_of.at(id).value);
    std::string gaps;
    for (size_t i = 0; i < n; ++i) {
      if (shards_of[id].count(i) ||
          (n == m.shard_count && !all_shards.count(i)))
        continue;
      gaps += fmt::format("{}{}", gaps.empty() ? "" : ",", i);
    }
    if (!gaps.empty()) {
      m.missing.push_back(
          fmt::format("{}: no entry from shard(s) {} of {}", t.file, gaps, n));
    }
  }
  // The merged cases must be the suite's: what the shards' header defines
  // (not what they claim). Vector-file entries only; mxc-gpu families have
  // no header to count from.
  for (const Report& t : m.merged) {
    const std::string id = t.run.count("id") ? t.run.at("id") : t.file;
    std::string why;
    const auto total = suite_case_count(t, description_of.at(id), &why);
    if (!why.empty()) {
      m.errors.push_back(
          fmt::format("{}: 'description' does not define a suite ({}): {}",
                      t.file, why, inputs_of.at(id)));
      continue;
    }
    if (!total) continue;
    const bool complete = m.missing.empty();
    if (complete ? t.cases != *total : t.cases >= *total) {
      m.errors.push_back(fmt::format(
          "{}: 'cases' of the shards sum to {} but the suite ({} {}) has {} "
          "cases{}: {}",
          t.file, t.cases, t.op, t.description, *total,
          complete ? "" : " and shards are missing", inputs_of.at(id)));
    }
  }
  if (!m.errors.empty()) return m;
  if (!m.missing.empty()) {
    std::string s;
    for (const std::string& x : m.missing) s += (s.empty() ? "" : "; ") + x;
    for (Report& t : m.merged) t.run["incomplete"] = s;
  }
  if (!m.devices.empty()) {
    for (Report& t : m.merged)
      t.run["devices"] = std::to_string(m.devices.size());
  }
  return m;
}

std::string render_merge_summary(const MergeResult& m) {
  uint64_t cases = 0, mism = 0, acc = 0;
  for (const Report& r : m.merged) {
    cases += r.cases;
    mism += r.mismatches;
    acc += r.accepted;
  }
  std::string s = fmt::format(
      "mxc report merge: {} inputs, {} shards{}, {} case sets: {} cases, {} "
      "mismatches, {} "
      "accepted variations\n",
      m.inputs, m.shard_count,
      m.devices.empty() ? "" : fmt::format(", {} devices", m.devices.size()),
      m.merged.size(), cases, mism, acc);
  for (const std::string& x : m.missing) s += "  INCOMPLETE: " + x + "\n";
  s += fmt::format("mxc report merge: {}\n", !m.missing.empty()
                                                 ? "INCOMPLETE (not a pass)"
                                             : mism ? "FAIL"
                                                    : "PASS");
  return s;
}

}  // namespace mxc::vec
