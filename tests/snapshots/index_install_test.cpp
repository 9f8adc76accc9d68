// `envfix install` from the index end to end: the built binary against the PyTorch-like test
// index (mkindex.py) served on 127.0.0.1, real venvs, the machine described by --gpu/--driver.
// Installing, switching cu126 -> cu128 in place, rolling back, the wheel cache, and bad input
// from the index leaving the environment byte for byte as it was.
#include <gtest/gtest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <regex>
#include <set>
#include <fstream>
#include <thread>

#include "envfix/common/fs.hpp"
#include "envfix/common/hash.hpp"
#include "envfix/network/downloader.hpp"
#include "index_fixtures.hpp"
#include "install_fixtures.hpp"
#include "support.hpp"

using namespace envfix::test;
namespace stdfs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

ServedIndex* world = nullptr;  // the running suite's index

class IndexInstall : public ::testing::Test {
protected:
    // The suite's index: torch 2.7.0's cu126 and cu128 stacks for cp311 on Linux, and `extra`.
    static void serve(std::vector<std::string> extra) {
        std::vector<std::string> args{"--variants", "cu126,cu128", "--torch", "2.7.0", "--pythons", "cp311", "--platforms",
                                      "manylinux_2_28_x86_64"};
        args.insert(args.end(), extra.begin(), extra.end());
        world = new ServedIndex(args);
    }
    static void SetUpTestSuite() { serve({}); }
    static void TearDownTestSuite() {
        delete world;
        world = nullptr;
    }
    void TearDown() override { world->server->set_faults(Json::object()); }

    TempDir dir{"idx"};
    stdfs::path venv = dir / "venv";
    stdfs::path home = dir / "home";
    void SetUp() override { make_bare_venv(venv); }

