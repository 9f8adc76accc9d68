// The app profiles built into the binary: profiles/apps/*.yaml, checked and encoded at build time
// by profiles/tools/compile_profiles.cpp into the generated source that holds the matrix too.
#include "envfix/resolver/app_profiles.hpp"

namespace envfix::resolver::detail {
// Defined in the generated profiles_snapshot.cpp.
std::string_view embedded_apps_snapshot();
}  // namespace envfix::resolver::detail

namespace envfix::resolver {

Expected<AppCatalog> load_embedded_app_profiles() { return decode_app_snapshot(detail::embedded_apps_snapshot()); }

}  // namespace envfix::resolver
