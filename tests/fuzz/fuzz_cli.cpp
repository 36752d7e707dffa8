// libFuzzer target for the mxc command-line line parsers, run through the
// real subcommands: byte 0 picks the command and options, the rest is stdin
// (for quantize --rbits-file, bytes after the first 0x00 are the random-bit
// file). Any input must end in a result or an error with an exit code,
// never a crash, a hang or unbounded memory. Run with -close_fd_mask=3.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/cli/commands.h"
#include "conformance/io.h"

namespace {

int run_mxc(const std::vector<std::string>& args) {
  CLI::App app{"mxc"};
  int exit_code = 0;
  mxc::cli::add_convert(app, exit_code);
  mxc::cli::add_mma(app, exit_code);
  mxc::cli::add_block(app, exit_code);
  std::vector<const char*> argv{"mxc"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return 2;
  } catch (const mxc::io::InputError&) {
    return 2;
  }
  return exit_code;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const std::string rbits =
      "/tmp/mxc-fuzz-rbits-" + std::to_string(::getpid());
  std::string in(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string> args;
  switch (data[0] % 6) {
    case 0: args = {"convert", "--from", "f32", "--to", "e4m3"}; break;
    case 1: args = {"convert", "--from", "e2m1", "--to", "f32", "--round", "rs", "--rbits", "80"}; break;
    case 2: args = {"quantize", "--profile", "ocp-v1", "--elem", "e2m1", "--block", "4"}; break;
    case 3: {
      const size_t z = in.find('\0');
      std::ofstream(rbits, std::ios::binary)
          << (z == std::string::npos ? std::string() : in.substr(z + 1));
      if (z != std::string::npos) in.resize(z);
      args = {"quantize", "--profile", "te-nvfp4", "--tensor-amax", "40000000",
              "--rbits-file", rbits};
      break;
    }
    case 4: args = {"mma", "--model", "sm90_wgmma_fp8_f32", "--k", "32"}; break;
    default: args = {"mma", "--model", "sm100_tcgen05_f8f6f4_f32", "--a-fmt", "e2m1", "--b-fmt", "e3m2", "--k", "32"}; break;
  }
  std::istringstream stdin_text(in);
  std::streambuf* saved = std::cin.rdbuf(stdin_text.rdbuf());
  run_mxc(args);
  std::cin.rdbuf(saved);
  std::fflush(stdout);
  std::clearerr(stdout);
  return 0;
}
