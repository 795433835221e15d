# Writes build_info.h (from build_info.h.in) with the commit the sources are at, on every
# build, so that a results file names the commit its binary was built from. configure_file
# leaves the header untouched (no rebuild) when nothing changed.
# In: SOURCE_DIR, TEMPLATE, OUTPUT, CMAKE_BUILD_TYPE, PROJECT_VERSION.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE UOPFUZZ_BUILD_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR UOPFUZZ_BUILD_COMMIT STREQUAL "")
  set(UOPFUZZ_BUILD_COMMIT unknown)
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    string(APPEND UOPFUZZ_BUILD_COMMIT "-dirty")
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
