#pragma once
// The snapshot of the present an install takes before it changes anything (snapshot.hpp): captured
// on a thread of its own while what goes is planned (both only read the locked environment), its
// files stored on another beside the staging, written only once every check has passed, so a
// refused install leaves no snapshot (and what was stored ahead is taken back).
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "envfix/common/reporter.hpp"
#include "envfix/installer/prepared_wheels.hpp"
#include "envfix/installer/snapshot.hpp"
#include "snapshot_internal.hpp"
#include "tx_internal.hpp"

namespace envfix::installer {

// Notes of work done on another thread, handed to the real reporter afterwards, in order.
class HeldNotes final : public Reporter {
public:
    void note(Severity sev, const Message& m) override;
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message&, uint64_t) override { return 0; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    void replay(Reporter& to);

private:
    std::mutex mu_;
    std::vector<std::pair<Severity, Message>> notes_;
};

class PresentSnapshot {
public:
    explicit PresentSnapshot(const probe::Environment& env) : env_(env), ahead_(env) {}
    PresentSnapshot(const PresentSnapshot&) = delete;
    PresentSnapshot& operator=(const PresentSnapshot&) = delete;
    // Begins the capture on a thread of its own (in turn in take() where no thread is to be had).
    void start();
    // The capture's end; what it says of each installed file handed to the Prepare stage, if
    // any; its files' storing begun. Nothing captured unless `wanted`.
    Expected<void> take(bool wanted, PreparedWheels* prepared, Reporter& reporter);
    const Snapshot* captured() const { return present_ ? &*present_ : nullptr; }
    // Written with `reason`, made durable with the transaction's commit; returns its id.
    Expected<std::string> keep(const std::string& reason, Transaction& tx, Reporter& reporter);

private:
    const probe::Environment& env_;
    HeldNotes notes_;
    std::vector<snap::Seen> seen_;
    SnapshotStats stats_;
    std::optional<Snapshot> present_;
    std::future<Expected<Snapshot>> capturing_;  // waited for before the above go
    snap::StoredAhead ahead_;  // declared last: waited for before the rest go
};

}  // namespace envfix::installer
