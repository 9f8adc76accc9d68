// The installer's library interface: transactions (whole-folder moves, undo on failure,
// recovery from each journal state), removing distributions with a plan's install, and the
// consent an embedded Python's ._pth needs.
#include <gtest/gtest.h>

#include "envfix/common/fs.hpp"
#include "envfix/installer/env_lock.hpp"
#include "envfix/installer/install.hpp"
#include "envfix/installer/snapshot.hpp"
#include "envfix/installer/transaction.hpp"
#include "envfix/probe/interpreter_facts.hpp"
#include "envfix/probe/target.hpp"
#include "install_fixtures.hpp"
#include "zip_builder.hpp"

using namespace envfix;
using namespace envfix::test;
using namespace envfix::installer;

namespace {

class Answer final : public Reporter {
public:
    explicit Answer(bool yes) : yes_(yes) {}
    void note(Severity, const Message& m) override { notes.push_back(render(m, Lang::En)); }
    bool confirm(const Message& q, bool) override {
        questions.push_back(render(q, Lang::En));
        return yes_;
    }
    int task_begin(const Message&, uint64_t) override { return 1; }
    void task_advance(int, uint64_t) override {}
    void task_end(int, bool) override {}
    std::vector<std::string> notes, questions;

private:
    bool yes_;
};

// A folder laid out as an area: pkg/ (all of it going), ns/ (shared with a file that stays).
struct Area {
    explicit Area(const stdfs::path& root) : root(root) {
        write_text(root / "pkg" / "a.py", "old a\n");
        write_text(root / "pkg" / "sub" / "b.py", "old b\n");
        write_text(root / "ns" / "mine.py", "old mine\n");
        write_text(root / "ns" / "keep.txt", "stays\n");
    }
    std::vector<stdfs::path> old_files() const { return {root / "pkg/a.py", root / "pkg/sub/b.py", root / "ns/mine.py"}; }
    std::vector<stdfs::path> new_files() const { return {root / "pkg/a.py", root / "pkg/c.py", root / "ns/mine.py", root / "ns/new.py"}; }
    stdfs::path root;
};

Expected<Transaction> staged(const stdfs::path& state, const Area& area) {
    ENVFIX_TRY(auto tx, Transaction::begin(state, {area.root}, "test"));
    ENVFIX_TRY_VOID(tx.make_stage_dirs(area.new_files()));
    for (const auto& f : area.new_files()) write_text(tx.stage_path(f), "new " + f.filename().string() + "\n");
    return tx;
}

probe::Environment resolved(const stdfs::path& venv) {
    auto cache = probe::FactsCache::in_memory();
    auto env = probe::resolve_target({.env = venv}, {.facts = {.cache = &cache}});
    EXPECT_TRUE(env);
    return *env;
}

}  // namespace

TEST(Transaction, MovesWholeFoldersAndSingleFilesWhereShared) {
    TempDir dir;
    Area area(dir / "sp");
    auto state = dir / ".envfix";
    auto tx = staged(state, area);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(tx->prepare(area.old_files(), area.new_files()));
    std::vector<std::string> ops;
    for (const auto& op : tx->ops()) ops.push_back((op.kind == JournalOp::Kind::Out ? "out " : "in ") + op.path);
    EXPECT_EQ(ops, (std::vector<std::string>{"out ns/mine.py", "out pkg", "in ns/mine.py", "in ns/new.py", "in pkg"}));
    auto stats = tx->commit();
    ASSERT_TRUE(stats) << render(stats.error().message, Lang::En);
    EXPECT_EQ(stats->moved_out + stats->moved_in, 5u);
    Tree t = snapshot(dir / "sp");
    EXPECT_EQ(t.at("pkg/a.py").data, "new a.py\n");
    EXPECT_EQ(t.at("pkg/c.py").data, "new c.py\n");
    EXPECT_FALSE(t.count("pkg/sub"));
    EXPECT_EQ(t.at("ns/keep.txt").data, "stays\n");
    EXPECT_EQ(t.at("ns/new.py").data, "new new.py\n");
    for (const auto& [p, e] : t) EXPECT_EQ(p.find(".envfix"), std::string::npos) << p;
    EXPECT_FALSE(stdfs::exists(state));
}

