# AsmEvoConfig.cmake - find_package(AsmEvo) against an install prefix.
#
# Provides the imported executables AsmEvo::asmevo-opt, AsmEvo::asmevo-link
# and AsmEvo::asmevo-verify, and
#
#   asmevo_optimize_target(<target> SPECS <dir|manifest> [OPTIONS <arg>...])
#
# the post-link step in a build: <target> (a HIP executable or shared
# library) is built into an "asmevo-unoptimized" directory beside where it
# would have gone, and a custom command runs
#   asmevo-link --optimize <unoptimized> -o <its usual place> --specs ...
# depending on the unoptimized binary, the manifest and every *.yaml next to
# it (or in the spec directory), so that editing a spec re-optimizes and a
# build with nothing changed does nothing. OPTIONS go to asmevo-link as
# they are (-O1, --trust-static, --jobs 2, --report=r.json, ...).
include_guard(GLOBAL)
get_filename_component(_asmevo_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
foreach(_asmevo_tool asmevo-opt asmevo-link asmevo-verify)
  if(NOT TARGET AsmEvo::${_asmevo_tool})
    add_executable(AsmEvo::${_asmevo_tool} IMPORTED)
    set_target_properties(AsmEvo::${_asmevo_tool} PROPERTIES
      IMPORTED_LOCATION "${_asmevo_prefix}/bin/${_asmevo_tool}")
  endif()
endforeach()
set(AsmEvo_FOUND TRUE)

function(asmevo_optimize_target target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SPECS" "OPTIONS")
  if(NOT TARGET ${target})
    message(FATAL_ERROR "asmevo_optimize_target: '${target}' is not a target")
  endif()
  if(NOT ARG_SPECS)
    message(FATAL_ERROR "asmevo_optimize_target(${target}): SPECS is required")
  endif()
  get_filename_component(specs "${ARG_SPECS}" ABSOLUTE)
  if(IS_DIRECTORY "${specs}")
    set(spec_dir "${specs}")
    set(spec_deps)
  else()
    get_filename_component(spec_dir "${specs}" DIRECTORY)
    set(spec_deps "${specs}")
  endif()
  # The launch specs a manifest names live next to it (or below); CMake
  # cannot read the manifest, so it depends on all of them. Globbed when
  # the project is configured (CONFIGURE_DEPENDS would re-check the
  # directory on every build): a new spec file needs a re-configure.
  file(GLOB_RECURSE yaml "${spec_dir}/*.yaml" "${spec_dir}/*.yml")
  list(APPEND spec_deps ${yaml})

  get_target_property(type ${target} TYPE)
  if(type STREQUAL "EXECUTABLE")
    set(dir_property RUNTIME_OUTPUT_DIRECTORY)
  elseif(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    set(dir_property LIBRARY_OUTPUT_DIRECTORY)
  else()
    message(FATAL_ERROR "asmevo_optimize_target(${target}): an executable or "
      "shared library is needed, not a ${type}")
  endif()
  get_target_property(out_dir ${target} ${dir_property})
  if(NOT out_dir)
    set(out_dir "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  set_target_properties(${target} PROPERTIES
    ${dir_property} "${out_dir}/asmevo-unoptimized")
  # OUTPUT may not name a target-dependent file: the name as CMake forms it
  # for a target without VERSION/SOVERSION.
  get_target_property(name ${target} OUTPUT_NAME)
  if(NOT name)
    set(name ${target})
  endif()
  if(type STREQUAL "EXECUTABLE")
    set(file_name "${name}${CMAKE_EXECUTABLE_SUFFIX}")
  else()
    set(file_name "${CMAKE_SHARED_LIBRARY_PREFIX}${name}${CMAKE_SHARED_LIBRARY_SUFFIX}")
  endif()
  set(optimized "${out_dir}/${file_name}")
  add_custom_command(
    OUTPUT "${optimized}"
    COMMAND AsmEvo::asmevo-link --optimize "$<TARGET_FILE:${target}>"
            -o "${optimized}" --specs "${specs}" ${ARG_OPTIONS}
    DEPENDS ${target} "$<TARGET_FILE:${target}>" ${spec_deps}
    COMMENT "AsmEvo: optimizing ${target}"
    VERBATIM)
  add_custom_target(${target}-asmevo ALL DEPENDS "${optimized}")
endfunction()
