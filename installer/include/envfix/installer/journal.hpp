#pragma once
// The transaction journal: what a transaction will move, written (temp file, fsync, rename)
// before the first move, so that after a crash the next envfix run can finish or undo it.
// One file per transaction: <environment>/.envfix/tx-<id>.json. Pure: text in, text out.
//
// Format (version 1; paths percent-encoded so the file stays ASCII whatever the file names):
//   {"version": 1, "id": "…", "state": "staging" | "prepared" | "committed", "pid": 123,
//    "created": "2026-11-29T16:40:00Z", "summary": "install pip 24.2; remove pip 23.0.1",
//    "areas": ["/venv/lib/python3.12/site-packages", "/venv/bin"],
//    "ops": [["out", 0, "pip"], ["in", 0, "pip"], ["in", 1, "pip3"]]}
// An area is a folder new files go under; its staging folder is <area>/.envfix-tx-<id>, holding
// new/<path> (staged files) and old/<path> (what was moved out). "out" moves <area>/<path> to
// old/<path>; "in" moves new/<path> to <area>/<path>. <path> is a file or a whole folder.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::installer {

struct JournalOp {
    enum class Kind { Out, In };
    Kind kind = Kind::In;
    uint32_t area = 0;
    std::string path;  // relative to the area, "/"-separated
    bool operator==(const JournalOp&) const = default;
};

struct Journal {
    static constexpr int kVersion = 1;
    enum class State { Staging, Prepared, Committed };
    std::string id;
    State state = State::Staging;
    long long pid = 0;
    std::string created;
    std::string summary;
    std::vector<std::string> areas;  // absolute folders
    std::vector<JournalOp> ops;      // in order: every "out", then every "in"
};

std::string_view journal_state_name(Journal::State s);  // "staging", "prepared", "committed"
std::string journal_to_json(const Journal& j);
// Errors: ExitCode::BadInput, "journal.invalid" naming `source` (another version, bad JSON,
// missing fields, an area index out of range, a path with "..").
Expected<Journal> parse_journal(std::string_view text, std::string_view source);

}  // namespace envfix::installer
