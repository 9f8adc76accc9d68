// profiles/gpus/devices.yaml is what profiles/tools/gen-gpus.py makes from pci.ids: regenerating
// it from the same inputs gives the committed file (when this machine has the same pci.ids).
#include <gtest/gtest.h>

#include <filesystem>

#include "support.hpp"

using namespace envfix;

TEST(GenGpus, CommittedTableMatchesTheGenerator) {
    const std::filesystem::path pci_ids = "/usr/share/misc/pci.ids";
    if (!std::filesystem::exists(pci_ids)) GTEST_SKIP() << "no " << pci_ids << " (Debian package pci.ids)";
    std::string committed = test::read_text(test::source_dir() / "profiles/gpus/devices.yaml");
    std::string head = test::read_text(pci_ids).substr(0, 400);
    auto at = head.find("Version: ");
    ASSERT_NE(at, std::string::npos);
    std::string version = head.substr(at + 9, head.find('\n', at) - at - 9);
    if (committed.find("\"pci.ids " + version + " ") == std::string::npos)
        GTEST_SKIP() << "devices.yaml was generated from another pci.ids than " << version;
    auto r = test::run_program({test::test_python().string(), (test::source_dir() / "profiles/tools/gen-gpus.py").string(), "--check"});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(GenGpus, MapsChipFamiliesWithTheirExceptions) {
    test::TempDir dir;
    // A made-up pci.ids excerpt: the rules and exceptions of gen-gpus.py, one device each.
    test::write_text(dir / "pci.ids", "# Version: 2099.01.01\n10de  NVIDIA Corporation\n"
                                      "\t1001  GK110B [GeForce GTX TITAN Z]\n\t102d  GK210GL [Tesla K80]\n"
                                      "\t1b06  GP102 [GeForce GTX 1080 Ti]\n\t15f7  GP100GL [Tesla P100 PCIe 12GB]\n"
                                      "\t20b0  GA100 [A100 SXM4 40GB]\n\t2204  GA102 [GeForce RTX 3090]\n"
                                      "\t22ba  AD102 High Definition Audio Controller\n\t2684  AD102 [GeForce RTX 4090]\n"
                                      "\t2330  GH100[H100 SXM5 80GB]\n\t2901  GB100 [B200]\n\t3182  GB110 [B300 SXM6 AC]\n"
                                      "\t2b00  GB10B [Jetson AGX Thor]\n\t2e12  GB20B [GB10]\n\t2b85  GB202 [GeForce RTX 5090]\n"
                                      "\t2717  AD103M / GN21-X11 [GeForce RTX 4090 Laptop GPU]\n\t3200  GB112\n"
                                      "\t0de1  GF108 [GeForce GT 430]\n10df  Emulex Corporation\n\t1ae5  LP6000\n");
    test::write_text(dir / "empty.update", "");
    auto out = dir / "devices.yaml";
    auto r = test::run_program({test::test_python().string(), (test::source_dir() / "profiles/tools/gen-gpus.py").string(), "--pci-ids",
                                (dir / "pci.ids").string(), "--update", (dir / "empty.update").string(), "--out", out.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    std::string text = test::read_text(out);
    for (const char* row : {R"({id: "1001", chip: GK110B, cc: "3.5")", R"({id: "102d", chip: GK210GL, cc: "3.7")",
                            R"({id: "1b06", chip: GP102, cc: "6.1")", R"({id: "15f7", chip: GP100GL, cc: "6.0")",
                            R"({id: "20b0", chip: GA100, cc: "8.0")", R"({id: "2204", chip: GA102, cc: "8.6")",
                            R"({id: "2684", chip: AD102, cc: "8.9", name: "GeForce RTX 4090"})", R"({id: "2330", chip: GH100, cc: "9.0")",
                            R"({id: "2901", chip: GB100, cc: "10.0")", R"({id: "3182", chip: GB110, cc: "10.3")",
                            R"({id: "2b00", chip: GB10B, cc: "11.0")", R"({id: "2e12", chip: GB20B, cc: "12.1")",
                            R"({id: "2b85", chip: GB202, cc: "12.0")", R"({id: "2717", chip: AD103M, cc: "8.9")"})
        EXPECT_NE(text.find(row), std::string::npos) << row << "\n" << text;
    for (const char* absent : {"22ba", "3200", "0de1", "1ae5"}) EXPECT_EQ(text.find(std::string("\"") + absent + "\""), std::string::npos) << absent;
    EXPECT_NE(text.find("origin: \"pci.ids 2099.01.01"), std::string::npos);
}
