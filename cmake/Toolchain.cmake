# Compiler settings shared by every target.
find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  set(CMAKE_C_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()

add_library(envfix_warnings INTERFACE)
if(MSVC)
  target_compile_options(envfix_warnings INTERFACE /W4 /utf-8)
else()
  target_compile_options(envfix_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
endif()

# Line tables only (-g1) in the default build: backtraces and perf keep file:line, and the
# build with its ~40 test programs (each linking the libraries) stays near 1 GB instead of the
# 3.7 GB full -g made, which once filled the CI machine's disk mid-link.
if(NOT MSVC)
  set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG")
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG")
endif()

if(ENVFIX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# Platform files: foo_posix.cpp or foo_win32.cpp, picked here so no source needs #ifdef _WIN32.
function(envfix_platform_sources target)
  foreach(stem IN LISTS ARGN)
    if(WIN32)
      target_sources(${target} PRIVATE ${stem}_win32.cpp)
    else()
      target_sources(${target} PRIVATE ${stem}_posix.cpp)
    endif()
  endforeach()
endfunction()

# A library folder: include/ is public, src/*.cpp are its sources (platform files excluded:
# envfix_platform_sources adds the right one).
function(envfix_library name)
  file(GLOB _srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
  list(FILTER _srcs EXCLUDE REGEX "_(posix|win32)\\.cpp$")
  if(NOT _srcs)
    # A layer with no code yet still links, so the layering is fixed from the start.
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/${name}_empty.cpp "// ${name}: no sources yet\n")
    set(_srcs ${CMAKE_CURRENT_BINARY_DIR}/${name}_empty.cpp)
  endif()
  add_library(${name} STATIC ${_srcs})
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include
                                      PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  target_link_libraries(${name} PRIVATE envfix_warnings)
endfunction()

# libFuzzer builds (tests/fuzz): the libraries carry the fuzzer's coverage instrumentation and the
# sanitizers; the fuzz targets link the fuzzer runtime themselves. UB stops the run like a crash.
if(ENVFIX_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# libcurl and libarchive: on Linux loaded on first use by src/*_lazy_posix.cpp, which define the
# entry points envfix calls (envfix/common/system_library_posix.hpp; docs/dependencies.md), so
# only their headers are needed; linked elsewhere. `scope` is how far the headers reach.
function(envfix_lazy_library target scope imported)
  if(NOT CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_libraries(${target} ${scope} ${imported})
    target_compile_definitions(${target} PRIVATE ENVFIX_LINKED_CURL_ARCHIVE)
  else()
    target_include_directories(${target} ${scope} $<TARGET_PROPERTY:${imported},INTERFACE_INCLUDE_DIRECTORIES>)
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  endif()
endfunction()

# Profile data reaches the binary as a snapshot the build compiles with envfix's own loader (a
# schema error fails the build; docs/matrix.md): `tool` (built from profiles/tools/<tool>.cpp,
# linked to `library` alone) writes <snapshot>.cpp from profiles/, and `library`'s interface
# links the snapshot library, for every target but such a tool.
# A cross-build cannot run what it compiles: it runs the same tool of a build for the build
# machine (ENVFIX_NATIVE_BUILD, the folder of that build: scripts/build-windows), whose output is
# the same C++ source.
set(ENVFIX_NATIVE_BUILD "" CACHE PATH "a build of envfix for the build machine, whose profile tools a cross-build runs")
function(envfix_profile_snapshot library tool snapshot)
  cmake_parse_arguments(P "" "COMMENT" "DATA" ${ARGN})
  if(CMAKE_CROSSCOMPILING)
    if(NOT ENVFIX_NATIVE_BUILD)
      message(FATAL_ERROR "a cross-build needs -DENVFIX_NATIVE_BUILD=<a build of envfix for this machine>")
    endif()
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
    set(_tool ${ENVFIX_NATIVE_BUILD}/${_rel}/envfix_${tool})
  else()
    add_executable(envfix_${tool} ${PROJECT_SOURCE_DIR}/profiles/tools/${tool}.cpp)
    target_link_libraries(envfix_${tool} PRIVATE ${library} envfix_warnings)
    set_target_properties(envfix_${tool} PROPERTIES ENVFIX_NO_PROFILE_SNAPSHOT ON)
    set(_tool envfix_${tool})
  endif()
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${snapshot}.cpp)
  add_custom_command(OUTPUT ${_out}
                     COMMAND ${_tool} ${PROJECT_SOURCE_DIR}/profiles ${_out}
                     DEPENDS ${_tool} ${P_DATA}
                     COMMENT "${P_COMMENT}" VERBATIM)
  add_library(envfix_${snapshot} STATIC ${_out})
  target_link_libraries(${library} INTERFACE
                        $<$<NOT:$<BOOL:$<TARGET_PROPERTY:ENVFIX_NO_PROFILE_SNAPSHOT>>>:envfix_${snapshot}>)
endfunction()
