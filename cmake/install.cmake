# `make install` and `make package` (included by CMakeLists.txt when
# REDRIVE_INSTALL is on). Two install components, which are also the two
# Debian packages CPack builds:
#   server  (redrive)        bin/redrive, its man page (generated from its
#                            --help, cmake/manpage.cmake), README and docs/
#   sdk     (libredrive-dev) the C++ SDK: include/redrive/, the static
#                            libraries, and lib/cmake/Redrive for
#                            find_package(Redrive) -> redrive::client
# `cmake --install build --component sdk --prefix DIR` installs one alone.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# ---- The SDK ----------------------------------------------------------------

# The headers are the staged ones of cmake/sdk_headers.cmake.
target_include_directories(redrive_sdk PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# Exported as redrive::client; core and wire come along as its link
# dependencies (static libraries), not as an API of their own.
set_target_properties(redrive_sdk PROPERTIES EXPORT_NAME client)
set_target_properties(redrive_wire PROPERTIES EXPORT_NAME wire)
set_target_properties(redrive_core PROPERTIES EXPORT_NAME core)
install(TARGETS redrive_sdk redrive_wire redrive_core
        EXPORT RedriveTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk)
install(DIRECTORY ${REDRIVE_SDK_STAGE_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT sdk)
# A stripped install (`cmake --install --strip`, `make install`, the Debian
# package) drops the libraries' debug info too, which CMake leaves in static
# libraries (the three shrink from 44 MB to 1.7 MB).
foreach(lib redrive_sdk redrive_wire redrive_core)
  install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:${lib}>\"
    COMMAND_ERROR_IS_FATAL ANY)
endif()" COMPONENT sdk)
endforeach()

set(cmake_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Redrive)
install(EXPORT RedriveTargets NAMESPACE redrive:: DESTINATION ${cmake_package_dir}
        COMPONENT sdk)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/RedriveConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/RedriveConfig.cmake
                              INSTALL_DESTINATION ${cmake_package_dir})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RedriveConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RedriveConfig.cmake
              ${PROJECT_BINARY_DIR}/RedriveConfigVersion.cmake
        DESTINATION ${cmake_package_dir} COMPONENT sdk)

# What `make install` and `make package` build: the installed targets only,
# not the tests.
add_custom_target(redrive_dist)
add_dependencies(redrive_dist redrive_sdk redrive_sdk_headers)

# ---- The server ---------------------------------------------------------------

if(TARGET redrive)
  install(TARGETS redrive RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT server)

  # The man page is generated from the binary's own --help (every command's),
  # so it cannot drift from the flags.
  # Installed gzipped (-n: no name or time, so the bytes depend only on the text).
  set(manpage ${PROJECT_BINARY_DIR}/redrive.1)
  add_custom_command(
    OUTPUT ${manpage}.gz
    COMMAND ${CMAKE_COMMAND} -DREDRIVE=$<TARGET_FILE:redrive> -DOUTPUT=${manpage}
            -DVERSION=${PROJECT_VERSION} -P ${PROJECT_SOURCE_DIR}/cmake/manpage.cmake
    COMMAND gzip -9nf ${manpage}
    DEPENDS redrive ${PROJECT_SOURCE_DIR}/cmake/manpage.cmake
    COMMENT "Generating the redrive(1) man page"
    VERBATIM)
  add_custom_target(redrive_manpage ALL DEPENDS ${manpage}.gz)
  install(FILES ${manpage}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT server)
  install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
          COMPONENT server)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
          COMPONENT server)
  add_dependencies(redrive_dist redrive redrive_manpage)
endif()

# ---- The Debian packages (`make package`: cpack -G DEB) ---------------------

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME redrive)
set(CPACK_PACKAGE_VENDOR "Redrive")
set(CPACK_PACKAGE_CONTACT "Redrive developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The binary is built with debug info (RelWithDebInfo); the package is not.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL sdk)
if(TARGET redrive)
  list(APPEND CPACK_COMPONENTS_ALL server)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
set(CPACK_DEBIAN_SERVER_PACKAGE_NAME redrive)
set(CPACK_DEBIAN_SERVER_PACKAGE_SECTION net)
# Each description: the summary line, then the long description.
set(CPACK_DEBIAN_SERVER_DESCRIPTION
    "Durable job-queue server with a Spooled-compatible REST API\nThe redrive binary: the server (SQLite or PostgreSQL store, web console) and its command-line client.")
# The server's Depends come from its binary's shared libraries (dpkg-shlibdeps).
set(CPACK_DEBIAN_SERVER_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_SDK_PACKAGE_NAME libredrive-dev)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_SDK_DESCRIPTION
    "C++ client SDK for the Redrive job queue\nHeaders, static libraries and the CMake package (find_package(Redrive), target redrive::client).")
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "libboost-json${Boost_VERSION_MAJOR}.${Boost_VERSION_MINOR}-dev")
include(CPack)
