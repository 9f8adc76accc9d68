#include "index_fixtures.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace envfix::test {

BackgroundProcess::BackgroundProcess(const std::vector<std::string>& argv, const stdfs::path& log) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) {
        ADD_FAILURE() << "pipe failed";
        return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (err >= 0) ::dup2(err, 2);
        ::close(in[1]);
        ::close(out[0]);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    stdin_fd_ = in[1];
    stdout_fd_ = out[0];
    ::fcntl(stdin_fd_, F_SETFD, FD_CLOEXEC);
    ::fcntl(stdout_fd_, F_SETFD, FD_CLOEXEC);
}

BackgroundProcess::BackgroundProcess(BackgroundProcess&& o) noexcept { *this = std::move(o); }

BackgroundProcess& BackgroundProcess::operator=(BackgroundProcess&& o) noexcept {
    if (this != &o) {
        stop();
        pid_ = std::exchange(o.pid_, -1);
        stdin_fd_ = std::exchange(o.stdin_fd_, -1);
        stdout_fd_ = std::exchange(o.stdout_fd_, -1);
        buffered_ = std::move(o.buffered_);
    }
    return *this;
}

BackgroundProcess::~BackgroundProcess() { stop(); }

void BackgroundProcess::stop() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    if (stdout_fd_ >= 0) ::close(stdout_fd_);
    stdin_fd_ = stdout_fd_ = -1;
    if (pid_ > 0) {
        ::kill(pid_, SIGTERM);
        int status = 0;
        for (int i = 0; i < 100; ++i) {
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
}

std::string BackgroundProcess::wait_for_line(const std::string& prefix, int timeout_ms) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
        size_t nl;
        while ((nl = buffered_.find('\n')) != std::string::npos) {
            std::string line = buffered_.substr(0, nl);
            buffered_.erase(0, nl + 1);
            if (line.rfind(prefix, 0) == 0) return line;
        }
        pollfd p{stdout_fd_, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) {
            char buf[512];
            auto n = ::read(stdout_fd_, buf, sizeof buf);
            if (n <= 0) return "";
            buffered_.append(buf, static_cast<size_t>(n));
        }
    }
    return "";
}

int free_port() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(s);
    return ntohs(a.sin_port);
}

bool wait_for_port(int port, int timeout_ms) {
    auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < end) {
        int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        ::close(s);
        if (ok) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

nlohmann::json make_index(const stdfs::path& out, const std::vector<std::string>& args) {
    std::vector<std::string> argv{test_python().string(), (source_dir() / "tests/tools/mkindex.py").string(), out.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_program(argv, {}, 120);
    EXPECT_EQ(r.code, 0) << "mkindex failed: " << r.err;
    return nlohmann::json::parse(read_text(out / "manifest.json"));
}

nlohmann::json manifest_file(const nlohmann::json& manifest, const std::string& filename) {
    for (const auto& f : manifest["files"])
        if (f["filename"] == filename) return f;
    ADD_FAILURE() << "no " << filename << " in the manifest";
    return {};
}

IndexServer::IndexServer(const stdfs::path& root, const stdfs::path& work) : faults_(work / "faults.json"), log_(work / "requests.jsonl") {
    stdfs::create_directories(work);
    write_text(faults_, "{}");
    proc_ = BackgroundProcess({test_python().string(), (source_dir() / "tests/tools/index_server.py").string(), "--root", root.string(),
                               "--faults", faults_.string(), "--log", log_.string()},
                              work / "server.err");
    auto line = proc_.wait_for_line("PORT ", 20000);
    EXPECT_FALSE(line.empty()) << "index_server.py did not start: " << read_text(work / "server.err");
    if (!line.empty()) port_ = std::stoi(line.substr(5));
}

std::string IndexServer::url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

void IndexServer::set_faults(const nlohmann::json& faults) {
    // Written whole and renamed: the server reads the file on every request.
    auto tmp = faults_;
    tmp += ".tmp";
    write_text(tmp, faults.dump());
    stdfs::rename(tmp, faults_);
}

std::vector<nlohmann::json> IndexServer::log() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(read_text(log_));
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    return out;
}

std::vector<nlohmann::json> IndexServer::log_for(const std::string& path) const {
    std::vector<nlohmann::json> out;
    for (auto& l : log())
        if (l["path"] == path) out.push_back(l);
    return out;
}

ServedIndex::ServedIndex(const std::vector<std::string>& mkindex_args) {
    manifest = make_index(dir / "whl", mkindex_args);
    server = std::make_unique<IndexServer>(dir / "whl", dir / "server");
}

std::string ServedIndex::url_path(const nlohmann::json& rec) const {
    std::string p = "/";
    for (char ch : rec["path"].get<std::string>()) p += ch == '+' ? std::string("%2B") : std::string(1, ch);
    return p;
}

std::string error_text(const Error& e) { return render(e.message, Lang::En); }

namespace {
void openssl(const std::vector<std::string>& args, const stdfs::path& cwd) {
    std::vector<std::string> argv{"openssl"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_program(argv, {}, 60, cwd);
    ASSERT_EQ(r.code, 0) << "openssl failed: " << r.err;
}
void make_ca(const std::string& name, const stdfs::path& dir) {
    openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", name + ".key", "-out",
             name + ".pem", "-days", "2", "-subj", "/CN=envfix test " + name},
            dir);
}
}  // namespace

