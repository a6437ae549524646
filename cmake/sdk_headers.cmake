# The SDK's headers as another project sees them (included by CMakeLists.txt).
#
# The public headers reuse four headers of src/core (job, queue, status,
# clock), included as "core/x.h". A consumer must need nothing from src/, and
# its own "core/..." headers must not be mistaken for ours, so those four come
# with the SDK as redrive/core/: cmake/stage_sdk_headers.cmake copies
# include/redrive/ and the core headers it reaches into sdk-include/ of the
# build folder, with `#include "core/x.h"` written `#include
# "redrive/core/x.h"`, and fails the build if a public header reaches any other
# header of ours. Those staged headers are what `make install` installs, and
# what a project that add_subdirectory()s this tree compiles against.
#
# Our own targets (the CLI, tests, bench, examples) compile against
# include/ and src/ as they are, as they also include core/ directly: the
# same definitions reached through two copies would collide.
set(REDRIVE_SDK_STAGE_DIR ${PROJECT_BINARY_DIR}/sdk-include)
set(sdk_stage_stamp ${PROJECT_BINARY_DIR}/sdk-include.stamp)
file(GLOB sdk_header_inputs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/redrive/*.h
     ${PROJECT_SOURCE_DIR}/src/core/*.h)
add_custom_command(
  OUTPUT ${sdk_stage_stamp}
  COMMAND ${CMAKE_COMMAND} -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/include
          -DSRC_DIR=${PROJECT_SOURCE_DIR}/src -DOUTPUT_DIR=${REDRIVE_SDK_STAGE_DIR}
          -P ${PROJECT_SOURCE_DIR}/cmake/stage_sdk_headers.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${sdk_stage_stamp}
  DEPENDS ${sdk_header_inputs} ${PROJECT_SOURCE_DIR}/cmake/stage_sdk_headers.cmake
  COMMENT "Staging the SDK's public headers"
  VERBATIM)
add_custom_target(redrive_sdk_headers ALL DEPENDS ${sdk_stage_stamp})
add_dependencies(redrive_sdk redrive_sdk_headers)

if(PROJECT_IS_TOP_LEVEL)
  add_library(redrive::client ALIAS redrive_sdk)
else()
  # For the consumer: the staged headers, and redrive_sdk for linking only
  # (LINK_ONLY keeps its include path, src/ and include/, out of the
  # consumer's). Linking it also orders the consumer's build after the
  # staging.
  add_library(redrive_client INTERFACE)
  target_include_directories(redrive_client INTERFACE ${REDRIVE_SDK_STAGE_DIR})
  target_link_libraries(redrive_client INTERFACE $<LINK_ONLY:redrive_sdk> Boost::json
                        Threads::Threads)
  target_compile_features(redrive_client INTERFACE cxx_std_20)
  add_library(redrive::client ALIAS redrive_client)
endif()
