// TEST ONLY: mxc-gpu over the fake backend (the emulator, no fault), built
// beside a device kit so that scripts/test-device-kit can replay families
// inside a minimal root through every library the kit's mxc-gpu links,
// without a GPU. Never put into a kit; every run prints
// [FAKE TEST BACKEND] and device.json says "fake_backend": true.
#include "gpu_check/host/runner.h"
#include "gpu_check/tests/fake_backend.h"

int main(int argc, char** argv) {
  mxc::gpu::test::FakeBackend backend;
  return mxc::gpu::main_cli(argc, argv, backend);
}
