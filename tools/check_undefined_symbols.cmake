# Fails the build when the extension references a torchlite symbol that nothing defines. The
# usual cause is a call to an operator's Tensor method from a file that lacks its header
# (generated/ops/<name>.h): the compiler emits an external call, the shared module links
# anyway, and the error would only appear at import.
#   cmake -DMODULE=path/to/_C.so -P tools/check_undefined_symbols.cmake
execute_process(COMMAND nm -D --undefined-only -C ${MODULE} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${MODULE}")
endif()
string(REGEX MATCHALL "[^\n]*tl::[^\n]*" missing "${undefined}")
if(missing)
  list(JOIN missing "\n" lines)
  message(FATAL_ERROR "${MODULE} references undefined torchlite symbols (include the operator's "
                      "generated/ops/<name>.h where it is called):\n${lines}")
endif()
