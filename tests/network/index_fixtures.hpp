#pragma once
// Real parts for the index tests: the test index (tests/tools/mkindex.py), the fault-injecting
// server (tests/tools/index_server.py) and nginx over TLS with a CA made by openssl. POSIX
// only (tests run on Linux): background processes are forked here, killed on destruction.
#include <nlohmann/json.hpp>

#include <functional>

#include <memory>
#include <string>
#include <vector>

#include "envfix/common/message.hpp"
#include "envfix/common/reporter.hpp"
#include "envfix/network/http_client.hpp"
#include "support.hpp"

namespace envfix::test {

// A child process running in the background; its stdin is a pipe it may watch to exit.
class BackgroundProcess {
public:
    BackgroundProcess() = default;
    BackgroundProcess(const std::vector<std::string>& argv, const stdfs::path& log);
    ~BackgroundProcess();
    BackgroundProcess(BackgroundProcess&&) noexcept;
    BackgroundProcess& operator=(BackgroundProcess&&) noexcept;
    // The first line the child prints that starts with `prefix` (empty when none in time).
    std::string wait_for_line(const std::string& prefix, int timeout_ms);
    int pid() const { return pid_; }
    void stop();

private:
    int pid_ = -1;
    int stdin_fd_ = -1;
    int stdout_fd_ = -1;
    std::string buffered_;
};

int free_port();
bool wait_for_port(int port, int timeout_ms);

// mkindex.py OUT args...; returns the manifest (JSON).
nlohmann::json make_index(const stdfs::path& out, const std::vector<std::string>& args);
// The manifest's record of `filename`.
nlohmann::json manifest_file(const nlohmann::json& manifest, const std::string& filename);

class IndexServer {
public:
    explicit IndexServer(const stdfs::path& root, const stdfs::path& work);
    std::string url(const std::string& path = "/") const;  // http://127.0.0.1:PORT/path
    int port() const { return port_; }
    void set_faults(const nlohmann::json& faults);  // {"/path": {...}}
    std::vector<nlohmann::json> log() const;  // requests so far
    std::vector<nlohmann::json> log_for(const std::string& path) const;

private:
    stdfs::path faults_;
    stdfs::path log_;
    BackgroundProcess proc_;
    int port_ = 0;
};

// A test index (mkindex.py with `mkindex_args`) served by an IndexServer, in a fresh folder.
struct ServedIndex {
    TempDir dir;
    nlohmann::json manifest;
    std::unique_ptr<IndexServer> server;
    explicit ServedIndex(const std::vector<std::string>& mkindex_args);
    // The URL path of a manifest record ("/cu128/torch-2.7.0%2Bcu128-...whl").
    std::string url_path(const nlohmann::json& rec) const;
};

std::string error_text(const Error& e);  // rendered in English

// A CA and a server certificate for 127.0.0.1 / localhost, made with openssl.
struct TestPki {
    stdfs::path ca;  // CA certificate (PEM)
    stdfs::path other_ca;  // an unrelated CA
    stdfs::path cert, key;  // server
};
TestPki make_pki(const stdfs::path& dir);

// nginx (Debian's nginx-light) serving `root` over HTTPS (HTTP/2 too) on a free port.
class NginxServer {
public:
    NginxServer(const stdfs::path& root, const TestPki& pki, const stdfs::path& work);
    std::string url(const std::string& path = "/") const;
    bool ok() const { return ok_; }

private:
    BackgroundProcess proc_;
    int port_ = 0;
    bool ok_ = false;
};

// Options for a client in a test: cache inside `dir`, short backoff, no proxies or netrc.
network::HttpOptions test_http_options(const stdfs::path& dir);

// Keeps every note and progress event, rendered in English, for assertions.
class RecordingReporter final : public Reporter {
public:
    void note(Severity, const Message& m) override { notes.push_back(render(m, Lang::En)); }
    bool confirm(const Message&, bool fallback) override { return fallback; }
    int task_begin(const Message& label, uint64_t total) override;
    void task_advance(int task, uint64_t done) override;
    void task_end(int task, bool ok) override;
    std::string all_text() const;

    struct Task {
        std::string label;
        uint64_t total = 0, done = 0;
        bool ended = false, ok = false;
    };
    std::vector<std::string> notes;
    std::vector<Task> tasks;
    std::function<void(int, uint64_t)> on_advance;  // tests hook Ctrl-C here
};

}  // namespace envfix::test
