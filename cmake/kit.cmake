# The device kit (issue 26; gpu_check/make-device-kit): with MXC_KIT_DEPS
# set, the imported shared libraries that a kit binary must not need at run
# time are pointed at static archives built from the same Debian source
# packages (scripts/fetch-debian-sources). Compile flags do not change, so a
# kit build reuses a ccache filled by the ordinary build.
set(MXC_KIT_DEPS "" CACHE PATH
    "Folder with lib/libhwy.a and lib/libfmt.a: link them statically (device kit)")

# mxc_kit_static(TARGET ARCHIVE): TARGET (an imported shared library) links
# MXC_KIT_DEPS/lib/ARCHIVE instead; nothing when MXC_KIT_DEPS is empty.
function(mxc_kit_static tgt archive)
  if(NOT MXC_KIT_DEPS)
    return()
  endif()
  set(a "${MXC_KIT_DEPS}/lib/${archive}")
  if(NOT EXISTS "${a}")
    message(FATAL_ERROR "MXC_KIT_DEPS=${MXC_KIT_DEPS}: ${a} is missing "
            "(gpu_check/make-device-kit builds it)")
  endif()
  get_target_property(_cfgs ${tgt} IMPORTED_CONFIGURATIONS)
  foreach(c IN LISTS _cfgs)
    set_target_properties(${tgt} PROPERTIES IMPORTED_LOCATION_${c} "${a}"
                          IMPORTED_SONAME_${c} "" IMPORTED_NO_SONAME_${c} TRUE)
  endforeach()
  set_target_properties(${tgt} PROPERTIES IMPORTED_LOCATION "${a}")
  message(STATUS "device kit: ${tgt} linked statically from ${a}")
endfunction()
