// Recovery of interrupted transactions from their journals (transaction.hpp).
#include <algorithm>

#include "envfix/common/beneath.hpp"
#include "envfix/common/fs.hpp"
#include "envfix/installer/fault.hpp"
#include "envfix/installer/transaction.hpp"
#include "file_ops.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

namespace stdfs = std::filesystem;

std::string_view recovery_action_name(RecoveryOutcome::Action a) {
    switch (a) {
        case RecoveryOutcome::Action::RolledBack: return "rolled-back";
        case RecoveryOutcome::Action::Cleaned: return "cleaned";
        case RecoveryOutcome::Action::Finished: return "finished";
    }
    return "?";
}

namespace {

// A journal lists one line per move: a switch of the torch stack's is under 1 MiB.
constexpr uint64_t kMaxJournalBytes = uint64_t{64} << 20;

std::vector<stdfs::path> journal_files(const stdfs::path& state_dir) {
    std::vector<stdfs::path> out;
    std::error_code ec;
    for (stdfs::directory_iterator it(state_dir, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.starts_with("tx-") && name.ends_with(".json")) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());  // ids start with the time: oldest first
    return out;
}

// Leftover temp files of an interrupted journal write.
void remove_temp_files(const stdfs::path& state_dir) {
    std::error_code ec;
    for (stdfs::directory_iterator it(state_dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().filename().string().find(".envfix-tmp-") != std::string::npos) {
            std::error_code rm;
            stdfs::remove(it->path(), rm);
        }
    }
}

// A "prepared" transaction was moving files when it stopped, and its new files may not have
// reached the disk (they are flushed just before "committed" is written): every move done is
// undone, newest first, so the environment is the old one again.
Expected<void> undo(const std::vector<tx::Area>& areas, const Journal& j) {
    for (auto it = j.ops.rbegin(); it != j.ops.rend(); ++it) {
        if (!tx::op_done(areas, *it)) continue;
        if (auto r = tx::op_backward(areas, *it); !r) return r;
        fault_point();
    }
    return {};
}

// Whether a journal's area is one the environment has: one of `allowed`, or a folder above one
// of them inside the root (begin() names the nearest existing parent of an area not made yet),
// never envfix's own folders, and inside the root with its links followed.
bool own_area(const stdfs::path& area, const stdfs::path& root, const std::vector<stdfs::path>& allowed) {
    const auto a = area.lexically_normal();
    if (!a.is_absolute() || !path_under(a, root, true)) return false;
    const auto rel = a.lexically_relative(root).generic_string();
    if (rel.starts_with(".envfix")) return false;
    const bool among = std::any_of(allowed.begin(), allowed.end(), [&](const stdfs::path& x) { return path_under(x, a, true); });
    return among && fs::resolves_beneath(root, a);
}

// Everything a journal read back names, checked before any journal is acted on.
Expected<void> check_journal(const stdfs::path& file, const Journal& j, const std::vector<tx::Area>& areas, const stdfs::path& root,
                             const std::vector<stdfs::path>& allowed) {
    for (const auto& a : areas)
        if (!own_area(a.root, root, allowed))
            return fail(ExitCode::UnsafeState, "journal.foreign_area", {{"path", file.string()}, {"area", a.root.string()}});
    for (const auto& op : j.ops) ENVFIX_TRY_VOID(tx::op_check(areas, op));
    return {};
}

}  // namespace

bool has_pending_transactions(const stdfs::path& state_dir) { return !journal_files(state_dir).empty(); }

Expected<std::vector<RecoveryOutcome>> recover_transactions(const stdfs::path& env_root, const std::vector<stdfs::path>& allowed,
                                                            Reporter& reporter) {
    const auto root = env_root.lexically_normal();
    const auto state_dir = installer::state_dir(root);
    // Journals are never read through a link to elsewhere, nor is anything removed there.
    ENVFIX_TRY_VOID(check_state_dir(root));
    std::vector<RecoveryOutcome> out;
    remove_temp_files(state_dir);
    struct Pending {
        Journal journal;
        std::vector<tx::Area> areas;
    };
    std::vector<Pending> pending;
    for (const auto& file : journal_files(state_dir)) {
        ENVFIX_TRY(auto text, fs::read_file(file, kMaxJournalBytes));
        ENVFIX_TRY(auto j, parse_journal(text, file.string()));
        auto areas = tx::make_areas(j.areas, j.id);
        ENVFIX_TRY_VOID(check_journal(file, j, areas, root, allowed));
        pending.push_back({std::move(j), std::move(areas)});
    }
    for (const auto& [j, areas] : pending) {
        RecoveryOutcome r{j.id, j.summary,
                          j.state == Journal::State::Committed ? RecoveryOutcome::Action::Finished : RecoveryOutcome::Action::Cleaned};
        if (j.state == Journal::State::Prepared) {
            ENVFIX_TRY_VOID(undo(areas, j));
            r.action = RecoveryOutcome::Action::RolledBack;
            std::vector<stdfs::path> roots;
            for (const auto& a : areas) roots.push_back(a.root);
            // The moves back are durable before the journal that asked for them goes.
            fs::sync_filesystems(roots);
        }
        tx::remove_stage_dirs(areas);
        tx::remove_journal(state_dir, j.id);
        reporter.info(msg(r.action == RecoveryOutcome::Action::RolledBack ? "install.recovered_rolled_back"
                          : r.action == RecoveryOutcome::Action::Finished ? "install.recovered_finished"
                                                                           : "install.recovered_cleaned",
                          {{"id", j.id}, {"summary", j.summary}}));
        out.push_back(std::move(r));
    }
    std::error_code ec;
    stdfs::remove(state_dir, ec);  // only when empty
    return out;
}

}  // namespace envfix::installer
