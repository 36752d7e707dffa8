// mxconform._mxconform: the nanobind layer over the C++ emulator. Every
// entry point here takes already-normalised arrays (python/mxconform/ checks
// dtypes, shapes and names and raises errors that name the argument) but
// still validates what it reads, so a wrong call is a ValueError, never a
// crash. Heavy loops run with the GIL released. Results are numpy arrays
// that own their memory.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "conformance/vectors/generate.h"
#include "conformance/vectors/op.h"
#include "conformance/vectors/ops_internal.h"
#include "conformance/vectors/verify.h"
#include "emu/block/pack.h"
#include "emu/block/philox.h"
#include "emu/block/profile.h"
#include "emu/block/quantize.h"
#include "emu/block/swizzle.h"
#include "emu/checked.h"
#include "emu/codes.h"
#include "emu/convert.h"
#include "emu/fast/amax.h"
#include "emu/fast/convert_fast.h"
#include "emu/fast/convert_wide.h"
#include "emu/fast/fp_env.h"
#include "emu/fast/gemm_fast.h"
#include "emu/fast/isa.h"
#include "emu/fast/nvfp4_fast.h"
#include "emu/fast/nvfp4_sr.h"
#include "emu/fast/philox_fast.h"
#include "emu/fast/quantize_fast.h"
#include "emu/mma/gemm.h"
#include "emu/mma/models.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using InArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

template <class T>
using OutArray = nb::ndarray<nb::numpy, T>;

// An allocator whose value-initialization leaves trivial elements
// unwritten: for result buffers the kernels write in full (a zero fill
// first was one more pass over them; issue 22).
template <class T>
struct NoInit : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInit<U>;
  };
  NoInit() = default;
  template <class U>
  NoInit(const NoInit<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
template <class T>
using Buf = std::vector<T, NoInit<T>>;

// A numpy array that owns `v`.
template <class T, class A>
OutArray<T> to_numpy(std::vector<T, A>&& v, const std::vector<size_t>& shape) {
  auto* owned = new std::vector<T, A>(std::move(v));
  nb::capsule owner(owned, [](void* p) noexcept {
    delete static_cast<std::vector<T, A>*>(p);
  });
  return OutArray<T>(owned->data(), shape.size(), shape.data(), owner);
}

std::vector<size_t> shape_of(const InArray& a) {
  std::vector<size_t> s(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) s[i] = a.shape(i);
  return s;
}

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument(what);
}

// Threads for the row-parallel loops (set_num_threads; 0 = every core).
std::atomic<int> g_threads{0};

int thread_count() {
  const int t = g_threads.load();
  if (t > 0) return t;
  // The core count, read once: hardware_concurrency() is glibc's
  // get_nprocs(), which reads /sys/devices/system/cpu/online on every call
  // (perf: sysfs syscalls were the most of a small quantize call's 8 us;
  // 3 us with the count known).
  static const int cores = [] {
    const unsigned h = std::thread::hardware_concurrency();
    return h == 0 ? 1 : static_cast<int>(std::min(h, 64u));
  }();
  return cores;
}

