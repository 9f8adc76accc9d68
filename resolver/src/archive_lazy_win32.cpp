// Windows links libarchive when envfix is built (archive_lazy_posix.cpp loads it on first use
// elsewhere).
#include "envfix/resolver/zip.hpp"

const std::string* envfix::resolver::archive_load_error() { return nullptr; }
