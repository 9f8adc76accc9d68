// The lock file: a plan's wheels with their hashes, as JSON (docs/provisioning.md#the-lock-file).
#include "envfix/installer/lock_file.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "envfix/common/hash.hpp"
#include "envfix/matrix/framework.hpp"
#include "envfix/standards/names.hpp"
#include "envfix/standards/version.hpp"

namespace envfix::installer {

namespace {

using Json = nlohmann::ordered_json;

Unexpected<Error> bad(std::string_view source, std::string reason) {
    return fail(ExitCode::BadInput, "apply.lock_invalid", {{"file", std::string(source)}, {"reason", std::move(reason)}});
}

}  // namespace

Expected<LockFile> lock_from_plan(const plan::Plan& plan) {
    if (plan.failure) return unexpected(Error{plan.failure->code, plan.failure->message});
    LockFile lock;
    lock.torch = plan.torch;
    lock.variant = plan.variant;
    lock.channel = plan.channel;
    lock.framework_index = plan.framework_index;
    lock.python = plan.target.python;
    lock.platform = plan.target.platform;
    lock.best_tag = plan.target.best_tag;
    for (const auto& w : plan.install) {
        if (!is_sha256_hex(w.sha256)) return fail(ExitCode::BadInput, "apply.lock_no_hash", {{"file", w.filename}});
        lock.wheels.push_back({w.name, w.canonical_name, w.version, w.filename, w.url, w.sha256, w.size, w.framework});
    }
    std::sort(lock.wheels.begin(), lock.wheels.end(),
              [](const LockedWheel& a, const LockedWheel& b) { return a.canonical_name < b.canonical_name; });
    return lock;
}

std::string serialize_lock(const LockFile& lock) {
    Json wheels = Json::array();
    for (const auto& w : lock.wheels) {
        Json j = {{"name", w.name}, {"version", w.version}, {"filename", w.filename}, {"url", w.url}, {"sha256", w.sha256}};
        j["size"] = w.size ? Json(*w.size) : Json(nullptr);
        j["framework"] = w.framework;
        wheels.push_back(std::move(j));
    }
    Json doc = {{"version", lock.format_version},
                {"kind", "envfix-lock"},
                {"torch", lock.torch},
                {"variant", lock.variant},
                {"channel", lock.channel},
                {"framework_index", lock.framework_index},
                {"target", {{"python", lock.python}, {"platform", lock.platform}, {"best_tag", lock.best_tag}}},
                {"wheels", wheels}};
    return doc.dump(2) + "\n";
}

Expected<LockFile> parse_lock(std::string_view text, std::string_view source) {
    Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return bad(source, "not a JSON object");
    if (!doc.contains("kind") || doc["kind"] != "envfix-lock") return bad(source, "\"kind\" is not \"envfix-lock\"");
    if (!doc.contains("version") || !doc["version"].is_number_integer()) return bad(source, "no integer \"version\"");
    int v = doc["version"].get<int>();
    if (v != kLockFormatVersion)
        return fail(ExitCode::BadInput, "apply.lock_version",
                    {{"file", std::string(source)}, {"found", std::to_string(v)}, {"supported", std::to_string(kLockFormatVersion)}});
    auto str = [&](const Json& o, const char* key, std::string& out) -> bool {
        if (!o.contains(key)) return true;
        if (!o[key].is_string()) return false;
        out = o[key].get<std::string>();
        return true;
    };
    LockFile lock;
    if (!str(doc, "torch", lock.torch) || !str(doc, "variant", lock.variant) || !str(doc, "channel", lock.channel) ||
        !str(doc, "framework_index", lock.framework_index))
        return bad(source, "a choice field is not a string");
    if (doc.contains("target") && doc["target"].is_object()) {
        const Json& t = doc["target"];
        if (!str(t, "python", lock.python) || !str(t, "platform", lock.platform) || !str(t, "best_tag", lock.best_tag))
            return bad(source, "a \"target\" field is not a string");
    }
    if (!doc.contains("wheels") || !doc["wheels"].is_array()) return bad(source, "no \"wheels\" list");
    std::set<std::string> seen;
    size_t i = 0;
    for (const auto& j : doc["wheels"]) {
        std::string where = "wheels[" + std::to_string(i++) + "]";
        if (!j.is_object()) return bad(source, where + " is not an object");
        LockedWheel w;
        for (auto [key, out] : {std::pair{"name", &w.name}, {"version", &w.version}, {"filename", &w.filename}, {"url", &w.url},
                                {"sha256", &w.sha256}}) {
            if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
                return bad(source, where + ": \"" + key + "\" missing or not a string");
            *out = j[key].get<std::string>();
        }
        if (!is_sha256_hex(w.sha256)) return bad(source, where + " (" + w.filename + "): sha256 is not 64 lower-case hex digits");
        if (w.filename.find('/') != std::string::npos || w.filename.find('\\') != std::string::npos || !w.filename.ends_with(".whl"))
            return bad(source, where + ": \"" + w.filename + "\" is not a wheel file name");
        auto canon = standards::validated_name(w.name);
        if (!canon) return bad(source, where + ": \"" + w.name + "\" is not a package name");
        w.canonical_name = *canon;
        if (!standards::Version::try_parse(w.version)) return bad(source, where + ": \"" + w.version + "\" is not a version");
        if (j.contains("size") && !j["size"].is_null()) {
            if (!j["size"].is_number_unsigned()) return bad(source, where + ": \"size\" is not a byte count");
            w.size = j["size"].get<uint64_t>();
        }
        if (j.contains("framework")) {
            if (!j["framework"].is_boolean()) return bad(source, where + ": \"framework\" is not true or false");
            w.framework = j["framework"].get<bool>();
        }
        if (!seen.insert(w.canonical_name).second) return bad(source, where + ": " + w.name + " is locked twice");
        lock.wheels.push_back(std::move(w));
    }
    return lock;
}

LockChanges lock_changes(const LockFile& lock, const standards::InstalledSet& installed) {
    LockChanges out;
    std::set<std::string> locked;
    std::optional<int> new_major;
    for (const auto& w : lock.wheels) {
        locked.insert(w.canonical_name);
        if (auto m = matrix::runtime_cuda_major(w.canonical_name, standards::Version::try_parse(w.version))) new_major = m;
        auto all = installed.find_all(w.canonical_name);
        // Same version (PEP 440 equality: "2.11.0+cu130" and "2.11.0+CU130" are one) and no duplicate dist-info.
        auto want = standards::Version::try_parse(w.version);
        bool same = all.size() == 1 && all[0]->parsed_version && want && *all[0]->parsed_version == *want;
        if (same) {
            ++out.unchanged;
            continue;
        }
        out.install.push_back({w, all.empty() ? "" : all[0]->version});
    }
    for (const auto& d : installed.dists) {
        if (locked.count(d.canonical_name)) continue;
        bool stack = matrix::is_framework_package(d.canonical_name);
        auto major = matrix::runtime_cuda_major(d.canonical_name, d.parsed_version);
        // Runtime wheels of another CUDA major go with the old stack, as the planner decides.
        // Without runtime wheels a lock bundles CUDA (Windows) unless it is the CPU build.
        bool other_runtime = major && (new_major ? *major != *new_major : lock.variant == "cpu");
        if (stack || other_runtime) out.remove.push_back({d.name, d.version});
    }
    return out;
}

}  // namespace envfix::installer
