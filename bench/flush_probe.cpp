// How long making a warm install's new files durable takes, by method, on the machine it runs on
// (docs/performance.md). A warm install writes about 76 small files
// (each distribution's RECORD and INSTALLER, the scripts) beside 17 000 it only links or renames;
// envfix starts each one's write-back as it is closed, and its commit waits for them
// (sync_file_range, groups of up to 64 on threads), fsyncs the folders and commits the
// filesystem's journal. This writes files of those sizes, optionally after CHURN
// links and renames like the install's (committed before the clock starts), and times each way
// of writing them back, with the files' folders made plainly and spread as envfix's staging is.
//
// Caveat: the untimed journal commit before each clock starts waits,
// in ext4's ordered mode, for the data of files whose write-back has begun, so the rows that
// start the write-back at close time the wait after the data is on the disk, not envfix's wait.
//
// Build: g++ -O2 -std=c++20 -pthread bench/flush_probe.cpp -o /tmp/flush_probe
// Run:   /tmp/flush_probe DIR [REPS=5] [CHURN=17000] [FILES=76]
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void write_file(const std::string& p, size_t size, bool start_write_back = false) {
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) { std::perror(p.c_str()); std::exit(1); }
    std::string data(size, 'r');
    if (::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) { std::perror("write"); std::exit(1); }
    if (start_write_back) ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    ::close(fd);
}

// Sizes like a torch stack's: torch's RECORD (1.6 MB), a few large RECORDs, many small files.
std::vector<size_t> sizes(size_t n) {
    std::vector<size_t> s;
    for (size_t i = 0; i < n; ++i) s.push_back(i == 0 ? 1600000 : i < 5 ? 200000 : i < 25 ? 5000 : 60);
    return s;
}

void parallel(size_t tasks, size_t threads, const std::function<void(size_t)>& fn) {
    std::vector<std::thread> ts;
    std::atomic<size_t> next{0};
    for (size_t t = 0; t < std::min(tasks, threads); ++t)
        ts.emplace_back([&] { for (size_t i; (i = next++) < tasks;) fn(i); });
    for (auto& t : ts) t.join();
}

// envfix's fs::write_back_and_wait: every file's write-back started, then each waited for.
void write_back_group(const std::vector<std::string>& files, size_t from, size_t to) {
    std::vector<int> fds;
    for (size_t i = from; i < to; ++i) {
        int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
        ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
        fds.push_back(fd);
    }
    for (int fd : fds) {
        ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
        ::close(fd);
    }
}

void grouped(const std::vector<std::string>& files, size_t group, size_t threads) {
    const size_t groups = (files.size() + group - 1) / group;
    parallel(groups, threads, [&](size_t g) { write_back_group(files, g * group, std::min(files.size(), (g + 1) * group)); });
}

void fdatasync_each(const std::vector<std::string>& files, size_t threads) {
    parallel(files.size(), threads, [&](size_t i) {
        int fd = ::open(files[i].c_str(), O_RDONLY | O_CLOEXEC);
        ::fdatasync(fd);
        ::close(fd);
    });
}

void sync_dir(const std::string& d) {
    int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::fsync(fd);
    ::close(fd);
}

