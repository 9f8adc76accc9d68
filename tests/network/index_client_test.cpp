// The index client over HTTP against an index laid out like the PyTorch one (mkindex.py).
#include <gtest/gtest.h>

#include "envfix/common/hash.hpp"
#include "envfix/common/message.hpp"
#include "envfix/common/strings.hpp"
#include "envfix/network/index_client.hpp"
#include "index_fixtures.hpp"

using namespace envfix;
using namespace envfix::network;
using envfix::test::TempDir;

namespace {

const auto text = test::error_text;

// Small by default (one variant, the torch family); the layout test asks for every variant.
struct PytorchIndex : test::ServedIndex {
    explicit PytorchIndex(const std::string& variants = "cu128,cu130", const std::string& only = "torch,torchvision,torchaudio")
        : ServedIndex({"--json", "--variants", variants, "--only", only, "--pythons", "cp311,cp312", "--platforms", "manylinux_2_28_x86_64",
                       "--torch", "2.7.0,2.11.0", "--yank", "torchaudio-2.7.0=broken audio build"}) {}
    std::string root() const { return server->url("/"); }
};

const IndexFile* find(const ProjectPage& p, const std::string& filename) {
    for (const auto& f : p.files)
        if (f.filename == filename) return &f;
    return nullptr;
}

}  // namespace

TEST(IndexClient, ReadsEveryVariantOfThePytorchLayout) {
    PytorchIndex idx("cpu,cu126,cu128,cu130,nightly/cu130", "torch");
    HttpClient http(test::test_http_options(idx.dir.path()));
    IndexClient client(http);
    struct Case {
        IndexChannel ch;
        const char* variant;
        const char* file;
    } cases[] = {
        {IndexChannel::Stable, "cpu", "torch-2.7.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"},
        {IndexChannel::Stable, "cpu", "torch-2.7.0-cp311-cp311-macosx_11_0_arm64.whl"},
        {IndexChannel::Stable, "cu126", "torch-2.11.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl"},
        {IndexChannel::Stable, "cu128", "torch-2.7.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl"},
        {IndexChannel::Stable, "cu130", "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"},
        {IndexChannel::Nightly, "cu130", "torch-2.12.0.dev20260301+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"},
    };
    for (auto c : cases) {
        auto page = client.project_page(pytorch_index_url(idx.root(), c.ch, c.variant), "torch");
        ASSERT_TRUE(page) << text(page.error());
        EXPECT_EQ(page->format, PageFormat::Json) << c.variant;  // negotiated
        const IndexFile* f = find(*page, c.file);
        ASSERT_TRUE(f) << c.file;
        auto rec = test::manifest_file(idx.manifest, c.file);
        EXPECT_EQ(f->url, idx.server->url(idx.url_path(rec))) << c.file;
        if (c.ch == IndexChannel::Nightly) {
            EXPECT_TRUE(f->hashes.empty());  // like the real nightly pages
        } else {
            EXPECT_EQ(f->hashes.at("sha256"), rec["sha256"]);
        }
        EXPECT_EQ(f->size, rec["size"].get<uint64_t>());
        EXPECT_TRUE(f->upload_time);
        EXPECT_TRUE(f->requires_python);
    }
}

TEST(IndexClient, HtmlAndJsonPagesAgree) {
    PytorchIndex idx;
    HttpClient http(test::test_http_options(idx.dir.path()));
    auto url = idx.server->url("/cu128/torchaudio/");
    auto json = http.get(HttpRequest{url, std::string(kIndexAccept), {}, false});
    auto html = http.get(HttpRequest{url, "text/html", {}, false});
    ASSERT_TRUE(json && html);
    EXPECT_EQ(json->content_type, "application/vnd.pypi.simple.v1+json");
    auto jp = parse_project_page(json->body, json->content_type, url);
    auto hp = parse_project_page(html->body, html->content_type, url);
    ASSERT_TRUE(jp && hp);
    ASSERT_EQ(jp->files.size(), hp->files.size());
    for (size_t i = 0; i < jp->files.size(); ++i) {
        const auto& a = jp->files[i];
        const auto& b = hp->files[i];
        EXPECT_EQ(a.filename, b.filename);
        EXPECT_EQ(a.url, b.url);
        EXPECT_EQ(a.hashes, b.hashes);
        EXPECT_EQ(a.requires_python, b.requires_python);
        EXPECT_EQ(a.yanked, b.yanked);
        EXPECT_EQ(a.yanked_reason, b.yanked_reason);
        EXPECT_EQ(a.core_metadata_hashes, b.core_metadata_hashes);
    }
    auto yanked = find(*hp, "torchaudio-2.7.0+cu128-cp311-cp311-manylinux_2_28_x86_64.whl");
    ASSERT_TRUE(yanked);
    EXPECT_TRUE(yanked->yanked);
    EXPECT_EQ(yanked->yanked_reason, "broken audio build");
}

