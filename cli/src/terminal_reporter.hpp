#pragma once
// The CLI's Reporter: notes to stderr in the user's language, progress bars on a terminal,
// silence in --json (warnings are kept so a command can put them in its JSON document). A warning
// is given once per command: the same sentence again is dropped.
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "context.hpp"
#include "envfix/common/reporter.hpp"

namespace envfix::cli {

class TerminalReporter final : public Reporter {
public:
    explicit TerminalReporter(const GlobalOptions& opts);
    ~TerminalReporter() override;
    void note(Severity sev, const Message& m) override;
    bool confirm(const Message& question, bool fallback) override;
    int task_begin(const Message& label, uint64_t total) override;
    void task_advance(int task, uint64_t done) override;
    void task_end(int task, bool ok) override;

    // Warnings seen so far (for --json documents).
    std::vector<Message> warnings() const;

private:
    struct Task {
        std::string label;
        uint64_t total = 0;
        uint64_t done = 0;
    };
    void redraw_locked();
    void clear_locked();

    const GlobalOptions& opts_;
    bool bars_ = false;  // stderr is a terminal and not --json/--quiet
    mutable std::mutex mu_;
    std::map<int, Task> tasks_;
    int next_task_ = 1;
    int drawn_lines_ = 0;
    std::chrono::steady_clock::time_point last_draw_{};
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::vector<Message> warnings_;
    std::set<std::string> warned_;  // the warnings' sentences, as said
};

}  // namespace envfix::cli