void commit(const std::string& dir) {
    const std::string p = dir + "/.commit";
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ::fsync(fd);
    ::close(fd);
    ::unlink(p.c_str());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) { std::fprintf(stderr, "usage: flush_probe DIR [REPS] [CHURN] [FILES]\n"); return 2; }
    const std::string root = argv[1];
    const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
    const size_t churn = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 17000;
    const size_t nfiles = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 76;
    ::mkdir(root.c_str(), 0755);
    // The files a warm install links: made once, durable.
    const std::string src = root + "/src";
    ::mkdir(src.c_str(), 0755);
    for (size_t i = 0; i < churn; ++i) {
        const std::string p = src + "/f" + std::to_string(i);
        if (::access(p.c_str(), F_OK) != 0) write_file(p, 100);
    }
    ::sync();
    // start_at_close: each file's write-back started as it is closed, as envfix does for the
    // files it writes itself (OutFile::finish), the untimed commit of the links between.
    struct Way {
        const char* name;
        std::function<void(const std::vector<std::string>&)> run;
        bool start_at_close = false;
    };
    const std::vector<Way> ways = {
        {"started at close, groups of 64 (envfix)", [](auto& f) { grouped(f, 64, 16); }, true},
        {"groups of 64, 16 threads", [](auto& f) { grouped(f, 64, 16); }},
        {"groups of 5, 16 threads", [](auto& f) { grouped(f, 5, 16); }},
        {"groups of 1, 16 threads", [](auto& f) { grouped(f, 1, 16); }},
        {"fdatasync each, 16 threads", [](auto& f) { fdatasync_each(f, 16); }},
        {"syncfs", [&](auto&) { int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY); ::syncfs(fd); ::close(fd); }},
    };
    // Each way twice: the 33 folders made in a plain folder, and in one marked as a top folder
    // (FS_TOPDIR_FL), as envfix marks its staging (fileops::spread_new_folders), so that ext4
    // spreads them over its block groups. The links are committed first (untimed), as the
    // harnesses' sync before each run does.
    const size_t cases = ways.size() * 2;
    std::vector<std::vector<double>> wb(cases), total(cases);
    int serial = 0;
    for (int rep = 0; rep < reps; ++rep) {
        for (size_t c = 0; c < cases; ++c) {
            const size_t w = c / 2;
            const bool spread = c % 2 == 1;
            const std::string dir = root + "/r" + std::to_string(serial++);
            ::mkdir(dir.c_str(), 0755);
            if (spread) {
                int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
                int flags = 0;
                if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
                    flags |= FS_TOPDIR_FL;
                    ::ioctl(fd, FS_IOC_SETFLAGS, &flags);
                }
                ::close(fd);
            }
            std::vector<std::string> dirs;
            for (int d = 0; d < 33; ++d) {
                dirs.push_back(dir + "/d" + std::to_string(d));
                ::mkdir(dirs.back().c_str(), 0755);
            }
            // The install's links, then its new files, then its renames of the links.
            const std::string links = dir + "/links";
            ::mkdir(links.c_str(), 0755);
            for (size_t i = 0; i < churn; ++i) ::link((src + "/f" + std::to_string(i)).c_str(), (links + "/f" + std::to_string(i)).c_str());
            std::vector<std::string> files;
            const auto sz = sizes(nfiles);
            for (size_t i = 0; i < nfiles; ++i) {
                files.push_back(dirs[i % dirs.size()] + "/n" + std::to_string(i));
                write_file(files.back(), sz[i], ways[w].start_at_close);
            }
            ::rename(links.c_str(), (dir + "/moved").c_str());
            commit(dir);
            const double t0 = now();
            ways[w].run(files);
            const double t1 = now();
            for (const auto& d : dirs) sync_dir(d);
            sync_dir(dir);
            commit(dir);
            const double t2 = now();
            wb[c].push_back(t1 - t0);
            total[c].push_back(t2 - t0);
            ::sync();  // the next way starts from a clean disk
        }
    }
    auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
    std::printf("%zu new files (%zu links before them), %d reps; ms, median (min-max)\n", nfiles, churn, reps);
    for (size_t c = 0; c < cases; ++c) {
        const size_t w = c / 2;
        std::printf("%-40s %-15s write-back %6.1f (%5.1f-%5.1f)   with folders and commit %6.1f (%5.1f-%5.1f)\n", ways[w].name, c % 2 ? "spread folders" : "plain folders",
                    median(wb[c]) * 1e3, *std::min_element(wb[c].begin(), wb[c].end()) * 1e3,
                    *std::max_element(wb[c].begin(), wb[c].end()) * 1e3, median(total[c]) * 1e3,
                    *std::min_element(total[c].begin(), total[c].end()) * 1e3, *std::max_element(total[c].begin(), total[c].end()) * 1e3);
    }
    return 0;
}
