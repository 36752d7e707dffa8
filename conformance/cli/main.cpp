// mxc: the command-line front end of mxconform.
#include <cstdio>
#include <exception>

#include "conformance/cli/commands.h"
#include "conformance/io.h"

int main(int argc, char** argv) {
  CLI::App app{
      "mxc: bit-exact emulator and conformance tools for OCP MX, FP8, FP6, "
      "FP4 and NVFP4 arithmetic"};
  app.require_subcommand(1);
  // MXC_VERSION: the CMake project version (one place for every version).
  app.set_version_flag("--version", "mxc " MXC_VERSION);
  int exit_code = 0;
  mxc::cli::add_convert(app, exit_code);
  mxc::cli::add_formats(app, exit_code);
  mxc::cli::add_selfcheck(app, exit_code);
  mxc::cli::add_mma(app, exit_code);
  mxc::cli::add_block(app, exit_code);
  mxc::cli::add_bench(app, exit_code);
  mxc::cli::add_study(app, exit_code);
  mxc::cli::add_vectors(app, exit_code);
  mxc::cli::add_conformance(app, exit_code);
  mxc::cli::add_report(app, exit_code);
  try {
    app.parse(argc, argv);
    // Nothing written is lost silently: stdout is flushed and checked here
    // (files are checked by io::Output::close()).
    mxc::io::finish_stdout();
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors are bad input
  } catch (const mxc::io::OutputError& e) {
    std::fprintf(stderr, "mxc: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxc: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
