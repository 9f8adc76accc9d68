// PEP 691 JSON project pages (with PEP 700's versions, size and upload-time).
#include <nlohmann/json.hpp>

#include "envfix/common/strings.hpp"
#include "envfix/network/index_page.hpp"
#include "envfix/network/url.hpp"

namespace envfix::network {

namespace {

using Json = nlohmann::json;

Unexpected<Error> bad_field(const std::string& url, const std::string& field) {
    return fail(ExitCode::BadIndexPage, "index.json_field", {{"url", url}, {"field", field}});
}

// Hash maps are {"sha256": "<hex>"}; values that are not strings make the page invalid.
bool read_hashes(const Json& j, std::map<std::string, std::string>& out) {
    if (!j.is_object()) return false;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it.value().is_string()) return false;
        out[str::lower(it.key())] = str::lower(it.value().get<std::string>());
    }
    return true;
}

}  // namespace

Expected<ProjectPage> parse_json_project_page(std::string_view body, std::string_view page_url) {
    ProjectPage page;
    page.url = redact_url(page_url);
    page.format = PageFormat::Json;
    Json j = Json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return fail(ExitCode::BadIndexPage, "index.json_invalid", {{"url", page.url}});
    if (!j.is_object()) return bad_field(page.url, "(document)");
    auto meta = j.find("meta");
    if (meta == j.end() || !meta->is_object()) return bad_field(page.url, "meta");
    auto ver = meta->find("api-version");
    if (ver == meta->end() || !ver->is_string()) return bad_field(page.url, "meta.api-version");
    page.api_version = ver->get<std::string>();
    if (!page.api_version.starts_with("1.") && page.api_version != "1")
        return fail(ExitCode::BadIndexPage, "index.api_version", {{"url", page.url}, {"version", page.api_version}});
    if (auto n = j.find("name"); n != j.end()) {
        if (!n->is_string()) return bad_field(page.url, "name");
        page.name = n->get<std::string>();
    } else {
        return bad_field(page.url, "name");
    }
    if (auto v = j.find("versions"); v != j.end()) {
        if (!v->is_array()) return bad_field(page.url, "versions");
        for (const auto& e : *v) {
            if (!e.is_string()) return bad_field(page.url, "versions[]");
            page.versions.push_back(e.get<std::string>());
        }
    }
    auto files = j.find("files");
    if (files == j.end() || !files->is_array()) return bad_field(page.url, "files");
    size_t idx = 0;
    for (const auto& f : *files) {
        std::string where = "files[" + std::to_string(idx++) + "]";
        if (!f.is_object()) return bad_field(page.url, where);
        IndexFile out;
        auto fn = f.find("filename");
        auto u = f.find("url");
        auto h = f.find("hashes");
        if (fn == f.end() || !fn->is_string()) return bad_field(page.url, where + ".filename");
        if (u == f.end() || !u->is_string()) return bad_field(page.url, where + ".url");
        if (h == f.end() || !read_hashes(*h, out.hashes)) return bad_field(page.url, where + ".hashes");
        out.filename = fn->get<std::string>();
        out.url = strip_fragment(resolve_url(page_url, u->get<std::string>()));
        if (auto rp = f.find("requires-python"); rp != f.end() && !rp->is_null()) {
            if (!rp->is_string()) return bad_field(page.url, where + ".requires-python");
            auto v = std::string(str::trim(rp->get<std::string>()));
            if (!v.empty()) out.requires_python = v;
        }
        if (auto y = f.find("yanked"); y != f.end() && !y->is_null()) {
            if (y->is_boolean()) {
                out.yanked = y->get<bool>();
            } else if (y->is_string()) {
                out.yanked = true;
                out.yanked_reason = y->get<std::string>();
            } else {
                return bad_field(page.url, where + ".yanked");
            }
        }
        // PEP 714: "core-metadata" wins over the older "dist-info-metadata".
        auto cm = f.find("core-metadata");
        std::string cm_name = "core-metadata";
        if (cm == f.end()) {
            cm = f.find("dist-info-metadata");
            cm_name = "dist-info-metadata";
        }
        if (cm != f.end() && !cm->is_null()) {
            if (cm->is_boolean()) {
                out.core_metadata = cm->get<bool>();
            } else if (cm->is_object()) {
                out.core_metadata = true;
                if (!read_hashes(*cm, out.core_metadata_hashes)) return bad_field(page.url, where + "." + cm_name);
            } else {
                return bad_field(page.url, where + "." + cm_name);
            }
        }
        if (auto s = f.find("size"); s != f.end() && !s->is_null()) {
            if (!s->is_number_unsigned() && !(s->is_number_integer() && s->get<int64_t>() >= 0))
                return bad_field(page.url, where + ".size");
            out.size = s->get<uint64_t>();
        }
        if (auto t = f.find("upload-time"); t != f.end() && !t->is_null()) {
            if (!t->is_string()) return bad_field(page.url, where + ".upload-time");
            out.upload_time = t->get<std::string>();
        }
        page.files.push_back(std::move(out));
    }
    return page;
}

}  // namespace envfix::network
