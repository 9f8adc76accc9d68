// Parallel downloads against the test server: hashes, sizes, resume, retries, progress.
#include <gtest/gtest.h>

#include "envfix/common/hash.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/resolver/downloader.hpp"
#include "index_fixtures.hpp"

using namespace envfix;
using namespace envfix::resolver;
using envfix::test::TempDir;

namespace {

const auto text = test::error_text;

struct Files : test::ServedIndex {
    Files()
        : ServedIndex({"--variants", "cu128", "--pythons", "cp311,cp312", "--platforms", "manylinux_2_28_x86_64,win_amd64",
                       "--torch", "2.7.0", "--only", "torch,torchvision,torchaudio,triton"}) {}
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
    EXPECT_EQ(text(*r[0].error), item.url + " does not match the index's hash: expected sha256 " + item.sha256 + ", got " +
                                     rec["sha256"].get<std::string>());
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
