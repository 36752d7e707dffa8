// The replay family of a name, for the gpu_check CPU tests (the test fails
// when there is no such family).
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "gpu_check/host/families.h"

namespace mxc::gpu::test {

inline const Family& fam(const std::string& name) {
  const Family* f = find_family(name);
  INFO("family " << name);
  REQUIRE(f != nullptr);
  return *f;
}

}  // namespace mxc::gpu::test