TEST(Transaction, AJournalWrittenBesideIsOnTheDiskBeforeTheStagingAndGoneAfterAnAbort) {
    TempDir dir;
    Area area(dir / "sp");
    Tree before = snapshot(dir / "sp");
    auto state = dir / ".envfix";
    {
        auto tx = Transaction::begin_beside(state, {area.root}, "install a 1");
        ASSERT_TRUE(tx);
        tx->set_summary("install a 1; remove b 2");
        // make_stage_dirs waits for the journal: once it returns, the journal is there.
        ASSERT_TRUE(tx->make_stage_dirs(area.new_files()));
        auto files = std::vector<stdfs::path>(stdfs::directory_iterator(state), stdfs::directory_iterator());
        ASSERT_EQ(files.size(), 1u);
        EXPECT_NE(read_text(files[0]).find("\"staging\""), std::string::npos);
        for (const auto& f : area.new_files()) write_text(tx->stage_path(f), "new\n");
        ASSERT_TRUE(tx->prepare(area.old_files(), area.new_files()));
        EXPECT_NE(read_text(files[0]).find("install a 1; remove b 2"), std::string::npos);  // the summary set later
        tx->abort();
    }
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");
    EXPECT_FALSE(stdfs::exists(state));
    // Dropped before begun(): the write is waited for, then the journal removed.
    {
        auto tx = Transaction::begin_beside(state, {area.root}, "install a 1");
        ASSERT_TRUE(tx);
    }
    EXPECT_FALSE(stdfs::exists(state));
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");
}

TEST(Transaction, TheCommitMakesDurableTheFilesItBringsInAndTheFoldersItChangesOrTheWholeFilesystem) {
    // ext4 and XFS: each staged file (fdatasync) and each folder a move went into or out of
    // (fsync), which leaves the flushing of everything else on the filesystem (a cache's
    // gigabytes) out. ENVFIX_COMMIT_FLUSH=fs, and other filesystems: one syncfs.
    for (const bool whole : {false, true}) {
        TempDir dir;
        Area area(dir / "sp");
        if (whole) ::setenv("ENVFIX_COMMIT_FLUSH", "fs", 1);
        auto tx = staged(dir / ".envfix", area);
        ASSERT_TRUE(tx);
        ASSERT_TRUE(tx->prepare(area.old_files(), area.new_files()));
        auto stats = tx->commit();
        ::unsetenv("ENVFIX_COMMIT_FLUSH");
        ASSERT_TRUE(stats) << render(stats.error().message, Lang::En);
        EXPECT_EQ(snapshot(dir / "sp").at("ns/new.py").data, "new new.py\n");
        if (whole || !fs::flushes_file_by_file(dir.path())) {
            EXPECT_FALSE(stats->by_file);
            EXPECT_EQ(stats->flushed_files, 0u);
            continue;
        }
        EXPECT_TRUE(stats->by_file);
        EXPECT_EQ(stats->flushed_files, area.new_files().size());
        // sp/ns and sp (pkg moved whole), and where the moves came from and went in the staging folder.
        EXPECT_GE(stats->flushed_dirs, 2u);
    }
}

TEST(Transaction, FilesMarkedOnTheDiskAreMovedInButNotWrittenBack) {
    // prepare's on_disk: files whose data an earlier commit made durable (links of a flagged
    // unpacked-cache entry) come in like the others and are counted, not written back; the flush
    // still reports the change durable.
    TempDir dir;
    Area area(dir / "sp");
    auto tx = staged(dir / ".envfix", area);
    ASSERT_TRUE(tx);
    const auto add = area.new_files();
    std::vector<stdfs::path::string_type> remove_text, add_text;
    for (const auto& f : area.old_files()) remove_text.push_back(f.native());
    for (const auto& f : add) add_text.push_back(f.native());
    ASSERT_TRUE(tx->prepare(remove_text, add_text, {1, 0, 1, 0}));
    auto stats = tx->commit();
    ASSERT_TRUE(stats) << render(stats.error().message, Lang::En);
    Tree t = snapshot(dir / "sp");
    for (const auto& f : add) EXPECT_EQ(t.at(f.lexically_relative(dir / "sp").generic_string()).data, "new " + f.filename().string() + "\n");
    EXPECT_EQ(stats->on_disk_files, 2u);
    EXPECT_TRUE(stats->durable);
    if (stats->by_file) {
        EXPECT_EQ(stats->flushed_files, 2u);
    }
}

