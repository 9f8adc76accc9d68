#include "tls_store.hpp"

namespace envfix::network::detail {
// libcurl's built-in default is the distribution's CA bundle (/etc/ssl/certs on Debian).
void use_system_ca_store(CURL*) {}
}  // namespace envfix::network::detail
