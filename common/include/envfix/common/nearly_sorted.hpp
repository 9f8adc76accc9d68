#pragma once
// Sorting a sequence that is sorted already but for a few elements: a wheel's files come in its
// archive's order, which for most wheels (pip and uv write RECORD sorted; bdist_wheel walks sorted
// folders) is nearly the order RECORD is written in. std::sort still made 170 000 comparisons of
// long shared prefixes for torch's 12 000 rows, most of a warm install's RECORD writing.

#include <algorithm>
#include <iterator>
#include <vector>

namespace envfix {

// Sorts v by less (a strict weak order), as std::sort does; elements that compare equal may end
// in any order. Linear where v is sorted but for a few elements: those out of order are taken
// out, sorted, and merged back; where many are, the whole is sorted.
template <class T, class Less>
void sort_nearly_sorted(std::vector<T>& v, Less less) {
    if (v.size() < 2) return;
    std::vector<T> out_of_order;
    size_t kept = 1;
    for (size_t i = 1; i < v.size(); ++i) {
        if (less(v[i], v[kept - 1])) out_of_order.push_back(std::move(v[i]));
        else if (kept != i) v[kept++] = std::move(v[i]);
        else ++kept;
    }
    if (out_of_order.empty()) return;
    v.resize(kept);
    if (out_of_order.size() > v.size() / 8) {  // not nearly sorted: no gain in merging
        std::move(out_of_order.begin(), out_of_order.end(), std::back_inserter(v));
        std::sort(v.begin(), v.end(), less);
        return;
    }
    std::sort(out_of_order.begin(), out_of_order.end(), less);
    const auto middle = static_cast<std::ptrdiff_t>(v.size());
    std::move(out_of_order.begin(), out_of_order.end(), std::back_inserter(v));
    std::inplace_merge(v.begin(), v.begin() + middle, v.end(), less);
}

}  // namespace envfix
