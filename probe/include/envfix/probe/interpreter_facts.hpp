#pragma once
// Facts of one interpreter from ONE run of it: `python -I -B -` with a small script on stdin
// (argv only, timeout), printing one JSON line. -I ignores PYTHON* variables and the user site
// and keeps the current folder off sys.path; -S is not used (before 3.11 it breaks venv prefix
// detection). Results are cached per interpreter path, invalidated when the interpreter, the
// file it resolves to, its pyvenv.cfg or its ._pth change (size, mtime, inode).
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "envfix/common/error.hpp"
#include "envfix/probe/python_facts.hpp"

namespace envfix::probe {

// The script envfix runs (for docs and tests).
std::string_view interpreter_script();

// Runs `python` once. ExitCode::EnvBroken when it cannot start, fails, times out, or prints
// nothing envfix can read; the message names `python`.
Expected<PythonFacts> run_interpreter_facts(const std::filesystem::path& python, std::chrono::milliseconds timeout);

// Parses the script's output (the line starting "ENVFIX_FACTS "). Pure.
Expected<PythonFacts> parse_interpreter_output(std::string_view stdout_text, std::string_view python);

// <cache_dir>/interpreters-v1.json: {"version": 1, "entries": {"<path>": {"stamp", "facts"}}}.
class FactsCache {
public:
    static constexpr int kVersion = 1;
    static std::filesystem::path default_path();
    static FactsCache load(const std::filesystem::path& file);
    static FactsCache in_memory();

    FactsCache(FactsCache&&) noexcept;
    FactsCache& operator=(FactsCache&&) noexcept;
    ~FactsCache();

    std::optional<PythonFacts> find(const std::filesystem::path& python) const;
    // A venv's facts from another venv's in the cache, made by `python -m venv` from the same base
    // interpreter with the same pyvenv.cfg but for the lines naming its folder: its paths moved to
    // this venv's folder (a new venv, then an install: no interpreter start). nullopt where no
    // such venv is cached, a folder is reached through a link, or a path lies outside the venv.
    std::optional<PythonFacts> derive(const std::filesystem::path& python) const;
    // Whether an entry for `python` is there but no longer holds (a .pth file changed, or the
    // interpreter; not where the interpreter is gone): an install that changed them leaves it to
    // `envfix cache ready` to run it again.
    bool outdated(const std::filesystem::path& python) const;
    // What the entry for `python` watches (its purelib's .pth files), as they are now; taken
    // before a run and given to put(). nullopt where there is no entry.
    std::optional<std::string> watched_now(const std::filesystem::path& python) const;
    void put(const std::filesystem::path& python, const PythonFacts& facts, const std::optional<std::string>& watched = std::nullopt);
    bool dirty() const;
    // Writes the entries put since loading; others' in the file, newer or not, stay as they are.
    Expected<void> save();

    // What the cache compares: the interpreter's real path and the identities of it and of the
    // files that change its facts. "" when the interpreter does not exist.
    static std::string stamp(const std::filesystem::path& python);

private:
    FactsCache();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Where interpreter_facts found them: the cache, another venv's in it, or a run of the interpreter.
enum class FactsSource { Cache, Derived, Run };

// Cache first, else run (and put the result in the cache). `source`, when given, says which.
Expected<PythonFacts> interpreter_facts(const std::filesystem::path& python, FactsCache* cache,
                                        std::chrono::milliseconds timeout, FactsSource* source = nullptr);

}  // namespace envfix::probe
