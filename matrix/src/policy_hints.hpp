#pragma once
// What would fit when nothing does (private to policy.cpp).
#include <vector>

#include "envfix/matrix/policy.hpp"

namespace envfix::matrix::detail {

// choose() without the hints (the hints themselves try other requests).
PolicyResult choose_without_hints(const Matrix& m, const PolicyRequest& req);

// `evaluated[s]`: the candidates of stage `stages[s]`, releases newest first.
std::vector<Message> hints_for(const Matrix& m, const PolicyRequest& req, const std::vector<std::vector<Candidate>>& evaluated,
                               const std::vector<Channel>& stages);

}  // namespace envfix::matrix::detail
