// Parallel downloads against the test server: hashes, sizes, resume, retries, progress.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/platform.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/downloader.hpp"
#include "index_fixtures.hpp"

using namespace envfix;
using namespace envfix::network;
using envfix::test::TempDir;

namespace {

const auto text = test::error_text;

struct Files : test::ServedIndex {
    Files()
        : ServedIndex({"--variants", "cu128", "--pythons", "cp311,cp312", "--platforms", "manylinux_2_28_x86_64,win_amd64", "--torch",
                       "2.7.0", "--only", "torch,torchvision,torchaudio,triton"}) {}
    DownloadItem item(const nlohmann::json& rec, const std::string& out = "out") const {
        return DownloadItem{server->url(url_path(rec)), rec["sha256"], rec["size"].get<uint64_t>(),
                            dir / out / rec["filename"].get<std::string>(), ""};
    }
};

}  // namespace

TEST(Downloader, DownloadsManyFilesInParallelWithCheckedHashes) {
    Files f;
    std::vector<DownloadItem> items;
    for (const auto& rec : f.manifest["files"]) items.push_back(f.item(rec));
    ASSERT_GE(items.size(), 10u);
    test::RecordingReporter rep;
    auto t0 = std::chrono::steady_clock::now();
    auto results = download_files(items, test::test_http_options(f.dir.path()), rep, DownloadOptions{4});
    auto elapsed = std::chrono::steady_clock::now() - t0;
    ASSERT_EQ(results.size(), items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_TRUE(results[i].ok()) << text(*results[i].error);
        EXPECT_EQ(results[i].sha256, items[i].sha256);
        EXPECT_EQ(results[i].attempts, 1);
        EXPECT_EQ(*sha256_file_hex(items[i].dest), items[i].sha256);
        EXPECT_FALSE(std::filesystem::exists(part_path(items[i].dest)));
    }
    // One progress task per file, each finished at its full size.
    ASSERT_EQ(rep.tasks.size(), items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        EXPECT_TRUE(rep.tasks[i].ended && rep.tasks[i].ok);
        EXPECT_EQ(rep.tasks[i].total, *items[i].size);
        EXPECT_EQ(rep.tasks[i].done, *items[i].size);
        EXPECT_EQ(rep.tasks[i].label, items[i].dest.filename().string());
    }
    EXPECT_LT(elapsed, std::chrono::seconds(20));
}

TEST(Downloader, TransfersOverlap) {
    Files f;
    std::vector<DownloadItem> items;
    nlohmann::json faults = nlohmann::json::object();
    for (const auto& rec : f.manifest["files"]) {
        if (items.size() == 4) break;
        items.push_back(f.item(rec));
        faults[f.url_path(rec)] = {{"delay", 1.0}};
    }
    f.server->set_faults(faults);
    auto t0 = std::chrono::steady_clock::now();
    auto results = download_files(items, test::test_http_options(f.dir.path()), envfix::null_reporter(), DownloadOptions{4});
    auto elapsed = std::chrono::steady_clock::now() - t0;
    for (auto& r : results) ASSERT_TRUE(r.ok()) << text(*r.error);
    EXPECT_LT(elapsed, std::chrono::milliseconds(3000));  // four 1 s answers at once, not one after another
}

TEST(Downloader, HashMismatchIsRefusedAndLeavesNothing) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    item.sha256 = std::string(64, 'a');
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_FALSE(r[0].ok());
    EXPECT_EQ(r[0].error->code, ExitCode::HashMismatch);
    EXPECT_EQ(text(*r[0].error),
              item.url + " does not match the index's hash: expected sha256 " + item.sha256 + ", got " + rec["sha256"].get<std::string>());
    EXPECT_FALSE(std::filesystem::exists(item.dest));
    EXPECT_FALSE(std::filesystem::exists(part_path(item.dest)));
}

TEST(Downloader, SizeMismatchIsRefused) {
    Files f;
    auto item = f.item(f.manifest["files"][0]);
    for (uint64_t size : {*item.size - 1, *item.size + 1}) {
        item.size = size;
        auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter());
        ASSERT_FALSE(r[0].ok());
        EXPECT_EQ(r[0].error->code, ExitCode::HashMismatch);
        EXPECT_EQ(r[0].error->message.key, "download.size_mismatch");
        EXPECT_FALSE(std::filesystem::exists(item.dest));
    }
}

