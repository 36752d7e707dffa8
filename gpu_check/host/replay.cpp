#include "gpu_check/host/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <thread>

#include "conformance/vectors/vector_file.h"
#include "emu/format.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"

namespace mxc::gpu {
namespace {

using Cases = std::vector<std::vector<uint64_t>>;

template <typename F>
void parallel_for(size_t n, unsigned threads, F fn) {
  unsigned t = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  if (n < 4096) t = 1;
  t = static_cast<unsigned>(std::min<size_t>(t, 64));
  if (t <= 1) {
    for (size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < t; ++w) {
    pool.emplace_back([&, w] {
      for (size_t i = w; i < n; i += t) fn(i);
    });
  }
  for (auto& th : pool) th.join();
}

Cases expected_of(const vec::Op& op, const Cases& in, unsigned threads) {
  Cases want(in.size());
  parallel_for(in.size(), threads, [&](size_t i) { want[i] = op.expected(in[i]); });
  return want;
}

std::string join_hex(std::span<const uint64_t> v, const std::vector<vec::Field>& f) {
  std::string s;
  const size_t shown = std::min<size_t>(v.size(), 8);
  for (size_t i = 0; i < shown; ++i) {
    if (i) s += ' ';
    s += vec::hex_field(v[i], f[i].width);
  }
  if (v.size() > shown) s += fmt::format(" ...({} fields)", v.size());
  return s;
}

vec::Report new_report(const Family& f, const vec::Header& h, const std::string& what) {
  vec::Report r;
  r.file = f.name;
  r.op = h.get("op");
  r.description = f.ptx + " | " + what;
  for (const auto& [k, v] : h.kv) {
    if (k == "op") continue;
    r.description += " " + k + "=" + v;
  }
  return r;
}

// Cases (or tiles) of shard i of n among `total`: i, i+n, ...
uint64_t shard_size(uint64_t total, const ReplayOptions& o) {
  return total > o.shard_index ? (total - o.shard_index + o.shard_count - 1) / o.shard_count : 0;
}

bool is_pair(Slots s) {
  return s == Slots::kPairAB || s == Slots::kPairXY || s == Slots::kPairPacked;
}

int tile_k(const Family& f) { return shape_info(f.shape).k; }

// wgmma tf32 (host/fragments.h kM16N8K8x32): the batch carries the plain
// tiles, not lane fragments.
bool wide_operands(const Family& f) { return f.shape == FragShape::kM16N8K8x32; }

// Lane fragments of 16- or 32-bit codes (the legacy mma.sync f16/bf16/tf32
// shapes): the codes are the register elements, one per word on the host.
bool word_fragments(const Family& f) {
  return !wide_operands(f) && shape_info(f.shape).elem_bits > 8;
}

// Plain operands of one tile (row-major A [16][K], B [8][K], C [16][8],
// SA [16][V], SB [8][V]). A and B hold one code per word (8-bit and
// narrower codes, or 32-bit operands).
struct PlainTile {
  std::vector<uint32_t> a, b;
  std::vector<uint8_t> sa, sb;
  std::vector<uint32_t> c;
};

std::vector<uint8_t> narrow(const std::vector<uint32_t>& v) {
  std::vector<uint8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<uint8_t>(v[i]);  // <= 8-bit codes
  return out;
}

PlainTile empty_tile(const Family& f) {
  const int k = tile_k(f), v = f.scale_vec;
  PlainTile t;
  t.a.assign(static_cast<size_t>(16 * k), 0);
  t.b.assign(static_cast<size_t>(8 * k), 0);
  t.c.assign(128, 0);
  t.sa.assign(static_cast<size_t>(16 * v), 127);
  t.sb.assign(static_cast<size_t>(8 * v), 127);
  return t;
}

MmaBatch pack_tiles(const Family& f, const std::vector<PlainTile>& tiles) {
  MmaBatch b;
  b.tiles = tiles.size();
  // Codes -> register elements (8-bit containers for FP6/FP4 in m16n8k32).
  const OperandCoding ca = operand_coding(f.shape, f.header.get("a-fmt"));
  const OperandCoding cb = operand_coding(f.shape, f.header.get("b-fmt"));
  const bool wide = wide_operands(f), words = word_fragments(f);
  for (const PlainTile& t : tiles) {
    const auto a = wide    ? t.a
                   : words ? pack_a_words(f.shape, t.a)
                           : pack_a(f.shape, encode_operands(ca, narrow(t.a)));
    const auto bb = wide    ? t.b
                    : words ? pack_b_words(f.shape, t.b)
                            : pack_b(f.shape, encode_operands(cb, narrow(t.b)));
    const auto c = pack_c(t.c);
    b.a.insert(b.a.end(), a.begin(), a.end());
    b.b.insert(b.b.end(), bb.begin(), bb.end());
    b.c.insert(b.c.end(), c.begin(), c.end());
    if (f.scale_vec) {
      const auto sa = pack_scale_a(t.sa, f.scale_vec), sb = pack_scale_b(t.sb, f.scale_vec);
      b.sfa.insert(b.sfa.end(), sa.begin(), sa.end());
      b.sfb.insert(b.sfb.end(), sb.begin(), sb.end());
    }
  }
  return b;
}

std::vector<uint64_t> output_case(const Family& f, const PlainTile& t, int m, int n) {
  const int k = tile_k(f), v = f.scale_vec;
  std::vector<uint64_t> c;
  c.reserve(static_cast<size_t>(2 * k + 2 * v + 1));
  for (int i = 0; i < k; ++i) c.push_back(t.a[static_cast<size_t>(m * k + i)]);
  for (int i = 0; i < k; ++i) c.push_back(t.b[static_cast<size_t>(n * k + i)]);
  for (int i = 0; i < v; ++i) c.push_back(t.sa[static_cast<size_t>(m * v + i)]);
  for (int i = 0; i < v; ++i) c.push_back(t.sb[static_cast<size_t>(n * v + i)]);
  c.push_back(t.c[static_cast<size_t>(m * 8 + n)]);
  return c;
}

void run_convert_batch(Backend& b, const Family& f, const vec::Op& op, const Cases& in,
                       const Cases& want, uint64_t first, const std::vector<long>* lines,
                       vec::Report& r, const ReplayOptions& o) {
  if (o.progress) o.progress(first);
  const ConvertOperands ops = convert_operands(f, in);
  std::vector<uint32_t> out(ops.in0.size());
  b.convert(f, ops.in0, ops.in1, ops.rbits, out);
  const std::vector<uint64_t> z = convert_results(f, out, in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::vector<uint64_t> got = {z[i], want[i][1]};  // flags: not observable
    std::string hint;
    if (z[i] != want[i][0] && is_pair(f.slots)) {
      const size_t j = i ^ 1;
      if (j < in.size() && z[i] == want[j][0] && z[j] == want[i][0] &&
          want[i][0] != want[j][0]) {
        hint = "lane-order";
      }
    }
    tally(r, op, f, in[i], want[i], got, lines ? static_cast<uint64_t>((*lines)[i]) : first + i,
          o, hint);
  }
}

void run_mma_tiles(Backend& b, const Family& f, const vec::Op& op,
                   const std::vector<PlainTile>& tiles, uint64_t first, vec::Report& r,
                   const ReplayOptions& o, uint64_t tile_step = 1) {
  if (o.progress) o.progress(first);
  const MmaBatch batch = pack_tiles(f, tiles);
  std::vector<uint32_t> d;
  b.mma(f, batch, d);
  if (d.size() != batch.tiles * 128) throw BackendError("mma: wrong result size");
  const size_t n = tiles.size() * 128;
  Cases in(n), want;
  parallel_for(n, o.threads, [&](size_t i) {
    in[i] = output_case(f, tiles[i / 128], static_cast<int>(i % 128 / 8), static_cast<int>(i % 8));
  });
  want = expected_of(op, in, o.threads);
  for (size_t t = 0; t < tiles.size(); ++t) {
    const auto dd = unpack_c(std::span(d).subspan(t * 128, 128));
    for (size_t e = 0; e < 128; ++e) {
      const std::vector<uint64_t> got = {dd[e]};
      std::string hint;
      if (f.scale_vec && dd[e] != want[t * 128 + e][0]) {
        // The scale operands exchanged (SF_A read from the B scale
        // register and vice versa): row m then gets SF_B of column m % 8
        // and column n gets SF_A of row n. Invisible on the diagonal (the
        // product is symmetric), visible everywhere else.
        const int m = static_cast<int>(e / 8), col = static_cast<int>(e % 8);
        const PlainTile& pt = tiles[t];
        PlainTile sw = pt;
        for (int q = 0; q < f.scale_vec; ++q) {
          sw.sa[static_cast<size_t>(m * f.scale_vec + q)] = pt.sb[static_cast<size_t>((m % 8) * f.scale_vec + q)];
          sw.sb[static_cast<size_t>(col * f.scale_vec + q)] = pt.sa[static_cast<size_t>(col * f.scale_vec + q)];
        }
        if (op.expected(output_case(f, sw, m, col))[0] == dd[e]) hint = "scale-a-b-swap";
      }
      tally(r, op, f, in[t * 128 + e], want[t * 128 + e], got, first + t * tile_step * 128 + e,
            o, hint);
    }
  }
}

void run_mma_cases(Backend& b, const Family& f, const vec::Op& op, const Cases& in,
                   const Cases& want, uint64_t first, const std::vector<long>* lines,
                   vec::Report& r, const ReplayOptions& o) {
  if (o.progress) o.progress(first);
  const MmaBatch batch = mma_pack_cases(f, in);
  std::vector<uint32_t> d;
  b.mma(f, batch, d);
  if (d.size() != batch.tiles * 128) throw BackendError("mma: wrong result size");
  std::vector<uint64_t> w(in.size());
  for (size_t i = 0; i < in.size(); ++i) w[i] = want[i][0];
  const auto z = mma_case_results(d, in.size(), w);
  for (size_t i = 0; i < in.size(); ++i) {
    const std::vector<uint64_t> got = {z[i]};
    tally(r, op, f, in[i], want[i], got, lines ? static_cast<uint64_t>((*lines)[i]) : first + i, o);
  }
}

}  // namespace

vec::Header family_header(const Family& f, int level, uint64_t seed) {
  vec::Header h = f.header;
  h.kv["level"] = std::to_string(level);
  h.kv["seed"] = std::to_string(seed);
  return h;
}

ConvertOperands convert_operands(const Family& f, std::span<const std::vector<uint64_t>> cases) {
  ConvertOperands o;
  const size_t n = cases.size();
  auto x = [&](size_t i) { return static_cast<uint32_t>(cases[std::min(i, n - 1)][0]); };
  auto rb = [&](size_t i) {
    return cases[i].size() > 1 ? static_cast<uint32_t>(cases[i][1]) : 0u;
  };
  if (n == 0) return o;
  if (is_pair(f.slots)) {
    const size_t m = (n + 1) / 2;
    o.in0.resize(m);
    o.in1.resize(m, 0);
    o.rbits.resize(m, 0);
    for (size_t j = 0; j < m; ++j) {
      const uint32_t lo = x(2 * j), hi = x(2 * j + 1);
      switch (f.slots) {
        case Slots::kPairAB: o.in0[j] = hi; o.in1[j] = lo; break;
        case Slots::kPairXY: o.in0[j] = lo; o.in1[j] = hi; break;
        default: o.in0[j] = lo | (hi << f.src_shift); break;
      }
    }
    return o;
  }
  o.in0.resize(n);
  o.in1.assign(n, 0);
  o.rbits.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    o.in0[i] = x(i);
    if (f.slots == Slots::kRsX4) {
      o.rbits[i] = (rb(i) & 0xFFu) * 0x01010101u;
    } else if (f.slots == Slots::kRsX2) {
      const uint32_t r16 = rb(i) & 0xFFFFu;
      o.rbits[i] = r16 | (r16 << 16);
    }
  }
  return o;
}

std::vector<uint64_t> convert_results(const Family& f, std::span<const uint32_t> out, size_t n) {
  std::vector<uint64_t> z(n);
  if (is_pair(f.slots)) {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t w = out[i / 2];
      z[i] = (i % 2 ? w >> f.dst_shift : w) & f.dst_mask;
    }
    return z;
  }
  const int slots = f.slots == Slots::kRsX4 ? 4 : f.slots == Slots::kRsX2 ? 2 : 1;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t w = out[i];
    const uint32_t s0 = w & f.dst_mask;
    z[i] = s0;
    for (int s = 1; s < slots; ++s) {
      const uint32_t v = (w >> (s * f.dst_shift)) & f.dst_mask;
      if (v != s0) {
        z[i] = v;
        break;
      }
    }
  }
  return z;
}

