// The app profiles built into the binary: profiles/apps/*.yaml, checked and encoded at build time
// by profiles/tools/compile_app_profiles.cpp into a generated source (apps/CMakeLists.txt).
#include "envfix/apps/app_profiles.hpp"

namespace envfix::apps::detail {
// Defined in the generated app_profiles_snapshot.cpp.
std::string_view embedded_apps_snapshot();
}  // namespace envfix::apps::detail

namespace envfix::apps {

Expected<AppCatalog> load_embedded_app_profiles() { return decode_app_snapshot(detail::embedded_apps_snapshot()); }

}  // namespace envfix::apps
