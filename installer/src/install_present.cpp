// The snapshot of the present an install takes (install_present.hpp).
#include "install_present.hpp"

#include <memory>
#include <system_error>

#include "envfix/installer/unpacked_cache.hpp"

namespace envfix::installer {

void HeldNotes::note(Severity sev, const Message& m) {
    std::lock_guard lock(mu_);
    notes_.emplace_back(sev, m);
}

void HeldNotes::replay(Reporter& to) {
    std::lock_guard lock(mu_);
    for (const auto& [sev, m] : notes_) to.note(sev, m);
    notes_.clear();
}

void PresentSnapshot::start() {
    try {
        capturing_ = std::async(std::launch::async, [this] { return snap::capture(env_, notes_, &stats_, seen_); });
    } catch (const std::system_error&) {  // no thread left: captured in take(), in turn
    }
}

Expected<void> PresentSnapshot::take(bool wanted, PreparedWheels* prepared, Reporter& reporter) {
    if (wanted) {
        auto captured = capturing_.valid() ? capturing_.get() : snap::capture(env_, notes_, &stats_, seen_);
        notes_.replay(reporter);
        if (!captured) return unexpected(std::move(captured).error());
        present_ = std::move(*captured);
    }
    if (prepared && prepared->wants_present()) {
        std::shared_ptr<KnownInstalled> known;
        if (present_ && seen_.size() == present_->files.size()) {
            known = std::make_shared<KnownInstalled>();
            known->root = env_.root.lexically_normal();
            known->files.reserve(present_->files.size());
            for (size_t i = 0; i < present_->files.size(); ++i) {
                const auto& f = present_->files[i];
                const auto& k = seen_[i];
                known->files.try_emplace(f.path, KnownInstalled::File{k.device, k.inode, k.size, k.mtime_ns, f.sha256});
            }
        }
        prepared->present(std::move(known));
    }
    if (present_) ahead_.start(*present_, seen_);
    return {};
}

Expected<std::string> PresentSnapshot::keep(const std::string& reason, Transaction& tx, Reporter& reporter) {
    ENVFIX_TRY_VOID(ahead_.keep(*present_, seen_, reason, stats_, fs::Sync::Cache));
    tx.flush_with_commit({snap::snapshot_file(env_.root, present_->id)});
    const auto& st = stats_;
    reporter.debug(msg("snapshot.stats", {{"id", present_->id},
                                          {"files", std::to_string(st.files)},
                                          {"hashed", std::to_string(st.hashed)},
                                          {"stored", std::to_string(st.stored)},
                                          {"seconds", std::to_string(st.seconds)}}));
    std::string id = present_->id;
    present_.reset();
    seen_ = {};
    return id;
}

}  // namespace envfix::installer
