#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "envfix/common/fs.hpp"
#include "support.hpp"

using namespace envfix;

namespace {
// Whether the mapping holding `addr` was advised MADV_RANDOM: its "rr" flag in /proc/self/smaps.
std::optional<bool> reads_scattered(const void* addr) {
    std::ifstream smaps("/proc/self/smaps");
    const auto at = reinterpret_cast<uintptr_t>(addr);
    bool in = false;
    for (std::string line; std::getline(smaps, line);) {
        uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream head(line);
        if (line.find(':') > line.find(' ') && head >> std::hex >> lo >> dash >> hi && dash == '-') {
            in = lo <= at && at < hi;
        } else if (in && line.rfind("VmFlags:", 0) == 0) {
            std::istringstream flags(line.substr(8));
            for (std::string f; flags >> f;)
                if (f == "rr") return true;
            return false;
        }
    }
    return std::nullopt;
}
}  // namespace

TEST(Fs, AtomicWriteReplacesAndLeavesNoTemp) {
    test::TempDir d;
    auto p = d / "f.txt";
    ASSERT_TRUE(fs::write_file_atomic(p, "one"));
    ASSERT_TRUE(fs::write_file_atomic(p, "two"));
    EXPECT_EQ(*fs::read_file(p), "two");
    int count = 0;
    for (auto& e : std::filesystem::directory_iterator(d.path())) { (void)e; ++count; }
    EXPECT_EQ(count, 1);
}

TEST(Fs, WriteIntoReadOnlyFolderIsPermissionDenied) {
    if (::geteuid() == 0) GTEST_SKIP() << "root ignores folder permissions";
    test::TempDir d;
    ::chmod(d.path().c_str(), 0555);
    auto r = fs::write_file_atomic(d / "f", "x");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::PermissionDenied);
}

TEST(Fs, ReadMissingFileNamesIt) {
    auto r = fs::read_file("/nonexistent/x");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message.arg("path"), "/nonexistent/x");
}

// /proc files say 0 bytes and /sys files 4096 whatever they hold; the probe reads the boot id and
// /sys/module/nvidia/version through read_file.
TEST(Fs, ReadsPseudoFilesToTheirEnd) {
    auto boot = fs::read_file("/proc/sys/kernel/random/boot_id");
    ASSERT_TRUE(boot) << render(boot.error().message, Lang::En);
    EXPECT_EQ(boot->size(), 37u) << *boot;  // a UUID and a newline
    const char* sys_file = "/sys/kernel/mm/transparent_hugepage/enabled";
    if (!std::filesystem::exists(sys_file)) GTEST_SKIP() << sys_file << " is not on this machine";
    auto sys = fs::read_file(sys_file);
    ASSERT_TRUE(sys) << render(sys.error().message, Lang::En);
    EXPECT_FALSE(sys->empty());
    EXPECT_LT(sys->size(), 4096u);
}

TEST(Fs, MapAndIdentity) {
    test::TempDir d;
    test::write_text(d / "m", "hello");
    auto m = fs::MappedFile::open(d / "m");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->bytes(), "hello");
    auto a = fs::identity(d / "m");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->size, 5u);
    test::write_text(d / "m", "hello!");
    EXPECT_NE(*a, *fs::identity(d / "m"));
    test::write_text(d / "empty", "");
    auto e = fs::MappedFile::open(d / "empty");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->size(), 0u);
}

// Fatbins' headers are read page by page (docs/binaries.md, "Where the GPU code is"),
// unless /sys says the disk rotates, off a virtual machine's bus; ENVFIX_SCATTERED_READS
// overrides what it says.
TEST(Fs, MapExpectsScatteredReadsUnlessTheDiskSaysItRotates) {
#ifndef __linux__
    GTEST_SKIP() << "the advice is Linux's";
#else
    test::TempDir d;
    test::write_text(d / "lib", std::string(3 * 4096, 'x'));
    struct stat st {};
    ASSERT_EQ(::stat((d / "lib").c_str(), &st), 0);
    const std::string dev = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    // A disk that rotates; a partition (no queue of its own) of one that does not; a virtual
    // machine's disk, which says it rotates whatever backs it.
    auto disk = [&](const char* root, const std::string& device, const char* rotational, const std::string& partition = "") {
        const auto devices = d / root / "sys" / "devices";
        test::write_text(devices / device / "queue" / "rotational", rotational);
        const std::string linked = partition.empty() ? device : device + "/" + partition;
        std::filesystem::create_directories(devices / linked);
        std::filesystem::create_directories(d / root / "sys" / "dev" / "block");
        std::filesystem::create_symlink("../../devices/" + linked, d / root / "sys" / "dev" / "block" / dev);
    };
    disk("rotating", "pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0/block/sda", "1\n");
    disk("flash", "pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1", "0\n", "nvme0n1p2");
    disk("vm", "pci0000:00/0000:00:02.0/virtio1/block/vda", "1\n");
    test::EnvChanges env;

    auto m = fs::MappedFile::open(d / "lib");
    ASSERT_TRUE(m);
    const void* at = m->bytes().data();
    ASSERT_EQ(reads_scattered(at), false);
    auto scattered = [&](const std::string& root, std::optional<std::string> forced) {
        env.set("ENVFIX_SYSROOT", root);
        env.set("ENVFIX_SCATTERED_READS", forced);
        m->expect_reads(fs::MappedFile::Reads::Ahead);
        m->expect_reads(fs::MappedFile::Reads::Scattered);
        return reads_scattered(at);
    };
    const std::string rotating = (d / "rotating").string(), flash = (d / "flash").string(), vm = (d / "vm").string();
    EXPECT_EQ(scattered(rotating, std::nullopt), false);
    EXPECT_EQ(scattered(flash, std::nullopt), true);
    EXPECT_EQ(scattered(vm, std::nullopt), true);
    EXPECT_EQ(scattered(rotating, "1"), true);
    EXPECT_EQ(scattered(flash, "0"), false);
    m->expect_reads(fs::MappedFile::Reads::Ahead);
    EXPECT_EQ(reads_scattered(at), false);
    EXPECT_EQ(m->bytes(), std::string(3 * 4096, 'x'));
#endif
}