TEST(Transaction, AFailedMoveUndoesEverything) {
    TempDir dir;
    Area area(dir / "sp");
    auto tx = staged(dir / ".envfix", area);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(tx->prepare(area.old_files(), area.new_files()));
    // Something appears where a new file goes, after the plan was made: that move fails.
    write_text(dir / "sp" / "ns" / "new.py", "someone else's\n");
    Tree before = snapshot(dir / "sp", {".envfix-tx-" + tx->id()});
    auto r = tx->commit();
    ASSERT_FALSE(r);
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");
    EXPECT_FALSE(stdfs::exists(dir / ".envfix"));
}

TEST(Transaction, ConflictsAreFoundBeforeAnythingMoves) {
    TempDir dir;
    Area area(dir / "sp");
    write_text(dir / "sp" / "blocker", "a file\n");
    auto tx = Transaction::begin(dir / ".envfix", {dir / "sp"}, "test");
    ASSERT_TRUE(tx);
    ASSERT_TRUE(tx->make_stage_dirs({dir / "sp/blocker/x.py"}));
    write_text(tx->stage_path(dir / "sp/blocker/x.py"), "x\n");
    auto r = tx->prepare({}, std::vector<stdfs::path>{dir / "sp/blocker/x.py"});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::EnvInconsistent);
    EXPECT_EQ(r.error().message.key, "install.path_conflict_folder");
}

TEST(Recovery, UndoesAHalfMovedTransaction) {
    TempDir dir;
    Area area(dir / "sp");
    Tree before = snapshot(dir / "sp");
    auto state = dir / ".envfix";
    auto tx = staged(state, area);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(tx->prepare(area.old_files(), area.new_files()));
    // The process dies after the first two moves: do them by hand, keep the journal.
    auto stage = dir / "sp" / (".envfix-tx-" + tx->id());
    stdfs::create_directories(stage / "old" / "ns");
    stdfs::rename(dir / "sp/ns/mine.py", stage / "old/ns/mine.py");
    stdfs::rename(dir / "sp/pkg", stage / "old/pkg");
    auto journal = fs::read_file(state / ("tx-" + tx->id() + ".json"));
    ASSERT_TRUE(journal);
    Answer rep(false);
    auto out = recover_transactions(dir.path(), {dir / "sp"}, rep);
    ASSERT_TRUE(out) << render(out.error().message, Lang::En);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ((*out)[0].action, RecoveryOutcome::Action::RolledBack);
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");
    EXPECT_FALSE(stdfs::exists(state));
    EXPECT_NE(rep.notes.at(0).find("undid an interrupted envfix transaction (test)"), std::string::npos);
}

TEST(Recovery, CleansUpStagingAndCommittedTransactions) {
    TempDir dir;
    Area area(dir / "sp");
    Tree before = snapshot(dir / "sp");
    auto state = dir / ".envfix";
    auto tx = staged(state, area);  // journal "staging", files staged
    ASSERT_TRUE(tx);
    Answer rep(false);
    auto out = recover_transactions(dir.path(), {dir / "sp"}, rep);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->at(0).action, RecoveryOutcome::Action::Cleaned);
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");

    // A committed journal: the environment is the new one; only backups are left to delete.
    stdfs::create_directories(state);
    write_text(dir / "sp" / ".envfix-tx-x1" / "old" / "pkg" / "a.py", "backup\n");
    write_text(state / "tx-x1.json",
               "{\"version\": 1, \"id\": \"x1\", \"state\": \"committed\", \"pid\": 1, \"areas\": [\"" + (dir / "sp").string() +
                   "\"], \"ops\": []}\n");
    write_text(state / ".tx-x2.json.envfix-tmp-12", "{\"half\":");  // an interrupted journal write
    out = recover_transactions(dir.path(), {dir / "sp"}, rep);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->at(0).action, RecoveryOutcome::Action::Finished);
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");
    EXPECT_FALSE(stdfs::exists(state));
}

