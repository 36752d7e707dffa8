#include "emu/fast/sweep.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "emu/convert.h"
#include "emu/fast/fp_env.h"

namespace mxc::fast {
namespace {

constexpr size_t kChunk = size_t{1} << 16;

// Runs body(thread_state, chunk_begin, chunk_len) over [0, total) in chunks
// handed out by an atomic counter, then merges the per-thread results.
template <class Body>
SweepResult parallel(uint64_t total, unsigned threads, Body body) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  const uint64_t chunks = (total + kChunk - 1) / kChunk;
  threads = static_cast<unsigned>(
      std::min<uint64_t>(threads, std::max<uint64_t>(chunks, 1)));
  std::atomic<uint64_t> next{0};
  std::vector<SweepResult> parts(threads);
  auto work = [&](unsigned t) {
    std::vector<uint32_t> in(kChunk);
    std::vector<uint8_t> fast(kChunk), ref(kChunk);
    for (;;) {
      const uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) break;
      const uint64_t b = c * kChunk;
      const size_t len =
          static_cast<size_t>(std::min<uint64_t>(kChunk, total - b));
      body(parts[t], in, fast, ref, b, len);
    }
  };
  if (threads == 1) {
    work(0);
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work, t);
    for (auto& th : pool) th.join();
  }
  SweepResult all;
  for (const auto& p : parts) {
    all.cases += p.cases;
    all.mismatches += p.mismatches;
    all.checksum += p.checksum;
    for (const auto& m : p.first)
      if (all.first.size() < 8) all.first.push_back(m);
  }
  return all;
}

// Checks the chunk's fast results (already in `fast`, byte sum `sum`)
// against the oracle on the same inputs.
void compare(SweepResult& s, const BatchOracle& oracle, const uint32_t* in,
             const uint8_t* fast, uint8_t* ref, size_t len, uint64_t sum) {
  s.checksum += sum;
  s.cases += len;
  if (!oracle) return;
  oracle(in, ref, len);
  for (size_t i = 0; i < len; ++i) {
    if (fast[i] != ref[i]) {
      ++s.mismatches;
      if (s.first.size() < 8) s.first.push_back({in[i], fast[i], ref[i]});
    }
  }
}

uint64_t byte_sum(const uint8_t* b, size_t len) {
  uint64_t sum = 0;
  for (size_t i = 0; i < len; ++i) sum += b[i];
  return sum;
}

}  // namespace

BatchOracle reference_oracle(Fmt to, const RoundSpec& r) {
  return [to, r](const uint32_t* in, uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i)
      out[i] = static_cast<uint8_t>(convert(Fmt::kF32, to, in[i], r));
  };
}

const char* sweep_kernel_name(SweepKernel k) {
  return k == SweepKernel::kBinade ? "binade" : "generic";
}

SweepResult sweep_f32(Fmt to, const RoundSpec& r, const BatchOracle& oracle,
                      unsigned threads, uint64_t begin, uint64_t end, Isa isa,
                      SweepKernel kernel) {
  const FpEnvDefault fp_env;  // fp_env.h
  end = std::min<uint64_t>(end, uint64_t{1} << 32);
  if (begin >= end) return {};
  const Plan p = make_plan(to, r);
  return parallel(
      end - begin, threads,
      [&](SweepResult& s, std::vector<uint32_t>& in, std::vector<uint8_t>& fast,
          std::vector<uint8_t>& ref, uint64_t b, size_t len) {
        const auto first = static_cast<uint32_t>(begin + b);
        const bool need_in = oracle || kernel == SweepKernel::kGeneric;
        if (need_in) {
          for (size_t i = 0; i < len; ++i)
            in[i] = first + static_cast<uint32_t>(i);
        }
        uint64_t sum;
        if (kernel == SweepKernel::kBinade) {
          sum = sweep_range(p, isa, first, fast.data(), len);
        } else {
          run_plan(p, isa, in.data(), fast.data(), len);
          sum = byte_sum(fast.data(), len);
        }
        compare(s, oracle, in.data(), fast.data(), ref.data(), len, sum);
      });
}

SweepResult check_f32(Fmt to, const RoundSpec& r, const BatchOracle& oracle,
                      const std::vector<uint32_t>& inputs, unsigned threads,
                      Isa isa) {
  const FpEnvDefault fp_env;  // fp_env.h
  const Plan p = make_plan(to, r);
  return parallel(
      inputs.size(), threads,
      [&](SweepResult& s, std::vector<uint32_t>&, std::vector<uint8_t>& fast,
          std::vector<uint8_t>& ref, uint64_t b, size_t len) {
        const uint32_t* in = inputs.data() + b;
        run_plan(p, isa, in, fast.data(), len);
        compare(s, oracle, in, fast.data(), ref.data(), len,
                byte_sum(fast.data(), len));
      });
}

}  // namespace mxc::fast
