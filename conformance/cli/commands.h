// Each mxc subcommand registers itself on the app; the callback it installs
// stores the process exit code (0 ok, 1 mismatches, 2 bad input).
#pragma once

#include <CLI/CLI.hpp>

namespace mxc::cli {

void add_convert(CLI::App& app, int& exit_code);
void add_formats(CLI::App& app, int& exit_code);
void add_selfcheck(CLI::App& app, int& exit_code);
void add_mma(CLI::App& app, int& exit_code);    // models + mma
void add_block(CLI::App& app, int& exit_code);  // profiles, quantize, diff
void add_bench(CLI::App& app, int& exit_code);
void add_study(CLI::App& app, int& exit_code);  // conformance/study/
void add_vectors(CLI::App& app, int& exit_code);  // gen + verify
void add_conformance(CLI::App& app, int& exit_code);
void add_report(CLI::App& app, int& exit_code);  // report merge

}  // namespace mxc::cli