TEST(IndexClient, FetchesPep658MetadataCheckedAgainstItsHash) {
    PytorchIndex idx;
    HttpClient http(test::test_http_options(idx.dir.path()));
    IndexClient client(http);
    auto page = client.project_page(idx.server->url("/cu130/"), "torch");
    ASSERT_TRUE(page) << text(page.error());
    const auto* f = find(*page, "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->core_metadata);
    auto meta = client.core_metadata(*f);
    ASSERT_TRUE(meta) << text(meta.error());
    EXPECT_NE(meta->find("Version: 2.11.0+cu130"), std::string::npos);
    EXPECT_NE(meta->find("Requires-Dist: nvidia-nccl-cu13==2.28.9; platform_system == \"Linux\"\n"), std::string::npos) << *meta;
    EXPECT_NE(meta->find("Requires-Dist: cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,"
                         "nvtx]==13.0.2; platform_system == \"Linux\"\n"),
              std::string::npos);
    EXPECT_NE(meta->find("Requires-Dist: triton==3.6.0; platform_system == \"Linux\""), std::string::npos);
    EXPECT_NE(meta->find("Requires-Python: >=3.10"), std::string::npos);
    // Only the metadata file was fetched, never the wheel.
    for (const auto& l : idx.server->log()) EXPECT_FALSE(l["path"].get<std::string>().ends_with(".whl"));
    // A metadata file that differs from the page's hash is refused.
    auto rec = test::manifest_file(idx.manifest, f->filename);
    test::write_text(idx.dir / "whl" / (rec["path"].get<std::string>() + ".metadata"), "Metadata-Version: 2.1\nName: evil\n");
    TempDir fresh;
    HttpClient http2(test::test_http_options(fresh.path()));
    IndexClient client2(http2);
    auto bad = client2.core_metadata(*f);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().code, ExitCode::HashMismatch);
    EXPECT_NE(text(bad.error()).find("expected sha256 " + rec["metadata_sha256"].get<std::string>()), std::string::npos);
}

TEST(IndexClient, MissingProjectIs404) {
    PytorchIndex idx;
    HttpClient http(test::test_http_options(idx.dir.path()));
    IndexClient client(http);
    auto r = client.project_page(idx.server->url("/cu128/"), "No_Such.Project");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ExitCode::HttpStatus);
    EXPECT_EQ(text(r.error()),
              "no project No_Such.Project on the index: " + idx.server->url("/cu128/no-such-project/") + " answered HTTP 404");
}

TEST(IndexClient, BadPagesAreRefusedWithTheirUrl) {
    PytorchIndex idx;
    idx.server->set_faults({
        {"/portal/torch/",
         {{"body", "<html><body><h1>Sign in</h1><a href=\"/login\">Log in</a></body></html>"}, {"content_type", "text/html"}}},
        {"/plain/torch/", {{"content_type", "text/plain"}, {"body", "torch-2.7.0-py3-none-any.whl\n"}}},
        {"/badjson/torch/",
         {{"body", R"({"meta": {"api-version": "1.0"}, "name": "torch", "files": [{"filename": "x.whl"}]})"},
          {"content_type", "application/vnd.pypi.simple.v1+json"}}},
    });
    HttpClient http(test::test_http_options(idx.dir.path()));
    IndexClient client(http);
    struct Case {
        const char* root;
        const char* key;
    } cases[] = {{"/portal/", "index.html_no_dist_links"}, {"/plain/", "index.content_type"}, {"/badjson/", "index.json_field"}};
    for (auto c : cases) {
        auto r = client.project_page(idx.server->url(c.root), "torch");
        ASSERT_FALSE(r) << c.root;
        EXPECT_EQ(r.error().code, ExitCode::BadIndexPage);
        EXPECT_EQ(r.error().message.key, c.key);
        EXPECT_NE(text(r.error()).find(idx.server->url(c.root) + "torch/"), std::string::npos) << text(r.error());
    }
}