// An answer without an announced size that never ends, or announces a terabyte: cut at the
// configured bound, nothing left under its name.
TEST(Downloader, AnEndlessAnswerWithoutAnnouncedSizeStopsAtTheBound) {
    Files f;
    auto item = f.item(f.manifest["files"][0]);
    item.size.reset();
    auto http = test::test_http_options(f.dir.path());
    http.max_download = 1u << 20;
    for (const auto& spec : {nlohmann::json{{"endless", true}}, nlohmann::json{{"endless", true}, {"content_length", 1000000000000ull}}}) {
        SCOPED_TRACE(spec.dump());
        f.server->set_faults({{f.url_path(f.manifest["files"][0]), spec}});
        auto r = download_files({item}, http, envfix::null_reporter());
        ASSERT_FALSE(r[0].ok());
        EXPECT_EQ(r[0].error->message.key, "download.too_large");
        EXPECT_FALSE(std::filesystem::exists(item.dest));
        EXPECT_FALSE(std::filesystem::exists(item.dest.string() + ".part"));
    }
}

TEST(Downloader, ResumesATruncatedTransfer) {
    Files f;
    auto rec = f.manifest["files"][0];
    f.server->set_faults({{f.url_path(rec), {{"truncate", 700}, {"times", 1}}}});
    auto item = f.item(rec);
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_TRUE(r[0].resumed);
    EXPECT_EQ(r[0].attempts, 2);
    EXPECT_EQ(*sha256_file_hex(item.dest), rec["sha256"]);
    auto log = f.server->log_for(f.url_path(rec));
    ASSERT_EQ(log.size(), 2u);
    EXPECT_FALSE(log[0]["headers"].contains("range"));
    EXPECT_EQ(log[1]["headers"]["range"], "bytes=700-");
}

TEST(Downloader, ResumesAPartFileLeftByAnEarlierRun) {
    Files f;
    auto rec = f.manifest["files"][1];
    auto item = f.item(rec);
    auto whole = test::read_text(f.dir / "whl" / rec["path"].get<std::string>());
    test::write_text(part_path(item.dest), whole.substr(0, 1000));
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_TRUE(r[0].resumed);
    EXPECT_EQ(f.server->log_for(f.url_path(rec)).at(0)["headers"]["range"], "bytes=1000-");
    EXPECT_EQ(test::read_text(item.dest), whole);

    // A complete .part with the right hash needs no request at all.
    auto rec2 = f.manifest["files"][2];
    auto item2 = f.item(rec2);
    test::write_text(part_path(item2.dest), test::read_text(f.dir / "whl" / rec2["path"].get<std::string>()));
    auto r2 = download_files({item2}, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_TRUE(r2[0].ok());
    EXPECT_EQ(r2[0].attempts, 0);
    EXPECT_TRUE(f.server->log_for(f.url_path(rec2)).empty());
}

TEST(Downloader, StalePartFileIsReplaced) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    test::write_text(part_path(item.dest), std::string(500, 'x'));  // not a prefix of the file
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_FALSE(r[0].resumed);
    EXPECT_EQ(*sha256_file_hex(item.dest), rec["sha256"]);
}

TEST(Downloader, ServerIgnoringRangeRestartsFromZero) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    auto whole = test::read_text(f.dir / "whl" / rec["path"].get<std::string>());
    test::write_text(part_path(item.dest), whole.substr(0, 300));
    f.server->set_faults({{f.url_path(rec), {{"no_range", true}}}});
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(test::read_text(item.dest), whole);
}

TEST(Downloader, RetriesServerErrorsAndReportsFailuresPerFile) {
    Files f;
    auto ok_rec = f.manifest["files"][0];
    auto bad_rec = f.manifest["files"][1];
    f.server->set_faults({{f.url_path(ok_rec), {{"status", 503}, {"times", 2}}}, {f.url_path(bad_rec), {{"status", 404}}}});
    auto items = std::vector<DownloadItem>{f.item(ok_rec), f.item(bad_rec)};
    auto r = download_files(items, test::test_http_options(f.dir.path()), envfix::null_reporter());
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(r[0].attempts, 3);
    ASSERT_FALSE(r[1].ok());
    EXPECT_EQ(r[1].error->code, ExitCode::HttpStatus);
    EXPECT_EQ(r[1].attempts, 1);
}

TEST(Downloader, OfflineRefusesEveryFile) {
    Files f;
    auto opts = test::test_http_options(f.dir.path());
    opts.offline = true;
    auto r = download_files({f.item(f.manifest["files"][0])}, opts, envfix::null_reporter());
    ASSERT_FALSE(r[0].ok());
    EXPECT_EQ(r[0].error->code, ExitCode::NotCached);
    EXPECT_TRUE(f.server->log().empty());
}

// Split downloads (DownloadOptions::split_at): a large file in byte ranges over several
// connections at once, written in place, checked whole.
namespace {

DownloadOptions split_options(uint64_t at = 1000) {
    DownloadOptions o{4};
    o.split_at = at;
    return o;
}

std::filesystem::path split_path(const DownloadItem& it) {
    auto p = it.dest;
    p += ".split";
    return p;
}

// Every file the index serves, and the size from which the larger half of them is split.
std::pair<std::vector<DownloadItem>, uint64_t> every_file(const Files& f) {
    std::vector<DownloadItem> items;
    std::vector<uint64_t> sizes;
    for (const auto& rec : f.manifest["files"]) {
        items.push_back(f.item(rec));
        sizes.push_back(*items.back().size);
    }
    std::sort(sizes.begin(), sizes.end());
    return {items, sizes[sizes.size() / 2]};
}

}  // namespace

