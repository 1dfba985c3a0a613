# AsmEvoTools.cmake - the one list of external programs the build, the tests
# and the helper scripts run.
#
#   asmevo_tool(<name> PACKAGE <debian-package> [NAMES <file>...])
#
# finds <name> once (find_program(... REQUIRED), the LLVM 22 tool directory
# first, then the system's /usr/bin and /bin, never a directory that happens
# to be first on PATH such as a pyenv shim) and records it. At the end of
# configuration every tool is written to ${CMAKE_BINARY_DIR}/asmevo-tools.json
# as {"<name>": {"path": ..., "package": ...}}: test/lit.cfg.py hands the tests
# exactly these programs (substitutions, and a PATH holding only them), the
# helper scripts read them from there, and utils/check-test-programs.py checks
# that each one's package is one utils/install-deps.sh installs.
#
# A package named here must be in utils/install-deps.sh's list or pulled in
# by it; the check fails otherwise.

include_guard(GLOBAL)
set_property(GLOBAL PROPERTY ASMEVO_TOOLS "")

function(asmevo_tool name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "PACKAGE" "NAMES")
  if(NOT ARG_PACKAGE)
    message(FATAL_ERROR "asmevo_tool(${name}): PACKAGE is required")
  endif()
  if(NOT ARG_NAMES)
    set(ARG_NAMES ${name})
  endif()
  string(MAKE_C_IDENTIFIER "ASMEVO_TOOL_${name}" var)
  string(TOUPPER "${var}" var)
  # First without REQUIRED, so that a missing program names its package
  # (CMake's own REQUIRED message names only the variable).
  find_program(${var} NAMES ${ARG_NAMES}
    HINTS ${LLVM_TOOLS_BINARY_DIR} PATHS /usr/bin /bin NO_DEFAULT_PATH
    DOC "${name} (Debian package ${ARG_PACKAGE})")
  if(NOT ${var})
    message(FATAL_ERROR "${name} not found (in ${LLVM_TOOLS_BINARY_DIR}, "
      "/usr/bin, /bin): install the Debian package ${ARG_PACKAGE} "
      "(utils/install-deps.sh installs every package AsmEvo needs)")
  endif()
  find_program(${var} NAMES ${ARG_NAMES}
    HINTS ${LLVM_TOOLS_BINARY_DIR} PATHS /usr/bin /bin NO_DEFAULT_PATH REQUIRED)
  set_property(GLOBAL APPEND PROPERTY ASMEVO_TOOLS "${name}")
  set_property(GLOBAL PROPERTY ASMEVO_TOOL_PATH_${name} "${${var}}")
  set_property(GLOBAL PROPERTY ASMEVO_TOOL_PACKAGE_${name} "${ARG_PACKAGE}")
  set(${var} "${${var}}" PARENT_SCOPE)
endfunction()

function(_asmevo_write_tools)
  get_property(names GLOBAL PROPERTY ASMEVO_TOOLS)
  set(json "{")
  set(sep "")
  foreach(n IN LISTS names)
    get_property(p GLOBAL PROPERTY ASMEVO_TOOL_PATH_${n})
    get_property(k GLOBAL PROPERTY ASMEVO_TOOL_PACKAGE_${n})
    string(APPEND json "${sep}\n  \"${n}\": {\"path\": \"${p}\", \"package\": \"${k}\"}")
    set(sep ",")
  endforeach()
  string(APPEND json "\n}\n")
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/asmevo-tools.json" CONTENT "${json}")
endfunction()
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _asmevo_write_tools)

# The programs themselves. Names are the ones the tests type.
asmevo_tool(clang-22 PACKAGE clang-22)
asmevo_tool(clang-offload-bundler PACKAGE clang-tools-22)
# Debian 12's HIP 5.2 compiler driver: test/PostLink builds real HIP
# executables and shared libraries with it (gfx90a only: it refuses gfx942).
asmevo_tool(hipcc PACKAGE hipcc)
# LLVM 15's bundler reads the old bundle ids (hipv4-...-gfx90a without the
# empty environment) that clang-offload-bundler-22 refuses.
asmevo_tool(clang-offload-bundler-15 PACKAGE clang-tools-15)
# test/Install configures and builds a small project that uses the
# installed CMake package.
asmevo_tool(cmake PACKAGE cmake)
asmevo_tool(ninja PACKAGE ninja-build)
asmevo_tool(ld.lld PACKAGE lld-22)
asmevo_tool(FileCheck PACKAGE llvm-22-tools)
asmevo_tool(count PACKAGE llvm-22-tools)
asmevo_tool(lit PACKAGE llvm-22-tools NAMES lit lit-22)
asmevo_tool(llvm-mc PACKAGE llvm-22)
asmevo_tool(llvm-objcopy PACKAGE llvm-22)
asmevo_tool(llvm-objdump PACKAGE llvm-22)
asmevo_tool(llvm-readelf PACKAGE llvm-22)
asmevo_tool(llvm-nm PACKAGE llvm-22)
# The second opinion on block throughput (test/Timing/llvm-mca.test).
asmevo_tool(llvm-mca PACKAGE llvm-22)
# The differential cases (utils/differential) fold constants with opt.
asmevo_tool(opt PACKAGE llvm-22)
# Debian's interpreter, not whichever python3 is first on PATH.
asmevo_tool(python3 PACKAGE python3)
asmevo_tool(sh PACKAGE dash)
# The official MCP clients (test/Agent) run on Node.js.
asmevo_tool(node PACKAGE nodejs)
asmevo_tool(sed PACKAGE sed)
asmevo_tool(grep PACKAGE grep)
asmevo_tool(cmp PACKAGE diffutils)
asmevo_tool(taskset PACKAGE util-linux)
# echo too: lit runs its builtin echo only outside a pipeline.
# uname: hipcc.pl asks it for the host architecture.
foreach(t chmod cp echo ls od printf sort tee test touch uname wc)
  asmevo_tool(${t} PACKAGE coreutils)
endforeach()