MmaBatch mma_pack_cases(const Family& f, std::span<const std::vector<uint64_t>> cases) {
  const int k = tile_k(f), v = f.scale_vec;
  std::vector<PlainTile> tiles((cases.size() + 7) / 8, empty_tile(f));
  for (size_t i = 0; i < cases.size(); ++i) {
    PlainTile& t = tiles[i / 8];
    const int j = static_cast<int>(i % 8);
    const auto& c = cases[i];
    for (int row : {j, j + 8}) {
      for (int q = 0; q < k; ++q) t.a[static_cast<size_t>(row * k + q)] = static_cast<uint32_t>(c[static_cast<size_t>(q)]);
      for (int q = 0; q < v; ++q) t.sa[static_cast<size_t>(row * v + q)] = static_cast<uint8_t>(c[static_cast<size_t>(2 * k + q)]);
      t.c[static_cast<size_t>(row * 8 + j)] = static_cast<uint32_t>(c.back());
    }
    for (int q = 0; q < k; ++q) t.b[static_cast<size_t>(j * k + q)] = static_cast<uint32_t>(c[static_cast<size_t>(k + q)]);
    for (int q = 0; q < v; ++q) t.sb[static_cast<size_t>(j * v + q)] = static_cast<uint8_t>(c[static_cast<size_t>(2 * k + v + q)]);
  }
  return pack_tiles(f, tiles);
}