TEST(Downloader, ALargeFileComesInRangesOverSeveralConnections) {
    Files f;
    const auto files = every_file(f);  // the larger half of the files split
    const auto& items = files.first;
    const uint64_t at = files.second;
    test::RecordingReporter rep;
    std::vector<int> ready(items.size(), 0);
    std::mutex mu;
    auto o = split_options(at);
    o.on_ready = [&](size_t k) {
        std::lock_guard lock(mu);
        ready[k]++;
    };
    auto results = download_files(items, test::test_http_options(f.dir.path()), rep, o);
    size_t split = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_TRUE(results[i].ok()) << text(*results[i].error);
        EXPECT_EQ(*sha256_file_hex(items[i].dest), items[i].sha256);
        EXPECT_EQ(results[i].attempts, 1);
        EXPECT_EQ(ready[i], 1);
        EXPECT_FALSE(std::filesystem::exists(part_path(items[i].dest)));
        EXPECT_FALSE(std::filesystem::exists(split_path(items[i])));
        auto log = f.server->log_for(f.url_path(f.manifest["files"][i]));
        if (*items[i].size < at) {
            ASSERT_EQ(log.size(), 1u);
            EXPECT_FALSE(log[0]["headers"].contains("range"));
            continue;
        }
        // Ranges "bytes=A-B" that cover the file once, in pieces of at least 1 MiB, two at least.
        ++split;
        std::vector<std::pair<uint64_t, uint64_t>> ranges;
        for (const auto& req : log) {
            auto h = req["headers"]["range"].get<std::string>();
            ASSERT_TRUE(h.starts_with("bytes=")) << h;
            auto dash = h.find('-');
            ranges.emplace_back(std::stoull(h.substr(6, dash - 6)), std::stoull(h.substr(dash + 1)));
        }
        std::sort(ranges.begin(), ranges.end());
        ASSERT_EQ(ranges.size(), std::min<uint64_t>(4, std::max<uint64_t>(2, *items[i].size >> 20)));
        uint64_t next = 0;
        for (auto [a, b] : ranges) {
            EXPECT_EQ(a, next);
            next = b + 1;
        }
        EXPECT_EQ(next, *items[i].size);
    }
    EXPECT_GT(split, 0u);
    // Still one progress task per file, finished at its size.
    ASSERT_EQ(rep.tasks.size(), items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        EXPECT_TRUE(rep.tasks[i].ended && rep.tasks[i].ok);
        EXPECT_EQ(rep.tasks[i].done, *items[i].size);
    }
}

TEST(Downloader, ASplitFileFromAServerWithoutRangesComesWhole) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    f.server->set_faults({{f.url_path(rec), {{"no_range", true}}}});
    int ready = 0;
    auto o = split_options();
    o.on_ready = [&](size_t) { ++ready; };
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), o);
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(test::read_text(item.dest), test::read_text(f.dir / "whl" / rec["path"].get<std::string>()));
    EXPECT_EQ(ready, 1);
    EXPECT_FALSE(std::filesystem::exists(split_path(item)));
    auto log = f.server->log_for(f.url_path(rec));
    ASSERT_GE(log.size(), 2u);
    EXPECT_FALSE(log.back()["headers"].contains("range"));  // the whole file, after the ranges were refused
}

TEST(Downloader, ASplitFileWithTheWrongHashOrSizeLeavesNothing) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    item.sha256 = std::string(64, 'b');
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options());
    ASSERT_FALSE(r[0].ok());
    EXPECT_EQ(r[0].error->message.key, "download.hash_mismatch");
    for (uint64_t size : {*f.item(rec).size - 1, *f.item(rec).size + 1}) {
        auto sized = f.item(rec);
        sized.size = size;
        auto s = download_files({sized}, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options());
        ASSERT_FALSE(s[0].ok());
        EXPECT_EQ(s[0].error->message.key, "download.size_mismatch") << size;
        EXPECT_NE(text(*s[0].error).find(std::to_string(*f.item(rec).size)), std::string::npos) << text(*s[0].error);
    }
    for (const auto& p : {item.dest, part_path(item.dest), split_path(item)}) EXPECT_FALSE(std::filesystem::exists(p)) << p;
}