TestPki make_pki(const stdfs::path& dir) {
    stdfs::create_directories(dir);
    make_ca("ca", dir);
    make_ca("other-ca", dir);
    openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=127.0.0.1"},
            dir);
    write_text(dir / "ext.cnf", "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n");
    openssl({"x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days",
             "2", "-extfile", "ext.cnf"},
            dir);
    return TestPki{dir / "ca.pem", dir / "other-ca.pem", dir / "server.pem", dir / "server.key"};
}

NginxServer::NginxServer(const stdfs::path& root, const TestPki& pki, const stdfs::path& work) {
    stdfs::create_directories(work / "tmp");
    port_ = free_port();
    auto w = work.string();
    std::string conf = "daemon off;\nmaster_process off;\nworker_processes 1;\nerror_log " + w + "/error.log;\npid " + w +
                       "/nginx.pid;\nevents { worker_connections 64; }\nhttp {\n  access_log " + w +
                       "/access.log;\n  client_body_temp_path " + w + "/tmp;\n  proxy_temp_path " + w + "/tmp;\n  fastcgi_temp_path " + w +
                       "/tmp;\n  uwsgi_temp_path " + w + "/tmp;\n  scgi_temp_path " + w +
                       "/tmp;\n  types { text/html html; application/octet-stream whl; text/plain metadata; }\n"
                       "  server {\n    listen 127.0.0.1:" +
                       std::to_string(port_) + " ssl http2;\n    ssl_certificate " + pki.cert.string() + ";\n    ssl_certificate_key " +
                       pki.key.string() + ";\n    root " + root.string() + ";\n    index index.html;\n  }\n}\n";
    write_text(work / "nginx.conf", conf);
    // /usr/sbin is not on every PATH (CI runs with a plain environment).
    std::string nginx = stdfs::exists("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";
    proc_ = BackgroundProcess({nginx, "-p", w, "-c", (work / "nginx.conf").string()}, work / "nginx.err");
    ok_ = wait_for_port(port_, 10000);
    EXPECT_TRUE(ok_) << "nginx did not start: " << read_text(work / "nginx.err") << read_text(work / "error.log");
}

std::string NginxServer::url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port_) + path; }

network::HttpOptions test_http_options(const stdfs::path& dir) {
    network::HttpOptions o;
    o.cache_dir = dir / "http-cache";
    o.backoff = std::chrono::milliseconds(10);
    o.retries = 2;
    o.timeout = std::chrono::seconds(10);
    o.connect_timeout = std::chrono::seconds(5);
    o.user_agent = "envfix-tests";
    return o;
}

int RecordingReporter::task_begin(const Message& label, uint64_t total) {
    tasks.push_back(Task{render(label, Lang::En), total, 0, false, false});
    return static_cast<int>(tasks.size()) - 1;
}

void RecordingReporter::task_advance(int task, uint64_t done) {
    tasks.at(static_cast<size_t>(task)).done = done;
    if (on_advance) on_advance(task, done);
}

void RecordingReporter::task_end(int task, bool ok) {
    auto& t = tasks.at(static_cast<size_t>(task));
    t.ended = true;
    t.ok = ok;
}

std::string RecordingReporter::all_text() const {
    std::string s;
    for (const auto& n : notes) s += n + "\n";
    for (const auto& t : tasks) s += t.label + "\n";
    return s;
}

}  // namespace envfix::test