TEST(Recovery, ACommittedJournalBackAfterACrashIsFinishedAgain) {
    // finish() removes its journal without a flush: a crash can bring the committed journal back
    // after the backups went. Recovery then only finds nothing left to remove.
    TempDir dir;
    Area area(dir / "sp");
    write_text(dir / "sp" / "pkg" / "new.py", "new\n");
    Tree before = snapshot(dir / "sp");
    auto state = dir / ".envfix";
    write_text(state / "tx-x3.json",
               "{\"version\": 1, \"id\": \"x3\", \"state\": \"committed\", \"pid\": 1, \"areas\": [\"" + (dir / "sp").string() +
                   "\"], \"ops\": []}\n");
    Answer rep(false);
    auto out = recover_transactions(dir.path(), {dir / "sp"}, rep);
    ASSERT_TRUE(out);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ(out->at(0).action, RecoveryOutcome::Action::Finished);
    EXPECT_EQ(tree_diff(before, snapshot(dir / "sp")), "");
    EXPECT_FALSE(stdfs::exists(state));
}

TEST(Recovery, AJournalItCannotReadIsLeftAlone) {
    TempDir dir;
    auto state = dir / ".envfix";
    write_text(state / "tx-bad.json", "{\"version\": 7}");
    Answer rep(false);
    auto out = recover_transactions(dir.path(), {dir / "sp"}, rep);
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().message.key, "journal.invalid");
    EXPECT_TRUE(stdfs::exists(state / "tx-bad.json"));
}

TEST(InstallApi, RemovesDistributionsInTheSameTransaction) {
    TempDir dir;
    auto venv = dir / "v";
    make_bare_venv(venv);
    WheelSpec a{.name = "aaa", .files = {{"aaa/__init__.py", ""}}};
    WheelSpec b{.name = "bbb", .files = {{"bbb/__init__.py", ""}}};
    auto env = resolved(venv);
    Answer rep(false);
    ASSERT_TRUE(install(env, {.wheels = {{write_wheel(b, dir / "w")}}}, rep));
    auto r = install(env, {.wheels = {{write_wheel(a, dir / "w")}}, .remove = {"BBB"}}, rep);
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    EXPECT_EQ(r->installed.size(), 1u);
    ASSERT_EQ(r->removed.size(), 1u);
    EXPECT_EQ(r->removed[0].name, "bbb");
    EXPECT_FALSE(stdfs::exists(site_packages(venv) / "bbb"));
    EXPECT_TRUE(stdfs::exists(site_packages(venv) / "aaa" / "__init__.py"));
    // No direct_url.json for what did not come from a URL (index installs).
    EXPECT_FALSE(stdfs::exists(site_packages(venv) / "aaa-1.0.dist-info" / "direct_url.json"));
}

TEST(InstallApi, TwoWheelsWritingOnePathTheLaterWinsAndBothRecordsSayWhatIsThere) {
    // As several CUDA wheels share nvidia/__init__.py: one file installed, the later wheel's, a
    // warning where their bytes differ, and each RECORD naming the bytes that are there.
    TempDir dir;
    auto venv = dir / "v";
    make_bare_venv(venv);
    WheelSpec a{.name = "aaa", .files = {{"aaa/__init__.py", ""}, {"shared/__init__.py", "from a\n"}}};
    WheelSpec b{.name = "bbb", .files = {{"bbb/__init__.py", ""}, {"shared/__init__.py", "from b\n"}}};
    auto env = resolved(venv);
    Answer rep(false);
    auto r = install(env, {.wheels = {{write_wheel(a, dir / "w")}, {write_wheel(b, dir / "w")}}}, rep);
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    EXPECT_EQ(read_text(site_packages(venv) / "shared" / "__init__.py"), "from b\n");
    size_t clashes = 0;
    for (const auto& n : rep.notes) clashes += n.find("shared") != std::string::npos && n.find("aaa") != std::string::npos;
    EXPECT_EQ(clashes, 1u) << ::testing::PrintToString(rep.notes);
    const std::string row = "," + record_hash("from b\n") + ",7";
    EXPECT_NE(read_text(site_packages(venv) / "aaa-1.0.dist-info" / "RECORD").find("shared/__init__.py" + row), std::string::npos);
    EXPECT_NE(read_text(site_packages(venv) / "bbb-1.0.dist-info" / "RECORD").find("__init__.py" + row), std::string::npos);
}