TEST(Downloader, ARangeCutShortOrRefusedIsRetriedAlone) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    f.server->set_faults({{f.url_path(rec), {{"truncate", 100}, {"times", 1}}}});
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options());
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(*sha256_file_hex(item.dest), rec["sha256"]);
    EXPECT_EQ(r[0].attempts, 2);
    // A 404 on a range fails the file, once, without retries.
    auto other = f.manifest["files"][1];
    auto item2 = f.item(other);
    f.server->set_faults({{f.url_path(other), {{"status", 404}}}});
    auto r2 = download_files({item2}, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options());
    ASSERT_FALSE(r2[0].ok());
    EXPECT_EQ(r2[0].error->code, ExitCode::HttpStatus);
    EXPECT_FALSE(std::filesystem::exists(split_path(item2)));
}

TEST(Downloader, AFileOfUnknownSizeIsSplitOnceTheFirstAnswerGivesIt) {
    // The PyTorch index's pages give hashes but no sizes: the first answer's length decides.
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    item.size.reset();
    int ready = 0;
    auto o = split_options(100);
    o.on_ready = [&](size_t) { ++ready; };
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), o);
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(*sha256_file_hex(item.dest), rec["sha256"]);
    EXPECT_EQ(r[0].size, rec["size"].get<uint64_t>());
    EXPECT_EQ(ready, 1);
    EXPECT_FALSE(std::filesystem::exists(part_path(item.dest)));
    auto log = f.server->log_for(f.url_path(rec));
    ASSERT_EQ(log.size(), 2u);  // the whole file asked for, cut at the first range's end; the second range
    EXPECT_FALSE(log[0]["headers"].contains("range"));
    EXPECT_TRUE(log[1]["headers"]["range"].get<std::string>().ends_with("-" + std::to_string(rec["size"].get<uint64_t>() - 1)));

    // Wrong bytes: refused, nothing kept.
    auto bad = f.item(f.manifest["files"][1]);
    bad.size.reset();
    bad.sha256 = std::string(64, 'c');
    auto b = download_files({bad}, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options(100));
    ASSERT_FALSE(b[0].ok());
    EXPECT_EQ(b[0].error->message.key, "download.hash_mismatch");
    EXPECT_FALSE(std::filesystem::exists(bad.dest));
    EXPECT_FALSE(std::filesystem::exists(part_path(bad.dest)));
}

TEST(Downloader, OneConnectionNeverSplitsAndALearnedFirstRangeIsRetried) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    item.size.reset();
    auto one = split_options(100);
    one.parallel = 1;
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), one);
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(f.server->log_for(f.url_path(rec)).size(), 1u);  // not fetched twice

    // The whole-file answer that became the first range breaks off: that range again, alone.
    auto other = f.manifest["files"][1];
    auto item2 = f.item(other);
    item2.size.reset();
    f.server->set_faults({{f.url_path(other), {{"truncate", 50}, {"times", 1}}}});
    auto r2 = download_files({item2}, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options(100));
    ASSERT_TRUE(r2[0].ok()) << text(*r2[0].error);
    EXPECT_EQ(*sha256_file_hex(item2.dest), other["sha256"]);
    EXPECT_EQ(r2[0].attempts, 2);
}

// A reader watching a split file (DownloadOptions::on_split): the tail comes as a range of its
// own, what is written is reported, and anything that may rewrite bytes gives the reader up.
namespace {

struct Watched {
    int calls = 0;
    std::filesystem::path part;
    std::shared_ptr<PartProgress> progress;
    std::string read;  // the whole file, read from the .part by the reader's thread as it came
    bool complete = false;  // the reader's wait for every byte ended with all of them
    std::thread reader;
    ~Watched() {
        if (reader.joinable()) reader.join();
    }
};

DownloadOptions watched_options(Watched& w, uint64_t at = 1000) {
    auto o = split_options(at);
    o.on_split = [&w](size_t, const std::filesystem::path& part, std::shared_ptr<PartProgress> progress) {
        ++w.calls;
        w.part = part;
        w.progress = progress;
        // Opened now, read as the bytes come: in pieces from the start, each once it is written.
        auto in = std::make_shared<std::ifstream>(part, std::ios::binary);
        w.reader = std::thread([&w, in, progress] {
            const uint64_t total = progress->total();
            std::string got(total, '\0');
            for (uint64_t at = 0; at < total; at += 65536) {
                const uint64_t n = std::min<uint64_t>(65536, total - at);
                if (!progress->wait_for(at, n)) return;
                in->seekg(static_cast<std::streamoff>(at));
                in->read(got.data() + at, static_cast<std::streamsize>(n));
            }
            w.read = std::move(got);
            w.complete = true;
        });
    };
    return o;
}

std::vector<std::pair<uint64_t, uint64_t>> requested_ranges(const nlohmann::json& log) {
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (const auto& req : log) {
        if (!req["headers"].contains("range")) continue;
        auto h = req["headers"]["range"].get<std::string>();
        auto dash = h.find('-');
        ranges.emplace_back(std::stoull(h.substr(6, dash - 6)), std::stoull(h.substr(dash + 1)));
    }
    return ranges;
}

}  // namespace