std::vector<uint64_t> mma_case_results(std::span<const uint32_t> d, size_t n,
                                       std::span<const uint64_t> want) {
  std::vector<uint64_t> z(n);
  for (size_t i = 0; i < n; ++i) {
    const auto dd = unpack_c(d.subspan((i / 8) * 128, 128));
    const int j = static_cast<int>(i % 8);
    const uint32_t top = dd[static_cast<size_t>(j * 8 + j)];
    const uint32_t bottom = dd[static_cast<size_t>((j + 8) * 8 + j)];
    z[i] = (top == bottom || top != want[i]) ? top : bottom;
  }
  return z;
}

std::vector<uint64_t> mma_output_case(const Family& f, const MmaBatch& b, size_t t, int m, int n) {
  const ShapeInfo si = shape_info(f.shape);
  PlainTile p;
  if (wide_operands(f)) {
    const auto aw = std::span(b.a).subspan(t * 32 * si.a_regs, 32 * si.a_regs);
    const auto bw = std::span(b.b).subspan(t * 32 * si.b_regs, 32 * si.b_regs);
    p.a.assign(aw.begin(), aw.end());
    p.b.assign(bw.begin(), bw.end());
    p.c = unpack_c(std::span(b.c).subspan(t * 128, 128));
    return output_case(f, p, m, n);
  }
  if (word_fragments(f)) {
    p.a = unpack_a_words(f.shape, std::span(b.a).subspan(t * 32 * si.a_regs, 32 * si.a_regs));
    p.b = unpack_b_words(f.shape, std::span(b.b).subspan(t * 32 * si.b_regs, 32 * si.b_regs));
    p.c = unpack_c(std::span(b.c).subspan(t * 128, 128));
    return output_case(f, p, m, n);
  }
  const auto a8 = decode_operands(
      operand_coding(f.shape, f.header.get("a-fmt")),
      unpack_a(f.shape,
               std::span(b.a).subspan(t * 32 * si.a_regs, 32 * si.a_regs)));
  const auto b8 = decode_operands(
      operand_coding(f.shape, f.header.get("b-fmt")),
      unpack_b(f.shape,
               std::span(b.b).subspan(t * 32 * si.b_regs, 32 * si.b_regs)));
  p.a.assign(a8.begin(), a8.end());
  p.b.assign(b8.begin(), b8.end());
  p.c = unpack_c(std::span(b.c).subspan(t * 128, 128));
  if (f.scale_vec) {
    p.sa = unpack_scale_a(std::span(b.sfa).subspan(t * 32, 32), f.scale_vec);
    p.sb = unpack_scale_b(std::span(b.sfb).subspan(t * 32, 32), f.scale_vec);
  }
  return output_case(f, p, m, n);
}

