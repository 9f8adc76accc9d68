#pragma once
// One table per area; each area file in this folder defines its span. Add a line here when
// an area is added.
#include <array>
#include <span>

#include "envfix/common/message.hpp"

namespace envfix::messages {

using Catalog = std::span<const CatalogEntry>;
extern const Catalog kCommon;
extern const Catalog kProbe;
extern const Catalog kEnvironment;
extern const Catalog kStandards;
extern const Catalog kIndex;
extern const Catalog kPlan;
extern const Catalog kInstall;
extern const Catalog kVerify;
extern const Catalog kApps;
extern const Catalog kCli;
extern const Catalog kDoctor;
extern const Catalog kHelp;

inline std::array<Catalog, 12> all_catalogs() {
    return {kCommon, kProbe, kEnvironment, kStandards, kIndex, kPlan, kInstall, kVerify, kApps, kCli, kDoctor, kHelp};
}

}  // namespace envfix::messages
