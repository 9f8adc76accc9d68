// Windows links libarchive when envfix is built (archive_lazy_posix.cpp loads it on first use
// elsewhere).
