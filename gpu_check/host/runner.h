// mxc-gpu: the command line of the CUDA harness, independent of the
// backend, so the CPU tests run it against the fake backend.
//
//   mxc-gpu run [--suite level1|level2] [--only FAMILY]... [--sweep N]
//               [--vectors FILE]... [--timeout S] [--shard i/n]
//               [--device N | --devices all|0,2,5] --report DIR
//               [--capture DIR]
//   mxc-gpu list
//
// Exit status: 0 every replayed family bit-exact, 1 mismatches, 2 bad
// usage or input, 3 a CUDA error (reported with family and case index),
// 124 the watchdog fired, 77 no CUDA device (nothing was replayed: skip).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_check/host/backend.h"

namespace mxc::gpu {

inline constexpr int kExitSkip = 77;
inline constexpr int kExitCudaError = 3;
inline constexpr int kExitWatchdog = 124;

struct RunOptions {
  std::string suite = "level1";
  std::vector<std::string> only;
  std::vector<std::string> vectors;  // vector files to replay as well
  std::string report_dir;
  std::string capture_dir;  // --capture DIR: device results as vector files
  uint64_t capture_max = UINT64_MAX;  // --capture-max N: lines per file
  uint64_t sweep = 0;       // random cases per instruction family
  uint64_t seed = 1;
  double timeout_s = 300;   // watchdog: longest wait for one device call
  unsigned threads = 0;
  bool support_matrix = true;
  bool selftest_hang = false;
  std::string shard = "0/1";  // i/n: the cases i, i+n, ... (docs/scale-out.md)
  // "" (device 0), "all", or a list "0,2,5": one host thread per device,
  // reports in DIR/gpu<N>/, the emulator threads shared among them.
  std::string devices;
  int device = -1;  // --device N (one device, reports in DIR)
};

// The version recorded in reports (`mxc report merge` refuses mixing).
inline constexpr const char* kGpuVersion = "mxc-gpu " MXC_VERSION;

// Runs the replay; writes DIR/report.json, DIR/report.junit.xml,
// DIR/summary.txt, DIR/skipped.json, DIR/device.json and
// DIR/support-matrix.{json,txt} (with several devices: those in
// DIR/gpu<N>/, and DIR/devices.json + DIR/summary.txt across them).
// Returns the exit status (several devices: the worst).
int run(Backend& b, const RunOptions& o, std::ostream& out, std::ostream& err);

// The whole command line (argv as main gets it).
int main_cli(int argc, char** argv, Backend& b);

// A family name as a file name: characters other than letters, digits, '.',
// '_' and '-' become '_' ("mma.m16n8k32.f32.e4m3.e4m3@sm90" ->
// "mma.m16n8k32.f32.e4m3.e4m3_sm90").
std::string capture_name(std::string_view family);

std::string render_support_matrix(const std::vector<SupportEntry>& m);

}  // namespace mxc::gpu