    std::vector<std::string> install_args(const std::string& variant, std::vector<std::string> extra = {},
                                          const std::string& root = "") const {
        std::string r = root.empty() ? world->server->url("/") : root;
        std::vector<std::string> a{"install", "--env", venv.string(), "--pytorch-index", r, "--index-url", r + variant + "/",
                                   "--gpu", "RTX 4090", "--driver", "570.133.07", "--variant", variant};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    RunResult envfix(const std::vector<std::string>& args) { return run_envfix(args, {}, home); }
    Tree state() { return snapshot(venv, {".envfix"}); }
    std::vector<std::string> dist_infos() {
        std::vector<std::string> out;
        for (const auto& e : stdfs::directory_iterator(site_packages(venv)))
            if (e.path().extension() == ".dist-info") out.push_back(e.path().filename().string());
        std::sort(out.begin(), out.end());
        return out;
    }
    // The manifest record of `project`'s wheel in `variant`.
    static Json wheel_record(const std::string& project, const std::string& variant) {
        for (const auto& f : world->manifest["files"])
            if (f["project"] == project && f["variant"] == variant && f["filename"].get<std::string>().ends_with(".whl")) return f;
        ADD_FAILURE() << "no " << project << " in " << variant;
        return Json::object();
    }
    std::string wheel_path(const std::string& project, const std::string& variant) {
        auto f = wheel_record(project, variant);
        return f.contains("path") ? world->url_path(f) : "";
    }
};

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_F(IndexInstall, InstallSwitchVariantRollBackAndReinstallFromCache) {
    auto r = envfix(install_args("cu126", {"--json"}));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    EXPECT_EQ(j["plan"]["variant"], "cu126");
    EXPECT_FALSE(j["snapshot"].is_null());
    auto d = dist_infos();
    EXPECT_TRUE(has(d, "torch-2.7.0+cu126.dist-info"));
    EXPECT_TRUE(has(d, "torchvision-0.22.0+cu126.dist-info"));
    EXPECT_TRUE(has(d, "nvidia_cublas_cu12-12.6.4.1.dist-info"));
    auto cu126 = state();

    // The cache holds every wheel, named by its hash.
    auto c = envfix({"--json", "cache", "list"});
    ASSERT_EQ(c.code, 0) << c.err;
    EXPECT_EQ(c.json()["wheels"].size(), j["installed"].size());

    // The switch: every CUDA 12.6 package out, the 12.8 ones in, one transaction.
    auto s = envfix(install_args("cu128", {"--json"}));
    ASSERT_EQ(s.code, 0) << s.err;
    d = dist_infos();
    EXPECT_TRUE(has(d, "torch-2.7.0+cu128.dist-info"));
    EXPECT_FALSE(has(d, "torch-2.7.0+cu126.dist-info"));
    EXPECT_TRUE(has(d, "nvidia_cublas_cu12-12.8.3.14.dist-info"));
    EXPECT_FALSE(has(d, "nvidia_cublas_cu12-12.6.4.1.dist-info"));
    for (const auto& name : d) EXPECT_EQ(name.find("cu126"), std::string::npos) << name;
    auto cu128 = state();

    // Rolling back needs no index: the server stops answering.
    world->server->set_faults({{"*", {{"status", 503}}}});
    auto b = envfix({"rollback", "--env", venv.string()});
    ASSERT_EQ(b.code, 0) << b.err;
    EXPECT_EQ(tree_diff(cu126, state()), "");
    ASSERT_EQ(envfix({"rollback", "--env", venv.string()}).code, 0);  // undone
    EXPECT_EQ(tree_diff(cu128, state()), "");
    world->server->set_faults(Json::object());

    // A second environment, offline: index pages from the HTTP cache, wheels from the wheel cache.
    TempDir other("idx2");
    auto venv2 = other / "venv";
    make_bare_venv(venv2);
    auto args = install_args("cu126", {"--offline", "--json"});
    args[2] = venv2.string();
    auto o = envfix(args);
    ASSERT_EQ(o.code, 0) << o.err;
    const auto doc = o.json();  // kept: a loop over a member of the temporary would read freed memory
    for (const auto& dl : doc["downloads"]) EXPECT_TRUE(dl["from_cache"].get<bool>()) << dl.dump();
}

// At a terminal the install asks first, counting what it replaces as well as what it removes;
// "n" changes nothing and exits with its own code.
TEST_F(IndexInstall, TheQuestionCountsWhatTheSwitchReplacesAndANoChangesNothing) {
    ASSERT_EQ(envfix(install_args("cu126", {"--json"})).code, 0);
    const auto before = state();
    std::vector<std::string> argv{test_python().string(), (source_dir() / "tests/tools/pty_answer.py").string(), "n",
                                  envfix_binary().string()};
    for (const auto& a : install_args("cu128")) argv.push_back(a);
    auto r = run_program(argv, {{"HOME", home.string()},
                                {"ENVFIX_CACHE_DIR", (home / ".cache/envfix").string()},
                                {"ENVFIX_CONFIG_DIR", (home / ".config/envfix").string()},
                                {"ENVFIX_DATA_DIR", (home / ".local/share/envfix").string()},
                                {"ENVFIX_LANG", "en"}});
    EXPECT_EQ(r.code, 4) << r.out << r.err;
    std::smatch asked;
    const std::regex question("install ([0-9]+) wheels \\([^)]*\\), replacing ([0-9]+) installed distributions");
    ASSERT_TRUE(std::regex_search(r.out, asked, question)) << r.out;
    EXPECT_GT(std::stoul(asked[2]), 0u);
    EXPECT_NE(r.out.find("nothing was changed"), std::string::npos) << r.out;
    EXPECT_EQ(tree_diff(before, state()), "");
}

TEST_F(IndexInstall, NamedRequirementsAndDryRun) {
    auto before = snapshot(venv);
    auto dry = envfix(install_args("cu128", {"torch==2.7.0", "--dry-run"}));
    ASSERT_EQ(dry.code, 0) << dry.err;
    EXPECT_NE(dry.out.find("torch"), std::string::npos);
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");

    auto wrong = envfix(install_args("cu128", {"torch==2.6.0"}));
    EXPECT_EQ(wrong.code, 40) << wrong.err;
    auto other = envfix(install_args("cu128", {"requests"}));
    EXPECT_EQ(other.code, 2) << other.err;
    EXPECT_NE(first_error_line(other).find("\"requests\" is not part of the framework stack"), std::string::npos) << other.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");

    auto r = envfix(install_args("cu128", {"torch==2.7.0"}));
    ASSERT_EQ(r.code, 0) << r.err;
    auto d = dist_infos();
    EXPECT_TRUE(has(d, "torch-2.7.0+cu128.dist-info"));
    EXPECT_FALSE(has(d, "torchvision-0.22.0+cu128.dist-info"));  // not named, not installed before
    auto requested = site_packages(venv) / "torch-2.7.0+cu128.dist-info" / "REQUESTED";
    EXPECT_TRUE(stdfs::exists(requested));
    EXPECT_FALSE(stdfs::exists(site_packages(venv) / "filelock-3.16.1.dist-info" / "REQUESTED"));
}

// An ordinary index that does not answer is passed over by the plan; the install says so, as a
// `warning:` line in text and in the JSON document's warnings, once.
TEST_F(IndexInstall, ThePlansWarningsReachTheInstallsTextAndJson) {
    write_text(home / ".config/envfix/config.yaml", "version: 1\nnetwork:\n  retries: 0\n");
    // The index for everything but the framework does not answer; the extra one has the packages.
    auto args = [&](std::vector<std::string> extra) {
        auto a = install_args("cu126", std::move(extra));
        auto url = std::find(a.begin(), a.end(), "--index-url") + 1;
        const std::string live = *url;
        *url = "http://127.0.0.1:9/simple/";
        a.insert(a.end(), {"--extra-index-url", live});
        return a;
    };
    auto r = envfix(args({"--json"}));
    ASSERT_EQ(r.code, 0) << r.err;
    size_t said = 0;
    const auto doc = r.json();  // kept: a loop over a member of the temporary would read freed memory
    for (const auto& w : doc["warnings"])
        if (w["key"] == "plan.warn.index_failed") {
            ++said;
            EXPECT_NE(w["message"].get<std::string>().find("127.0.0.1:9"), std::string::npos) << w.dump();
        }
    EXPECT_EQ(said, 1u) << r.out;

    // In text, on a fresh environment (one that has the stack already asks no index for it).
    stdfs::remove_all(venv);
    make_bare_venv(venv);
    auto text = envfix(args({}));
    ASSERT_EQ(text.code, 0) << text.err;
    const std::string line = "warning: an index could not be read and was passed over: ";
    auto at = text.err.find(line);
    ASSERT_NE(at, std::string::npos) << text.err;
    EXPECT_NE(text.err.find("127.0.0.1:9", at), std::string::npos) << text.err;
    EXPECT_EQ(text.err.find(line, at + 1), std::string::npos) << text.err;
}

// A ComfyUI portable package (python_embeded a venv here) whose ComfyUI folder lacks some of the
// layout's files: the install still checks ComfyUI/requirements.txt and the custom nodes' files,
// a node pinning another torch stops it, and each warning is said once although the command reads
// the folder for the target, the plan and the app's check.
TEST_F(IndexInstall, APortableFoldersCustomNodesAreCheckedAndEachWarningSaidOnce) {
    auto portable = dir / "ComfyUI_windows_portable";
    make_bare_venv(portable / "python_embeded");
    write_text(portable / "ComfyUI/main.py", "");
    write_text(portable / "ComfyUI/requirements.txt", "torch\ntorchvision\n");
    write_text(portable / "ComfyUI/custom_nodes/some-node/requirements.txt", "torch==2.1.2\n");
    const auto before = snapshot(portable / "python_embeded");
    std::string r = world->server->url("/");
    auto run = envfix({"install", "--app", "comfyui", "--path", portable.string(), "--pytorch-index", r, "--index-url", r + "cu128/",
                       "--gpu", "RTX 4090", "--driver", "570.133.07", "--variant", "cu128"});
    EXPECT_EQ(run.code, 30) << run.err;
    EXPECT_NE(run.err.find("ComfyUI/custom_nodes/some-node/requirements.txt:1: torch==2.1.2 does not allow torch 2.7.0+cu128"),
              std::string::npos)
        << run.err;
    EXPECT_EQ(run.err.find("cannot read"), std::string::npos) << run.err;
    const std::string odd = "does not look like ComfyUI";
    auto at = run.err.find(odd);
    EXPECT_NE(at, std::string::npos) << run.err;
    EXPECT_EQ(run.err.find(odd, at + 1), std::string::npos) << run.err;
    EXPECT_EQ(tree_diff(before, snapshot(portable / "python_embeded")), "");
}

TEST_F(IndexInstall, AWheelReadWholeForItsMetadataIsNotDownloadedTwice) {
    // No PEP 658 files and a server that ignores Range (python -m http.server): the plan reads
    // each wheel whole; the install then takes it from the wheel cache instead of fetching it again.
    ServedIndex bare({"--variants", "cu128", "--torch", "2.7.0", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64",
                      "--no-metadata"});
    bare.server->set_faults({{"*", {{"no_range", true}}}});
    auto r = envfix(install_args("cu128", {"--json"}, bare.server->url("/")));
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    ASSERT_FALSE(j["downloads"].empty());
    for (const auto& dl : j["downloads"]) EXPECT_TRUE(dl["from_cache"].get<bool>()) << dl.dump();
    EXPECT_TRUE(has(dist_infos(), "torch-2.7.0+cu128.dist-info"));
    EXPECT_FALSE(stdfs::exists(home / ".cache/envfix/plan-wheels") && !stdfs::is_empty(home / ".cache/envfix/plan-wheels"));
}

TEST_F(IndexInstall, EachWheelIsUnpackedWhileTheOthersDownloadAndTheInstallLinksIt) {
    // Wheels over 200 bytes come in byte ranges at once (split downloads), as torch's do, and
    // their entries over 1000 bytes are inflated while the ranges arrive, as torch's libraries are.
    auto r = run_envfix(install_args("cu128", {"--json", "-vv"}), {{"ENVFIX_SPLIT_DOWNLOADS_AT", "200"}, {"ENVFIX_UNPACK_EARLY", "1000"}},
                        home);
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = r.json();
    const size_t wheels = j["downloads"].size();
    ASSERT_GT(wheels, 3u);
    EXPECT_NE(r.err.find("unpacked while downloading: " + std::to_string(wheels) + " wheels (0 already unpacked)"), std::string::npos)
        << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("inflated while downloading: [1-9][0-9]* large files of [1-9][0-9]* wheels "
                                                    "taken once checked, 0 not")))
        << r.err;
    // A batch with a wheel read early says when its large files were done, and when the rest,
    // staged beside them, began and ended.
    std::smatch split;
    ASSERT_TRUE(std::regex_search(r.err, split, std::regex("its large files inflated while downloading ended at ([0-9]+) ms, "
                                                           "the rest staged beside them from ([0-9]+) to ([0-9]+) ms")))
        << r.err;
    EXPECT_GT(std::stoul(split[1]), 0u);
    EXPECT_LE(std::stoul(split[2]), std::stoul(split[3]));
    // And for the files read early that ended last, when their bytes were read and when they ended.
    std::smatch file;
    ASSERT_TRUE(std::regex_search(r.err, file, std::regex("  [^ ]+ \\([^)]*, [^)]* compressed\\): its bytes read from ([0-9]+) to "
                                                          "([0-9]+) ms, inflated, hashed and written by ([0-9]+) ms")))
        << r.err;
    EXPECT_LE(std::stoul(file[1]), std::stoul(file[2]));
    EXPECT_LE(std::stoul(file[2]), std::stoul(file[3]));
    // Each download's check and flush, timed (what a wheel handed over late waited for).
    EXPECT_TRUE(std::regex_search(r.err, std::regex("torch-2\\.7\\.0[^:]*: checked at [0-9]+ ms after the downloads began "
                                                    "\\([0-9]+ ms hashing, [0-9]+ ms flushing to disk\\)")))
        << r.err;
    // The install planned while the unpacking ran on and waited for it only before it read the
    // unpacked-wheel cache (the folders made first, then the unpacking's lines, told when it is
    // waited for, then the cache looked at).
    auto at = [&](const std::string& line) { return r.err.find(line); };
    ASSERT_NE(at("debug: folders made: "), std::string::npos) << r.err;
    EXPECT_LT(at("debug: folders made: "), at("unpacked while downloading: ")) << r.err;
    EXPECT_LT(at("unpacked while downloading: "), at("debug: wheels unpacked: ")) << r.err;
    EXPECT_LT(at("debug: wheels unpacked: "), at("debug: unpacked-cache lookups: ")) << r.err;
    // The wheels are not flushed: they stay in the cache beside markers naming this boot, and on
    // ext4 and XFS the commit makes durable only the files it brought in and the folders it
    // changed, one by one (elsewhere it flushes the whole filesystem, which writes them too).
    EXPECT_EQ(at("flushed to disk together"), std::string::npos) << r.err;
    size_t marked = 0;
    for (const auto& dl : j["downloads"]) {
        auto marker = envfix::network::unsynced_marker(dl["path"].get<std::string>());
        ASSERT_TRUE(stdfs::exists(marker)) << marker;
        marked += *envfix::fs::read_file(marker) == envfix::network::unsynced_marker_text();
    }
    EXPECT_EQ(marked, wheels);
    if (envfix::fs::flushes_file_by_file(venv)) {
        std::smatch durable;
        ASSERT_TRUE(std::regex_search(r.err, durable, std::regex("made durable one by one: ([0-9]+) files brought in and ([0-9]+) folders changed")))
            << r.err;
        EXPECT_EQ(std::stoul(durable[1]), j["transaction"]["files_written"].get<size_t>()) << r.err;
        EXPECT_GT(std::stoul(durable[2]), 0u);
        EXPECT_LT(at("debug: moves planned: "), at("made durable one by one")) << r.err;
    } else {
        EXPECT_NE(at("made durable by flushing the whole filesystem"), std::string::npos) << r.err;
    }
    // Every downloaded wheel has its entry; the installed files are its files, linked.
    auto ucache = home / ".cache/envfix/unpacked/v2";
    size_t entries = 0;
    for (const auto& e : stdfs::directory_iterator(ucache)) entries += stdfs::exists(e.path() / "ENVFIX-UNPACKED");
    EXPECT_EQ(entries, wheels);
    auto init = site_packages(venv) / "torch" / "__init__.py";
    ASSERT_TRUE(stdfs::exists(init));
    EXPECT_GE(stdfs::hard_link_count(init), 2u);
    size_t ranges = 0;  // the server's log is the suite's: other tests fetched torch whole
    for (const auto& req : world->server->log_for(wheel_path("torch", "cu128")))
        ranges += req["method"] == "GET" && req["headers"].contains("range");
    EXPECT_GE(ranges, 1u) << nlohmann::json(world->server->log_for(wheel_path("torch", "cu128"))).dump();
    // A second environment finds them all unpacked: nothing downloaded, nothing inflated.
    TempDir other("idx2");
    auto venv2 = other / "venv";
    make_bare_venv(venv2);
    auto args = install_args("cu128", {"-vv"});
    args[2] = venv2.string();
    auto again = envfix(args);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_NE(again.err.find("unpacked while downloading: 0 wheels (" + std::to_string(wheels) + " already unpacked)"),
              std::string::npos) << again.err;
}

