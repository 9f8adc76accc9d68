#pragma once
// Where TLS trust comes from when no CA bundle is given: the system store of each platform.
#include <curl/curl.h>

namespace envfix::network::detail {
void use_system_ca_store(CURL* h);
}
