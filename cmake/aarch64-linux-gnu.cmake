# Cross-compiling for AArch64 Linux with Debian's cross toolchain and arm64
# multiarch libraries (scripts/install-deps-aarch64, scripts/test-aarch64):
#   cmake -B build-aarch64 --toolchain cmake/aarch64-linux-gnu.cmake
# The test programs run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), so
# ctest works as on the host. Libraries come from /usr/lib/aarch64-linux-gnu
# (multiarch); header-only packages from /usr/include and /usr/share.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
find_program(MXC_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64 REQUIRED)
# -L: the emulated dynamic loader (libc6-arm64-cross); LD_LIBRARY_PATH: the
# arm64 multiarch libraries (libfmt), which no ld.so.cache lists here.
set(CMAKE_CROSSCOMPILING_EMULATOR ${MXC_QEMU_AARCH64} -L /usr/aarch64-linux-gnu
    -E LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu)
# Programs (nvcc, git) come from the host; libraries and packages only from
# the multiarch tree. Debian's multiarch layout shares / with the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