void tally(vec::Report& r, const vec::Op& op, const Family& f, std::span<const uint64_t> in,
           std::span<const uint64_t> want, std::span<const uint64_t> got, uint64_t index,
           const ReplayOptions& o, const std::string& harness_class) {
  ++r.cases;
  if (o.capture != nullptr && o.capture->written < o.capture->max) {
    const auto fi = op.inputs(), fr = op.results();
    std::string line;
    for (size_t i = 0; i < in.size(); ++i) line += vec::hex_field(in[i], fi[i].width) + ' ';
    for (size_t i = 0; i < got.size(); ++i) {
      line += vec::hex_field(got[i], fr[i].width);
      line += i + 1 < got.size() ? ' ' : '\n';
    }
    *o.capture->out << line;
    ++o.capture->written;
  }
  if (std::equal(want.begin(), want.end(), got.begin(), got.end())) return;
  const std::string acc = op.accepted(in, want, got, o.allow);
  if (!acc.empty()) {
    ++r.accepted;
    ++r.accepted_by[acc];
    return;
  }
  ++r.mismatches;
  std::string cls = harness_class;
  (void)f;
  // Classification re-runs the emulator (other modes, other models); past
  // a cap the count alone is what matters and the run must stay bounded.
  constexpr uint64_t kClassifyCap = 100000;
  if (cls.empty()) cls = r.mismatches > kClassifyCap ? "unclassified (over cap)" : op.classify(in, want, got);
  if (cls == "other" && std::popcount(want[0] ^ got[0]) == 1) {
    cls = fmt::format("bit-flip:{}", std::countr_zero(want[0] ^ got[0]));
  }
  ++r.by_class[cls];
  if (r.first.size() < o.max_errors) {
    const auto fi = op.inputs(), fr = op.results();
    r.first.push_back({static_cast<long>(index), cls,
                       fmt::format("case {}: {} => {}  expected: {}   [{} vs {}]", index,
                                   join_hex(in, fi), join_hex(got, fr), join_hex(want, fr),
                                   op.decode_results(got), op.decode_results(want))});
  }
}

