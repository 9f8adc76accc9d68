// Ctrl-C during a download: the transfer stops, only the .part file stays. Its own binary,
// because the interrupt flag, once raised, stays raised for the process.
#include <gtest/gtest.h>

#include "envfix/common/hash.hpp"
#include "envfix/common/interrupt.hpp"
#include "envfix/network/downloader.hpp"
#include "index_fixtures.hpp"

using namespace envfix;
using namespace envfix::network;

TEST(DownloaderInterrupt, CtrlCLeavesOnlyPartFiles) {
    test::TempDir dir;
    // One large file, served slowly enough to be interrupted in the middle.
    std::string big(4 << 20, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7919 % 251);
    test::write_text(dir / "files/big.whl", big);
    test::IndexServer server(dir / "files", dir / "server");
    test::RecordingReporter rep;
    rep.on_advance = [](int, uint64_t done) {
        if (done > 0) request_interrupt();
    };
    DownloadItem item{server.url("/big.whl"), sha256_hex(big), big.size(), dir / "out/big.whl", ""};
    auto r = download_files({item}, test::test_http_options(dir.path()), rep);
    ASSERT_FALSE(r[0].ok());
    EXPECT_EQ(r[0].error->code, ExitCode::Interrupted);
    EXPECT_FALSE(std::filesystem::exists(item.dest));
    ASSERT_TRUE(std::filesystem::exists(part_path(item.dest)));
    EXPECT_LT(std::filesystem::file_size(part_path(item.dest)), big.size());
    ASSERT_EQ(rep.tasks.size(), 1u);
    EXPECT_TRUE(rep.tasks[0].ended);
    EXPECT_FALSE(rep.tasks[0].ok);
}