#ifdef ENVFIX_SYNC_LOG_LIB
TEST_F(IndexInstall, TheCommitFlushesTheFilesItBroughtInNotTheWheels) {
    // Every flush envfix asks for, logged by a preloaded library: on ext4 and XFS the commit
    // writes back each file it brought in and waits for it (sync_file_range with all three
    // flags), fsyncs the folders it changed and commits the filesystem's journal once (a new
    // empty file's fsync, which flushes the disk's cache too); nothing flushes a whole
    // filesystem, nor the wheels in the cache (a cache, unpacked before the commit: 2.75 GB of a
    // torch stack that need not reach the disk first).
    // ENVFIX_COMMIT_FLUSH=fs: one syncfs.
    if (!envfix::fs::flushes_file_by_file(venv)) GTEST_SKIP() << "the test folder is not on ext4 or XFS";
    auto log = home / "sync.log";
    auto r = run_envfix(install_args("cu128", {"--json"}), {{"LD_PRELOAD", ENVFIX_SYNC_LOG_LIB}, {"ENVFIX_TEST_SYNC_LOG", log.string()}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    std::set<std::string> synced, waited, whole;
    std::ifstream in(log);
    for (std::string call, path; in >> call && std::getline(in >> std::ws, path);) {
        if (call == "fdatasync" || call == "fsync") synced.insert(path);
        if (call == "sync_file_range:7") waited.insert(path);
        if (call == "syncfs") whole.insert(path);
        EXPECT_EQ(path.find("/wheels/"), std::string::npos) << call << " " << path;
    }
    EXPECT_TRUE(whole.empty()) << *whole.begin();
    auto sp = site_packages(venv);
    size_t files = 0;
    for (const auto& e : stdfs::recursive_directory_iterator(sp / "torch")) {
        if (!e.is_regular_file() || e.path().extension() == ".pyc") continue;
        ++files;
        EXPECT_TRUE(waited.count(e.path().string())) << e.path();
    }
    EXPECT_GT(files, 0u);
    EXPECT_TRUE(waited.count((sp / "torch-2.7.0+cu128.dist-info" / "RECORD").string()));
    EXPECT_TRUE(synced.count(sp.string())) << "the folder the packages were renamed into";
    // The journal committed by a new empty file's fsync, in the staging folder, gone after.
    const auto commits = std::count_if(synced.begin(), synced.end(), [&](const std::string& p) {
        return p.starts_with(sp.string() + "/.envfix-tx-") && stdfs::path(p).filename().string().starts_with(".envfix-durable-") &&
               !stdfs::exists(p);
    });
    EXPECT_EQ(commits, 1) << "one journal commit for the one filesystem";
    // The whole filesystem where asked (as on filesystems other than ext4 and XFS).
    stdfs::remove(log);
    auto fs_way = run_envfix(install_args("cu126", {}), {{"LD_PRELOAD", ENVFIX_SYNC_LOG_LIB}, {"ENVFIX_TEST_SYNC_LOG", log.string()},
                                                        {"ENVFIX_COMMIT_FLUSH", "fs"}}, home);
    ASSERT_EQ(fs_way.code, 0) << fs_way.err;
    EXPECT_NE(envfix::fs::read_file(log).value_or("").find("syncfs "), std::string::npos);
}

TEST_F(IndexInstall, FilesLinkedFromAnUnpackedEntryOnTheDiskAreNotWrittenBackAgain) {
    // An install whose commit made every file of an unpacked-cache entry durable marks the entry
    // (ENVFIX-ON-DISK); a later install linking from it writes back only what it wrote itself
    // (RECORDs, scripts), not the linked files, whose data is the entry's, already on the disk.
    // An entry without the mark is written back as before, and marked by that commit; a file
    // changed since the mark (an edit in place) is written back.
    if (!envfix::fs::flushes_file_by_file(venv)) GTEST_SKIP() << "the test folder is not on ext4 or XFS";
    ASSERT_EQ(envfix(install_args("cu128")).code, 0);
    auto ucache = home / ".cache/envfix/unpacked/v2";
    stdfs::path torch_entry;
    size_t entries = 0, marked = 0;
    for (const auto& e : stdfs::directory_iterator(ucache)) {
        if (!stdfs::exists(e.path() / "ENVFIX-UNPACKED")) continue;
        ++entries;
        marked += envfix::fs::read_file(e.path() / "ENVFIX-ON-DISK").value_or("") == "envfix-on-disk 1\n";
        for (const auto& f : stdfs::recursive_directory_iterator(e.path() / "f"))
            if (f.is_regular_file() && stdfs::equivalent(f.path(), site_packages(venv) / "torch" / "__init__.py")) torch_entry = e.path();
    }
    EXPECT_GT(entries, 0u);
    EXPECT_EQ(marked, entries) << "every entry the first install linked all of";
    ASSERT_FALSE(torch_entry.empty());
    // Into a second environment: torch's files linked, none written back.
    struct Logged {
        std::set<std::string> torch_waited;  // torch's files written back, relative to torch/
        size_t on_disk = 0;
    };
    auto install_logged = [&](const std::string& name) {
        TempDir other(name);
        auto v = other / "venv";
        make_bare_venv(v);
        auto log = home / (name + ".log");
        auto args = install_args("cu128", {"-vv"});
        args[2] = v.string();
        auto r = run_envfix(args, {{"LD_PRELOAD", ENVFIX_SYNC_LOG_LIB}, {"ENVFIX_TEST_SYNC_LOG", log.string()}}, home);
        EXPECT_EQ(r.code, 0) << r.err;
        std::set<std::string> waited;
        std::ifstream in(log);
        for (std::string call, path; in >> call && std::getline(in >> std::ws, path);)
            if (call == "sync_file_range:7") waited.insert(path);
        auto sp = site_packages(v);
        Logged out;
        size_t torch_files = 0;
        for (const auto& e : stdfs::recursive_directory_iterator(sp / "torch")) {
            if (!e.is_regular_file()) continue;
            ++torch_files;
            if (waited.count(e.path().string())) out.torch_waited.insert(e.path().lexically_relative(sp / "torch").generic_string());
        }
        EXPECT_GT(torch_files, 0u);
        EXPECT_TRUE(waited.count((sp / "torch-2.7.0+cu128.dist-info" / "RECORD").string())) << "written by this install";
        std::smatch on_disk;
        EXPECT_TRUE(std::regex_search(r.err, on_disk, std::regex("; ([0-9]+) more brought in were on the disk already"))) << r.err;
        if (on_disk.size() > 1) out.on_disk = std::stoul(on_disk[1]);
        return out;
    };
    auto linked = install_logged("idx-ondisk");
    EXPECT_TRUE(linked.torch_waited.empty()) << *linked.torch_waited.begin();
    EXPECT_GT(linked.on_disk, 0u);
    // A file edited in place through the first environment's link (the entry's inode: same size,
    // a later mtime) may have its edit not yet on the disk: it alone is written back.
    auto init = site_packages(venv) / "torch" / "__init__.py";
    auto text = envfix::fs::read_file(init);
    ASSERT_TRUE(text);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the flag's mtime, whatever the clock's grain
    std::ofstream(init, std::ios::binary | std::ios::trunc) << *text;
    auto edited = install_logged("idx-edited");
    EXPECT_EQ(edited.torch_waited, (std::set<std::string>{"__init__.py"}));
    EXPECT_EQ(edited.on_disk + 1, linked.on_disk);
    // Torch's entry unmarked: its files written back again, and the entry marked again.
    stdfs::remove(torch_entry / "ENVFIX-ON-DISK");
    auto unmarked = install_logged("idx-unmarked");
    EXPECT_GT(unmarked.torch_waited.size(), 1u);
    EXPECT_LT(unmarked.on_disk, linked.on_disk);
    EXPECT_TRUE(stdfs::exists(torch_entry / "ENVFIX-ON-DISK"));
}

TEST_F(IndexInstall, ASwitchsSnapshotIsFlushedInItsCommitNotBefore) {
    // The snapshot of the environment before a switch is written once every check has passed and
    // made durable with the moves: its file written back and waited for before the one journal
    // commit, its folder fsynced, and no fsync of its own (on the GPU machine 26-93 ms a switch).
    if (!envfix::fs::flushes_file_by_file(venv)) GTEST_SKIP() << "the test folder is not on ext4 or XFS";
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    auto log = home / "sync.log";
    auto r = run_envfix(install_args("cu128", {"--json"}), {{"LD_PRELOAD", ENVFIX_SYNC_LOG_LIB}, {"ENVFIX_TEST_SYNC_LOG", log.string()}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto snaps = venv / ".envfix" / "snapshots";
    stdfs::path snap;
    for (const auto& e : stdfs::directory_iterator(snaps))
        if (e.path().extension() == ".snap" && (snap.empty() || std::stoi(e.path().stem().string()) > std::stoi(snap.stem().string())))
            snap = e.path();
    ASSERT_FALSE(snap.empty());
    std::vector<std::pair<std::string, std::string>> calls;
    std::ifstream in(log);
    for (std::string call, path; in >> call && std::getline(in >> std::ws, path);) calls.emplace_back(call, path);
    auto at = [&](auto pred) { return std::find_if(calls.begin(), calls.end(), pred) - calls.begin(); };
    const auto written_back = at([&](const auto& c) { return c.first == "sync_file_range:7" && c.second == snap.string(); });
    const auto commit = at([&](const auto& c) {
        return c.first == "fsync" && stdfs::path(c.second).filename().string().starts_with(".envfix-durable-");
    });
    ASSERT_LT(written_back, static_cast<std::ptrdiff_t>(calls.size())) << "the snapshot's file written back";
    ASSERT_LT(commit, static_cast<std::ptrdiff_t>(calls.size())) << "the journal committed";
    EXPECT_LT(written_back, commit);
    EXPECT_EQ(std::count_if(calls.begin(), calls.end(),
                            [](const auto& c) { return stdfs::path(c.second).filename().string().starts_with(".envfix-durable-"); }),
              1);
    for (const auto& [call, path] : calls) {
        if (call == "fsync" || call == "fdatasync") {
            EXPECT_FALSE(path.starts_with(snaps.string() + "/")) << call << " " << path;
        }
    }
    EXPECT_TRUE(std::any_of(calls.begin(), calls.end(), [&](const auto& c) { return c.first == "fsync" && c.second == snaps.string(); }))
        << "the snapshots folder fsynced";
    // And it is the environment before the switch.
    auto back = envfix({"rollback", "--env", venv.string(), snap.stem().string()});
    ASSERT_EQ(back.code, 0) << back.out << back.err;
    auto d = dist_infos();
    EXPECT_TRUE(has(d, "torch-2.7.0+cu126.dist-info"));
}
#endif

TEST_F(IndexInstall, ASwitchRemembersTheIdentitiesOfTheFilesItsSnapshotHashed) {
    // The snapshot before a switch hashes the files no envfix RECORD vouches for (here every
    // distribution says pip installed it); what it saw of them (device, inode, size, mtime) is
    // remembered when the snapshot is kept (its text made beside the unpacking), so the next
    // snapshot hashes only what the switch brought in, not the files it left as they were.
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    for (const auto& e : stdfs::directory_iterator(site_packages(venv))) {
        if (e.path().extension() == ".dist-info" && stdfs::exists(e.path() / "INSTALLER")) {
            ASSERT_TRUE(envfix::fs::write_file_atomic(e.path() / "INSTALLER", "pip\n"));
        }
    }
    auto sw = envfix(install_args("cu128", {"-vvv"}));
    ASSERT_EQ(sw.code, 0) << sw.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(sw.err, m, std::regex("snapshot [0-9]+: ([0-9]+) files, ([0-9]+) hashed"))) << sw.err;
    EXPECT_GT(std::stol(m[2]), 0) << sw.err;
    auto hashed_now = [&] {
        auto r = envfix({"--json", "snapshot", "--env", venv.string()});
        EXPECT_EQ(r.code, 0) << r.err;
        return Json::parse(r.out)["stats"]["hashed"].get<long>();
    };
    const long remembered = hashed_now();
    // Without the remembered identities every file pip's distributions hold is hashed again.
    stdfs::remove(venv / ".envfix" / "store" / "v1" / "identities");
    const long forgotten = hashed_now();
    EXPECT_LT(remembered, forgotten);
    EXPECT_GT(forgotten - remembered, 10) << remembered << " against " << forgotten;
}

TEST_F(IndexInstall, ASwitchReadsItsWheelsEarlyAndTakesWhatTheCheckedWheelsAgreeWith) {
    // A switch with every wheel in ranges and entries over 1000 bytes read early: the RECORD read
    // from each wheel's tail leaves out what the installed copy already has (linked instead), and
    // nothing read early is refused once the wheels are checked.
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    auto r = run_envfix(install_args("cu128", {"-vv"}), {{"ENVFIX_SPLIT_DOWNLOADS_AT", "200"}, {"ENVFIX_UNPACK_EARLY", "1000"}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex("inflated while downloading: [0-9]+ large files of [1-9][0-9]* wheels "
                                                    "taken once checked, 0 not")))
        << r.err;
    auto d = dist_infos();
    EXPECT_TRUE(has(d, "torch-2.7.0+cu128.dist-info"));
    EXPECT_FALSE(has(d, "torch-2.7.0+cu126.dist-info"));
    auto check = envfix({"--json", "check", "--env", venv.string()});
    EXPECT_EQ(check.code, 0) << check.out << check.err;
}

namespace {

// Two torch builds whose files are mostly the same, on an index of their own: what a switch keeps
// of the installed copy when it fills the new build's unpacked entry.
class IndexKeep : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* v : {"cu126", "cu128"}) {
            Json files = {{"torch/__init__.py", std::string("V = '") + v + "'\n"},
                          {"torch/same.py", "def same():\n    return 'same'\n"},
                          {"torch/edited.py", "EDIT = 1\n"},
                          {"torch/big.bin", {{"size", 300000}, {"seed", 5}}}};
            auto w = build_wheel({{"name", "torch"}, {"version", std::string("2.7.0+") + v}, {"files", files}}, dir / "idx" / "files");
            auto bytes = envfix::fs::read_file(w);
            ASSERT_TRUE(bytes);
            auto name = w.filename().string();
            links += "<a href=\"../../files/" + std::regex_replace(name, std::regex("\\+"), "%2B") + "#sha256=" +
                     envfix::sha256_hex(*bytes) + "\">" + name + "</a>\n";
        }
        stdfs::create_directories(dir / "idx" / "simple" / "torch");
        write_text(dir / "idx" / "simple" / "torch" / "index.html", "<html><body>\n" + links + "</body></html>\n");
        server = std::make_unique<IndexServer>(dir / "idx", dir / "server");
        make_bare_venv(venv);
        sp = site_packages(venv);
        auto r = install("cu126");
        ASSERT_EQ(r.code, 0) << r.err;
    }
    RunResult install(const std::string& variant, std::vector<std::string> extra = {}) { return install_into(venv, variant, extra); }
    RunResult install_into(const stdfs::path& target, const std::string& variant, std::vector<std::string> extra) {
        std::vector<std::string> a{"install", "-vv", "-y", "--env", target.string(), "--index-url", server->url("/simple/"), "--torch-from",
                                   "index", "--gpu", "RTX 4090", "--driver", "570.133.07", "torch==2.7.0+" + variant};
        a.insert(a.end(), extra.begin(), extra.end());
        return run_envfix(a, {}, home);
    }
    // "files a switch keeps ...: N unread ..., M read": {N, M}.
    static std::pair<long, long> kept(const std::string& err) {
        std::smatch m;
        if (!std::regex_search(err, m, std::regex("switch keeps, linked into the new entries: ([0-9]+) unread .*, ([0-9]+) read"))) {
            ADD_FAILURE() << err;
            return {-1, -1};
        }
        return {std::stol(m[1]), std::stol(m[2])};
    }
    // The new build's entry in the unpacked cache holds the wheel's bytes: a second venv installed
    // from it (and from nothing else: the index answers no more) matches a fresh one.
    void entry_is_the_wheels() {
        server->set_faults({{"*", {{"status", 503}}}});
        auto other = dir / "other";
        make_bare_venv(other);
        auto r = install_into(other, "cu128", {"--offline"});
        server->set_faults(Json::object());
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(read_text(site_packages(other) / "torch/edited.py"), "EDIT = 1\n");
        EXPECT_EQ(read_text(site_packages(other) / "torch/same.py"), "def same():\n    return 'same'\n");
    }

    TempDir dir{"keep"};
    stdfs::path venv = dir / "venv", home = dir / "home", sp;
    std::string links;
    std::unique_ptr<IndexServer> server;
};

}  // namespace

