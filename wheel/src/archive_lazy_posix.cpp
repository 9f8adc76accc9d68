// The libarchive entry points envfix calls (the planner's METADATA out of part of a wheel, the
// reader of odd zips, zip_read.cpp), defined here: each loads libarchive.so.13 on first use and
// calls it (system_library_posix.hpp says why). Where it cannot be loaded, each fails as on a
// damaged archive, and archive_error_string says which library is missing and why, so the
// caller's one-line error names it.
#ifndef ENVFIX_LINKED_CURL_ARCHIVE  // else linked when envfix is built (systems other than Linux)
#include <archive.h>
#include <archive_entry.h>

#include "envfix/common/env.hpp"
#include "envfix/common/system_library_posix.hpp"
#include "envfix/wheel/zip.hpp"

namespace {

using envfix::platform::SystemLibrary;

// libarchive.so.13, or the one ENVFIX_LIBARCHIVE names (only that one is tried: a name that does
// not load stands for a system without libarchive).
SystemLibrary load_archive() {
    std::string name = "libarchive.so.13";
    if (auto named = envfix::env::get(envfix::EnvVar::EnvfixLibarchive); named && !named->empty()) name = *named;
    return SystemLibrary({name}, {"archive_read_new", "archive_read_free", "archive_read_support_format_zip_seekable",
                                  "archive_read_support_format_zip_streamable", "archive_read_open_memory", "archive_read_next_header",
                                  "archive_read_data", "archive_error_string", "archive_entry_pathname"});
}

const SystemLibrary& archive_library() {
    static const SystemLibrary lib = load_archive();
    return lib;
}

template <class Fn>
Fn archive_symbol(const char* name) {
    return archive_library().symbol<Fn>(name);
}

}  // namespace

extern "C" {

archive* archive_read_new(void) {
    static const auto fn = archive_symbol<archive* (*)()>("archive_read_new");
    return fn ? fn() : nullptr;
}

int archive_read_free(archive* a) {
    static const auto fn = archive_symbol<int (*)(archive*)>("archive_read_free");
    return fn && a ? fn(a) : ARCHIVE_OK;
}

int archive_read_support_format_zip_seekable(archive* a) {
    static const auto fn = archive_symbol<int (*)(archive*)>("archive_read_support_format_zip_seekable");
    return fn && a ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_support_format_zip_streamable(archive* a) {
    static const auto fn = archive_symbol<int (*)(archive*)>("archive_read_support_format_zip_streamable");
    return fn && a ? fn(a) : ARCHIVE_FATAL;
}

int archive_read_open_memory(archive* a, const void* bytes, size_t size) {
    static const auto fn = archive_symbol<int (*)(archive*, const void*, size_t)>("archive_read_open_memory");
    return fn && a ? fn(a, bytes, size) : ARCHIVE_FATAL;
}

int archive_read_next_header(archive* a, archive_entry** entry) {
    static const auto fn = archive_symbol<int (*)(archive*, archive_entry**)>("archive_read_next_header");
    return fn && a ? fn(a, entry) : ARCHIVE_FATAL;
}

la_ssize_t archive_read_data(archive* a, void* into, size_t size) {
    static const auto fn = archive_symbol<la_ssize_t (*)(archive*, void*, size_t)>("archive_read_data");
    return fn && a ? fn(a, into, size) : ARCHIVE_FATAL;
}

const char* archive_error_string(archive* a) {
    static const auto fn = archive_symbol<const char* (*)(archive*)>("archive_error_string");
    if (fn && a) return fn(a);
    return archive_library().handle ? "out of memory" : archive_library().error.c_str();
}

const char* archive_entry_pathname(archive_entry* e) {
    static const auto fn = archive_symbol<const char* (*)(archive_entry*)>("archive_entry_pathname");
    return fn && e ? fn(e) : nullptr;
}

}  // extern "C"

const std::string* envfix::wheel::archive_load_error() { return archive_library().handle ? nullptr : &archive_library().error; }

#else
#include "envfix/wheel/zip.hpp"

const std::string* envfix::wheel::archive_load_error() { return nullptr; }
#endif
