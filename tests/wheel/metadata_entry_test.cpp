// A wheel's METADATA read from parts of the wheel (metadata_entry.hpp) on the directory the
// shared zip reader gives (envfix/wheel/zip.hpp): real wheels from mkwheel.py and zips
// written by Python's zipfile (comments, stored entries, zip64 fields).
#include <gtest/gtest.h>

#include "envfix/wheel/metadata_entry.hpp"
#include "envfix/wheel/zip.hpp"
#include "support.hpp"

using namespace envfix;
using namespace envfix::wheel;
using namespace envfix::wheel::detail;

namespace {

std::string render_en(const Error& e) { return render(e.message, Lang::En); }

// A zip made by Python's zipfile; `body` is Python code using `z` (a ZipFile open for writing).
std::string python_zip(const test::TempDir& dir, const std::string& body) {
    auto out = dir / "made.zip";
    auto script = dir / "make.py";
    test::write_text(script, "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n" + body);
    auto r = test::run_program({test::test_python().string(), script.string(), out.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    return test::read_text(out);
}

std::string metadata_of(std::string_view zip, std::string_view project, size_t tail_bytes) {
    std::string_view tail = zip.substr(zip.size() - std::min(tail_bytes, zip.size()));
    auto parsed = wheel::read_zip_central(tail, zip.size() - tail.size(), "test.whl");
    EXPECT_TRUE(parsed) << render_en(parsed.error());
    if (!parsed) return "";
    for (int again = 0; parsed && parsed->need_from && again < 3; ++again) {
        const uint64_t from = *parsed->need_from;
        parsed = wheel::read_zip_central(zip.substr(from), from, "test.whl");
    }
    EXPECT_TRUE(parsed && !parsed->need_from);
    if (!parsed) return "";
    const wheel::ZipEntry* e = find_metadata_entry(parsed->dir.entries, project);
    EXPECT_NE(e, nullptr);
    if (!e) return "";
    auto span = std::min<uint64_t>(entry_span(*e), zip.size() - e->local_header_offset);
    auto text = detail::read_zip_entry(zip.substr(e->local_header_offset, span), *e, "test.whl");
    EXPECT_TRUE(text) << render_en(text.error());
    return text ? *text : "";
}

}  // namespace

TEST(PlanZip, MetadataOfARealWheelFromItsEnd) {
    test::TempDir dir;
    nlohmann::ordered_json files;
    for (int i = 0; i < 400; ++i) files["nvidia/lib/file" + std::to_string(i) + ".so"] = nlohmann::ordered_json{{"size", 700}, {"seed", i}};
    auto wheel = test::build_wheel({{"name", "nvidia-cudnn-cu12"},
                                    {"version", "9.5.1.17"},
                                    {"tags", {"py3-none-manylinux_2_27_x86_64"}},
                                    {"requires_dist", {"nvidia-cublas-cu12"}},
                                    {"files", files}},
                                   dir.path());
    std::string zip = test::read_text(wheel);
    for (size_t tail : {size_t(64) << 10, size_t(4096), size_t(100)}) {  // whole directory, then less of it
        auto md = metadata_of(zip, "nvidia-cudnn-cu12", tail);
        EXPECT_NE(md.find("Name: nvidia-cudnn-cu12\n"), std::string::npos) << tail;
        EXPECT_NE(md.find("Requires-Dist: nvidia-cublas-cu12"), std::string::npos) << tail;
    }
}

TEST(PlanZip, CommentStoredAndZip64Entries) {
    test::TempDir dir;
    auto zip = python_zip(dir,
                          "    z.writestr('pkg/__init__.py', 'x = 1\\n' * 1000)\n"
                          "    z.writestr(zipfile.ZipInfo('other-1.0.dist-info/METADATA'), 'Name: other\\n')\n"
                          "    with z.open('pkg-1.0.dist-info/METADATA', 'w', force_zip64=True) as f:\n"
                          "        f.write(b'Metadata-Version: 2.1\\nName: pkg\\nVersion: 1.0\\n')\n"
                          "    z.writestr(zipfile.ZipInfo('pkg-1.0.dist-info/RECORD'), '')\n"
                          "    z.comment = b'a comment at the end ' * 20\n");
    EXPECT_EQ(metadata_of(zip, "pkg", 1 << 16), "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n");
    EXPECT_EQ(metadata_of(zip, "other", 1 << 16), "Name: other\n");  // stored, not deflated
}

TEST(PlanZip, RefusesWhatIsNoZip) {
    std::string junk(5000, 'x');
    auto r = wheel::read_zip_central(junk, 0, "https://example.org/x.whl");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::BadWheel);
    EXPECT_NE(render_en(r.error()).find("https://example.org/x.whl"), std::string::npos) << render_en(r.error());

    test::TempDir dir;
    auto zip = python_zip(dir, "    z.writestr('a.txt', 'hello')\n");
    std::string cut = zip;
    cut[cut.size() - 22 + 16] = '\x7f';  // the directory's offset now points past the end
    auto bad = wheel::read_zip_central(cut, 0, "cut.whl");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ExitCode::BadWheel);
    EXPECT_NE(render_en(bad.error()).find("cut.whl"), std::string::npos) << render_en(bad.error());

    auto no_md = wheel::read_zip_central(zip, 0, "a.whl");
    ASSERT_TRUE(no_md);
    EXPECT_EQ(find_metadata_entry(no_md->dir.entries, "a"), nullptr);
}