vec::Report replay_level(Backend& b, const Family& f, const ReplayOptions& o) {
  const vec::Header h = family_header(f, o.level, o.seed);
  const auto op = vec::make_op(h);
  vec::Report r = new_report(f, h, fmt::format("level {} vectors", o.level));
  const size_t n = shard_size(op->count(), o);
  const size_t s = o.shard_index, step = o.shard_count;
  if (step > 1) r.description += fmt::format(" shard={}/{}", s, step);
  const size_t batch = f.kind == FamilyKind::kMma ? std::max<size_t>(8, o.batch / 128 * 8) : o.batch;
  for (size_t first = 0; first < n; first += batch) {
    const size_t m = std::min(batch, n - first);
    Cases in(m);
    std::vector<long> index(m);  // the cases' indices in the whole run
    parallel_for(m, o.threads, [&](size_t i) {
      index[i] = static_cast<long>(s + (first + i) * step);
      in[i] = op->make_case(static_cast<size_t>(index[i]));
    });
    const Cases want = expected_of(*op, in, o.threads);
    if (f.kind == FamilyKind::kConvert) {
      run_convert_batch(b, f, *op, in, want, s + first * step, &index, r, o);
    } else {
      run_mma_cases(b, f, *op, in, want, s + first * step, &index, r, o);
    }
  }
  return r;
}