TEST(Downloader, AWatchedSplitFileHasItsTailAsARangeAndReportsWhatIsWritten) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    const uint64_t size = *item.size;
    Watched w;
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), watched_options(w));
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    w.reader.join();
    ASSERT_EQ(w.calls, 1);
    EXPECT_EQ(w.part, part_path(item.dest));
    ASSERT_TRUE(w.complete);
    EXPECT_EQ(w.read, test::read_text(item.dest));  // what the reader saw is the checked file
    EXPECT_FALSE(w.progress->given_up());
    // The ranges reported: the file once, the last one the tail, a sixteenth at most.
    auto ranges = w.progress->ranges();
    ASSERT_GE(ranges.size(), 3u);
    uint64_t next = 0;
    for (const auto& x : ranges) {
        EXPECT_EQ(x.at, next);
        EXPECT_EQ(x.written, x.length);
        next = x.at + x.length;
    }
    EXPECT_EQ(next, size);
    EXPECT_LE(ranges.back().length, size / 16 + 1);
    // And what the server was asked for is the same ranges.
    auto asked = requested_ranges(f.server->log_for(f.url_path(rec)));
    std::sort(asked.begin(), asked.end());
    ASSERT_EQ(asked.size(), ranges.size());
    for (size_t i = 0; i < asked.size(); ++i) {
        EXPECT_EQ(asked[i].first, ranges[i].at);
        EXPECT_EQ(asked[i].second, ranges[i].at + ranges[i].length - 1);
    }
}

TEST(Downloader, AWatchedFileOfUnknownSizeIsWatchedOnceTheFirstAnswerGivesIt) {
    Files f;
    auto rec = f.manifest["files"][0];
    auto item = f.item(rec);
    item.size.reset();
    Watched w;
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), watched_options(w, 100));
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    w.reader.join();
    ASSERT_EQ(w.calls, 1);
    EXPECT_EQ(w.progress->total(), rec["size"].get<uint64_t>());
    ASSERT_TRUE(w.complete);
    EXPECT_EQ(w.read, test::read_text(item.dest));
    EXPECT_GE(w.progress->ranges().size(), 3u);  // the first answer's range, the others and the tail
}

TEST(Downloader, AWatchedSplitFileGivesItsReaderUpWhenBytesMayBeWrittenAgain) {
    Files f;
    // A server without Range: the file comes whole afterwards, the reader stops waiting.
    {
        auto rec = f.manifest["files"][0];
        auto item = f.item(rec);
        f.server->set_faults({{f.url_path(rec), {{"no_range", true}}}});
        Watched w;
        auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), watched_options(w));
        ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
        w.reader.join();
        EXPECT_TRUE(w.progress->given_up());
        EXPECT_FALSE(w.complete);
    }
    // A range cut short and fetched again: the reader may have taken its first bytes. (Cut at
    // 10 bytes: whichever range the server answers first, the tail too, is shorter.)
    {
        auto rec = f.manifest["files"][1];
        auto item = f.item(rec);
        f.server->set_faults({{f.url_path(rec), {{"truncate", 10}, {"times", 1}}}});
        Watched w;
        auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), watched_options(w));
        ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
        EXPECT_EQ(r[0].attempts, 2);
        w.reader.join();
        EXPECT_TRUE(w.progress->given_up());
    }
    // A file that fails: given up too.
    {
        auto rec = f.manifest["files"][2];
        auto item = f.item(rec);
        item.sha256 = std::string(64, 'd');
        Watched w;
        auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), watched_options(w));
        ASSERT_FALSE(r[0].ok());
        w.reader.join();
        EXPECT_TRUE(w.progress->given_up());
    }
}

