#pragma once
// How the probe's answer is shown: the JSON objects of `envfix probe --json` (docs/json.md), the
// driver line and the GPU table. probe, verify (and doctor) share them so they read the same.
#include <string>
#include <vector>

#include "envfix/common/error.hpp"
#include "envfix/probe/gpu_probe.hpp"
#include "output.hpp"

namespace envfix::cli {

Json driver_json(const probe::DriverInfo& d);
Json gpu_json(const probe::Gpu& g);
Json messages_json(const std::vector<Message>& list);  // [{"key", "message"}]
// The whole `envfix probe --json` document.
Json probe_json(const probe::MachineProbe& m);

// "NVIDIA driver 580.159.04 (from NVML), runs CUDA 13.0 and older" ("" when nothing is known).
std::string driver_summary(const probe::DriverInfo& d);
std::string gpu_table(const std::vector<probe::Gpu>& gpus);
std::string memory_mib(uint64_t bytes);  // "143771 MiB"

// A command that prints its own document on failure still says why on stderr, as run.cpp does.
void print_error_line(const Error& e);

}  // namespace envfix::cli
