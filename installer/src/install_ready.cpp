// The ready trees an install takes (install_ready.hpp).
#include "install_ready.hpp"

#include <algorithm>
#include <system_error>
#include <tuple>

#include "envfix/common/nearly_sorted.hpp"
#include "envfix/installer/unpacked_cache.hpp"
#include "path_under.hpp"
#include "store_ops.hpp"
#include "tx_internal.hpp"
#include "unpacked_store.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

namespace {

// The wheel's want, for its sha256 (known before staging for a wheel from the wheel cache, after
// it for a local file installed the first time): its tree's name, and its text.
std::pair<std::string, std::string> name_want(ReadyUse& use, const std::string& sha) {
    use.want.sha256 = sha;
    auto encoded = ready::encode_want(use.want);
    return {ready::tree_name(sha, encoded), std::move(encoded)};
}

}  // namespace

bool ask_ready_tree(ReadyUse& use, const std::optional<std::string>& sha, const stdfs::path& unpacked_root) {
    if (!use.eligible || !use.want.sha256.empty() || !sha) return false;
    const auto [name, encoded] = name_want(use, *sha);
    return ready::ask(unpacked_root, name, encoded);
}

// Per input, the planned files a ready tree of its wheel holds: extracted, written by it (not
// by a later wheel, not left in place by a switch) under its lib_dir, where no other area lies
// below lib_dir and the cache is on the same filesystem (the tree is renamed in). A wheel of at
// least `from` of them takes its tree when there is one and its entry is there, and names the
// next in its `ask` (written by ask_ready_trees, beside the staging). The wheels on several
// threads: torch's want alone is 12 000 rows to encode and hash.
void take_ready_trees(const InstallPlan& plan, const std::vector<stdfs::path>& areas, const stdfs::path& unpacked_root, size_t from,
                      const stdfs::path& holder, std::vector<ReadyUse>& uses) {
    const auto& inputs = plan.inputs;
    const auto& writer = plan.writer;
    const auto& in_place = plan.in_place;
    uses.resize(inputs.size());
    if (from == 0) return;
    std::error_code ec;
    stdfs::create_directories(unpacked::layout_dir(unpacked_root), ec);  // the first install into this cache makes it
    const auto cache = fs::identity(unpacked::layout_dir(unpacked_root));
    if (!cache) return;
    // A switch's wheel whose unchanged files stay in place gets none: its layout is only this
    // switch's, and its entry is not all linked, so not marked on the disk.
    std::vector<char> switched(inputs.size(), 0);
    for (const auto& [dest, who] : writer) {
        const auto& in = inputs[who.first];
        if (in_place.has(who)) switched[who.first] = 1;
        if (in.skip || in_place.has(who) || in.plan.files[who.second].kind != PlannedFile::Kind::Extracted) continue;
        uses[who.first].files.push_back(who.second);
        uses[who.first].dests.push_back(dest);
    }
    tx::parallel_for(
        inputs.size(),
        [&](size_t i) {
            auto& use = uses[i];
            const auto& in = inputs[i];
            if (switched[i] || use.files.size() < from) {
                use = ReadyUse();
                return;
            }
            const auto lib = in.plan.lib_dir.lexically_normal();
            const auto lib_id = fs::identity(lib);
            if (!lib_id || lib_id->device != cache->device || std::any_of(areas.begin(), areas.end(), [&](const stdfs::path& a) {
                    return path_under(a.lexically_normal(), lib, false);
                })) {
                use = ReadyUse();
                return;
            }
            // In the order of their destinations, whatever the other wheels (a path won from an
            // earlier wheel comes where that wheel's file was): the want, and so the tree's name, is
            // the wheel's and its layout's alone.
            {
                std::vector<std::pair<const PathText*, size_t>> order;
                order.reserve(use.files.size());
                for (size_t j = 0; j < use.files.size(); ++j) order.emplace_back(use.dests[j], use.files[j]);
                sort_nearly_sorted(order, [](const auto& a, const auto& b) { return DestLess()(a.first, b.first); });
                for (size_t j = 0; j < order.size(); ++j) std::tie(use.dests[j], use.files[j]) = order[j];
            }
            use.want.entry_files = extracted_files(in.plan);
            use.want.files.reserve(use.files.size());
            size_t kept = 0;
            for (size_t j = 0; j < use.files.size(); ++j) {
                const auto& f = in.plan.files[use.files[j]];
                const auto* dest = use.dests[j];
                std::string rel = relative_generic_text(*dest, lib);  // "" where not under lib
                if (rel.empty()) continue;
                const uint64_t size = in.wheel.zip.entries[f.entry].size;
                use.want.files.push_back({f.entry, size, std::move(rel)});
                use.bytes += size;
                use.files[kept] = use.files[j];
                use.dests[kept++] = dest;
            }
            use.files.resize(kept);
            use.dests.resize(kept);
            if (kept < from) {
                use = ReadyUse();
                return;
            }
            use.eligible = true;
            const auto sha = unpacked::known_sha256(unpacked_root, in.wheel);
            if (!sha) return;  // a local file installed the first time: asked for once staging has hashed it
            auto [name, encoded] = name_want(use, *sha);
            // Taken before the next is asked for: the want is only written where no tree is.
            // Only the tree made from the entry as it is now (ready_tree.hpp, state_text).
            if (auto entry = unpacked::find_entry(unpacked_root, *sha, use.want.entry_files)) {
                const auto id = fs::identity(*entry);
                const auto since = unpacked::entry_on_disk_since(*entry);
                if (id && since) {
                    use.claimed = ready::claim(unpacked_root, name, ready::state_text(id->to_string(), *since), holder);
                    use.entry = entry;
                    use.since = since;
                }
            }
            use.ask = {std::move(name), std::move(encoded)};
        },
        1);
    // Each tree checked before it is used, one after another, each on several threads (its files
    // are looked at one by one: torch's 12 000).
    for (size_t i = 0; i < inputs.size(); ++i) {
        auto& use = uses[i];
        if (!use.claimed) continue;
        if (!ready::holds_only_its_files(use.claimed->tree, use.want, *use.since)) {
            ready::discard(*use.claimed);
            use.claimed.reset();
            continue;
        }
        use.in_tree.assign(inputs[i].plan.files.size(), 0);
        for (size_t k : use.files) use.in_tree[k] = 1;
    }
}