TEST(IndexClient, FallsBackToTheNextMirror) {
    PytorchIndex idx;
    idx.server->set_faults({{"/down/cu128/torch/", {{"status", 503}}}});
    auto opts = test::test_http_options(idx.dir.path());
    opts.retries = 0;
    test::RecordingReporter rep;
    HttpClient http(opts, rep);
    IndexClient client(http);
    auto page = client.project_page_any({idx.server->url("/down/cu128/"), idx.server->url("/cu128/")}, "torch");
    ASSERT_TRUE(page) << text(page.error());
    EXPECT_EQ(page->url, idx.server->url("/cu128/torch/"));
    EXPECT_NE(rep.all_text().find("trying the next index"), std::string::npos);
}

TEST(IndexClient, CredentialsReachFilesOnTheSameHostOnly) {
    PytorchIndex idx;
    const std::string secret = "idx-pa55";
    idx.server->set_faults({{"*", {{"auth", "u:" + secret}}}});
    test::RecordingReporter rep;
    HttpClient http(test::test_http_options(idx.dir.path()), rep);
    IndexClient client(http);
    auto root = "http://u:" + secret + "@127.0.0.1:" + std::to_string(idx.server->port()) + "/cu128/";
    auto page = client.project_page(root, "torchvision");
    ASSERT_TRUE(page) << text(page.error());
    EXPECT_EQ(page->url.find(secret), std::string::npos);
    ASSERT_FALSE(page->files.empty());
    EXPECT_NE(page->files[0].url.find("u:" + secret + "@"), std::string::npos);  // to download it
    auto meta = client.core_metadata(page->files[0]);
    ASSERT_TRUE(meta) << text(meta.error());
    EXPECT_EQ(rep.all_text().find(secret), std::string::npos);
}

TEST(TestIndex, RealPipResolvesTheWholeStackFromIt) {
    // The test index is only worth something if real tools accept it: pip resolves torch
    // 2.11.0+cu130 with its companions and every runtime dependency from it.
    test::ServedIndex idx({"--variants", "cu130", "--pythons", "cp311", "--platforms", "manylinux_2_28_x86_64", "--torch", "2.11.0"});
    auto python = test::make_venv(idx.dir / "venv");
    std::vector<std::string> argv{python.string(),
                                  "-m",
                                  "pip",
                                  "download",
                                  "--disable-pip-version-check",
                                  "--no-cache-dir",
                                  "--index-url",
                                  idx.server->url("/cu130/"),
                                  "--only-binary=:all:",
                                  "--python-version",
                                  "3.11",
                                  "-d",
                                  (idx.dir / "dl").string(),
                                  "torch==2.11.0+cu130",
                                  "torchvision",
                                  "torchaudio"};
    for (const char* p : {"manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_25_x86_64", "manylinux_2_24_x86_64",
                          "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"}) {
        argv.push_back("--platform");
        argv.push_back(p);
    }
    auto r = test::run_program(argv, {{"PIP_CONFIG_FILE", "/dev/null"}}, 300);
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    size_t wheels = 0;
    for (const auto& e : std::filesystem::directory_iterator(idx.dir / "dl")) wheels += e.path().extension() == ".whl";
    EXPECT_GE(wheels, 30u);  // torch, torchvision, torchaudio, triton, cuda-*, 15 nvidia-*, pure dependencies
    EXPECT_TRUE(std::filesystem::exists(idx.dir / "dl" / "torch-2.11.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl"));
}
