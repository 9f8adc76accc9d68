// envfix.exe's first commands under Wine: the version, the driver through nvcuda.dll and
// nvml.dll (the stand-ins, cross-built from tests/standin's C sources), the WDDM and TCC driver
// models, no driver at all, and the output: JSON always UTF-8, Chinese messages.
#include <gtest/gtest.h>

#include "wine_fixture.hpp"

namespace envfix::test::wine {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Probe : public WineTest {
protected:
    // probe --json with the stand-in driver's answers (one RTX 5090, WDDM) and no ENVFIX_LIBCUDA /
    // ENVFIX_LIBNVML: the driver is found where the test put it, or nowhere.
    nlohmann::ordered_json probe_without_settings() {
        EnvList env = standin(rtx5090(",model=wddm"));
        std::erase_if(env, [](const auto& kv) { return kv.first == "ENVFIX_LIBCUDA" || kv.first == "ENVFIX_LIBNVML"; });
        auto r = envfix({"probe", "--json"}, env);
        EXPECT_EQ(r.code, 0) << r.out << r.err;
        auto doc = r.code == 0 ? r.json() : nlohmann::ordered_json::object();
        EXPECT_EQ(doc["devices"][0]["name"], "NVIDIA GeForce RTX 5090") << r.out;
        return doc;
    }
};

TEST_F(Probe, Version) {
    auto r = envfix({"--version"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, std::string("envfix ") + ENVFIX_VERSION)) << r.out;
}

// A fresh Windows: no nvcuda.dll in System32.
TEST_F(Probe, NoDriver) {
    auto r = envfix({"probe"});
    EXPECT_EQ(r.code, 10) << r.out << r.err;
    EXPECT_TRUE(has(r.out + r.err, "nvcuda.dll")) << r.out << r.err;
    auto j = envfix({"probe", "--json"});
    EXPECT_EQ(j.code, 10);
    EXPECT_EQ(j.json()["driver"]["library"], nullptr);
    EXPECT_EQ(j.json()["error"]["exit_code"], 10) << j.out;
}

TEST_F(Probe, StandinDriverWddm) {
    auto r = envfix({"probe"}, standin(rtx5090(",model=wddm")));
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_TRUE(has(r.out, "NVIDIA driver 570.133.07 (from NVML), runs CUDA 12.8")) << r.out;
    EXPECT_TRUE(has(r.out, "NVIDIA GeForce RTX 5090")) << r.out;
    EXPECT_TRUE(has(r.out, "12.0 (sm_120)")) << r.out;
    EXPECT_TRUE(has(r.out, "driver model")) << r.out;
    EXPECT_TRUE(has(r.out, "WDDM")) << r.out;
    auto j = envfix({"probe", "--json"}, standin(rtx5090(",model=wddm")));
    ASSERT_EQ(j.code, 0) << j.err;
    auto doc = j.json();
    EXPECT_TRUE(has(doc["driver"]["library"].get<std::string>(), "standin\\nvcuda.dll")) << j.out;
    EXPECT_TRUE(has(doc["driver"]["nvml_library"].get<std::string>(), "standin\\nvml.dll")) << j.out;
    EXPECT_EQ(doc["devices"][0]["name"], "NVIDIA GeForce RTX 5090");
    EXPECT_EQ(doc["devices"][0]["sm"], "sm_120");
    EXPECT_EQ(doc["devices"][0]["driver_model"], "WDDM");
}

// A data-centre card in TCC mode (NVML's "WDM"); a driver that cannot tell has no column.
TEST_F(Probe, StandinDriverTccAndNoModel) {
    auto tcc = envfix({"probe", "--json"}, standin("name=NVIDIA H200 NVL,cc=9.0,mem=143771MiB,sms=132,model=tcc"));
    ASSERT_EQ(tcc.code, 0) << tcc.err;
    EXPECT_EQ(tcc.json()["devices"][0]["driver_model"], "TCC");
    auto none = envfix({"probe"}, standin(rtx5090()));
    ASSERT_EQ(none.code, 0) << none.err;
    EXPECT_FALSE(has(none.out, "driver model")) << none.out;
    EXPECT_EQ(envfix({"probe", "--json"}, standin(rtx5090())).json()["devices"][0]["driver_model"], nullptr);
}

// Where the NVIDIA installer puts the driver's DLLs: found by bare name, with no setting.
TEST_F(Probe, DriverInSystem32) {
    stdfs::copy_file(build_dir() / "standin/nvcuda.dll", system32() / "nvcuda.dll", stdfs::copy_options::overwrite_existing);
    stdfs::copy_file(build_dir() / "standin/nvml.dll", system32() / "nvml.dll", stdfs::copy_options::overwrite_existing);
    auto doc = probe_without_settings();
    EXPECT_TRUE(has(doc["driver"]["library"].dump(), "nvcuda.dll")) << doc.dump();
    EXPECT_EQ(doc["devices"][0]["driver_model"], "WDDM");
}

// A DCH driver's own folder in the DriverStore (nvcuda64.dll, nvml.dll), with no copy in System32.
TEST_F(Probe, DriverInTheDriverStore) {
    const auto store = system32() / "DriverStore/FileRepository/nv_dispi.inf_amd64_5a1f0c2e9b7d4e61";
    stdfs::create_directories(store);
    stdfs::copy_file(build_dir() / "standin/nvcuda.dll", store / "nvcuda64.dll");
    stdfs::copy_file(build_dir() / "standin/nvml.dll", store / "nvml.dll");
    auto doc = probe_without_settings();
    EXPECT_TRUE(has(doc["driver"]["library"].dump(), "nv_dispi.inf_amd64_5a1f0c2e9b7d4e61")) << doc.dump();
    EXPECT_TRUE(has(doc["driver"]["nvml_library"].dump(), "nv_dispi.inf_amd64_5a1f0c2e9b7d4e61\\\\nvml.dll")) << doc.dump();
}

// --json is UTF-8 whatever the language (nlohmann's parser rejects anything else); Chinese
// messages come from ENVFIX_LANG or the locale Wine takes from LANG.
TEST_F(Probe, ChineseMessagesAndUtf8Json) {
    auto j = envfix({"probe", "--json"}, {{"ENVFIX_LANG", "zh"}});
    EXPECT_EQ(j.code, 10);
    auto message = j.json()["error"]["message"].get<std::string>();
    EXPECT_TRUE(has(message, "驱动")) << message;
    auto text = envfix({"probe"}, [] {
        auto e = standin(rtx5090());
        e.push_back({"ENVFIX_LANG", "zh"});
        return e;
    }());
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_TRUE(has(text.out, "计算能力")) << text.out;
    EXPECT_TRUE(has(text.out, "NVIDIA 驱动 570.133.07")) << text.out;
    // No ENVFIX_LANG: the locale variables, as on Linux.
    auto lang = envfix({"probe"}, [] {
        auto e = standin(rtx5090());
        e.push_back({"ENVFIX_LANG", ""});
        e.push_back({"LANG", "zh_CN.UTF-8"});
        return e;
    }());
    ASSERT_EQ(lang.code, 0) << lang.err;
    EXPECT_TRUE(has(lang.out, "计算能力")) << lang.out;
}

}  // namespace
}  // namespace envfix::test::wine