TEST(InstallApi, ThreeWheelsWritingOnePathTheLastWinsAndEachClashIsSaid) {
    TempDir dir;
    auto venv = dir / "v";
    make_bare_venv(venv);
    std::vector<WheelSpec> specs;
    for (const char* n : {"aaa", "bbb", "ccc"})
        specs.push_back({.name = n, .files = {{std::string(n) + "/__init__.py", ""}, {"shared/x.py", std::string("from ") + n + "\n"}}});
    auto env = resolved(venv);
    Answer rep(false);
    auto r = install(env, {.wheels = {{write_wheel(specs[0], dir / "w")}, {write_wheel(specs[1], dir / "w")}, {write_wheel(specs[2], dir / "w")}}}, rep);
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    EXPECT_EQ(read_text(site_packages(venv) / "shared" / "x.py"), "from ccc\n");
    size_t clashes = 0;
    for (const auto& n : rep.notes) clashes += n.find("shared") != std::string::npos;
    EXPECT_EQ(clashes, 2u) << ::testing::PrintToString(rep.notes);
    const std::string row = "shared/x.py," + record_hash("from ccc\n") + ",9";
    for (const char* n : {"aaa", "bbb", "ccc"})
        EXPECT_NE(read_text(site_packages(venv) / (std::string(n) + "-1.0.dist-info") / "RECORD").find(row), std::string::npos) << n;
}

TEST(InstallApi, EmbeddedPythonGetsImportSiteOnlyWithConsent) {
    TempDir dir;
    auto venv = dir / "v";
    make_bare_venv(venv);
    auto env = resolved(venv);
    // The layout is a venv (it must run here); the ._pth rule is what is tested.
    env.kind = probe::EnvKind::Embedded;
    env.pth_file = venv / "python311._pth";
    write_text(*env.pth_file, "python311.zip\n.\n\n# Uncomment to run site.main() automatically\n#import site\n");
    WheelSpec s;
    s.files = {{"demo/__init__.py", ""}};
    auto wheel = write_wheel(s, dir / "w");
    Tree before = snapshot(venv);
    Answer no(false);
    auto refused = install(env, {.wheels = {{wheel}}}, no);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, ExitCode::Usage);
    EXPECT_EQ(no.questions.size(), 1u);
    EXPECT_EQ(tree_diff(before, snapshot(venv)), "");
    Answer yes(true);
    auto ok = install(env, {.wheels = {{wheel}}}, yes);
    ASSERT_TRUE(ok) << render(ok.error().message, Lang::En);
    EXPECT_TRUE(ok->site_enabled);
    EXPECT_EQ(read_text(*env.pth_file), "python311.zip\n.\n\n# Uncomment to run site.main() automatically\nimport site\n");
    EXPECT_TRUE(stdfs::exists(site_packages(venv) / "demo" / "__init__.py"));
}

