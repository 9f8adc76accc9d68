// The matrix built into the binary: profiles/*.yaml, checked and encoded at build time by
// profiles/tools/compile_profiles.cpp into a generated source (resolver/CMakeLists.txt).
#include "envfix/resolver/matrix_loader.hpp"

namespace envfix::resolver::detail {
// Defined in the generated profiles_snapshot.cpp.
std::string_view embedded_snapshot();
}  // namespace envfix::resolver::detail

namespace envfix::resolver {

Expected<Matrix> load_embedded_profiles() { return decode_snapshot(detail::embedded_snapshot()); }

}  // namespace envfix::resolver
