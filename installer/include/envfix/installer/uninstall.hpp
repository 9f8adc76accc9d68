#pragma once
// What removing an installed distribution takes away, from its RECORD — which is treated as
// untrusted (uv GHSA-pjjw-68hj-v9mw): only files inside the environment's root (no "..", no
// absolute paths, no way out through a symlinked folder), never a protected file, plus the
// __pycache__ bytecode of its .py files. Folders left empty go with them (the transaction
// moves such folders whole). Nothing is removed here; the transaction does that.
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/common/message.hpp"
#include "envfix/standards/installed.hpp"

namespace envfix::installer {

struct RemovalPlan {
    std::vector<std::filesystem::path::string_type> files;  // absolute, lexically normal (native: no path made per file)
    std::vector<Message> skipped;              // rows not followed, and why (warnings)
    // The RECORD rows with a hash among `files` (by index): what a switch compares with the new
    // wheel's rows (keep_links.hpp) without reading the RECORD again.
    std::vector<std::pair<size_t, standards::RecordEntry>> rows;
};

// Paths by their native string (absolute, lexically normal): torch's stack holds 17 000, looked
// up by hash rather than compared component by component.
using PathSet = std::unordered_set<std::filesystem::path::string_type>;

// Errors: ExitCode::NoRecord, "install.no_record" (no RECORD: envfix does not guess what the
// distribution installed, as pip refuses too); a RECORD that cannot be parsed (BadInput).
// `protect`: files that stay whatever RECORD says (the interpreter, pyvenv.cfg, files other
// installed distributions list).
Expected<RemovalPlan> plan_removal(const standards::InstalledDist& dist, const std::filesystem::path& env_root, const PathSet& protect);

// The absolute, lexically normal path of a RECORD row of a distribution in `site_packages`
// (rows may climb out: "../../../bin/torchrun"). Where both are already plainly normal (POSIX,
// no "." or ".." parts, no doubled separators: nearly every row) the join is the answer and the
// costly lexically_normal is skipped; RECORDs of a torch stack hold 17 000 rows.
// As native text: no std::filesystem::path made for each row (each ~1 µs, its parts parsed).
std::filesystem::path::string_type record_row_text(const std::filesystem::path& site_packages, const std::string& row);

// The files the RECORDs of `dists` list, each with the name of (the first) distribution listing
// it: what must stay when another distribution goes, and whose file a new one replaces.
std::unordered_map<std::filesystem::path::string_type, std::string> recorded_owners(
    const std::vector<const standards::InstalledDist*>& dists);

}  // namespace envfix::installer