// The wants take_ready_trees named, written (a want of torch's is 1 MB): returns whether a tree
// is asked for.
bool ask_ready_trees(const std::vector<std::pair<std::string, std::string>>& asks, const stdfs::path& unpacked_root) {
    bool wanted = false;
    for (const auto& [name, encoded] : asks) wanted = ready::ask(unpacked_root, name, encoded) || wanted;
    return wanted;
}

// In pieces of 512 files, in the trees' order (folder by folder): each folder opened once (on
// the GPU machine ~17 000 lstat calls, a few ms on several threads).
TreeCheck check_ready_trees(const std::vector<ReadyUse>& trees, const std::vector<std::pair<size_t, size_t>>& tree_files) {
    TreeCheck c;
    c.bad.assign(tree_files.size(), 0);
    c.on_disk.assign(tree_files.size(), 0);
    constexpr size_t kPiece = 512;
    tx::parallel_for((tree_files.size() + kPiece - 1) / kPiece,
                     [&](size_t piece) {
                         storeops::FolderStats folders;
                         for (size_t t = piece * kPiece; t < std::min(tree_files.size(), (piece + 1) * kPiece); ++t) {
                             const auto& use = trees[tree_files[t].first];
                             const auto& f = use.want.files[tree_files[t].second];
                             auto st = folders.stat(use.into, f.rel);
                             if (!st || !st->regular || st->size != f.size)
                                 c.bad[t] = 1;
                             else
                                 c.on_disk[t] = use.since && st->mtime_ns <= *use.since;
                         }
                     },
                     1);
    return c;
}

}  // namespace envfix::installer
