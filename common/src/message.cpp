#include "envfix/common/message.hpp"

#include <atomic>
#include <span>
#include <string>
#include <unordered_map>

#include "envfix/common/env.hpp"
#include "envfix/common/platform.hpp"
#include "messages/catalog_index.hpp"

namespace envfix {
namespace {

std::atomic<Lang> g_lang{Lang::En};

const std::unordered_map<std::string_view, const CatalogEntry*>& catalog() {
    static const auto map = [] {
        std::unordered_map<std::string_view, const CatalogEntry*> m;
        for (auto part : messages::all_catalogs())
            for (const auto& e : part) m.emplace(e.key, &e);
        return m;
    }();
    return map;
}

std::string substitute(std::string_view tpl, const Message& m) {
    std::string out;
    out.reserve(tpl.size() + 32);
    for (size_t i = 0; i < tpl.size(); ++i) {
        char c = tpl[i];
        if (c == '{' && i + 1 < tpl.size() && tpl[i + 1] == '{') { out += '{'; ++i; continue; }
        if (c == '}' && i + 1 < tpl.size() && tpl[i + 1] == '}') { out += '}'; ++i; continue; }
        if (c == '{') {
            auto close = tpl.find('}', i);
            if (close != std::string_view::npos) {
                out += m.arg(tpl.substr(i + 1, close - i - 1));
                i = close;
                continue;
            }
        }
        out += c;
    }
    return out;
}

}  // namespace

std::string_view Message::arg(std::string_view name) const {
    for (const auto& [k, v] : args)
        if (k == name) return v;
    return {};
}

std::string render(const Message& m, Lang lang) {
    auto it = catalog().find(m.key);
    if (it == catalog().end()) {
        std::string out = m.key;
        if (!m.args.empty()) {
            out += '(';
            for (size_t i = 0; i < m.args.size(); ++i) {
                if (i) out += ", ";
                out += m.args[i].first + "=" + m.args[i].second;
            }
            out += ')';
        }
        return out;
    }
    const CatalogEntry& e = *it->second;
    const char* tpl = (lang == Lang::Zh && e.zh) ? e.zh : e.en;
    return substitute(tpl, m);
}

std::string render(const Message& m) { return render(m, language()); }

void set_language(Lang lang) { g_lang = lang; }
Lang language() { return g_lang; }

Lang language_from_environment() {
    auto starts_zh = [](const std::optional<std::string>& v) {
        return v && v->size() >= 2 && (*v)[0] == 'z' && (*v)[1] == 'h';
    };
    if (auto v = env::get(EnvVar::EnvfixLang)) return starts_zh(v) ? Lang::Zh : Lang::En;
    for (EnvVar var : {EnvVar::LcAll, EnvVar::LcMessages, EnvVar::Lang})
        if (auto v = env::get(var)) return starts_zh(v) ? Lang::Zh : Lang::En;
    return platform::ui_language_is_chinese() ? Lang::Zh : Lang::En;
}

std::vector<CatalogEntry> all_catalog_entries() {
    std::vector<CatalogEntry> out;
    for (auto part : messages::all_catalogs()) out.insert(out.end(), part.begin(), part.end());
    return out;
}

}  // namespace envfix