TEST_F(IndexKeep, TheFilesASwitchKeepsAreLinkedUnreadWhereTheSnapshotOfThePresentVouchesForThem) {
    auto r = install("cu128");
    ASSERT_EQ(r.code, 0) << r.err;
    // same.py, edited.py and big.bin (and the dist-info's unchanged files): none read.
    auto [unread, read] = kept(r.err);
    EXPECT_GE(unread, 3) << r.err;
    EXPECT_EQ(read, 0) << r.err;
    entry_is_the_wheels();
}

TEST_F(IndexKeep, AFileEditedSinceItWasInstalledIsReadAndNotTaken) {
    // The same size, a later mtime: the snapshot of the present hashes it, so it vouches for other
    // bytes than the wheel's, and the entry takes the wheel's.
    write_text(sp / "torch/edited.py", "EDIT = 9\n");
    auto r = install("cu128");
    ASSERT_EQ(r.code, 0) << r.err;
    auto [unread, read] = kept(r.err);
    EXPECT_GE(unread, 2) << r.err;
    EXPECT_EQ(read, 0) << "edited.py is not kept at all: " << r.err;
    EXPECT_EQ(read_text(sp / "torch/edited.py"), "EDIT = 1\n");
    entry_is_the_wheels();
}

TEST_F(IndexKeep, AFileReplacedAfterTheSnapshotIsReadAgain) {
    // What the snapshot saw is not what the entry links: the same bytes again in a new inode (an
    // editor's save) between the two is read, not trusted by its path. The install's snapshot
    // runs first (milliseconds for these files), so the replacement is made while the index
    // holds the wheel back.
    server->set_faults({{"/files/torch-2.7.0%2Bcu128-py3-none-any.whl", {{"delay", 2.0}}}});
    std::thread replace([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1200));
        auto text = read_text(sp / "torch/same.py");
        write_text(sp / "torch/same.py.new", text);
        stdfs::last_write_time(sp / "torch/same.py.new", stdfs::last_write_time(sp / "torch/same.py"));
        stdfs::rename(sp / "torch/same.py.new", sp / "torch/same.py");
    });
    auto r = install("cu128");
    replace.join();
    server->set_faults(Json::object());
    ASSERT_EQ(r.code, 0) << r.err;
    auto [unread, read] = kept(r.err);
    EXPECT_EQ(read, 1) << r.err;
    EXPECT_GE(unread, 2) << r.err;
    entry_is_the_wheels();
}

