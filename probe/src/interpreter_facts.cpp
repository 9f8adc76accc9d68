// Running an interpreter once for its facts.
#include "envfix/probe/interpreter_facts.hpp"

#include "envfix/common/process.hpp"
#include "envfix/common/strings.hpp"
#include "facts_json.hpp"

namespace envfix::probe {

namespace stdfs = std::filesystem;

namespace {
constexpr std::string_view kMarker = "ENVFIX_FACTS ";

// The last line of a child's stderr, for a one-line error.
std::string last_line(std::string_view text) {
    text = str::trim(text);
    auto nl = text.rfind('\n');
    auto line = std::string(str::trim(nl == std::string_view::npos ? text : text.substr(nl + 1)));
    if (line.size() > 200) line = line.substr(0, 200) + "...";
    return line.empty() ? "(no output)" : line;
}

Expected<ProcessResult> run_script(const stdfs::path& python, std::vector<std::string> flags,
                                   std::chrono::milliseconds timeout) {
    ProcessSpec spec;
    spec.argv = {python.string()};
    spec.argv.insert(spec.argv.end(), flags.begin(), flags.end());
    spec.argv.push_back("-");  // the script comes on stdin: no quoting, no length limit
    spec.stdin_data = std::string(interpreter_script());
    spec.timeout = timeout;
    // The 2.7 fallback has no -I: keep its sys.path[0] ("" = cwd) away from the user's files.
    std::error_code ec;
    if (auto tmp = stdfs::temp_directory_path(ec); !ec) spec.cwd = tmp;
    spec.max_output = 1 << 20;
    return run_process(spec);
}
}  // namespace

Expected<PythonFacts> parse_interpreter_output(std::string_view out, std::string_view python) {
    std::string_view line;
    for (auto l : str::split(out, '\n'))
        if (l.starts_with(kMarker)) line = l;  // the last one: a sitecustomize may print first
    if (line.empty())
        return fail(ExitCode::EnvBroken, "env.bad_facts", {{"python", std::string(python)}, {"reason", render(msg("reason.no_facts"))}});
    try {
        auto j = nlohmann::json::parse(str::trim(line.substr(kMarker.size())));
        if (!j.is_object()) throw std::runtime_error("not an object");
        PythonFacts f = facts_from_json(j);
        f.ran = true;
        f.unknown.clear();
        if (f.major <= 0 || f.version.empty()) throw std::runtime_error("no version");
        return f;
    } catch (const std::exception& e) {
        return fail(ExitCode::EnvBroken, "env.bad_facts", {{"python", std::string(python)}, {"reason", e.what()}});
    }
}

Expected<PythonFacts> run_interpreter_facts(const stdfs::path& python, std::chrono::milliseconds timeout) {
    const std::string name = python.string();
    // -S: no site processing, so no .pth file runs: a wheel's code never runs during envfix's own
    // work (docs/security.md); the script finds the site folders itself. -B: nothing written.
    auto r = run_script(python, {"-S", "-I", "-B"}, timeout);
    // Python 2 has no -I ("Unknown option: -I", exit 2): -E -s is the closest it has.
    if (r && r->exited && r->exit_code == 2 && r->err.find("-I") != std::string::npos)
        r = run_script(python, {"-S", "-E", "-s", "-B"}, timeout);
    if (!r) {
        std::string reason(r.error().message.arg("reason"));
        return fail(ExitCode::EnvBroken, "env.run_failed", {{"python", name}, {"reason", reason.empty() ? "cannot start" : reason}});
    }
    if (r->timed_out)
        return fail(ExitCode::EnvBroken, "env.run_timeout", {{"python", name}, {"seconds", std::to_string(timeout.count() / 1000)}});
    if (!r->ok()) {
        const std::string code = r->exited ? std::to_string(r->exit_code) : "signal " + std::to_string(r->signal);
        return fail(ExitCode::EnvBroken, "env.run_exit", {{"python", name}, {"code", code}, {"stderr", last_line(r->err)}});
    }
    return parse_interpreter_output(r->out, name);
}

Expected<PythonFacts> interpreter_facts(const stdfs::path& python, FactsCache* cache, std::chrono::milliseconds timeout,
                                        FactsSource* source) {
    auto from = [source](FactsSource s) {
        if (source) *source = s;
    };
    if (cache) {
        if (auto hit = cache->find(python)) {
            from(FactsSource::Cache);
            return std::move(*hit);
        }
        if (auto derived = cache->derive(python)) {
            from(FactsSource::Derived);
            cache->put(python, *derived);
            return std::move(*derived);
        }
    }
    from(FactsSource::Run);
    const auto watched = cache ? cache->watched_now(python) : std::nullopt;
    ENVFIX_TRY(auto facts, run_interpreter_facts(python, timeout));
    if (cache) cache->put(python, facts, watched);
    return facts;
}

}  // namespace envfix::probe
