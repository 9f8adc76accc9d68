// On Linux, the libcurl entry points envfix calls, defined here: each loads libcurl.so.4 on first
// use and calls it (system_library_posix.hpp says why). Where it cannot be loaded, each fails as
// libcurl fails without a handle, and a transfer ends before it starts, in one line naming the
// library and why (curl_load_error).
#ifdef ENVFIX_LINKED_CURL_ARCHIVE
// Linked when envfix is built (systems other than Linux): always there.
#include "curl_session.hpp"

namespace envfix::network::detail {
const std::string* curl_load_error() { return nullptr; }
}  // namespace envfix::network::detail
#else
#include <curl/curl.h>

#include <cstdarg>

#include "curl_session.hpp"
#include "envfix/common/env.hpp"
#include "envfix/common/system_library_posix.hpp"

namespace {

using envfix::platform::SystemLibrary;

// Every entry point defined below (curl_multi_poll: libcurl 7.66 or later).
constexpr std::initializer_list<const char*> kEntryPoints = {
    "curl_global_init",    "curl_easy_init",     "curl_easy_cleanup",    "curl_easy_setopt",      "curl_easy_getinfo",
    "curl_easy_perform",   "curl_easy_strerror", "curl_getdate",         "curl_version_info",     "curl_slist_append",
    "curl_slist_free_all", "curl_multi_init",    "curl_multi_setopt",    "curl_multi_add_handle", "curl_multi_remove_handle",
    "curl_multi_perform",  "curl_multi_poll",    "curl_multi_info_read", "curl_multi_cleanup"};

// Debian's libcurl4 (OpenSSL), else the GnuTLS build desktops have for git (the same API);
// ENVFIX_LIBCURL names another, and only that one is tried.
SystemLibrary load_curl() {
    if (auto named = envfix::env::get(envfix::EnvVar::EnvfixLibcurl); named && !named->empty())
        return SystemLibrary({*named}, kEntryPoints);
    return SystemLibrary({"libcurl.so.4", "libcurl-gnutls.so.4"}, kEntryPoints);
}

const SystemLibrary& curl_library() {
    static const SystemLibrary lib = load_curl();
    return lib;
}

template <class Fn>
Fn curl_symbol(const char* name) {
    return curl_library().symbol<Fn>(name);
}

// setopt's one argument, read as the option's type says (curl.h's CURLOPTTYPE_ ranges, as curl
// itself reads it), and passed on.
template <class Result, class Handle, class Option>
Result forward_option(Result (*fn)(Handle, Option, ...), Handle h, Option option, va_list ap) {
    const long o = static_cast<long>(option);
    if (o < CURLOPTTYPE_OBJECTPOINT) return fn(h, option, va_arg(ap, long));
    if (o < CURLOPTTYPE_FUNCTIONPOINT) return fn(h, option, va_arg(ap, void*));
    if (o < CURLOPTTYPE_OFF_T) return fn(h, option, va_arg(ap, void (*)()));
    if (o < CURLOPTTYPE_BLOB) return fn(h, option, va_arg(ap, curl_off_t));
    return fn(h, option, va_arg(ap, void*));
}

}  // namespace

namespace envfix::network::detail {
const std::string* curl_load_error() { return curl_library().handle ? nullptr : &curl_library().error; }
}  // namespace envfix::network::detail

extern "C" {

CURLcode curl_global_init(long flags) {
    static const auto fn = curl_symbol<CURLcode (*)(long)>("curl_global_init");
    return fn ? fn(flags) : CURLE_FAILED_INIT;
}

CURL* curl_easy_init(void) {
    static const auto fn = curl_symbol<CURL* (*)()>("curl_easy_init");
    return fn ? fn() : nullptr;
}

void curl_easy_cleanup(CURL* h) {
    static const auto fn = curl_symbol<void (*)(CURL*)>("curl_easy_cleanup");
    if (fn) fn(h);
}

CURLcode curl_easy_setopt(CURL* h, CURLoption option, ...) {
    static const auto fn = curl_symbol<CURLcode (*)(CURL*, CURLoption, ...)>("curl_easy_setopt");
    if (!fn) return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, option);
    const CURLcode r = forward_option(fn, h, option, ap);
    va_end(ap);
    return r;
}