TEST_F(IndexInstall, ASwitchPlansWhatGoesAndStoresItsSnapshotWhileItsWheelsDownload) {
    // torch's wheel answers after 1.5 s: by then the install has taken the lock, planned the
    // removals and captured the snapshot of the present (stored on a thread of its own); it
    // waits for the downloads only after that ("wheels handed over"), then opens the wheels.
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    world->server->set_faults({{wheel_path("torch", "cu128"), {{"delay", 1.5}}}});
    auto r = run_envfix(install_args("cu128", {"-vv"}), {}, home);
    world->server->set_faults(Json::object());
    ASSERT_EQ(r.code, 0) << r.err;
    auto at = [&](const std::string& line) { return r.err.find(line); };
    ASSERT_NE(at("debug: wheels handed over: "), std::string::npos) << r.err;
    EXPECT_LT(at("debug: removals planned: "), at("debug: wheels handed over: ")) << r.err;
    EXPECT_LT(at("debug: snapshot of the present captured: "), at("debug: wheels handed over: ")) << r.err;
    EXPECT_LT(at("debug: wheels handed over: "), at("debug: wheels opened and planned: ")) << r.err;
    std::smatch waited;
    ASSERT_TRUE(std::regex_search(r.err, waited, std::regex("debug: wheels handed over: ([0-9]+) ms"))) << r.err;
    EXPECT_GT(std::stoul(waited[1]), 500u) << "the install planned before the slow wheel came";
    EXPECT_TRUE(has(dist_infos(), "torch-2.7.0+cu128.dist-info"));
    // The snapshot taken then is the way back.
    auto back = envfix({"rollback", "-y", "--env", venv.string()});
    ASSERT_EQ(back.code, 0) << back.err;
    EXPECT_TRUE(has(dist_infos(), "torch-2.7.0+cu126.dist-info"));
}

