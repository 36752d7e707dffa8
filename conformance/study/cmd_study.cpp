// mxc study: placeholder until the studies land.
#include "conformance/cli/commands.h"

namespace mxc::cli {
void add_study(CLI::App&, int&) {}
}  // namespace mxc::cli
