# AsmEvoKernels.cmake - build-time compilation of the HIP test kernels.
#
#   asmevo_add_hip_kernel(<name> <source.hip>
#                         [ARCHS <gfx...>...]     # default: gfx942 gfx90a gfx950
#                         [FLAGS <clang flag>...])
#
# compiles <source.hip> once per architecture with ${CLANG_HIP} (found by the
# top-level CMakeLists.txt) into a device-only, unbundled code object
#
#   ${CMAKE_BINARY_DIR}/test/kernels/<name>-<arch>.co
#
# Every code object is built by the `asmevo-test-kernels` target (part of
# ALL), through a per-kernel target `asmevo-kernel-<name>`. The paths of all
# code objects, one per line in registration order, are written at configure
# time to ${CMAKE_BINARY_DIR}/test/kernels/kernels.txt (path also in the
# global property ASMEVO_TEST_KERNEL_LIST); the same list is in the global
# property ASMEVO_TEST_KERNEL_OBJECTS.
#
# Reproducibility: clang names a `__hip_cuid_<hash>` symbol after a hash of
# the input path, output path and options by default, so the same kernel
# built into two build trees would differ. `-cuid=<name>` fixes the
# compilation-unit ID, which makes the bytes depend only on the source, the
# flags and the compiler.

include_guard(GLOBAL)

if(NOT CLANG_HIP)
  message(FATAL_ERROR "AsmEvoKernels: CLANG_HIP is not set; "
                      "find_program(CLANG_HIP clang-22 ...) must run first")
endif()

# Everything below is derived from CMAKE_BINARY_DIR and this file's location
# (not from variables of the including directory), so the helper works from
# any directory, even where the include_guard skipped the include.
function(_asmevo_kernel_paths)
  get_filename_component(inc "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../test/kernels"
                         ABSOLUTE)
  set(ASMEVO_HIP_INCLUDE_DIR "${inc}" PARENT_SCOPE)
  set(ASMEVO_HIP_HEADER "${inc}/asmevo_hip.h" PARENT_SCOPE)
  set(ASMEVO_TEST_KERNEL_DIR "${CMAKE_BINARY_DIR}/test/kernels" PARENT_SCOPE)
  set(ASMEVO_TEST_KERNEL_LIST "${CMAKE_BINARY_DIR}/test/kernels/kernels.txt"
      PARENT_SCOPE)
endfunction()

_asmevo_kernel_paths()
file(MAKE_DIRECTORY "${ASMEVO_TEST_KERNEL_DIR}")
set_property(GLOBAL PROPERTY ASMEVO_TEST_KERNEL_LIST "${ASMEVO_TEST_KERNEL_LIST}")
set_property(GLOBAL PROPERTY ASMEVO_TEST_KERNEL_OBJECTS "")

add_custom_target(asmevo-test-kernels ALL)

# Writes kernels.txt once, at the end of the top-level directory, so kernels
# registered from any directory are listed. file(CONFIGURE) leaves the file
# (and its timestamp) alone when the content did not change.
function(_asmevo_write_kernel_list)
  _asmevo_kernel_paths()
  get_property(objects GLOBAL PROPERTY ASMEVO_TEST_KERNEL_OBJECTS)
  set(content "")
  foreach(obj IN LISTS objects)
    string(APPEND content "${obj}\n")
  endforeach()
  file(CONFIGURE OUTPUT "${ASMEVO_TEST_KERNEL_LIST}" CONTENT "${content}"
       @ONLY)
endfunction()
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}"
               CALL _asmevo_write_kernel_list)

function(asmevo_add_hip_kernel name source)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "" "ARCHS;FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "asmevo_add_hip_kernel(${name}): unexpected "
                        "arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(TARGET asmevo-kernel-${name})
    message(FATAL_ERROR "asmevo_add_hip_kernel: kernel '${name}' is "
                        "already registered")
  endif()
  if(NOT ARG_ARCHS)
    set(ARG_ARCHS gfx942 gfx90a gfx950)
  endif()
  _asmevo_kernel_paths()
  get_filename_component(src "${source}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")

  set(outputs "")
  foreach(arch IN LISTS ARG_ARCHS)
    set(out "${ASMEVO_TEST_KERNEL_DIR}/${name}-${arch}.co")
    add_custom_command(
      OUTPUT "${out}"
      COMMAND "${CLANG_HIP}" -x hip "--offload-arch=${arch}"
              -nogpuinc -nogpulib --cuda-device-only --no-gpu-bundle-output
              -O3 "-I${ASMEVO_HIP_INCLUDE_DIR}" "-cuid=${name}"
              ${ARG_FLAGS} "${src}" -o "${out}"
      DEPENDS "${src}" "${ASMEVO_HIP_HEADER}" "${CLANG_HIP}"
      COMMENT "Compiling HIP test kernel ${name}-${arch}.co"
      VERBATIM)
    list(APPEND outputs "${out}")
  endforeach()

  add_custom_target(asmevo-kernel-${name} DEPENDS ${outputs}
                    SOURCES "${src}")
  add_dependencies(asmevo-test-kernels asmevo-kernel-${name})
  set_property(GLOBAL APPEND PROPERTY ASMEVO_TEST_KERNEL_OBJECTS ${outputs})
endfunction()