TEST_F(IndexInstall, ASwitchWhoseWheelFailsAfterItsSnapshotWasStoredLeavesNoTrace) {
    // The snapshot of the present is stored while the wheels download; a wheel that then fails
    // its check takes the stored objects back: the environment, its state folder included, is
    // as it was.
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    auto before = snapshot(venv);
    world->server->set_faults({{wheel_path("torch", "cu128"), {{"delay", 1.0}, {"body", "not the wheel"}}}});
    auto r = run_envfix(install_args("cu128", {"-vv"}), {}, home);
    world->server->set_faults(Json::object());
    EXPECT_EQ(r.code, 53) << r.err;
    EXPECT_LT(r.err.find("debug: snapshot of the present captured: "), r.err.find("sha256")) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
}

TEST_F(IndexInstall, BadIndexAnswersLeaveTheEnvironmentAsItWas) {
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    auto before = snapshot(venv);
    struct Case {
        const char* what;
        Json faults;
        int code;
        const char* says;
    };
    const std::string torch = wheel_path("torch", "cu128");
    const Case cases[] = {
        {"hash mismatch", {{torch, {{"body", "not the wheel"}}}}, 53, "sha256"},
        {"404", {{torch, {{"status", 404}}}}, 51, "404"},
    };
    for (const auto& c : cases) {
        world->server->set_faults(c.faults);
        auto r = envfix(install_args("cu128"));
        EXPECT_EQ(r.code, c.code) << c.what << ": " << r.err;
        EXPECT_NE(first_error_line(r).find(c.says), std::string::npos) << c.what << ": " << r.err;
        EXPECT_EQ(tree_diff(before, snapshot(venv)), "") << c.what;
    }
    world->server->set_faults(Json::object());

    // Offline with an empty cache: nothing to install from.
    TempDir empty_home("home");
    auto r = run_envfix(install_args("cu128", {"--offline"}), {}, empty_home.path());
    EXPECT_EQ(r.code, 55) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");

    // No libcurl to load (envfix loads it when it first downloads): one line naming it and its
    // packages, exit 5 library-missing, nothing changed.
    r = run_envfix(install_args("cu128", {"--refresh"}), {{"ENVFIX_LIBCURL", "/nonexistent/libcurl.so.4"}}, empty_home.path());
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_NE(first_error_line(r).find("/nonexistent/libcurl.so.4 could not be loaded"), std::string::npos) << r.err;
    EXPECT_NE(first_error_line(r).find("install libcurl4"), std::string::npos) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
    // A library that loads but lacks an entry point envfix calls (an old libcurl) is refused alike.
    r = run_envfix(install_args("cu128", {"--refresh"}), {{"ENVFIX_LIBCURL", "libz.so.1"}}, empty_home.path());
    EXPECT_EQ(r.code, 5) << r.err;
    EXPECT_NE(first_error_line(r).find("libz.so.1 could not be loaded: it has no curl_"), std::string::npos) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
}