TEST(Downloader, ALargeFileInMoreRangesThanConnectionsIsHashedAsItsBytesArrive) {
    Files f;
    // 6 MiB, ranges of 1 MiB at least: six ranges over four connections, taken in order.
    std::string bytes(6u << 20, '\0');
    uint32_t x = 7;
    for (auto& c : bytes) c = static_cast<char>((x = x * 1103515245u + 12345u) >> 24);
    test::write_text(f.dir / "whl" / "big.bin", bytes);
    DownloadItem item{f.server->url("/big.bin"), sha256_hex(bytes), bytes.size(), f.dir / "out" / "big.bin", ""};
    auto o = split_options(1000);
    o.min_range = 1u << 20;
    auto r = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), o);
    ASSERT_TRUE(r[0].ok()) << text(*r[0].error);
    EXPECT_EQ(r[0].sha256, item.sha256);
    EXPECT_TRUE(r[0].hashed_while_downloading);
    EXPECT_EQ(test::read_text(item.dest), bytes);
    auto asked = requested_ranges(f.server->log_for("/big.bin"));
    std::sort(asked.begin(), asked.end());
    ASSERT_EQ(asked.size(), 6u);
    uint64_t next = 0;
    for (auto [a, b] : asked) {
        EXPECT_EQ(a, next);
        next = b + 1;
    }
    EXPECT_EQ(next, bytes.size());

    // A range fetched again: its bytes may differ from what was hashed, so the file is hashed
    // whole once complete; a wrong hash is still refused either way.
    f.server->set_faults({{"/big.bin", {{"truncate", 10}, {"times", 1}}}});
    item.dest = f.dir / "out2" / "big.bin";
    auto again = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), o);
    ASSERT_TRUE(again[0].ok()) << text(*again[0].error);
    EXPECT_FALSE(again[0].hashed_while_downloading);
    EXPECT_EQ(again[0].sha256, item.sha256);
    f.server->set_faults(nlohmann::json::object());
    item.dest = f.dir / "out3" / "big.bin";
    item.sha256 = std::string(64, 'e');
    auto bad = download_files({item}, test::test_http_options(f.dir.path()), envfix::null_reporter(), o);
    ASSERT_FALSE(bad[0].ok());
    EXPECT_EQ(bad[0].error->message.key, "download.hash_mismatch");
    EXPECT_FALSE(std::filesystem::exists(item.dest));
}

// Each checked file at the moment it is handed over, whole files and split ones, under either
// DownloadFlush: in place, its .part gone, its unsynced marker there only in a batch.
void expect_handed_over_in_place(DownloadFlush flush) {
    Files f;
    const auto files = every_file(f);
    const auto& items = files.first;
    auto o = split_options(files.second);
    o.flush = flush;
    std::mutex mu;
    std::vector<int> ready(items.size(), 0);
    std::vector<bool> there(items.size(), false), marked(items.size(), false);
    o.on_ready = [&](size_t k) {
        std::lock_guard lock(mu);
        ++ready[k];
        there[k] = std::filesystem::exists(items[k].dest) && !std::filesystem::exists(part_path(items[k].dest));
        marked[k] = std::filesystem::exists(unsynced_marker(items[k].dest));
    };
    test::RecordingReporter rep;
    auto r = download_files(items, test::test_http_options(f.dir.path()), rep, o);
    for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_TRUE(r[i].ok()) << text(*r[i].error);
        EXPECT_EQ(*sha256_file_hex(items[i].dest), items[i].sha256);
        EXPECT_EQ(ready[i], 1);
        EXPECT_TRUE(there[i]) << items[i].dest;
        EXPECT_EQ(marked[i], flush == DownloadFlush::Batch) << items[i].dest;
        EXPECT_FALSE(std::filesystem::exists(unsynced_marker(items[i].dest))) << "the batch's flush removes it";
    }
    const auto synced = std::count_if(rep.notes.begin(), rep.notes.end(), [&](const std::string& n) {
        return n.starts_with(std::to_string(items.size()) + " downloaded files flushed to disk together in ");
    });
    EXPECT_EQ(synced, flush == DownloadFlush::Batch ? 1 : 0) << rep.all_text();
    // A wrong hash is refused before anything is handed over, and leaves no marker.
    auto bad = f.item(f.manifest["files"][0], "bad");
    bad.sha256 = std::string(64, 'f');
    int handed = 0;
    o.on_ready = [&](size_t) { ++handed; };
    auto b = download_files({bad}, test::test_http_options(f.dir.path()), envfix::null_reporter(), o);
    ASSERT_FALSE(b[0].ok());
    EXPECT_EQ(b[0].error->message.key, "download.hash_mismatch");
    EXPECT_EQ(handed, 0);
    EXPECT_FALSE(std::filesystem::exists(bad.dest));
    EXPECT_FALSE(std::filesystem::exists(unsynced_marker(bad.dest)));
}

TEST(Downloader, FilesOfABatchAreHandedOverBesideTheirMarkersWhichGoOnceTheBatchIsFlushed) {
    expect_handed_over_in_place(DownloadFlush::Batch);
}

