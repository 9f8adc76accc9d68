#include "terminal_reporter.hpp"

#include <cstdio>
#include <iostream>

#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "output.hpp"
#include "style.hpp"

namespace envfix::cli {

TerminalReporter::TerminalReporter(const GlobalOptions& opts)
    : opts_(opts), bars_(platform::stderr_is_terminal() && cursor_moves() && !opts.json && !opts.quiet) {}

TerminalReporter::~TerminalReporter() {
    std::lock_guard lock(mu_);
    clear_locked();
}

void TerminalReporter::note(Severity sev, const Message& m) {
    std::lock_guard lock(mu_);
    std::string text = render(m);
    if (sev == Severity::Warning) {
        // A command that reads the same thing twice (the app's folder for the target, then for its
        // checks) says what it found once.
        if (!warned_.insert(text).second) return;
        warnings_.push_back(m);
    }
    if (sev == Severity::Debug && opts_.verbosity < 1) return;
    if (sev == Severity::Info && (opts_.quiet || opts_.json)) return;
    if (sev == Severity::Warning && opts_.json) return;
    clear_locked();
    if (sev == Severity::Warning) text = labelled_err("cli.label.warning", Tone::Warn, text);
    if (sev == Severity::Debug) text = render(msg("cli.labelled", {{"label", render(msg("cli.label.debug"))}, {"text", text}}));
    std::string line = text + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    redraw_locked();
}

bool TerminalReporter::confirm(const Message& question, bool fallback) {
    if (opts_.yes) return true;
    if (opts_.json || !platform::stderr_is_terminal() || !platform::stdout_is_terminal()) return fallback;
    std::lock_guard lock(mu_);
    clear_locked();
    std::string q = render(question) + (fallback ? " [Y/n] " : " [y/N] ");
    std::fwrite(q.data(), 1, q.size(), stderr);
    std::string answer;
    if (!std::getline(std::cin, answer)) return fallback;
    auto a = str::lower(str::trim(answer));
    if (a.empty()) return fallback;
    return a == "y" || a == "yes" || a == "是" || a == "好";
}

int TerminalReporter::task_begin(const Message& label, uint64_t total) {
    std::lock_guard lock(mu_);
    int id = next_task_++;
    tasks_[id] = Task{render(label), total, 0};
    redraw_locked();
    return id;
}

void TerminalReporter::task_advance(int task, uint64_t done) {
    std::lock_guard lock(mu_);
    auto it = tasks_.find(task);
    if (it == tasks_.end()) return;
    it->second.done = done;
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ > std::chrono::milliseconds(100)) redraw_locked();
}

void TerminalReporter::task_end(int task, bool) {
    std::lock_guard lock(mu_);
    tasks_.erase(task);
    redraw_locked();
}

std::vector<Message> TerminalReporter::warnings() const {
    std::lock_guard lock(mu_);
    return warnings_;
}

void TerminalReporter::clear_locked() {
    if (!bars_ || drawn_lines_ == 0) return;
    std::string s;
    for (int i = 0; i < drawn_lines_; ++i) s += "\x1b[1A\x1b[2K";
    std::fwrite(s.data(), 1, s.size(), stderr);
    drawn_lines_ = 0;
}

void TerminalReporter::redraw_locked() {
    if (!bars_) return;
    clear_locked();
    last_draw_ = std::chrono::steady_clock::now();
    if (tasks_.empty()) return;
    int width = platform::terminal_width();
    auto bar = [&](const std::string& label, uint64_t done, uint64_t total) {
        std::string right = total ? str::human_bytes(done) + "/" + str::human_bytes(total) : str::human_bytes(done);
        int bar_width = std::max(10, std::min(30, width - static_cast<int>(display_width(label) + right.size()) - 6));
        int filled = total ? static_cast<int>(bar_width * (static_cast<double>(done) / static_cast<double>(total))) : 0;
        filled = std::min(filled, bar_width);
        std::string line = label.substr(0, static_cast<size_t>(std::max(10, width - bar_width - static_cast<int>(right.size()) - 6)));
        line += " [" + paint_err(std::string(static_cast<size_t>(filled), '#'), Tone::Good) +
                std::string(static_cast<size_t>(bar_width - filled), '.') + "] " + right + "\n";
        return line;
    };
    std::string out;
    uint64_t all_done = 0, all_total = 0;
    int shown = 0;
    for (const auto& [id, t] : tasks_) {
        all_done += t.done;
        all_total += t.total;
        if (shown < 8) { out += bar(t.label, t.done, t.total); ++shown; }
    }
    if (tasks_.size() > 1) { out += bar("total", all_done, all_total); ++shown; }
    std::fwrite(out.data(), 1, out.size(), stderr);
    drawn_lines_ = shown;
}

}  // namespace envfix::cli