TEST_F(IndexInstall, CtrlCDuringDownloadChangesNothing) {
    ASSERT_EQ(envfix(install_args("cu126")).code, 0);
    auto before = snapshot(venv);
    // The torch wheel answers only after a while: Ctrl-C comes while it is being fetched.
    const auto torch = wheel_path("torch", "cu128");
    world->server->set_faults({{torch, {{"delay", 20}}}});
    const size_t asked = world->server->log_for(torch).size();
    auto pid = spawn_envfix(install_args("cu128"), {}, home, dir / "ctrlc.log");
    for (int i = 0; i < 600 && world->server->log_for(torch).size() == asked; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_GT(world->server->log_for(torch).size(), asked) << "the download never started";
    ::kill(pid, SIGINT);
    int code = wait_exit(pid);
    auto log = read_text(dir / "ctrlc.log");
    EXPECT_EQ(code, 130) << log;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
    world->server->set_faults(Json::object());
    // The next run finishes the job.
    ASSERT_EQ(envfix(install_args("cu128")).code, 0);
    EXPECT_TRUE(has(dist_infos(), "torch-2.7.0+cu128.dist-info"));
}

TEST_F(IndexInstall, CredentialsOfTheIndexURLReachTheWheels) {
    world->server->set_faults({{"*", {{"auth", "user:secret"}}}});
    auto url = world->server->url("/");
    auto with_creds = "http://user:secret@" + url.substr(std::string("http://").size());
    auto r = envfix(install_args("cu126", {}, with_creds));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("secret"), std::string::npos);
    EXPECT_EQ(r.err.find("secret"), std::string::npos);
    EXPECT_TRUE(has(dist_infos(), "torch-2.7.0+cu126.dist-info"));
}

