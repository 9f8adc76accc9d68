// pip requirements files: each kind of line, as pip reads it, and the -r / -c tree on disk.
#include <gtest/gtest.h>

#include "envfix/standards/requirements_file.hpp"
#include "support.hpp"

namespace envfix {
namespace {

using standards::ReqLineKind;

struct LineCase {
    const char* text;
    ReqLineKind kind;
    std::vector<std::string> names;  // Requirement: canonical names
    std::string target;  // Include/Constraint/Editable/Url/Path: target; Option: long name
    std::string value;  // Option: value
};

TEST(RequirementsFile, EachKindOfLine) {
    const std::vector<LineCase> cases = {
        {"torch", ReqLineKind::Requirement, {"torch"}, "", ""},
        {"numpy>=1.25.0", ReqLineKind::Requirement, {"numpy"}, "", ""},
        {"Pillow", ReqLineKind::Requirement, {"pillow"}, "", ""},
        {"pydantic~=2.0", ReqLineKind::Requirement, {"pydantic"}, "", ""},
        {"windows-curses; sys_platform=='win32'", ReqLineKind::Requirement, {"windows-curses"}, "", ""},
        {"torch >= 2.1, < 2.9 ; python_version >= \"3.9\"", ReqLineKind::Requirement, {"torch"}, "", ""},
        {"diffusers[torch]==0.25.0", ReqLineKind::Requirement, {"diffusers"}, "", ""},
        {"clip @ git+https://github.com/openai/CLIP.git", ReqLineKind::Requirement, {"clip"}, "", ""},
        {"xformers==0.0.27.post2+cu118 --index-url https://download.pytorch.org/whl/cu118", ReqLineKind::Requirement, {"xformers"}, "", ""},
        {"requests==2.31.0 --hash=sha256:942c5a758f98d790eaed1a29cb6eefc7ffb0d1cf7af05c3d2791656dbd6ad1e1",
         ReqLineKind::Requirement,
         {"requests"},
         "",
         ""},
        // kohya_ss: several requirements and an index option on one line.
        {"torch==2.1.2+cu118 torchvision==0.16.2+cu118 --extra-index-url https://download.pytorch.org/whl/cu118",
         ReqLineKind::Requirement,
         {"torch", "torchvision"},
         "",
         ""},
        {"xformers==0.0.23.post1+cu118 bitsandbytes==0.41.1", ReqLineKind::Requirement, {"xformers", "bitsandbytes"}, "", ""},
        {"-r requirements.txt", ReqLineKind::Include, {}, "requirements.txt", ""},
        {"-rbase.txt", ReqLineKind::Include, {}, "base.txt", ""},
        {"--requirement=extra/more.txt", ReqLineKind::Include, {}, "extra/more.txt", ""},
        {"--requirement more.txt", ReqLineKind::Include, {}, "more.txt", ""},
        {"-c constraints.txt", ReqLineKind::Constraint, {}, "constraints.txt", ""},
        {"-e .", ReqLineKind::Editable, {}, ".", ""},
        {"--editable=git+https://github.com/x/y.git#egg=y", ReqLineKind::Editable, {}, "git+https://github.com/x/y.git#egg=y", ""},
        {"--extra-index-url https://download.pytorch.org/whl/cu121",
         ReqLineKind::Option,
         {},
         "--extra-index-url",
         "https://download.pytorch.org/whl/cu121"},
        {"-i https://mirror/simple", ReqLineKind::Option, {}, "--index-url", "https://mirror/simple"},
        {"--index-url=https://mirror/simple", ReqLineKind::Option, {}, "--index-url", "https://mirror/simple"},
        {"--find-links ./wheels", ReqLineKind::Option, {}, "--find-links", "./wheels"},
        {"--pre", ReqLineKind::Option, {}, "--pre", ""},
        {"--prefer-binary", ReqLineKind::Option, {}, "--prefer-binary", ""},
        {"--no-binary :all:", ReqLineKind::Option, {}, "--no-binary", ":all:"},
        {"git+https://github.com/huggingface/diffusers.git@abc123",
         ReqLineKind::Url,
         {},
         "git+https://github.com/huggingface/diffusers.git@abc123",
         ""},
        {"https://github.com/TencentARC/GFPGAN/archive/8d2447a.zip",
         ReqLineKind::Url,
         {},
         "https://github.com/TencentARC/GFPGAN/archive/8d2447a.zip",
         ""},
        {"git+https://github.com/x/y.git ; python_version < '3.12'", ReqLineKind::Url, {}, "git+https://github.com/x/y.git", ""},
        {".", ReqLineKind::Path, {}, ".", ""},
        {"./sd-scripts", ReqLineKind::Path, {}, "./sd-scripts", ""},
        {"wheels/insightface-0.7.3-cp310-cp310-win_amd64.whl",
         ReqLineKind::Path,
         {},
         "wheels/insightface-0.7.3-cp310-cp310-win_amd64.whl",
         ""},
        {"sd-scripts/", ReqLineKind::Path, {}, "sd-scripts/", ""},
    };
    for (const auto& c : cases) {
        auto f = standards::parse_requirements_file(c.text, "r.txt");
        ASSERT_EQ(f.lines.size(), 1u) << c.text;
        const auto& l = f.lines[0];
        EXPECT_EQ(l.kind, c.kind) << c.text << " -> " << standards::req_line_kind_name(l.kind)
                                  << (l.error ? " " + render(l.error->message, Lang::En) : "");
        std::vector<std::string> names;
        for (const auto& r : l.requirements) names.push_back(r.canonical_name());
        EXPECT_EQ(names, c.names) << c.text;
        if (c.kind != ReqLineKind::Requirement) {
            EXPECT_EQ(l.target, c.target) << c.text;
        }
        EXPECT_EQ(l.value, c.value) << c.text;
        EXPECT_EQ(l.line, 1u);
    }
}

TEST(RequirementsFile, MarkersSpecifiersAndUrlsAreKept) {
    auto f = standards::parse_requirements_file("torch>=2.1,<2.9; sys_platform == 'linux'\nclip @ git+https://x/clip.git\n", "r");
    ASSERT_EQ(f.lines.size(), 2u);
    const auto& torch = f.lines[0].requirements.at(0);
    EXPECT_EQ(torch.specifier.to_string(), "<2.9,>=2.1");
    ASSERT_TRUE(torch.marker);
    EXPECT_EQ(torch.marker->to_string(), "sys_platform == \"linux\"");
    EXPECT_EQ(f.lines[1].requirements.at(0).url, "git+https://x/clip.git");
    auto hashed = standards::parse_requirements_file("six==1.16.0 --hash=sha256:abc --hash sha256:def\n", "r");
    EXPECT_EQ(hashed.lines.at(0).options, (std::vector<std::string>{"--hash=sha256:abc", "--hash sha256:def"}));
}

TEST(RequirementsFile, CommentsContinuationsAndLineNumbers) {
    const std::string text =
        "\xEF\xBB\xBF# ComfyUI\r\n"
        "torch\r\n"
        "\r\n"
        "numpy>=1.25.0 # not 2.x yet\r\n"
        "#non essential dependencies:\r\n"
        "kornia\\\n"
        ">=0.7.1\n"
        "einops#egg is no comment here\n"
        "   \n"
        "spandrel\\\n";
    auto f = standards::parse_requirements_file(text, "requirements.txt");
    ASSERT_EQ(f.lines.size(), 5u);
    EXPECT_EQ(f.lines[0].text, "torch");
    EXPECT_EQ(f.lines[0].line, 2u);
    EXPECT_EQ(f.lines[1].text, "numpy>=1.25.0");
    EXPECT_EQ(f.lines[1].line, 4u);
    EXPECT_EQ(f.lines[2].text, "kornia>=0.7.1");
    EXPECT_EQ(f.lines[2].line, 6u);
    EXPECT_EQ(f.lines[2].requirements.at(0).specifier.to_string(), ">=0.7.1");
    // "#" glued to a word is not a comment (pip needs whitespace before it); that line is invalid.
    EXPECT_EQ(f.lines[3].kind, ReqLineKind::Invalid);
    EXPECT_EQ(f.lines[3].line, 8u);
    // A backslash on the last line joins it with the empty rest of the file.
    EXPECT_EQ(f.lines[4].text, "spandrel");
    EXPECT_EQ(f.lines[4].line, 10u);
}

TEST(RequirementsFile, BadLinesAreKeptWithOneLineErrors) {
    struct Bad {
        const char* text;
        const char* key;
    };
    const std::vector<Bad> bad = {
        {"torch[cuda", "reqfile.bad_requirement"},      {"numpy >= ", "reqfile.bad_requirement"},
        {"-r", "reqfile.option_needs_value"},           {"--index-url", "reqfile.option_needs_value"},
        {"--frobnicate yes", "reqfile.unknown_option"}, {"torch --frobnicate", "reqfile.unknown_option"},
        {"torch==${TORCH_VERSION}", "reqfile.env_var"},
    };
    for (const auto& b : bad) {
        auto f = standards::parse_requirements_file(std::string("ok\n") + b.text + "\n", "dir/reqs.txt");
        ASSERT_EQ(f.lines.size(), 2u) << b.text;
        const auto& l = f.lines[1];
        EXPECT_EQ(l.kind, ReqLineKind::Invalid) << b.text;
        ASSERT_TRUE(l.error) << b.text;
        EXPECT_EQ(l.error->code, ExitCode::BadInput);
        EXPECT_EQ(l.error->message.key, b.key) << b.text << ": " << render(l.error->message, Lang::En);
        auto line = render(l.error->message, Lang::En);
        EXPECT_TRUE(line.starts_with("dir/reqs.txt line 2:")) << line;
        EXPECT_EQ(line.find('\n'), std::string::npos);
    }
}

TEST(RequirementsFile, TreeFollowsIncludesOnce) {
    test::TempDir dir;
    test::write_text(dir / "app/requirements_linux.txt", "torch==2.1.2\n-r requirements.txt\n-c ../shared/constraints.txt\n");
    test::write_text(dir / "app/requirements.txt", "accelerate\n-r requirements_linux.txt\n-r missing.txt\n-r https://x/r.txt\n");
    test::write_text(dir / "shared/constraints.txt", "numpy<2\n");
    auto tree = standards::read_requirements_tree(dir / "app/requirements_linux.txt", "app/requirements_linux.txt");
    ASSERT_EQ(tree.files.size(), 3u);
    EXPECT_EQ(tree.files[0].source, "app/requirements_linux.txt");
    EXPECT_EQ(tree.files[1].source, "app/requirements.txt");
    EXPECT_EQ(tree.files[2].source, "shared/constraints.txt");
    ASSERT_EQ(tree.problems.size(), 2u);
    EXPECT_EQ(tree.problems[0].message.key, "reqfile.unreadable");
    EXPECT_EQ(tree.problems[0].message.arg("source"), "app/missing.txt");
    EXPECT_EQ(tree.problems[1].message.key, "reqfile.url_include");
    auto missing = standards::read_requirements_tree(dir / "nope.txt", "nope.txt");
    EXPECT_TRUE(missing.files.empty());
    ASSERT_EQ(missing.problems.size(), 1u);
    EXPECT_EQ(render(missing.problems[0].message, Lang::En), "nope.txt: cannot read this requirements file");
}

}  // namespace
}  // namespace envfix