TEST(Downloader, ABatchsFlushLeftRunningKeepsTheMarkersUntilItIsWaitedFor) {
    // flush_later: download_files returns with the flush on a thread of its own (an install plans
    // beside it); the files are there under their names, and their markers go once it has ended.
    Files f;
    const auto files = every_file(f);
    const auto& items = files.first;
    auto o = split_options(files.second);
    std::unique_ptr<PendingFlush> later;
    o.flush_later = &later;
    test::RecordingReporter rep;
    auto r = download_files(items, test::test_http_options(f.dir.path()), rep, o);
    ASSERT_TRUE(later);
    EXPECT_EQ(rep.all_text().find("flushed to disk together"), std::string::npos) << "told when waited for";
    for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_TRUE(r[i].ok()) << text(*r[i].error);
        EXPECT_EQ(r[i].path, items[i].dest);
        EXPECT_EQ(*sha256_file_hex(items[i].dest), items[i].sha256);
    }
    EXPECT_TRUE(later->wait(rep).empty());
    for (const auto& it : items) EXPECT_FALSE(std::filesystem::exists(unsynced_marker(it.dest))) << it.dest;
    EXPECT_NE(rep.all_text().find(std::to_string(items.size()) + " downloaded files flushed to disk together in "), std::string::npos)
        << rep.all_text();
    EXPECT_TRUE(later->wait(rep).empty());  // once
    EXPECT_EQ(std::count_if(rep.notes.begin(), rep.notes.end(),
                            [](const std::string& n) { return n.find("flushed to disk together") != std::string::npos; }),
              1);
    // Nothing downloaded, nothing to flush: no PendingFlush.
    std::unique_ptr<PendingFlush> none;
    o.flush_later = &none;
    auto off = test::test_http_options(f.dir.path());
    off.offline = true;
    auto n = download_files({items[0]}, off, envfix::null_reporter(), o);
    EXPECT_FALSE(n[0].ok());
    EXPECT_FALSE(none);
}

TEST(Downloader, FilesFlushedOneByOneAreHandedOverWithoutMarkers) { expect_handed_over_in_place(DownloadFlush::EachFile); }

#ifdef __linux__
TEST(Downloader, FilesLeftUnflushedStayBesideMarkersNamingThisBoot) {
    // DownloadFlush::Leave (an install's wheels): no flush at all, not even one left running; each
    // file stays beside a marker naming this boot, which a later run of this boot trusts.
    ASSERT_FALSE(unsynced_marker_text().empty());
    EXPECT_EQ(unsynced_marker_text(), "envfix-unsynced 1\n" + *envfix::platform::boot_id() + "\n");
    Files f;
    const auto files = every_file(f);
    const auto& items = files.first;
    auto o = split_options(files.second);
    o.flush = DownloadFlush::Leave;
    std::unique_ptr<PendingFlush> later;
    o.flush_later = &later;
    test::RecordingReporter rep;
    auto r = download_files(items, test::test_http_options(f.dir.path()), rep, o);
    EXPECT_FALSE(later);
    EXPECT_EQ(rep.all_text().find("flushed to disk together"), std::string::npos) << rep.all_text();
    for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_TRUE(r[i].ok()) << text(*r[i].error);
        EXPECT_EQ(*sha256_file_hex(items[i].dest), items[i].sha256);
        EXPECT_EQ(*envfix::fs::read_file(unsynced_marker(items[i].dest)), unsynced_marker_text()) << items[i].dest;
    }
    // Measuring the old way: ENVFIX_DOWNLOAD_FLUSH=batch flushes them together.
    ::setenv("ENVFIX_DOWNLOAD_FLUSH", "batch", 1);
    EXPECT_EQ(chosen_flush(DownloadFlush::Leave), DownloadFlush::Batch);
    EXPECT_EQ(chosen_flush(DownloadFlush::EachFile), DownloadFlush::EachFile);
    ::unsetenv("ENVFIX_DOWNLOAD_FLUSH");
    EXPECT_EQ(chosen_flush(DownloadFlush::Leave), DownloadFlush::Leave);
}

TEST(Downloader, AFileBesideAMarkerOfThisBootIsTrustedAndFlushedOnceTheMarkerIsAMinuteOld) {
    // This boot wrote it and checked it: no crash can have cut it short since (that would have
    // been a new boot), so it is taken without hashing 900 MB again; bytes that do not match its
    // hash here only show that no hash was computed.
    TempDir d;
    const auto sha = sha256_hex("wheel bytes");
    auto young = d.path() / "young.whl", old = d.path() / "old.whl", other = d.path() / "other.whl";
    for (const auto& p : {young, old, other}) {
        std::ofstream(p, std::ios::binary) << "not the bytes";
        std::ofstream(unsynced_marker(p), std::ios::binary)
            << (p == other ? std::string("envfix-unsynced 1\nanother-boot\n") : unsynced_marker_text());
    }
    std::filesystem::last_write_time(unsynced_marker(old), std::filesystem::file_time_type::clock::now() - std::chrono::minutes(2));
    EXPECT_TRUE(settle_unsynced(young, sha));
    EXPECT_TRUE(std::filesystem::exists(unsynced_marker(young))) << "kept until the file is surely written back";
    EXPECT_TRUE(settle_unsynced(old, sha));
    EXPECT_FALSE(std::filesystem::exists(unsynced_marker(old))) << "flushed, so no longer needed";
    EXPECT_TRUE(std::filesystem::exists(old));
    // Another boot's marker: the file is checked, and these bytes are not the wheel's.
    EXPECT_FALSE(settle_unsynced(other, sha));
    EXPECT_FALSE(std::filesystem::exists(other));
    EXPECT_FALSE(std::filesystem::exists(unsynced_marker(other)));
}
#endif

