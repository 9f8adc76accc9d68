# Debian 12 packages only (docs/dependencies.md says why each one is here).
if(WIN32)
  # The Windows cross-build (scripts/build-windows, docs/windows.md): static libraries built from
  # Debian's source packages into ENVFIX_WINDOWS_PREFIX; SHA-256 and RECORD's digests through
  # Windows CNG (bcrypt), so no OpenSSL; the header-only libraries copied from Debian's packages.
  add_compile_definitions(_WIN32_WINNT=0x0A00 WINVER=0x0A00)  # Windows 10 and later
  add_link_options(-static)  # libstdc++, libgcc and winpthread inside envfix.exe, no DLLs beside it
  find_package(CURL CONFIG REQUIRED)  # curl's own CMake package: its static target knows its libraries
  find_package(yaml-cpp REQUIRED)
  find_package(Threads REQUIRED)
  find_path(ENVFIX_WIN_INCLUDE nlohmann/json.hpp REQUIRED)
  find_library(LIBARCHIVE_STATIC archive REQUIRED)
  find_library(BZ2_STATIC bz2 REQUIRED)
  find_library(LZMA_STATIC lzma REQUIRED)
  find_library(ZSTD_STATIC zstd REQUIRED)
  find_library(ZLIB_STATIC z REQUIRED)
  add_library(LibArchive::LibArchive INTERFACE IMPORTED)
  set_target_properties(LibArchive::LibArchive PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ENVFIX_WIN_INCLUDE}
    INTERFACE_COMPILE_DEFINITIONS LIBARCHIVE_STATIC
    INTERFACE_LINK_LIBRARIES "${LIBARCHIVE_STATIC};${BZ2_STATIC};${LZMA_STATIC};${ZSTD_STATIC};${ZLIB_STATIC}")
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ENVFIX_WIN_INCLUDE})
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ENVFIX_WIN_INCLUDE})
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ENVFIX_WIN_INCLUDE}
    INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY)
  return()
endif()
find_package(CURL REQUIRED)
find_package(LibArchive REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(fmt REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(Threads REQUIRED)
if(ENVFIX_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
