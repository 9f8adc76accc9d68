// The matrix built into the binary: profiles/*.yaml, checked and encoded at build time by
// profiles/tools/compile_profiles.cpp into a generated source (matrix/CMakeLists.txt).
#include "envfix/matrix/matrix_loader.hpp"

namespace envfix::matrix::detail {
// Defined in the generated profiles_snapshot.cpp.
std::string_view embedded_snapshot();
}  // namespace envfix::matrix::detail

namespace envfix::matrix {

Expected<Matrix> load_embedded_profiles() { return decode_snapshot(detail::embedded_snapshot()); }

}  // namespace envfix::matrix