// Runs f(u0, u1) over [0, units) split into contiguous ranges, one per
// thread, with at least `min_units` units per thread (small problems stay
// on the calling thread: threads pay only for large arrays). Every unit is
// computed by the same code whatever the split, so results do not depend
// on the thread count. The first exception is rethrown after the join.
template <class F>
void parallel_ranges(size_t units, size_t min_units, F&& f) {
  size_t t = static_cast<size_t>(thread_count());
  t = std::min(t, min_units ? units / min_units : units);
  if (t <= 1) {
    f(size_t{0}, units);
    return;
  }
  std::vector<std::thread> pool;
  std::exception_ptr err;
  std::mutex mu;
  for (size_t i = 0; i < t; ++i) {
    const size_t u0 = units * i / t, u1 = units * (i + 1) / t;
    pool.emplace_back([&, u0, u1] {
      try {
        f(u0, u1);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!err) err = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}

constexpr size_t kMinElementsPerThread = size_t{1} << 18;

size_t min_units(size_t unit_elements) {
  return std::max<size_t>(
      1, kMinElementsPerThread / std::max<size_t>(1, unit_elements));
}

mxc::Fmt fmt_arg(const std::string& name, const char* arg) {
  const auto f = mxc::parse_format(name);
  if (!f) {
    std::string known;
    for (const auto& d : mxc::kFormats) known += " " + std::string(d.name);
    bad(std::string(arg) + ": unknown format '" + name + "' (known:" + known +
        ")");
  }
  return *f;
}

size_t storage_bytes(mxc::Fmt f) {
  const int b = mxc::desc(f).bits;
  return b <= 8 ? 1 : b <= 16 ? 2 : b <= 32 ? 4 : 8;
}

// Reads element i of an unsigned/signed integer or float array of itemsize
// 1, 2, 4 or 8 as raw bits.
uint64_t raw_at(const uint8_t* p, size_t item, size_t i) {
  switch (item) {
    case 1:
      return p[i];
    case 2: {
      uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      return v;
    }
  }
}

size_t itemsize(const InArray& a) { return (a.dtype().bits + 7) / 8; }

// All elements of `a` as raw bit patterns (integers or floats of any
// width), checked to have the expected item size when `want` > 0.
// raw_words into `out` (resized: a vector reused between calls keeps its
// memory).
void raw_words_into(const InArray& a, size_t want, const char* arg,
                    std::vector<uint64_t>& out) {
  const size_t item = itemsize(a);
  if (a.dtype().lanes != 1 ||
      (item != 1 && item != 2 && item != 4 && item != 8)) {
    bad(std::string(arg) + ": unsupported element type");
  }
  if (want && item != want) {
    bad(std::string(arg) + ": elements must be " + std::to_string(want) +
        " bytes wide, got " + std::to_string(item));
  }
  out.resize(a.size());
  const auto* p = static_cast<const uint8_t*>(a.data());
  // One loop per width (raw_at's switch hoisted, so that each loop is a
  // plain widening copy the compiler vectorizes).
  const auto widen = [&](auto zero) {
    using T = decltype(zero);
    for (size_t i = 0; i < out.size(); ++i) {
      T v;
      std::memcpy(&v, p + sizeof(T) * i, sizeof(T));
      out[i] = v;
    }
  };
  switch (item) {
    case 1:
      widen(uint8_t{0});
      break;
    case 2:
      widen(uint16_t{0});
      break;
    case 4:
      widen(uint32_t{0});
      break;
    default:
      widen(uint64_t{0});
      break;
  }
}

std::vector<uint64_t> raw_words(const InArray& a, size_t want,
                                const char* arg) {
  std::vector<uint64_t> out;
  raw_words_into(a, want, arg, out);
  return out;
}

const mxc::MmaModel& model_arg(const std::string& name) {
  const mxc::MmaModel* m = mxc::find_mma_model(name);
  if (!m) {
    std::string known;
    for (const auto& x : mxc::mma_models()) known += " " + std::string(x.name);
    bad("model: unknown model '" + name + "' (known:" + known + ")");
  }
  return *m;
}

// ---------------------------------------------------------------- tables

std::vector<std::map<std::string, nb::object>> formats() {
  std::vector<std::map<std::string, nb::object>> out;
  for (const auto& d : mxc::kFormats) {
    std::map<std::string, nb::object> r;
    r["name"] = nb::str(std::string(d.name).c_str());
    r["bits"] = nb::int_(d.bits);
    r["signed"] = nb::bool_(d.has_sign);
    r["exp_bits"] = nb::int_(d.exp_bits);
    r["man_bits"] = nb::int_(d.man_bits);
    r["bias"] = nb::int_(d.bias);
    r["emin"] = nb::int_(d.emin());
    r["emax"] = nb::int_(d.emax());
    r["has_inf"] = nb::bool_(d.has_inf());
    r["has_nan"] = nb::bool_(d.has_nan());
    r["has_subnormals"] = nb::bool_(d.has_subnormals());
    r["max_finite"] = nb::float_(mxc::to_double(mxc::unpack(
        d.id, mxc::convert(mxc::Fmt::kF64, d.id, 0x7FEFFFFFFFFFFFFFull,
                           {mxc::Round::kRZ, mxc::Overflow::kSatFinite}))));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::map<std::string, nb::object>> profiles() {
  std::vector<std::map<std::string, nb::object>> out;
  for (const auto& p : mxc::mx_profiles()) {
    std::map<std::string, nb::object> r;
    r["name"] = nb::str(std::string(p.name).c_str());
    r["kind"] = nb::str("mx");
    r["summary"] = nb::str(std::string(p.summary).c_str());
    r["source"] = nb::str(std::string(p.source).c_str());
    r["default_elem"] =
        nb::str(std::string(mxc::desc(p.default_elem).name).c_str());
    r["block"] = nb::int_(p.block);
    r["scale_fmt"] = nb::str("e8m0");
    r["versions"] = nb::str(std::string(p.versions).c_str());
    r["evidence"] = nb::str(std::string(p.evidence).c_str());
    out.push_back(std::move(r));
  }
  for (const auto& p : mxc::nvfp4_profiles()) {
    std::map<std::string, nb::object> r;
    r["name"] = nb::str(std::string(p.name).c_str());
    r["kind"] = nb::str("nvfp4");
    r["summary"] = nb::str(std::string(p.summary).c_str());
    r["source"] = nb::str(std::string(p.source).c_str());
    r["default_elem"] = nb::str("e2m1");
    r["block"] = nb::int_(16);
    r["scale_fmt"] = nb::str("ue4m3");
    r["versions"] = nb::str(std::string(p.versions).c_str());
    r["evidence"] = nb::str(std::string(p.evidence).c_str());
    r["stochastic_rounding"] = nb::bool_(p.rule == mxc::Nvfp4Rule::kTe ||
                                         p.rule == mxc::Nvfp4Rule::kCutlass);
    r["tensor_value"] =
        nb::str(p.rule == mxc::Nvfp4Rule::kTorchao ||
                        p.rule == mxc::Nvfp4Rule::kModelopt
                    ? "decode scale amax/2688"
                : p.rule == mxc::Nvfp4Rule::kTorchaoSingle ? "none"
                : p.rule == mxc::Nvfp4Rule::kTe4over6      ? "tensor amax"
                                                      : "encode scale S_enc");
    out.push_back(std::move(r));
  }
  return out;
}

// Bare and older profile names and the versioned profile each stands for.
std::vector<std::map<std::string, nb::object>> profile_aliases() {
  std::vector<std::map<std::string, nb::object>> out;
  for (const auto& a : mxc::profile_aliases()) {
    std::map<std::string, nb::object> r;
    r["alias"] = nb::str(std::string(a.alias).c_str());
    r["target"] = nb::str(std::string(a.target).c_str());
    r["why"] = nb::str(std::string(a.why).c_str());
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::map<std::string, nb::object>> models() {
  std::vector<std::map<std::string, nb::object>> out;
  for (const auto& m : mxc::mma_models()) {
    std::map<std::string, nb::object> r;
    r["name"] = nb::str(std::string(m.name).c_str());
    r["arch"] = nb::str(std::string(m.arch).c_str());
    r["ptx"] = nb::str(std::string(m.ptx).c_str());
    r["k"] = nb::int_(m.k);
    nb::list ab;
    for (mxc::Fmt f : m.ab_formats)
      ab.append(nb::str(std::string(mxc::desc(f).name).c_str()));
    r["ab_formats"] = ab;
    r["c_fmt"] = nb::str(std::string(mxc::desc(m.c_fmt).name).c_str());
    const int blk = mxc::scale_block(m.scales);
    r["scale_block"] = nb::int_(blk);
    r["scale_fmt"] =
        blk > 0 ? nb::object(nb::str(
                      std::string(mxc::desc(mxc::scale_format(m.scales)).name)
                          .c_str()))
                : nb::none();
    r["L"] = nb::int_(m.fdpa.L);
    r["G"] = nb::int_(m.fdpa.G);
    r["F"] = nb::int_(m.fdpa.F);
    r["source"] = nb::str(std::string(m.source).c_str());
    r["status"] = nb::str(mxc::model_status(m).c_str());
    r["evidence"] =
        nb::str(std::string(mxc::evidence_name(m.evidence.level)).c_str());
    r["capture_rows"] = nb::int_(m.evidence.capture_rows);
    r["capture_gpus"] = nb::str(std::string(m.evidence.gpus).c_str());
    r["captures"] = nb::str(std::string(m.evidence.captures).c_str());
    out.push_back(std::move(r));
  }
  return out;
}

// ---------------------------------------------------------------- convert

template <class T>
nb::object convert_to(mxc::Fmt from, mxc::Fmt to, const mxc::RoundSpec& r,
                      const InArray& x, const std::vector<uint32_t>& rbits) {
  const size_t n = x.size();
  std::vector<T> out(n);
  const auto* p = static_cast<const uint8_t*>(x.data());
  const size_t item = itemsize(x);
  {
    nb::gil_scoped_release unlocked;       // no Python objects in this scope
    const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
    parallel_ranges(n, kMinElementsPerThread, [&](size_t i0, size_t i1) {
      if constexpr (sizeof(T) == 1) {
        if (from == mxc::Fmt::kF32 && rbits.empty() &&
            mxc::fast::covers(to, r)) {
          mxc::fast::convert_f32_batch(
              to, r, reinterpret_cast<const uint32_t*>(p) + i0, out.data() + i0,
              i1 - i0);
          return;
        }
      }
      if constexpr (sizeof(T) == 2) {  // bf16, f16: the wide fast path
        if (from == mxc::Fmt::kF32 && rbits.empty() &&
            mxc::fast::wide_covers(to, r)) {
          mxc::fast::convert_f32_wide_batch(
              to, r, reinterpret_cast<const uint32_t*>(p) + i0, out.data() + i0,
              i1 - i0);
          return;
        }
      }
      // Codes in and out are user codes (emu/codes.h: TF32 as f32 bit
      // patterns, checked by convert() below); the emulator takes stored
      // encodings.
      mxc::RoundSpec ri = r;
      for (size_t i = i0; i < i1; ++i) {
        if (!rbits.empty()) ri.rbits = rbits[i];
        const uint64_t a = *mxc::storage_from_code(from, raw_at(p, item, i));
        out[i] = static_cast<T>(
            mxc::code_from_storage(to, mxc::convert(from, to, a, ri)));
      }
    });
  }
  return to_numpy(std::move(out), shape_of(x)).cast();
}

nb::object convert(const InArray& x, const std::string& from_fmt,
                   const std::string& to, const std::string& round,
                   bool saturate, bool relu, std::optional<InArray> rbits) {
  const mxc::Fmt from = fmt_arg(from_fmt, "from_fmt");
  const mxc::Fmt t = fmt_arg(to, "to");
  if (itemsize(x) != storage_bytes(from)) {
    bad("x: elements of format " + from_fmt + " are " +
        std::to_string(storage_bytes(from)) + " bytes wide, x has " +
        std::to_string(itemsize(x)) + "-byte elements");
  }
  // Every code must be one of `from` (emu/codes.h; mxconform.convert has
  // applied tf32_input to TF32 codes already). Full-width formats (f32
  // in 4 bytes...) need no look.
  if (from == mxc::Fmt::kTF32 || mxc::code_bits(from) < 8 * int(itemsize(x))) {
    const auto* p = static_cast<const uint8_t*>(x.data());
    for (size_t i = 0; i < x.size(); ++i) {
      const uint64_t v = raw_at(p, itemsize(x), i);
      if (!mxc::code_ok(from, v)) {
        bad("x: element " + std::to_string(i) + " (code " + std::to_string(v) +
            ") is not a code of " + from_fmt +
            (from == mxc::Fmt::kTF32
                 ? " (an f32 bit pattern whose low 13 bits are zero)"
                 : ""));
      }
    }
  }
  const auto spec = mxc::parse_rounding(round);
  if (!spec) {
    bad("round: unknown rounding '" + round +
        "' (rne, rz, ru, rd, rna, odd, rs, rs-full, rnz)");
  }
  mxc::RoundSpec r = *spec;
  r.overflow = saturate ? mxc::Overflow::kSatFinite : mxc::Overflow::kFormat;
  r.relu = relu;
  std::vector<uint32_t> rb;
  if (r.mode == mxc::Round::kSR) {
    if (!rbits) bad("rbits: stochastic rounding needs rbits (one per element)");
    if (rbits->size() != x.size()) {
      bad("rbits: needs one value per element of x (" +
          std::to_string(x.size()) + "), got " + std::to_string(rbits->size()));
    }
    for (uint64_t v : raw_words(*rbits, 4, "rbits"))
      rb.push_back(static_cast<uint32_t>(v));
  } else if (rbits) {
    bad("rbits: only used with round='rs' or 'rs-full'");
  }
  switch (storage_bytes(t)) {
    case 1:
      return convert_to<uint8_t>(from, t, r, x, rb);
    case 2:
      return convert_to<uint16_t>(from, t, r, x, rb);
    case 4:
      return convert_to<uint32_t>(from, t, r, x, rb);
    default:
      return convert_to<uint64_t>(from, t, r, x, rb);
  }
}

// --------------------------------------------------------------- quantize

const uint32_t* f32_data(const InArray& x, const char* arg) {
  if (x.dtype() != nb::dtype<float>() && x.dtype() != nb::dtype<uint32_t>()) {
    bad(std::string(arg) + ": expected float32 values");
  }
  return static_cast<const uint32_t*>(x.data());
}

void check_matrix(const InArray& x, int rows, int cols) {
  if (rows < 0 || cols < 0 ||
      static_cast<size_t>(rows) * static_cast<size_t>(cols) != x.size()) {
    bad("x: shape does not hold rows x cols elements");
  }
}

const mxc::MxProfile& mx_profile_arg(const std::string& name) {
  const mxc::MxProfile* p = mxc::find_mx_profile(name);
  if (!p) bad("profile: unknown MX profile '" + name + "'");
  return *p;
}

// axis 1: blocks along rows; axis 0: down columns; tile > 0: 2D tiles.
std::tuple<OutArray<uint8_t>, OutArray<uint8_t>> quantize_mx(
    const InArray& x, int rows, int cols, const std::string& profile,
    const std::string& elem, int block, int axis, int tile) {
  mxc::MxProfile p = mx_profile_arg(profile);
  const mxc::Fmt e = fmt_arg(elem, "elem");
  using mxc::Fmt;
  if (e != Fmt::kE4M3 && e != Fmt::kE5M2 && e != Fmt::kE3M2 &&
      e != Fmt::kE2M3 && e != Fmt::kE2M1 && e != Fmt::kInt8) {
    bad("elem: MX elements are e4m3, e5m2, e3m2, e2m3, e2m1 or int8, not " +
        elem);
  }
  if (block > 0) p.block = block;
  check_matrix(x, rows, cols);
  if (tile > 0 && (rows % tile != 0 || cols % tile != 0)) {
    bad("tile: rows and cols must be multiples of the tile " +
        std::to_string(tile));
  }
  const uint32_t* d = f32_data(x, "x");
  const std::span<const uint32_t> xs(d, x.size());
  mxc::MxMatrix m;  // 2D tiles
  Buf<uint8_t> out_scales, out_codes;
  std::vector<size_t> sshape;
  const size_t R = size_t(rows), C = size_t(cols);
  {
    nb::gil_scoped_release unlocked;
    const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
    if (tile > 0) {
      m = mxc::mx_quantize_2d(p, e, rows, cols, tile, xs);
      sshape = {R, C / size_t(tile)};
    } else {
      // Row-wise: ranges of rows; column-wise: ranges of block-rows (the
      // blocks run down the columns inside one block-row). Each range is
      // the library call on its own contiguous slab.
      const bool along = axis == 1;
      if (along ? C % size_t(p.block) : R % size_t(p.block)) {
        m = along ? mxc::mx_quantize_rowwise(p, e, rows, cols, xs)
                  : mxc::mx_quantize_colwise(p, e, rows, cols, xs);  // throws
      }
      const size_t B = size_t(p.block);
      const size_t unit_rows = along ? 1 : B;
      const size_t units = R / unit_rows;
      const size_t unit_scales = along ? C / B : C;
      out_codes.resize(R * C);
      out_scales.resize(units * unit_scales);
      sshape =
          along ? std::vector<size_t>{R, C / B} : std::vector<size_t>{R / B, C};
      parallel_ranges(
          units, min_units(unit_rows * C), [&](size_t u0, size_t u1) {
            const int nr = static_cast<int>((u1 - u0) * unit_rows);
            const auto slab = xs.subspan(u0 * unit_rows * C, size_t(nr) * C);
            uint8_t* codes = out_codes.data() + u0 * unit_rows * C;
            uint8_t* scales = out_scales.data() + u0 * unit_scales;
            // The fast path writes into the result (the shape is checked
            // above); a profile it does not cover takes the library call.
            if (along ? mxc::fast::mx_quantize_rowwise(
                            p, e, nr, cols, slab.data(), scales, codes)
                      : mxc::fast::mx_quantize_colwise(
                            p, e, nr, cols, slab.data(), scales, codes)) {
              return;
            }
            const mxc::MxMatrix part =
                along ? mxc::mx_quantize_rowwise(p, e, nr, cols, slab)
                      : mxc::mx_quantize_colwise(p, e, nr, cols, slab);
            std::copy(part.codes.begin(), part.codes.end(), codes);
            std::copy(part.scales.begin(), part.scales.end(), scales);
          });
    }
  }
  if (tile > 0) {
    return {to_numpy(std::move(m.scales), sshape),
            to_numpy(std::move(m.codes), {R, C})};
  }
  return {to_numpy(std::move(out_scales), sshape),
          to_numpy(std::move(out_codes), {R, C})};
}

// Returns (scales, codes, S_enc, the tensor amax used as f32 bits).
std::tuple<OutArray<uint8_t>, OutArray<uint8_t>, uint32_t, uint32_t>
quantize_nvfp4(const InArray& x, int rows, int cols, const std::string& profile,
               int axis, int tile, std::optional<uint32_t> tensor_amax,
               std::optional<InArray> rbits) {
  const mxc::Nvfp4Profile* p = mxc::find_nvfp4_profile(profile);
  if (!p) bad("profile: unknown NVFP4 profile '" + profile + "'");
  check_matrix(x, rows, cols);
  if (rows <= 0 || cols <= 0 || (tile > 0 && tile != 16) ||
      ((tile > 0 || axis == 1) && cols % 16 != 0) ||
      ((tile > 0 || axis == 0) && rows % 16 != 0)) {
    bad("x: NVFP4 blocks are 16 elements (tiles 16x16): the blocked "
        "dimension must be a multiple of 16");
  }
  const uint32_t* d = f32_data(x, "x");
  std::span<const uint32_t> rb;  // the caller's array (c_contig)
  if (rbits && p->rule != mxc::Nvfp4Rule::kTe &&
      p->rule != mxc::Nvfp4Rule::kCutlass) {
    bad("rbits: profile '" + profile +
        "' has no stochastic rounding (its library rounds to "
        "nearest even)");
  }
  if (rbits) {
    if (rbits->size() != x.size()) bad("rbits: needs one value per element");
    if (itemsize(*rbits) != 4 || rbits->dtype().lanes != 1)
      bad("rbits: elements must be 4 bytes wide, got " +
          std::to_string(itemsize(*rbits)));
    rb = std::span<const uint32_t>(static_cast<const uint32_t*>(rbits->data()),
                                   rbits->size());
  }
  const size_t R = size_t(rows), C = size_t(cols), n = R * C;
  Buf<uint8_t> scales, codes(n);
  std::vector<size_t> sshape;
  uint32_t s_enc = 0, amax_used = 0;
  {
    nb::gil_scoped_release unlocked;
    const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
    uint32_t amax = 0;
    // Rowwise without the caller's amax: the tensor amax and the blocks'
    // in one pass (fast::abs_max_bits16), the kernels then read the
    // blocks' instead of reading x twice for them.
    std::unique_ptr<uint32_t[]> bam;  // not zero-filled: every one written
    if (tensor_amax) {
      amax = *tensor_amax;
    } else if (tile == 0 && axis == 1 && rb.empty()) {
      bam.reset(new uint32_t[n / 16]);
      const uint32_t m = mxc::fast::abs_max_bits16(mxc::fast::best_isa(), d,
                                                   n / 16, bam.get());
      amax = m > 0x7F800000u ? 0x7FC00000u : m;  // as mxc::tensor_amax
    } else {
      // max |x| (NaN if any NaN), in emu/ (this module is built with -Os,
      // which leaves such loops unvectorized: 7x slower).
      amax = mxc::tensor_amax(std::span<const uint32_t>(d, n));
    }
    amax_used = amax;
    s_enc = mxc::nvfp4_tensor_scale(*p, amax);
    if (tile > 0) {
      const auto m = mxc::nvfp4_quantize_2d(*p, s_enc, rows, cols,
                                            std::span<const uint32_t>(d, n));
      scales.assign(m.scales.begin(), m.scales.end());
      codes.assign(m.codes.begin(), m.codes.end());
      sshape = {R, C / 16};
    } else if (axis == 1) {
      scales.resize(R * (C / 16));
      sshape = {R, C / 16};
      parallel_ranges(R, min_units(C), [&](size_t r0, size_t r1) {
        const int nr = static_cast<int>(r1 - r0);
        if (rb.empty()
                ? mxc::fast::nvfp4_quantize_rowwise(
                      *p, s_enc, nr, cols, d + r0 * C,
                      scales.data() + r0 * (C / 16), codes.data() + r0 * C,
                      bam ? bam.get() + r0 * (C / 16) : nullptr)
                : mxc::fast::nvfp4_quantize_rowwise_sr(
                      *p, s_enc, nr, cols, d + r0 * C, rb.data() + r0 * C,
                      scales.data() + r0 * (C / 16), codes.data() + r0 * C)) {
          return;
        }
        for (size_t r = r0; r < r1; ++r) {
          for (size_t b = 0; b < C / 16; ++b) {
            const size_t o = r * C + b * 16;
            std::span<const uint32_t> rbs;
            if (!rb.empty()) rbs = std::span<const uint32_t>(rb.data() + o, 16);
            const auto q = mxc::nvfp4_quantize_block(
                *p, s_enc, std::span<const uint32_t>(d + o, 16), rbs);
            scales[r * (C / 16) + b] = q.scale;
            std::copy(q.codes.begin(), q.codes.end(), codes.begin() + long(o));
          }
        }
      });
    } else {
      scales.resize((R / 16) * C);
      sshape = {R / 16, C};
      parallel_ranges(R / 16, min_units(16 * C), [&](size_t b0, size_t b1) {
        const int nr = static_cast<int>((b1 - b0) * 16);
        if (rb.empty() ? mxc::fast::nvfp4_quantize_colwise(
                             *p, s_enc, nr, cols, d + b0 * 16 * C,
                             scales.data() + b0 * C, codes.data() + b0 * 16 * C)
                       : mxc::fast::nvfp4_quantize_colwise_sr(
                             *p, s_enc, nr, cols, d + b0 * 16 * C,
                             rb.data() + b0 * 16 * C, scales.data() + b0 * C,
                             codes.data() + b0 * 16 * C)) {
          return;
        }
        std::vector<uint32_t> col(16), cr(16);
        for (size_t b = b0; b < b1; ++b) {
          for (size_t c = 0; c < C; ++c) {
            for (size_t j = 0; j < 16; ++j) {
              col[j] = d[(b * 16 + j) * C + c];
              if (!rb.empty()) cr[j] = rb[(b * 16 + j) * C + c];
            }
            const auto q = mxc::nvfp4_quantize_block(
                *p, s_enc, col, rb.empty() ? std::span<const uint32_t>() : cr);
            scales[b * C + c] = q.scale;
            for (size_t j = 0; j < 16; ++j)
              codes[(b * 16 + j) * C + c] = q.codes[j];
          }
        }
      });
    }
  }
  return {to_numpy(std::move(scales), sshape),
          to_numpy(std::move(codes), {R, C}), s_enc, amax_used};
}

// Dequantize: element i of block b as the reference block dequantizers
// compute it. axis 1: blocks along rows, scales [rows][cols/block]; axis 0:
// down columns, scales [rows/block][cols].
OutArray<float> dequantize(const InArray& scales, const InArray& codes,
                           int rows, int cols, const std::string& elem,
                           int block, int axis,
                           std::optional<uint32_t> nvfp4_s_enc,
                           std::optional<std::string> nvfp4_profile) {
  const mxc::Nvfp4Profile* nvp = nullptr;
  if (nvfp4_profile) {
    nvp = mxc::find_nvfp4_profile(*nvfp4_profile);
    if (!nvp) bad("profile: unknown NVFP4 profile '" + *nvfp4_profile + "'");
  }
  const mxc::Fmt e = fmt_arg(elem, "elem");
  if (codes.size() != size_t(rows) * size_t(cols)) {
    bad("codes: shape does not hold rows x cols elements");
  }
  if (block <= 0 || (axis == 1 ? cols : rows) % block != 0) {
    bad("block: the blocked dimension must divide by the block size");
  }
  const size_t R = size_t(rows), C = size_t(cols), B = size_t(block);
  const size_t nscales = axis == 1 ? R * (C / B) : (R / B) * C;
  if (scales.size() != nscales) {
    bad("scales: expected " + std::to_string(nscales) + " scales, got " +
        std::to_string(scales.size()));
  }
  const auto sc = raw_words(scales, 1, "scales");
  const auto cd = raw_words(codes, 1, "codes");
  const uint64_t limit = uint64_t{1} << mxc::desc(e).bits;
  for (uint64_t c : cd) {
    if (c >= limit) bad("codes: a code does not fit format " + elem);
  }
  std::vector<float> out(R * C);
  {
    nb::gil_scoped_release unlocked;
    const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
    std::vector<uint32_t> v;
    auto idx = [&](size_t b, size_t j, size_t line) {
      return axis == 1 ? line * C + b * B + j : (b * B + j) * C + line;
    };
    const size_t lines = axis == 1 ? R : C, blocks = axis == 1 ? C / B : R / B;
    for (size_t line = 0; line < lines; ++line) {
      for (size_t b = 0; b < blocks; ++b) {
        const size_t s = axis == 1 ? line * blocks + b : b * C + line;
        if (nvfp4_s_enc) {
          mxc::Nvfp4Block q;
          q.scale = static_cast<uint8_t>(sc[s]);
          for (size_t j = 0; j < B; ++j)
            q.codes.push_back(static_cast<uint8_t>(cd[idx(b, j, line)]));
          v = nvp ? mxc::nvfp4_dequantize_block(*nvp, q, *nvfp4_s_enc)
                  : mxc::nvfp4_dequantize_block(q, *nvfp4_s_enc);
        } else {
          mxc::MxBlock q;
          q.scale = static_cast<uint8_t>(sc[s]);
          for (size_t j = 0; j < B; ++j)
            q.codes.push_back(static_cast<uint8_t>(cd[idx(b, j, line)]));
          v = mxc::mx_dequantize_block(e, q);
        }
        for (size_t j = 0; j < B; ++j)
          std::memcpy(&out[idx(b, j, line)], &v[j], 4);
      }
    }
  }
  return to_numpy(std::move(out), {R, C});
}

// ------------------------------------------------------- layouts, packing

std::vector<uint8_t> bytes_of(const InArray& a, const char* arg) {
  const auto w = raw_words(a, 1, arg);
  return std::vector<uint8_t>(w.begin(), w.end());
}

OutArray<uint8_t> swizzle(const InArray& scales, size_t rows, size_t kblocks,
                          uint8_t pad) {
  if (scales.size() != mxc::checked_mul(rows, kblocks, "rows, kblocks")) {
    bad("scales: expected rows x kblocks = " + std::to_string(rows) + " x " +
        std::to_string(kblocks) + " codes, got " +
        std::to_string(scales.size()));
  }
  auto v = mxc::swizzle_scales(bytes_of(scales, "scales"), rows, kblocks, pad);
  const size_t n = v.size();
  return to_numpy(std::move(v), {n});
}

OutArray<uint8_t> unswizzle(const InArray& tiled, size_t rows, size_t kblocks) {
  const size_t need = mxc::swizzled_scale_size(rows, kblocks);  // checked
  mxc::checked_mul(rows, kblocks, "rows, kblocks");
  if (tiled.size() != need) {
    bad("tiled: expected " + std::to_string(need) + " bytes for rows=" +
        std::to_string(rows) + ", kblocks=" + std::to_string(kblocks) +
        ", got " + std::to_string(tiled.size()));
  }
  auto v = mxc::unswizzle_scales(bytes_of(tiled, "tiled"), rows, kblocks);
  return to_numpy(std::move(v), {rows, kblocks});
}

OutArray<uint8_t> packed(std::vector<uint8_t>&& v) {
  const size_t n = v.size();
  return to_numpy(std::move(v), {n});
}

// ------------------------------------------------------------- mma, gemm

void check_ab_fmt(const mxc::MmaModel& m, mxc::Fmt f, const char* arg) {
  if (std::find(m.ab_formats.begin(), m.ab_formats.end(), f) ==
      m.ab_formats.end()) {
    std::string known;
    for (mxc::Fmt x : m.ab_formats)
      known += " " + std::string(mxc::desc(x).name);
    bad(std::string(arg) + ": model " + std::string(m.name) +
        " takes A/B formats" + known);
  }
}

// A/B operands as models take them (mxc::operand_code_ok: TF32 is an f32
// bit pattern with the low 13 bits zero, as in the CLI and vector files);
// scales are codes of their storage width.
void codes_checked_into(const InArray& a, mxc::Fmt f, const char* arg,
                        bool operand, std::vector<uint64_t>& w) {
  raw_words_into(a, 0, arg, w);
  const uint64_t lim = mxc::desc(f).storage_mask();
  // The bits no code may set (mxc::code_ok: above code_bits, and TF32's
  // low 13; scales: above the storage width), or-ed over the array in one
  // loop the compiler vectorizes; only an array with a bad code is walked
  // again for the first one (the message).
  const int n = mxc::code_bits(f);
  uint64_t forbidden = ~lim;
  if (operand) {
    forbidden = n < 64 ? ~((uint64_t{1} << n) - 1) : 0;
    if (f == mxc::Fmt::kTF32) forbidden |= mxc::kTf32LowMask;
  }
  uint64_t any = 0;
  for (uint64_t v : w) any |= v & forbidden;
  if (any == 0) return;
  for (uint64_t v : w) {
    if (operand ? !mxc::operand_code_ok(f, v) : v > lim) {
      bad(std::string(arg) + ": code " + std::to_string(v) +
          " does not fit format " + std::string(mxc::desc(f).name) +
          (f == mxc::Fmt::kTF32
               ? " (an f32 bit pattern whose low 13 bits are zero)"
               : ""));
    }
  }
}

std::vector<uint64_t> codes_checked(const InArray& a, mxc::Fmt f,
                                    const char* arg, bool operand = true) {
  std::vector<uint64_t> w;
  codes_checked_into(a, f, arg, operand, w);
  return w;
}

uint64_t mma(const InArray& a, const InArray& b, uint64_t c,
             const std::string& model, const std::string& a_fmt,
             const std::string& b_fmt, std::optional<InArray> sa,
             std::optional<InArray> sb) {
  const mxc::MmaModel& m = model_arg(model);
  const mxc::Fmt af = fmt_arg(a_fmt, "a_fmt"), bf = fmt_arg(b_fmt, "b_fmt");
  check_ab_fmt(m, af, "a_fmt");
  check_ab_fmt(m, bf, "b_fmt");
  const auto av = codes_checked(a, af, "a"), bv = codes_checked(b, bf, "b");
  if (av.size() != bv.size()) bad("b: must have as many elements as a");
  if (av.empty() || av.size() % size_t(m.fdpa.L) != 0) {
    bad("a: K must be a positive multiple of the model's L = " +
        std::to_string(m.fdpa.L));
  }
  const int blk = mxc::scale_block(m.scales);
  std::vector<uint64_t> sav, sbv;
  if (blk > 0) {
    if (!sa || !sb)
      bad("a_scales: model " + model + " needs a_scales and b_scales");
    if (av.size() % size_t(blk) != 0) {
      bad("a: K must be a multiple of the scale block " + std::to_string(blk));
    }
    sav = codes_checked(*sa, mxc::scale_format(m.scales), "a_scales", false);
    sbv = codes_checked(*sb, mxc::scale_format(m.scales), "b_scales", false);
    if (sav.size() != av.size() / size_t(blk) ||
        sbv.size() != av.size() / size_t(blk)) {
      bad("a_scales: need K / " + std::to_string(blk) + " = " +
          std::to_string(av.size() / size_t(blk)) + " scales per operand");
    }
  } else if (sa || sb) {
    bad("a_scales: model " + model + " takes no block scales");
  }
  if (c > mxc::desc(m.c_fmt).storage_mask())
    bad("c: code does not fit c format");
  return mxc::mma_dot(m, af, bf, av, bv, c, sav, sbv);
}

nb::object gemm(const InArray& a, const InArray& b, std::optional<InArray> sa,
                std::optional<InArray> sb, std::optional<InArray> c,
                const std::string& model, const std::string& a_fmt,
                const std::string& b_fmt, const std::string& layout, int M,
                int N, int K, int split_k) {
  const mxc::MmaModel& m = model_arg(model);
  mxc::GemmProblem p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.a_fmt = fmt_arg(a_fmt, "a_fmt");
  p.b_fmt = fmt_arg(b_fmt, "b_fmt");
  check_ab_fmt(m, p.a_fmt, "a_fmt");
  check_ab_fmt(m, p.b_fmt, "b_fmt");
  if (!mxc::parse_layout(layout, &p.layout)) {
    bad("layout: unknown layout '" + layout + "' (TN, NN, NT, TT)");
  }
  if (split_k < 1) bad("split_k: must be >= 1");
  p.split_k = split_k;
  // A's and B's codes in vectors kept per thread between calls: fresh ones
  // (1 MiB each at 64 x 2048) cost page faults on every call where the
  // heap's top was given back in between (0.6-1 ms of a 2.5 ms call, seen
  // when one model's gemm is called repeatedly), and their zero fill.
  struct Pool {
    std::vector<uint64_t> a, b;
  };
  thread_local Pool pool;
  struct GiveBack {
    mxc::GemmProblem& p;
    ~GiveBack() {
      constexpr size_t kKeep = mxc::fast::kScratchKeepBytes;  // per vector
      if (p.A.capacity() * sizeof(uint64_t) <= kKeep) pool.a = std::move(p.A);
      if (p.B.capacity() * sizeof(uint64_t) <= kKeep) pool.b = std::move(p.B);
    }
  } give_back{p};
  p.A = std::move(pool.a);
  p.B = std::move(pool.b);
  codes_checked_into(a, p.a_fmt, "a", true, p.A);
  codes_checked_into(b, p.b_fmt, "b", true, p.B);
  const int blk = mxc::scale_block(m.scales);
  if (blk > 0) {
    if (!sa || !sb)
      bad("a_scales: model " + model + " needs a_scales and b_scales");
    p.SA = codes_checked(*sa, mxc::scale_format(m.scales), "a_scales", false);
    p.SB = codes_checked(*sb, mxc::scale_format(m.scales), "b_scales", false);
  } else if (sa || sb) {
    bad("a_scales: model " + model + " takes no block scales");
  }
  if (c) {
    p.C = raw_words(*c, storage_bytes(m.c_fmt), "c");
  } else {
    p.C.assign(size_t(M) * size_t(N), 0);
  }
  std::vector<uint64_t> d;
  {
    nb::gil_scoped_release unlocked;
    const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
    d = mxc::gemm(m, p);  // throws std::invalid_argument on bad sizes
  }
  // D column-major M x N -> shape (N, M); Python transposes.
  const std::vector<size_t> shape = {size_t(N), size_t(M)};
  if (storage_bytes(m.c_fmt) == 2) {
    std::vector<uint16_t> o(d.begin(), d.end());
    return to_numpy(std::move(o), shape).cast();
  }
  std::vector<uint32_t> o(d.begin(), d.end());
  return to_numpy(std::move(o), shape).cast();
}

// --------------------------------------------------------------- classify

// The verify classifiers: the op the header describes classifies each
// mismatching case (rows of inputs, expected results, actual results) and
// decodes both result tuples, exactly as `mxc verify` reports them.
// A case that `allow` accepts (Op::accepted, as `mxc verify --allow`)
// comes back with the class "accepted:<variation>".
std::vector<std::tuple<std::string, std::string, std::string>> classify(
    const std::map<std::string, std::string>& header, const InArray& inputs,
    const InArray& want, const InArray& got,
    const std::vector<std::string>& allow) {
  mxc::vec::Header h;
  h.kv = header;
  std::unique_ptr<mxc::vec::Op> op;
  try {
    op = mxc::vec::make_op(h);
  } catch (const std::exception& e) {
    bad(std::string("op: ") + e.what());
  }
  if (inputs.ndim() != 2 || want.ndim() != 2 || got.ndim() != 2 ||
      want.shape(0) != inputs.shape(0) || got.shape(0) != inputs.shape(0) ||
      want.shape(1) != got.shape(1)) {
    bad("classify: inputs/want/got must be 2D with one row per case");
  }
  if (inputs.shape(1) != op->inputs().size() ||
      want.shape(1) != op->results().size()) {
    bad("classify: the op takes " + std::to_string(op->inputs().size()) +
        " input and " + std::to_string(op->results().size()) +
        " result fields per case");
  }
  const auto in = raw_words(inputs, 8, "inputs");
  const auto w = raw_words(want, 8, "want");
  const auto g = raw_words(got, 8, "got");
  const size_t ni = inputs.shape(1), nr = want.shape(1);
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  nb::gil_scoped_release unlocked;
  const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
  for (size_t i = 0; i < inputs.shape(0); ++i) {
    std::span<const uint64_t> ci(in.data() + i * ni, ni),
        cw(w.data() + i * nr, nr), cg(g.data() + i * nr, nr);
    const std::string ok = allow.empty() ? "" : op->accepted(ci, cw, cg, allow);
    out.emplace_back(ok.empty() ? op->classify(ci, cw, cg) : "accepted:" + ok,
                     op->decode_results(cw), op->decode_results(cg));
  }
  return out;
}

std::string describe(const std::string& fmt, uint64_t code) {
  const mxc::Fmt f = fmt_arg(fmt, "fmt");
  if (code > mxc::desc(f).storage_mask()) bad("code: does not fit " + fmt);
  return mxc::vec::describe(f, code);
}

// A vector file as `mxc gen` writes it (the same generator and writer).
std::string generate(const std::map<std::string, std::string>& header,
                     size_t shard_index, size_t shard_count) {
  mxc::vec::Header h;
  h.kv = header;
  for (const auto& [k, v] : h.kv) {
    if (!mxc::vec::known_header_key(k)) bad("unknown header key '" + k + "'");
  }
  if (shard_count == 0 || shard_index >= shard_count) {
    bad("shard: must be (i, n) with 0 <= i < n");
  }
  std::ostringstream out;
  {
    nb::gil_scoped_release unlocked;
    const mxc::fast::FpEnvDefault fp_env;  // also the reference paths
    mxc::vec::generate(h, {shard_index, shard_count}, out);
  }
  return out.str();
}

OutArray<uint32_t> sr_rbits(uint64_t seed, size_t n) {
  std::vector<uint32_t> v(n);
  mxc::fast::sr_rbits_fill(mxc::fast::best_isa(), seed, 0, n, v.data());
  return to_numpy(std::move(v), {n});
}

// ---------------------------------------------------------------- engines

// Which engine a call takes for finite inputs (python -m mxconform.bench
// prints it beside each row; tests/test_fast_quantize.cpp and the fast GEMM
// coverage test fail when any row says "reference").
std::string quantize_engine(const std::string& profile,
                            const std::string& elem) {
  if (const mxc::Nvfp4Profile* p = mxc::find_nvfp4_profile(profile)) {
    uint32_t x[16];
    for (int i = 0; i < 16; ++i) {
      const float v = 0.5f * static_cast<float>(i + 1);
      std::memcpy(&x[i], &v, 4);
    }
    uint8_t scale = 0, codes[16];
    const uint32_t s_enc = mxc::nvfp4_tensor_scale(*p, 0x41000000u);  // 8
    return mxc::fast::nvfp4_quantize_block(*p, s_enc, x, 16, scale, codes)
               ? "fast"
               : "reference";
  }
  const mxc::MxProfile& p = mx_profile_arg(profile);
  const mxc::Fmt e = elem.empty() ? p.default_elem : fmt_arg(elem, "elem");
  return mxc::fast::mx_covers(p, e) ? "fast" : "reference";
}

std::string gemm_engine(const std::string& model, const std::string& a_fmt,
                        const std::string& b_fmt) {
  const mxc::MmaModel& m = model_arg(model);
  mxc::GemmProblem g;
  g.M = g.N = 8;
  g.K = m.k * 4;
  g.a_fmt = fmt_arg(a_fmt, "a_fmt");
  g.b_fmt = fmt_arg(b_fmt, "b_fmt");
  return mxc::fast::gemm_covers(m, g) ? "fast" : "reference";
}

}  // namespace

NB_MODULE(_mxconform, m) {
  m.doc() =
      "Low-level bindings of the mxconform C++ emulator; use the "
      "mxconform package, which checks arguments and documents them.";
  m.def(
      "set_num_threads",
      [](int n) {
        if (n < 0) bad("n: must be >= 0 (0 = every core)");
        g_threads.store(n);
      },
      "n"_a, "Threads for convert/quantize on large arrays (0 = every core).");
  m.def("get_num_threads", &thread_count, "Threads convert/quantize use.");
  m.def(
      "isa",
      [] { return std::string(mxc::fast::isa_name(mxc::fast::best_isa())); },
      "The SIMD instruction set the fast engine runs on here.");
  m.def("quantize_engine", &quantize_engine, "profile"_a, "elem"_a,
        "'fast' or 'reference': the engine quantize takes for finite blocks.");
  m.def("gemm_engine", &gemm_engine, "model"_a, "a_fmt"_a, "b_fmt"_a,
        "'fast' or 'reference': the engine gemm takes for finite operands.");
  m.def("formats", &formats, "Every format the emulator knows, as dicts.");
  m.def("profiles", &profiles, "Every MX and NVFP4 quantization profile.");
  m.def("profile_aliases", &profile_aliases,
        "Bare and older profile names and the versioned profile each is.");
  m.def("models", &models, "Every MMA instruction model.");
  m.def("convert", &convert, "x"_a, "from_fmt"_a, "to"_a, "round"_a,
        "saturate"_a, "relu"_a, "rbits"_a.none(),
        "Raw conversion of bit patterns (see mxconform.convert).");
  m.def("quantize_mx", &quantize_mx, "x"_a, "rows"_a, "cols"_a, "profile"_a,
        "elem"_a, "block"_a, "axis"_a, "tile"_a,
        "Raw MX quantization (see mxconform.quantize).");
  m.def("quantize_nvfp4", &quantize_nvfp4, "x"_a, "rows"_a, "cols"_a,
        "profile"_a, "axis"_a, "tile"_a, "tensor_amax"_a.none(),
        "rbits"_a.none(), "Raw NVFP4 quantization (see mxconform.quantize).");
  m.def("dequantize", &dequantize, "scales"_a, "codes"_a, "rows"_a, "cols"_a,
        "elem"_a, "block"_a, "axis"_a, "nvfp4_s_enc"_a.none(),
        "nvfp4_profile"_a.none() = nb::none(),
        "Raw block dequantization (see mxconform.dequantize).");
  m.def("swizzle_scales", &swizzle, "scales"_a, "rows"_a, "kblocks"_a, "pad"_a,
        "Row-major scales to the 128x4 tiled layout.");
  m.def("unswizzle_scales", &unswizzle, "tiled"_a, "rows"_a, "kblocks"_a,
        "The 128x4 tiled layout back to row-major scales.");
  m.def(
      "pack_fp4",
      [](const InArray& c) {
        return packed(mxc::pack_fp4(bytes_of(c, "codes")));
      },
      "codes"_a, "Two E2M1 codes per byte, element 2i in the low nibble.");
  m.def(
      "unpack_fp4",
      [](const InArray& b, size_t n) {
        return packed(mxc::unpack_fp4(bytes_of(b, "packed"), n));
      },
      "packed"_a, "n"_a, "The first n codes of packed FP4 bytes.");
  m.def(
      "pack_fp6",
      [](const InArray& c) {
        return packed(mxc::pack_fp6(bytes_of(c, "codes")));
      },
      "codes"_a, "Four 6-bit codes per three bytes, little-endian bit stream.");
  m.def(
      "unpack_fp6",
      [](const InArray& b, size_t n) {
        return packed(mxc::unpack_fp6(bytes_of(b, "packed"), n));
      },
      "packed"_a, "n"_a, "The first n codes of packed FP6 bytes.");
  m.def("mma", &mma, "a"_a, "b"_a, "c"_a, "model"_a, "a_fmt"_a, "b_fmt"_a,
        "a_scales"_a.none(), "b_scales"_a.none(),
        "One output element of an MMA model (code of D).");
  m.def("gemm", &gemm, "a"_a, "b"_a, "a_scales"_a.none(), "b_scales"_a.none(),
        "c"_a.none(), "model"_a, "a_fmt"_a, "b_fmt"_a, "layout"_a, "M"_a, "N"_a,
        "K"_a, "split_k"_a, "D codes, shape (N, M) (column-major M x N).");
  m.def("classify", &classify, "header"_a, "inputs"_a, "want"_a, "got"_a,
        "allow"_a,
        "(class, expected decoded, actual decoded) per case, as mxc verify.");
  m.def("generate", &generate, "header"_a, "shard_index"_a, "shard_count"_a,
        "A vector file's text, as mxc gen writes it.");
  m.def("sr_rbits", &sr_rbits, "seed"_a, "n"_a,
        "Philox random bits of elements 0..n-1 (mxc quantize --sr-seed).");
  m.def("allow_error", &mxc::vec::allow_error, "allow"_a,
        "Why `mxc verify --allow` would refuse the variation, or \"\" (the "
        "one validator the CLI and compare(allow=) share).");
  m.def("describe", &describe, "fmt"_a, "code"_a,
        "A code decoded as mxc verify prints it.");
}
