# gjk_library_properties(target): the settings every installed libgjk library shares.
# - VERSION/SOVERSION: the SONAME carries the major version (libgjk.so.0), the file the full one.
# - Shared builds export symbols through a GNU ld version script (cmake/gjk.map): namespace gjk
#   only. No export macros in the headers: the script is the single place that decides.
function(gjk_library_properties target)
  set_target_properties(${target} PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
  # GJK_BUILD_FUZZ in the sanitizer build (see CMakeLists.txt): the libraries the fuzz targets
  # link get the fuzzer's coverage; the planner and the analysis, which no target reaches, stay
  # uninstrumented, as their tests are the slowest under the sanitizers.
  if(target IN_LIST GJK_FUZZED_LIBRARIES)
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "SHARED_LIBRARY" AND NOT APPLE AND NOT WIN32)
    set(map "${PROJECT_SOURCE_DIR}/cmake/gjk.map")
    target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:--no-undefined")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
  endif()
  install(TARGETS ${target} EXPORT libgjkTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
