# ppcg_py_add_sources(<target> <file.c>... [TARGET_KIND cuda|c] [OPTIONS <ppcg-py option>...])
#
# Compiles each C file with ppcg-py at build time and adds the generated sources to
# <target>: NAME_host.cu and NAME_kernel.cu for TARGET_KIND cuda (the default; the
# project must enable the CUDA language), NAME.ppcg.c for TARGET_KIND c (ppcg-py
# --target=c; pass OPTIONS --openmp and link OpenMP yourself). The outputs go to <binary dir>/<target>.ppcg/.
# ppcg-py gets the target's include directories and compile definitions as -I and -D,
# and writes a Make dependency file (-MD -MF) that CMake reads (DEPFILE, CMake >= 3.20
# with the Makefile and Ninja generators): editing a header the C file includes reruns
# ppcg-py. An input with variable-length array parameters gets NAME_host.c instead of
# NAME_host.cu, which this function does not predict.
#
# PPCG_PY_COMMAND (a cache variable, a list) is the command: ppcg-py from the PATH by
# default, e.g. -DPPCG_PY_COMMAND="/path/to/python;-m;ppcg_py" for a checkout.
cmake_minimum_required(VERSION 3.20)

if(NOT PPCG_PY_COMMAND)
  find_program(PPCG_PY_EXECUTABLE ppcg-py REQUIRED)
  set(PPCG_PY_COMMAND "${PPCG_PY_EXECUTABLE}" CACHE STRING "the ppcg-py command (a list)")
endif()

function(ppcg_py_add_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "TARGET_KIND" "OPTIONS")
  if(NOT ARG_TARGET_KIND)
    set(ARG_TARGET_KIND cuda)
  endif()
  if(NOT ARG_TARGET_KIND MATCHES "^(cuda|c)$")
    message(FATAL_ERROR "ppcg_py_add_sources: TARGET_KIND must be cuda or c, not '${ARG_TARGET_KIND}'")
  endif()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}.ppcg")
  file(MAKE_DIRECTORY "${out_dir}")
  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(source IN LISTS ARG_UNPARSED_ARGUMENTS)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(name "${source}" NAME_WE)
    if(ARG_TARGET_KIND STREQUAL "cuda")
      set(outputs "${out_dir}/${name}_host.cu" "${out_dir}/${name}_kernel.cu" "${out_dir}/${name}_kernel.hu")
      set(compiled "${out_dir}/${name}_host.cu" "${out_dir}/${name}_kernel.cu")
    else()
      set(outputs "${out_dir}/${name}.ppcg.c")
      set(compiled ${outputs})
    endif()
    set(depfile "${out_dir}/${name}.ppcg.d")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${PPCG_PY_COMMAND} --target=${ARG_TARGET_KIND}
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
              ${ARG_OPTIONS} -MD -MF "${depfile}" --output-dir "${out_dir}" "${source}"
      DEPENDS "${source}"
      DEPFILE "${depfile}"
      COMMENT "ppcg-py ${name}.c (${ARG_TARGET_KIND})"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    target_sources(${target} PRIVATE ${compiled})
    # the generated host file keeps the C file's #include "..." lines
    get_filename_component(source_dir "${source}" DIRECTORY)
    target_include_directories(${target} PRIVATE "${source_dir}")
  endforeach()
endfunction()
