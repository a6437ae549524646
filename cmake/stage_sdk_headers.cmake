# Run as `cmake -DINCLUDE_DIR=include -DSRC_DIR=src -DOUTPUT_DIR=dir -P
# stage_sdk_headers.cmake`: writes the SDK's installable headers to
# OUTPUT_DIR/redrive/: every include/redrive/*.h, and each src/core header
# they reach (directly or not) as redrive/core/<name>.h, with its includes of
# "core/x.h" written "redrive/core/x.h". A public header may include the
# standard library and third parties (<...>), redrive/ and core/; anything
# else of ours (wire/, sdk/, ...) would not be installed, so it is an error.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${OUTPUT_DIR}/redrive")
file(GLOB pending RELATIVE "${INCLUDE_DIR}" "${INCLUDE_DIR}/redrive/*.h")
set(done "")
while(pending)
  list(POP_FRONT pending header)  # "redrive/x.h" or "core/x.h"
  if(header IN_LIST done)
    continue()
  endif()
  list(APPEND done "${header}")
  if(header MATCHES "^core/")
    set(source "${SRC_DIR}/${header}")
    set(target "${OUTPUT_DIR}/redrive/${header}")
  else()
    set(source "${INCLUDE_DIR}/${header}")
    set(target "${OUTPUT_DIR}/${header}")
  endif()
  if(NOT EXISTS "${source}")
    message(FATAL_ERROR "SDK header ${header}: ${source} does not exist")
  endif()
  file(READ "${source}" text)
  string(REGEX MATCHALL "#include \"[^\"]+\"" includes "${text}")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "#include \"([^\"]+)\"" "\\1" included "${line}")
    if(NOT included MATCHES "^(redrive|core)/")
      message(FATAL_ERROR "SDK header ${header} includes \"${included}\", which is not "
                          "installed: a public header may include only <...>, redrive/ and "
                          "core/ headers")
    endif()
    list(APPEND pending "${included}")
  endforeach()
  string(REPLACE "#include \"core/" "#include \"redrive/core/" text "${text}")
  file(WRITE "${target}" "${text}")
endwhile()
