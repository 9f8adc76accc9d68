#pragma once
// How libraries talk to the user without printing: they report events to a Reporter the
// CLI implements (terminal, JSON, quiet). Libraries never write to stdout/stderr.
#include <cstdint>
#include <string>

#include "envfix/common/message.hpp"

namespace envfix {

enum class Severity { Debug, Info, Warning };

class Reporter {
public:
    virtual ~Reporter() = default;
    virtual void note(Severity sev, const Message& m) = 0;
    // A yes/no question; non-interactive reporters answer `fallback`.
    virtual bool confirm(const Message& question, bool fallback) = 0;
    // Progress of one task (a download, an extraction). total 0: unknown.
    virtual int task_begin(const Message& label, uint64_t total) = 0;
    virtual void task_advance(int task, uint64_t done) = 0;
    virtual void task_end(int task, bool ok) = 0;

    void debug(const Message& m) { note(Severity::Debug, m); }
    void info(const Message& m) { note(Severity::Info, m); }
    void warn(const Message& m) { note(Severity::Warning, m); }
};

// Discards everything; confirm() answers the fallback. For tests and library defaults.
class NullReporter final : public Reporter {
public:
    void note(Severity, const Message&) override {}
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message&, uint64_t) override { return 0; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
};

NullReporter& null_reporter();

}  // namespace envfix