vec::Report replay_sweep(Backend& b, const Family& f, uint64_t count, const ReplayOptions& o) {
  const vec::Header h = family_header(f, o.level, o.seed);
  const auto op = vec::make_op(h);
  vec::Report r = new_report(f, h, fmt::format("random sweep of {} cases", count));
  r.file = f.name + " (sweep)";
  if (o.shard_count > 1) r.description += fmt::format(" shard={}/{}", o.shard_index, o.shard_count);
  const uint64_t seed = o.seed ^ 0x5EEDC0DEull;
  const uint64_t s = o.shard_index, step = o.shard_count;
  if (f.kind == FamilyKind::kConvert) {
    const Fmt from = *parse_format(h.get("from"));
    const Fmt to = *parse_format(h.get("to"));
    const FormatDesc& fd = desc(from);
    const FormatDesc& td = desc(to);
    const bool sr = h.get("round").rfind("rs", 0) == 0;
    const uint64_t local = shard_size(count, o);
    for (uint64_t first = 0; first < local; first += o.batch) {
      const size_t m = static_cast<size_t>(std::min<uint64_t>(o.batch, local - first));
      Cases in(m);
      std::vector<long> index(m);
      parallel_for(m, o.threads, [&](size_t i) {
        const uint64_t idx = s + (first + i) * step;  // index in the whole sweep
        index[i] = static_cast<long>(idx);
        uint64_t x = vec::case_random(seed, idx, 0) & fd.storage_mask();
        if (fd.bits > 16 && (idx & 1)) {
          // Half the cases with an exponent near the target's range.
          const int span = td.emax() - td.emin() + 8;
          const int e = td.emin() - 4 + static_cast<int>(vec::case_random(seed, idx, 2) % static_cast<uint64_t>(span));
          const uint64_t be = static_cast<uint64_t>(std::clamp(e + fd.bias, 1, (1 << fd.exp_bits) - 2));
          x = (x & ~(((uint64_t{1} << fd.exp_bits) - 1) << fd.man_bits)) | (be << fd.man_bits);
        }
        in[i] = {x};
        if (sr) in[i].push_back(vec::case_random(seed, idx, 1) & 0xFFFFFFFFu);
      });
      const Cases want = expected_of(*op, in, o.threads);
      run_convert_batch(b, f, *op, in, want, s + first * step, &index, r, o);
    }
    return r;
  }
  // MMA: whole random tiles, every one of the 128 outputs a case.
  const uint64_t tiles_total = (count + 127) / 128;
  const uint64_t local_tiles = shard_size(tiles_total, o);  // tiles s, s+n, ...
  const uint64_t per = std::max<uint64_t>(1, o.batch / 128);
  const int k = tile_k(f), v = f.scale_vec;
  for (uint64_t t0 = 0; t0 < local_tiles; t0 += per) {
    const size_t m = static_cast<size_t>(std::min(per, local_tiles - t0));
    std::vector<PlainTile> tiles(m, empty_tile(f));
    parallel_for(m, o.threads, [&](size_t ti) {
      PlainTile& t = tiles[ti];
      const uint64_t base = 1000000000ull + (s + (t0 + ti) * step) * 24;
      for (int row = 0; row < 16; ++row) {
        const auto c = op->make_case(static_cast<size_t>(base + static_cast<uint64_t>(row)));
        for (int q = 0; q < k; ++q) t.a[static_cast<size_t>(row * k + q)] = static_cast<uint32_t>(c[static_cast<size_t>(q)]);
        for (int q = 0; q < v; ++q) t.sa[static_cast<size_t>(row * v + q)] = static_cast<uint8_t>(c[static_cast<size_t>(2 * k + q)]);
        for (int col = 0; col < 8; ++col)
          t.c[static_cast<size_t>(row * 8 + col)] = static_cast<uint32_t>((row + col) % 8 == 0 ? 0 : c.back() ^ (static_cast<uint64_t>(col) << 3));
      }
      for (int col = 0; col < 8; ++col) {
        const auto c = op->make_case(static_cast<size_t>(base + 16 + static_cast<uint64_t>(col)));
        for (int q = 0; q < k; ++q) t.b[static_cast<size_t>(col * k + q)] = static_cast<uint32_t>(c[static_cast<size_t>(k + q)]);
        for (int q = 0; q < v; ++q) t.sb[static_cast<size_t>(col * v + q)] = static_cast<uint8_t>(c[static_cast<size_t>(2 * k + v + q)]);
      }
    });
    run_mma_tiles(b, f, *op, tiles, (s + t0 * step) * 128, r, o, step);
  }
  return r;
}

