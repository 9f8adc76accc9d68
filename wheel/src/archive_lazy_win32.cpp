// Windows links libarchive when envfix is built (archive_lazy_posix.cpp loads it on first use
// elsewhere).
#include "envfix/wheel/zip.hpp"

const std::string* envfix::wheel::archive_load_error() { return nullptr; }
