#include "tls_store.hpp"

namespace envfix::network::detail {
// An OpenSSL-built libcurl on Windows knows no CA bundle of its own: trust the Windows
// certificate store, as browsers and pip (truststore) do.
void use_system_ca_store(CURL* h) { curl_easy_setopt(h, CURLOPT_SSL_OPTIONS, static_cast<long>(CURLSSLOPT_NATIVE_CA)); }
}  // namespace envfix::network::detail
