# Cross-compiling for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix: the
# POSIX thread model, which std::thread and std::mutex need). scripts/build-windows passes the
# prefix its dependencies were built into as ENVFIX_WINDOWS_PREFIX (docs/windows.md).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(_triple x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_triple}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_triple}-g++-posix)
set(CMAKE_RC_COMPILER ${_triple}-windres)
set(CMAKE_AR ${_triple}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${_triple}-ranlib CACHE FILEPATH "")

# Libraries and headers only from the MinGW sysroot and the dependency prefix, never the Linux
# ones; programs (cmake's helpers, the host tools) from the build machine.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/${_triple})
if(ENVFIX_WINDOWS_PREFIX)
  list(APPEND CMAKE_FIND_ROOT_PATH ${ENVFIX_WINDOWS_PREFIX})
  list(APPEND CMAKE_PREFIX_PATH ${ENVFIX_WINDOWS_PREFIX})
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ENVFIX_WINDOWS_PREFIX)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Static archives only: the one envfix.exe carries everything but Windows' own DLLs.
set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