#ifndef _WIN32
TEST(Downloader, AWriteFailingOnTheWritersThreadFailsItsFileAndLeavesNothingUnderItsName) {
    // Each transfer's bytes are written on a thread of its own (transfer_writer.hpp): a write that
    // fails there (here over RLIMIT_FSIZE, EFBIG, as a full disk would) fails that file alone.
    Files f;
    const auto files = every_file(f);
    const auto& items = files.first;
    const uint64_t limit = files.second;  // the larger half cannot be written
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit old_limit {};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
    struct rlimit small = old_limit;
    small.rlim_cur = limit;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
    auto r = download_files(items, test::test_http_options(f.dir.path()), envfix::null_reporter(), split_options(limit / 2));
    setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    size_t failed = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        EXPECT_FALSE(std::filesystem::exists(unsynced_marker(items[i].dest)));
        if (*items[i].size <= limit) {
            ASSERT_TRUE(r[i].ok()) << text(*r[i].error);
            EXPECT_EQ(*sha256_file_hex(items[i].dest), items[i].sha256);
            continue;
        }
        ++failed;
        ASSERT_FALSE(r[i].ok()) << items[i].dest;
        EXPECT_EQ(r[i].error->message.key, "download.cannot_write") << text(*r[i].error);
        EXPECT_EQ(r[i].error->code, ExitCode::DiskFull);
        EXPECT_FALSE(std::filesystem::exists(items[i].dest));
    }
    EXPECT_GT(failed, 0u);
}
#endif

TEST(Downloader, EnvfixDownloadFlushEachFlushesEveryFileBeforeItsRename) {
    ::unsetenv("ENVFIX_DOWNLOAD_FLUSH");
    EXPECT_EQ(DownloadOptions{}.flush, DownloadFlush::Batch);
    EXPECT_EQ(chosen_flush(DownloadFlush::Batch), DownloadFlush::Batch);
    ::setenv("ENVFIX_DOWNLOAD_FLUSH", "each", 1);
    EXPECT_EQ(chosen_flush(DownloadFlush::Batch), DownloadFlush::EachFile);
    ::setenv("ENVFIX_DOWNLOAD_FLUSH", "sometimes", 1);
    EXPECT_EQ(chosen_flush(DownloadFlush::Batch), DownloadFlush::Batch);
    ::unsetenv("ENVFIX_DOWNLOAD_FLUSH");
}

TEST(Downloader, AFileLeftBesideItsMarkerIsKeptOnlyWhenItsBytesStillMatchItsHash) {
    // What a crash between a batch's renames and its flush leaves: the file under its name, its
    // marker beside it, and bytes that may or may not have reached the disk.
    TempDir d;
    const std::string bytes = "wheel bytes";
    const auto sha = sha256_hex(bytes);
    auto good = d.path() / "good.whl", bad = d.path() / "bad.whl";
    for (const auto& p : {good, bad}) {
        std::ofstream(p, std::ios::binary) << (p == good ? bytes : std::string(bytes.size(), '\0'));
        std::ofstream(unsynced_marker(p)).flush();
    }
    EXPECT_TRUE(settle_unsynced(good, sha));
    EXPECT_TRUE(std::filesystem::exists(good));
    EXPECT_FALSE(std::filesystem::exists(unsynced_marker(good)));
    EXPECT_FALSE(settle_unsynced(bad, sha));
    EXPECT_FALSE(std::filesystem::exists(bad));
    EXPECT_FALSE(std::filesystem::exists(unsynced_marker(bad)));
}

TEST(PartProgress, HasSaysWhatIsWrittenWithoutWaiting) {
    // Two ranges and a tail; what a reader may read at once, across the ranges' ends.
    PartProgress p({{0, 100, 0}, {100, 100, 0}, {200, 50, 0}}, 250);
    EXPECT_FALSE(p.has(0, 1));
    p.advance(0, 100);
    p.advance(1, 30);
    EXPECT_TRUE(p.has(0, 100));
    EXPECT_TRUE(p.has(50, 80));  // into the second range, as far as it is written
    EXPECT_FALSE(p.has(50, 81));
    EXPECT_TRUE(p.has(10, 0));
    p.advance(1, 100);
    p.advance(2, 50);
    EXPECT_TRUE(p.has(0, 250));
    EXPECT_FALSE(p.has(0, 251));  // past the file's end
    EXPECT_FALSE(p.has(~uint64_t{0}, 2));
    p.give_up();  // bytes that may be written again: none to read
    EXPECT_FALSE(p.has(0, 1));
}
