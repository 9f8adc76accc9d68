#pragma once
// The real profiles/*.yaml, loaded once per test binary (named as the repository names them).
#include <string>
#include <vector>

#include "envfix/matrix/matrix.hpp"
#include "envfix/matrix/matrix_loader.hpp"

namespace envfix::test {

std::vector<matrix::ProfileText> real_profile_texts();
const matrix::Matrix& real_matrix();
// The texts with `from` replaced by `to` (once) in file `name`; fails the test when absent.
std::vector<matrix::ProfileText> edited_profiles(const std::string& name, const std::string& from, const std::string& to);
// 1-based line of the first occurrence of `needle` in the real file `name`.
int line_of(const std::string& name, const std::string& needle);

}  // namespace envfix::test