TEST(InstallApi, InstallationRecordsAreThisInstallsOwn) {
    // A wheel repacked from an installed environment carries INSTALLER, REQUESTED and
    // direct_url.json: envfix writes its own instead; and a URL's credentials never reach
    // direct_url.json (PEP 610).
    TempDir dir;
    auto venv = dir / "v";
    make_bare_venv(venv);
    WheelSpec s;
    s.files = {{"demo/__init__.py", ""},
               {"demo-1.0.dist-info/INSTALLER", "pip\n"},
               {"demo-1.0.dist-info/REQUESTED", ""},
               {"demo-1.0.dist-info/direct_url.json", "{\"url\": \"file:///elsewhere\"}"}};
    auto wheel = write_wheel(s, dir / "w");
    auto env = resolved(venv);
    Answer rep(false);
    auto r = install(env, {.wheels = {{wheel, false, "https://user:secret@example.org/simple/demo-1.0-py3-none-any.whl"}}}, rep);
    ASSERT_TRUE(r) << render(r.error().message, Lang::En);
    auto di = site_packages(venv) / "demo-1.0.dist-info";
    EXPECT_EQ(read_text(di / "INSTALLER"), "envfix\n");
    EXPECT_FALSE(stdfs::exists(di / "REQUESTED"));  // requested = false: a dependency
    auto du = read_text(di / "direct_url.json");
    EXPECT_NE(du.find("\"url\": \"https://example.org/simple/demo-1.0-py3-none-any.whl\""), std::string::npos) << du;
    EXPECT_EQ(du.find("secret"), std::string::npos);
}

// The Prepare stage (PreparedWheels) as the install sees it: a venv with bbb installed and aaa's
// wheel written beside it, to install in bbb's place; `before` is the venv as it was. The stage
// here hands over the wheel it was given and records when each of its results is waited for.
struct PrepareCase {
    PrepareCase() {
        make_bare_venv(venv);
        env = resolved(venv);
        WheelSpec a{.name = "aaa", .files = {{"aaa/__init__.py", "a\n"}, {"aaa/sub/x.py", "x\n"}}};
        WheelSpec b{.name = "bbb", .files = {{"bbb/__init__.py", ""}}};
        ready = install(env, {.wheels = {{write_wheel(b, dir / "w")}}}, rep).has_value();
        wheel = write_wheel(a, dir / "w");
        before = snapshot(venv, {".envfix"});
    }
    TempDir dir;
    stdfs::path venv = dir / "v";
    probe::Environment env;
    Answer rep{false};
    stdfs::path wheel;
    Tree before;
    bool ready = false;
    // An install of aaa in bbb's place through `prepared`, which fails it: the environment as it
    // was, no snapshot kept.
    void expect_refused_unchanged(PreparedWheels& prepared);
};

struct ScriptedPreparation final : PreparedWheels {
    std::vector<stdfs::path> wheels;
    std::vector<std::string> order;
    std::function<Expected<void>(const std::string& step)> at = [](const std::string&) -> Expected<void> { return {}; };
    Expected<std::vector<stdfs::path>> files() override {
        order.push_back("files");
        ENVFIX_TRY_VOID(at("files"));
        return wheels;
    }
    Expected<void> unpacked() override {
        order.push_back("unpacked");
        return at("unpacked");
    }
    Expected<void> durable() override {
        order.push_back("durable");
        return at("durable");
    }
};

void PrepareCase::expect_refused_unchanged(PreparedWheels& prepared) {
    InstallRequest req{.wheels = {{wheel.filename()}}, .remove = {"bbb"}, .snapshot_reason = "test"};
    req.prepared = &prepared;
    auto r = install(env, req, rep);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::DiskFull);
    EXPECT_EQ(tree_diff(before, snapshot(venv, {".envfix"})), "");
    EXPECT_TRUE(list_snapshots(env.root, rep).empty()) << "a refused install keeps no snapshot";
}

Error disk_full() { return make_error(ExitCode::DiskFull, "download.cannot_write", {{"path", "aaa.whl"}, {"url", "http://x/aaa.whl"}}); }

