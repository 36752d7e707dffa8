# `cmake --install` of the emulator for C++ users: the emu/ headers, the
# mxc_emu library and an exported CMake package, so that
#   find_package(mxconform) + target_link_libraries(t mxconform::emu)
# works (tests/consumer/ is built against it by scripts/test-install).
# Everything here is COMPONENT dev (the Python wheel installs only python).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY emu/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/emu
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
set_target_properties(mxc_emu PROPERTIES EXPORT_NAME emu)
install(TARGETS mxc_emu EXPORT mxconformTargets COMPONENT dev
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(MXC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mxconform)
install(EXPORT mxconformTargets NAMESPACE mxconform::
        DESTINATION ${MXC_CMAKE_DIR} COMPONENT dev)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/mxconformConfig.cmake.in [=[
@PACKAGE_INIT@
include(CMakeFindDependencyMacro)
find_dependency(Boost 1.74)  # mxc_emu's exact Dot uses Boost.Multiprecision
find_dependency(hwy 1.0)  # mxc_emu's SIMD kernels link libhwy (runtime dispatch)
include("${CMAKE_CURRENT_LIST_DIR}/mxconformTargets.cmake")
check_required_components(mxconform)
]=])
configure_package_config_file(
  ${CMAKE_CURRENT_BINARY_DIR}/mxconformConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mxconformConfig.cmake
  INSTALL_DESTINATION ${MXC_CMAKE_DIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/mxconformConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mxconformConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/mxconformConfigVersion.cmake
        DESTINATION ${MXC_CMAKE_DIR} COMPONENT dev)