CURLcode curl_easy_getinfo(CURL* h, CURLINFO info, ...) {
    static const auto fn = curl_symbol<CURLcode (*)(CURL*, CURLINFO, ...)>("curl_easy_getinfo");
    if (!fn) return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    void* out = va_arg(ap, void*);  // always a pointer to where the answer goes
    va_end(ap);
    return fn(h, info, out);
}

CURLcode curl_easy_perform(CURL* h) {
    static const auto fn = curl_symbol<CURLcode (*)(CURL*)>("curl_easy_perform");
    return fn ? fn(h) : CURLE_FAILED_INIT;
}

const char* curl_easy_strerror(CURLcode code) {
    static const auto fn = curl_symbol<const char* (*)(CURLcode)>("curl_easy_strerror");
    return fn ? fn(code) : curl_library().error.c_str();
}

time_t curl_getdate(const char* text, const time_t* unused) {
    static const auto fn = curl_symbol<time_t (*)(const char*, const time_t*)>("curl_getdate");
    return fn ? fn(text, unused) : static_cast<time_t>(-1);
}

curl_version_info_data* curl_version_info(CURLversion version) {
    static const auto fn = curl_symbol<curl_version_info_data* (*)(CURLversion)>("curl_version_info");
    return fn ? fn(version) : nullptr;
}

curl_slist* curl_slist_append(curl_slist* list, const char* text) {
    static const auto fn = curl_symbol<curl_slist* (*)(curl_slist*, const char*)>("curl_slist_append");
    return fn ? fn(list, text) : nullptr;
}

void curl_slist_free_all(curl_slist* list) {
    static const auto fn = curl_symbol<void (*)(curl_slist*)>("curl_slist_free_all");
    if (fn) fn(list);
}

CURLM* curl_multi_init(void) {
    static const auto fn = curl_symbol<CURLM* (*)()>("curl_multi_init");
    return fn ? fn() : nullptr;
}

CURLMcode curl_multi_setopt(CURLM* m, CURLMoption option, ...) {
    static const auto fn = curl_symbol<CURLMcode (*)(CURLM*, CURLMoption, ...)>("curl_multi_setopt");
    if (!fn) return CURLM_BAD_HANDLE;
    va_list ap;
    va_start(ap, option);
    const CURLMcode r = forward_option(fn, m, option, ap);
    va_end(ap);
    return r;
}

CURLMcode curl_multi_add_handle(CURLM* m, CURL* h) {
    static const auto fn = curl_symbol<CURLMcode (*)(CURLM*, CURL*)>("curl_multi_add_handle");
    return fn ? fn(m, h) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_remove_handle(CURLM* m, CURL* h) {
    static const auto fn = curl_symbol<CURLMcode (*)(CURLM*, CURL*)>("curl_multi_remove_handle");
    return fn ? fn(m, h) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_perform(CURLM* m, int* running) {
    static const auto fn = curl_symbol<CURLMcode (*)(CURLM*, int*)>("curl_multi_perform");
    return fn ? fn(m, running) : CURLM_BAD_HANDLE;
}

CURLMcode curl_multi_poll(CURLM* m, curl_waitfd extra[], unsigned extra_n, int timeout_ms, int* ready) {
    static const auto fn = curl_symbol<CURLMcode (*)(CURLM*, curl_waitfd[], unsigned, int, int*)>("curl_multi_poll");
    return fn ? fn(m, extra, extra_n, timeout_ms, ready) : CURLM_BAD_HANDLE;
}

CURLMsg* curl_multi_info_read(CURLM* m, int* left) {
    static const auto fn = curl_symbol<CURLMsg* (*)(CURLM*, int*)>("curl_multi_info_read");
    return fn ? fn(m, left) : nullptr;
}

CURLMcode curl_multi_cleanup(CURLM* m) {
    static const auto fn = curl_symbol<CURLMcode (*)(CURLM*)>("curl_multi_cleanup");
    return fn ? fn(m) : CURLM_BAD_HANDLE;
}

}  // extern "C"
#endif
