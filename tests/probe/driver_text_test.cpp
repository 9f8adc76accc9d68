// The readers of the driver's texts: /sys, /proc, nvidia-smi, library names, UUIDs.
#include <gtest/gtest.h>

#include "envfix/probe/driver_text.hpp"

using namespace envfix::probe;

namespace {
std::string or_none(const std::optional<DriverVersion>& v) { return v ? v->to_string() : "none"; }
}  // namespace

TEST(DriverText, ProcDriverVersion) {
    struct Case {
        const char* text;
        const char* want;
    } cases[] = {
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Jul 10 19:25:01 UTC 2025\n"
         "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n",
         "580.159.04"},
        {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.07  Release Build  "
         "(dvs-builder@U16-I3-B03-4-3)  Fri Mar 14 13:12:07 UTC 2025\n",
         "570.133.07"},
        // The H200 test machine's, as captured there.
        {"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n"
         "GCC version:  gcc version 15.3.0 (GCC) \n",
         "580.159.04"},
        {"NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.65.06  Release Build  (dvs-builder@x)\n",
         "580.65.06"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  390.157  Wed Oct 12 09:19:07 UTC 2022\n", "390.157"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024", "470.256.02"},
        {"", "none"},
        {"GCC version:  gcc version 12.2.0\n", "none"},
        {"NVRM version: something else entirely\n", "none"},
        {"NVRM version: NVIDIA UNIX x86_64 Kernel Module  Release Build 2025\n", "none"},
    };
    for (const auto& c : cases) EXPECT_EQ(or_none(parse_proc_driver_version(c.text)), c.want) << c.text;
}

TEST(DriverText, SysModuleVersion) {
    EXPECT_EQ(or_none(parse_sys_module_version("580.159.04\n")), "580.159.04");
    EXPECT_EQ(or_none(parse_sys_module_version("  575.57.08  ")), "575.57.08");
    EXPECT_EQ(or_none(parse_sys_module_version("")), "none");
    EXPECT_EQ(or_none(parse_sys_module_version("580")), "none");  // a bare number is no driver version
    EXPECT_EQ(or_none(parse_sys_module_version("garbage\n")), "none");
}

TEST(DriverText, NvidiaSmiOutput) {
    struct Case {
        const char* out;
        const char* want;
    } cases[] = {
        {"580.159.04\n", "580.159.04"},
        {"580.95.05\n580.95.05\n", "580.95.05"},  // one line per GPU
        {"572.61\r\n", "572.61"},                 // Windows
        {"", "none"},
        {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
         "NVIDIA driver is installed and running.\n",
         "none"},
        {"Failed to initialize NVML: Driver/library version mismatch\n", "none"},
        {"580.95.05\n570.133.07\n", "none"},  // cannot be: refuse to guess
    };
    for (const auto& c : cases) EXPECT_EQ(or_none(parse_nvidia_smi_driver_version(c.out)), c.want) << c.out;
}

TEST(DriverText, VersionFromLibraryFileName) {
    EXPECT_EQ(or_none(driver_version_from_library_name("libcuda.so.580.159.04")), "580.159.04");
    EXPECT_EQ(or_none(driver_version_from_library_name("libcuda.so.1")), "none");
    EXPECT_EQ(or_none(driver_version_from_library_name("libcuda.so")), "none");
    EXPECT_EQ(or_none(driver_version_from_library_name("nvcuda.dll")), "none");
}

TEST(DriverText, GpuUuidLooksLikeNvidiaSmis) {
    const unsigned char bytes[16] = {0x5a, 0x1c, 0x2b, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                     0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9};
    EXPECT_EQ(format_gpu_uuid(bytes), "GPU-5a1c2b3d-4e5f-6071-8293-a4b5c6d7e8f9");
}

TEST(DriverText, PciBusIdsCompareAcrossApis) {
    EXPECT_EQ(normalize_pci_bus_id("00000000:01:00.0"), "0000:01:00.0");  // NVML
    EXPECT_EQ(normalize_pci_bus_id("00000000:00:06.0"), "0000:00:06.0");  // the H200's
    EXPECT_EQ(normalize_pci_bus_id("0000:65:00.0"), "0000:65:00.0");      // Driver API
    EXPECT_EQ(normalize_pci_bus_id("0000:B3:00.0"), "0000:b3:00.0");
    EXPECT_EQ(normalize_pci_bus_id("00000001:1A:00.0"), "0001:1a:00.0");
}