namespace {

// Torch's wheels with a 16 MB library (code-like bytes, 4.8 MB deflated): one deflate stream
// that a switch inflates on several workers while the wheel downloads (docs/inflate-parallel.md).
class IndexInstallLargeLibrary : public IndexInstall {
protected:
    static void SetUpTestSuite() { serve({"--torch-lib", "16000000"}); }

    // Whether the installed library holds the bytes of the variant's wheel entry.
    bool installed_library_is_the_wheels(const std::string& variant) const {
        const stdfs::path wheel = world->dir.path() / "whl" / wheel_record("torch", variant)["path"].get<std::string>();
        auto r = run_program({"python3", "-c",
                              "import hashlib, sys, zipfile\n"
                              "a = zipfile.ZipFile(sys.argv[1]).read('torch/lib/libtorch_cpu.so')\n"
                              "print('same' if a == open(sys.argv[2], 'rb').read() else 'different')\n",
                              wheel.string(), (site_packages(venv) / "torch/lib/libtorch_cpu.so").string()});
        return r.code == 0 && r.out == "same\n";
    }
};

const std::regex kByWorkers(R"(  torch/lib/libtorch_cpu\.so \(15\.3 MiB, 4\.[0-9] MiB compressed\): its bytes read from [0-9]+ to [0-9]+ ms, )"
                            R"(inflated by 2 workers at once, hashed and written by [0-9]+ ms)");

}  // namespace

TEST_F(IndexInstallLargeLibrary, ItsOneStreamIsInflatedBySeveralWorkersWhileItDownloadsThenSwitched) {
    // Both wheels in ranges, the library read early, two workers lent: the cold install and the
    // switch each inflate it on two workers, take it once the wheel is checked, and install the
    // wheel's bytes.
    const EnvList env{{"ENVFIX_SPLIT_DOWNLOADS_AT", "200"}, {"ENVFIX_UNPACK_EARLY", "1000000"}, {"ENVFIX_INFLATE_HELPERS", "2"}};
    for (const std::string variant : {"cu126", "cu128"}) {
        auto r = run_envfix(install_args(variant, {"-vv"}), env, home);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(std::regex_search(r.err, kByWorkers)) << r.err;
        EXPECT_TRUE(std::regex_search(r.err, std::regex("inflated while downloading: [1-9][0-9]* large files of [1-9][0-9]* wheels "
                                                        "taken once checked, 0 not")))
            << r.err;
        EXPECT_TRUE(installed_library_is_the_wheels(variant)) << variant;
    }
}

TEST_F(IndexInstallLargeLibrary, WorkersSharedByTheTwoCostliestStreamsStillGiveTheWheelsBytes) {
    // ENVFIX_INFLATE_STREAMS=2: the two costliest streams may be lent workers; this wheel has one
    // this large, which takes its share (both of the two lent: never fewer than the least), and
    // the cold install and the switch install the wheel's bytes.
    const EnvList env{{"ENVFIX_SPLIT_DOWNLOADS_AT", "200"}, {"ENVFIX_UNPACK_EARLY", "1000000"}, {"ENVFIX_INFLATE_HELPERS", "2"},
                      {"ENVFIX_INFLATE_STREAMS", "2"}};
    for (const std::string variant : {"cu126", "cu128"}) {
        auto r = run_envfix(install_args(variant, {"-vv"}), env, home);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_TRUE(std::regex_search(r.err, kByWorkers)) << r.err;
        EXPECT_TRUE(installed_library_is_the_wheels(variant)) << variant;
    }
}

TEST_F(IndexInstallLargeLibrary, WithNoWorkersLentTheStreamIsInflatedByTheThreadReadingIt) {
    auto r = run_envfix(install_args("cu128", {"-vv"}),
                        {{"ENVFIX_SPLIT_DOWNLOADS_AT", "200"}, {"ENVFIX_UNPACK_EARLY", "1000000"}, {"ENVFIX_INFLATE_HELPERS", "0"}}, home);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(std::regex_search(r.err, kByWorkers)) << r.err;
    EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(  torch/lib/libtorch_cpu\.so \([^)]*\): its bytes read from [0-9]+ to [0-9]+ ms, )"
                                                    R"(inflated, hashed and written by [0-9]+ ms)")))
        << r.err;
    EXPECT_TRUE(installed_library_is_the_wheels("cu128"));
}

TEST_F(IndexInstallLargeLibrary, AWheelDamagedInsideTheLibraryTheWorkersInflateChangesNothing) {
    // The switch's torch wheel arrives with one byte of the library's deflate data inverted: the
    // workers' stream fails or its file is refused, the wheel's sha256 fails, the environment is
    // as it was; the next run installs it.
    const EnvList env{{"ENVFIX_SPLIT_DOWNLOADS_AT", "200"}, {"ENVFIX_UNPACK_EARLY", "1000000"}, {"ENVFIX_INFLATE_HELPERS", "2"}};
    ASSERT_EQ(run_envfix(install_args("cu126", {"-vv"}), env, home).code, 0);
    auto before = snapshot(venv);
    const Json torch = wheel_record("torch", "cu128");
    world->server->set_faults({{world->url_path(torch), {{"flip", torch["size"].get<int64_t>() / 2}}}});
    auto r = run_envfix(install_args("cu128", {"-vv"}), env, home);
    EXPECT_EQ(r.code, 53) << r.err;
    EXPECT_NE(first_error_line(r).find("sha256"), std::string::npos) << r.err;
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
    world->server->set_faults(Json::object());
    auto again = run_envfix(install_args("cu128", {"-vv"}), env, home);
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_TRUE(installed_library_is_the_wheels("cu128"));
}