TEST(InstallApi, ThePrepareStagesWheelsAreTakenUnderTheLockAfterWhatGoesIsPlanned) {
    // files(): `envfix install` returns there once its downloads end. The request names the wheel
    // by its file name only; the install locks, plans what goes and captures the snapshot of the
    // present first. An error from it changes nothing and keeps no snapshot.
    PrepareCase c;
    ASSERT_TRUE(c.ready);
    auto& [dir, venv, env, rep, wheel, before, ready] = c;
    ScriptedPreparation failing;
    failing.wheels = {wheel};
    bool locked = false;
    failing.at = [&](const std::string&) -> Expected<void> {
        locked = !lock_environment(env.root, false, rep).has_value();
        return unexpected(disk_full());
    };
    c.expect_refused_unchanged(failing);
    EXPECT_EQ(failing.order, (std::vector<std::string>{"files"}));
    EXPECT_TRUE(locked) << "the wheels are taken under the environment's lock";

    // A dry run takes the wheels (to check them) but waits for nothing else.
    ScriptedPreparation dry;
    dry.wheels = {wheel};
    InstallRequest dry_req{.wheels = {{wheel.filename()}}, .dry_run = true};
    dry_req.prepared = &dry;
    ASSERT_TRUE(install(env, dry_req, rep));
    EXPECT_EQ(dry.order, (std::vector<std::string>{"files"}));
}

TEST(InstallApi, ThePrepareStagesUnpackingEndsBeforeStagingAndItsFailureChangesNothing) {
    // unpacked(): `envfix install` ends its unpacking into the cache there. Waited for with the
    // plan made and the staging folders there; an error from it leaves the environment as it was.
    PrepareCase c;
    ASSERT_TRUE(c.ready);
    auto& [dir, venv, env, rep, wheel, before, ready] = c;
    bool staged_folder = false;
    ScriptedPreparation failing;
    failing.wheels = {wheel};
    failing.at = [&](const std::string& step) -> Expected<void> {
        if (step != "unpacked") return {};
        // The staging folders are made by now: the new package's folder is there under some stage.
        for (const auto& e : stdfs::recursive_directory_iterator(venv))
            staged_folder |= e.path().filename() == "sub" && e.path().parent_path().filename() == "aaa";
        return unexpected(disk_full());
    };
    c.expect_refused_unchanged(failing);
    EXPECT_EQ(failing.order, (std::vector<std::string>{"files", "unpacked"}));
    EXPECT_TRUE(staged_folder);

    ScriptedPreparation ok;
    ok.wheels = {wheel};
    InstallRequest ok_req{.wheels = {{wheel.filename()}}};
    ok_req.prepared = &ok;
    auto done = install(env, ok_req, rep);
    ASSERT_TRUE(done) << render(done.error().message, Lang::En);
    EXPECT_EQ(ok.order, (std::vector<std::string>{"files", "unpacked", "durable"}));
    EXPECT_EQ(read_text(site_packages(venv) / "aaa" / "sub" / "x.py"), "x\n");
}

TEST(InstallApi, ThePrepareStagesDurableWheelsAreWaitedForAfterStagingAndTheirFailureChangesNothing) {
    // durable(): `envfix install` waits for the downloads' flush there: with the new files staged
    // and the snapshot taken, before anything moves. An error from it leaves the environment as
    // it was and drops that snapshot.
    PrepareCase c;
    ASSERT_TRUE(c.ready);
    auto& [dir, venv, env, rep, wheel, before, ready] = c;
    bool staged_file = false;
    size_t snapshots_then = 0;
    ScriptedPreparation failing;
    failing.wheels = {wheel};
    failing.at = [&](const std::string& step) -> Expected<void> {
        if (step != "durable") return {};
        // The new files are staged by now (with their bytes), and not yet in place.
        for (const auto& e : stdfs::recursive_directory_iterator(venv))
            staged_file |= e.path().filename() == "x.py" && e.is_regular_file() && read_text(e.path()) == "x\n";
        snapshots_then = list_snapshots(env.root, rep).size();
        return unexpected(disk_full());
    };
    c.expect_refused_unchanged(failing);
    EXPECT_EQ(failing.order, (std::vector<std::string>{"files", "unpacked", "durable"}));
    EXPECT_TRUE(staged_file);
    EXPECT_FALSE(stdfs::exists(site_packages(venv) / "aaa"));
    EXPECT_EQ(snapshots_then, 1u) << "the snapshot is taken before the wait";
}
