#include "matrix_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "support.hpp"

namespace envfix::test {

std::vector<matrix::ProfileText> real_profile_texts() {
    std::vector<matrix::ProfileText> out;
    for (auto name : matrix::kProfileFiles)
        out.push_back({std::string(name), "profiles/" + std::string(name),
                       read_text(source_dir() / "profiles" / std::string(name))});
    return out;
}

const matrix::Matrix& real_matrix() {
    static const matrix::Matrix m = [] {
        auto r = matrix::parse_profiles(real_profile_texts());
        if (!r) ADD_FAILURE() << render(r.error().message, Lang::En);
        return r ? *r : matrix::Matrix{};
    }();
    return m;
}

std::vector<matrix::ProfileText> edited_profiles(const std::string& name, const std::string& from, const std::string& to) {
    auto texts = real_profile_texts();
    auto it = std::find_if(texts.begin(), texts.end(), [&](const auto& t) { return t.name == name; });
    EXPECT_NE(it, texts.end()) << name;
    if (it == texts.end()) return texts;
    auto pos = it->text.find(from);
    EXPECT_NE(pos, std::string::npos) << name << " lacks: " << from;
    if (pos != std::string::npos) it->text.replace(pos, from.size(), to);
    return texts;
}

int line_of(const std::string& name, const std::string& needle) {
    std::string text = read_text(source_dir() / "profiles" / name);
    auto pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

}  // namespace envfix::test
