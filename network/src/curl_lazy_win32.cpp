// Windows links libcurl when envfix is built (curl_lazy_posix.cpp loads it on first use
// elsewhere): it is always there.
#include "curl_session.hpp"

namespace envfix::network::detail {
const std::string* curl_load_error() { return nullptr; }
}  // namespace envfix::network::detail
