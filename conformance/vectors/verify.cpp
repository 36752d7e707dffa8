#include "conformance/vectors/verify.h"

#include <fmt/format.h>

#include <optional>
#include <set>
#include <stdexcept>

#include "conformance/vectors/op.h"

namespace mxc::vec {
namespace {

std::string join_fields(std::span<const uint64_t> v,
                        const std::vector<Field>& f, size_t from, size_t n) {
  std::string s;
  const size_t shown = std::min<size_t>(n, 8);
  for (size_t i = 0; i < shown; ++i) {
    if (i) s += ' ';
    s += hex_field(v[i], f[from + i].width);
  }
  if (n > shown) s += fmt::format(" ...({} fields)", n);
  return s;
}

std::vector<uint64_t> parse_fields(const Reader& r,
                                   const std::vector<std::string_view>& t,
                                   size_t first,
                                   const std::vector<Field>& spec) {
  std::vector<uint64_t> v(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    v[i] = parse_field(r, t[first + i], spec[i].width, spec[i].name.c_str());
  }
  return v;
}

using io::parse_unsigned;

}  // namespace

std::string allow_error(const std::string& a) {
  if (a == "nan-payload" || a == "sign-of-zero" || a == "flags") return "";
  if (a.rfind("ulp=", 0) == 0) {
    const auto n = parse_unsigned(a.substr(4));
    if (!n || *n < 1 || *n > kMaxAllowUlp) {
      return fmt::format(
          "--allow {}: N in ulp=N must be a decimal integer 1..{}",
          io::quote(a), kMaxAllowUlp);
    }
    return "";
  }
  return fmt::format(
      "--allow {}: use nan-payload, sign-of-zero, flags or ulp=N", io::quote(a));
}

bool known_header_key(const std::string& key) {
  static const std::set<std::string> k = {
      "mxconform-vectors", "op", "spec", "generator", "seed", "prng", "level",
      "shard", "cases", "fields", "from", "to", "round", "overflow", "relu",
      "profile", "elem", "block", "sr", "elem-a", "elem-b", "blocks", "out",
      "model", "a-fmt", "b-fmt", "k", "packing", "note", "layout", "m", "n",
      "split-k", "zero-exp", "zero-sign", "range"};
  return k.count(key) != 0;
}

Report verify(std::istream& vin, const std::string& vname, std::istream* rin,
              const std::string& rname, const VerifyOptions& o) {
  for (const std::string& a : o.allow) {
    const std::string e = allow_error(a);
    if (!e.empty()) throw std::invalid_argument(e);
  }
  Reader vr(vin, vname);
  vr.set_key_check(&known_header_key);
  const Header& h = vr.header();
  if (h.kv.empty()) vr.fail("no header: not an mxconform vector file");
  if (!h.has("mxconform-vectors")) {
    vr.fail("header has no mxconform-vectors=<version> line");
  }
  std::unique_ptr<Op> op;
  try {
    op = make_op(h);
  } catch (const HeaderValueError& e) {
    // Point at the key's own header line.
    const auto at = h.lines.find(e.key());
    if (at != h.lines.end()) throw InputError(vname, at->second, e.what());
    vr.fail(e.what());
  } catch (const std::invalid_argument& e) {
    vr.fail(e.what());
  }
  // Exit 0 must mean every case was compared: the header's case count (and,
  // when the expected results are recomputed, the exact case sequence of
  // the header's shard) is enforced.
  const auto declared = parse_unsigned(h.get("cases"));
  if (!declared) {
    vr.fail(fmt::format("header cases={} is not a case count (every vector "
                        "file states how many cases it holds)",
                        io::quote(h.get("cases", "(absent)"))));
  }
  uint64_t shard_i = 0, shard_n = 1;
  if (h.has("shard")) {
    const std::string sh = h.get("shard");
    const auto slash = sh.find('/');
    const auto i = parse_unsigned(sh.substr(0, slash));
    const auto n = slash == std::string::npos ? std::nullopt
                                              : parse_unsigned(sh.substr(slash + 1));
    if (!i || !n || *n == 0 || *i >= *n) {
      vr.fail(fmt::format("header shard={} is not i/n with 0 <= i < n",
                          io::quote(sh)));
    }
    shard_i = *i;
    shard_n = *n;
  }
  for (const std::string& req : o.require) {
    const auto eq = req.find('=');
    const std::string k = req.substr(0, eq), v = eq == std::string::npos ? "" : req.substr(eq + 1);
    if (h.get(k) != v) {
      vr.fail(fmt::format("header {}={} contradicts the option --require {}",
                          k, h.get(k, "(absent)"), req));
    }
  }
  const auto in_spec = op->inputs();
  const auto out_spec = op->results();
  std::vector<Field> all = in_spec;
  all.insert(all.end(), out_spec.begin(), out_spec.end());

  std::unique_ptr<Reader> rr;
  if (rin) {
    rr = std::make_unique<Reader>(*rin, rname);
    const Header& rh = rr->header();
    for (const auto& [k, v] : rh.kv) {
      if (k == "cases" || k == "shard" || k == "generator") continue;
      if (h.has(k) && h.get(k) != v) {
        rr->fail(fmt::format("results header {}={} contradicts the vectors' "
                             "{}={}",
                             k, v, k, h.get(k)));
      }
    }
  }

  Report rep;
  rep.file = rin ? rname : vname;
  rep.op = h.get("op");
  for (const auto& [k, v] : h.kv) {
    if (k == "op" || k == "mxconform-vectors" || k == "generator" ||
        k == "prng" || k == "fields" || k == "spec")
      continue;
    if (!rep.description.empty()) rep.description += ' ';
    rep.description += k + "=" + v;
  }
  // Provenance for `mxc report merge`: the case set is the header without
  // what differs between the shards of one run.
  std::string suite = h.get("op");
  for (const auto& [k, v] : h.kv) {
    if (k == "op" || k == "shard" || k == "cases" || k == "generator" || k == "seed") continue;
    suite += ' ' + k + "=" + v;
  }
  rep.run["suite"] = suite;
  rep.run["id"] = suite;
  rep.run["seed"] = h.get("seed", "");
  rep.run["version"] = h.get("generator", "unknown");
  rep.run["shard"] = h.get("shard", "0/1");
  std::vector<std::string_view> vt, rt;
  const uint64_t total = op->count();
  const uint64_t defined =
      total > shard_i ? (total - shard_i - 1) / shard_n + 1 : 0;
  if (o.check_sequence && *declared != defined) {
    vr.fail(fmt::format("header cases={} but the header's op, level and "
                        "shard={}/{} define {} cases",
                        *declared, shard_i, shard_n, defined));
  }
  while (vr.next(vt)) {
    if (vt.size() != all.size()) {
      vr.fail(fmt::format("{} fields, expected {} ({} inputs + {} results)",
                          vt.size(), all.size(), in_spec.size(),
                          out_spec.size()));
    }
    const auto in = parse_fields(vr, vt, 0, in_spec);
    if (rep.cases >= *declared) {
      vr.fail(fmt::format("more cases than the header's cases={}", *declared));
    }
    if (!rr && o.check_sequence) {
      // Case n of shard i/N is case i + n*N of the header's enumeration: a
      // dropped, duplicated, reordered or altered case is refused.
      const uint64_t idx = shard_i + rep.cases * shard_n;
      if (idx >= total || in != op->make_case(idx)) {
        vr.fail(fmt::format(
            "case {} of the stream is not case {} that the header defines "
            "(dropped, duplicated, reordered or altered inputs)",
            rep.cases + 1, idx));
      }
    }
    std::vector<uint64_t> want, got;
    if (rr) {
      want = parse_fields(vr, vt, in_spec.size(), out_spec);
      if (!rr->next(rt)) {
        rr->fail(fmt::format("results end early: no result for vectors line {}",
                             vr.line()));
      }
      if (rt.size() == out_spec.size()) {
        got = parse_fields(*rr, rt, 0, out_spec);
      } else if (rt.size() == all.size()) {
        const auto rin_fields = parse_fields(*rr, rt, 0, in_spec);
        if (rin_fields != in) {
          rr->fail(fmt::format("inputs differ from vectors line {}", vr.line()));
        }
        got = parse_fields(*rr, rt, in_spec.size(), out_spec);
      } else {
        rr->fail(fmt::format("{} fields, expected {} (results) or {} (whole "
                             "line)",
                             rt.size(), out_spec.size(), all.size()));
      }
    } else {
      got = parse_fields(vr, vt, in_spec.size(), out_spec);
      want = op->expected(in);
    }
    ++rep.cases;
    if (o.progress && (rep.cases & 0xFFFFF) == 0) o.progress(rep.cases);
    if (got == want) continue;
    const std::string acc = op->accepted(in, want, got, o.allow);
    if (!acc.empty()) {
      ++rep.accepted;
      ++rep.accepted_by[acc];
      continue;
    }
    ++rep.mismatches;
    const std::string cls = op->classify(in, want, got);
    ++rep.by_class[cls];
    if (rep.first.size() < o.max_errors) {
      rep.first.push_back(
          {rr ? rr->line() : vr.line(), cls,
           fmt::format("{} => {}  expected: {}   [{} vs {}]{}",
                       join_fields(in, in_spec, 0, in.size()),
                       join_fields(got, out_spec, 0, got.size()),
                       join_fields(want, out_spec, 0, want.size()),
                       op->decode_results(got), op->decode_results(want),
                       op->explain(in, want, got))});
    }
  }
  if (rep.cases != *declared) {
    vr.fail(fmt::format("the header says cases={} but the stream ends after "
                        "{} (truncated input, or a subject that stopped)",
                        *declared, rep.cases));
  }
  if (rr && rr->next(rt)) {
    rr->fail("more results than vectors");
  }
  return rep;
}

}  // namespace mxc::vec