vec::Report replay_file(Backend& b, const Family& f, std::istream& is, const std::string& name,
                        const ReplayOptions& o) {
  vec::Reader rd(is, name);
  const vec::Header& h = rd.header();
  for (const auto& [k, v] : f.header.kv) {
    if (h.get(k) != v) {
      rd.fail(fmt::format("header {}={} does not describe family {} ({}={})", k,
                          h.get(k, "(absent)"), f.name, k, v));
    }
  }
  std::unique_ptr<vec::Op> op;
  try {
    op = vec::make_op(h);
  } catch (const vec::HeaderValueError& e) {
    const auto at = h.lines.find(e.key());  // the key's own header line
    if (at != h.lines.end()) throw vec::InputError(name, at->second, e.what());
    rd.fail(e.what());
  } catch (const std::invalid_argument& e) {
    rd.fail(e.what());
  }
  const auto fi = op->inputs(), fr = op->results();
  vec::Report r = new_report(f, h, "vector file " + name);
  r.file = name;
  std::vector<std::string_view> t;
  Cases in, want;
  std::vector<long> lines;
  uint64_t first = 0;
  auto flush = [&] {
    if (in.empty()) return;
    if (f.kind == FamilyKind::kConvert) {
      run_convert_batch(b, f, *op, in, want, first, &lines, r, o);
    } else {
      run_mma_cases(b, f, *op, in, want, first, &lines, r, o);
    }
    first += in.size();
    in.clear();
    want.clear();
    lines.clear();
  };
  while (rd.next(t)) {
    if (t.size() != fi.size() + fr.size()) {
      rd.fail(fmt::format("{} fields, expected {}", t.size(), fi.size() + fr.size()));
    }
    std::vector<uint64_t> a(fi.size()), z(fr.size());
    for (size_t i = 0; i < fi.size(); ++i) a[i] = vec::parse_field(rd, t[i], fi[i].width, fi[i].name.c_str());
    for (size_t i = 0; i < fr.size(); ++i)
      z[i] = vec::parse_field(rd, t[fi.size() + i], fr[i].width, fr[i].name.c_str());
    in.push_back(std::move(a));
    want.push_back(std::move(z));
    lines.push_back(rd.line());
    if (in.size() >= o.batch) flush();
  }
  flush();
  return r;
}

}  // namespace mxc::gpu
