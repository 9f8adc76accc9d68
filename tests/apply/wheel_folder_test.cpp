// Wheel folders for air-gapped machines: where a wheel goes, its URL, the PEP 503 pages.
#include <gtest/gtest.h>

#include "envfix/installer/wheel_folder.hpp"

using namespace envfix::installer;

namespace {
const FolderWheel kTorch{"torch", "torch-2.11.0+cu130-cp311-cp311-manylinux_2_28_x86_64.whl", std::string(64, 'b')};
}

TEST(WheelFolder, PathsPerLayout) {
    EXPECT_EQ(wheel_folder_path(WheelLayout::Flat, kTorch), kTorch.filename);
    EXPECT_EQ(wheel_folder_path(WheelLayout::Pep503, kTorch), "torch/" + kTorch.filename);
}

TEST(WheelFolder, UrlsEscapeThePlusOfLocalVersions) {
    EXPECT_EQ(wheel_folder_url("http://m/w", WheelLayout::Pep503, kTorch),
              "http://m/w/torch/torch-2.11.0%2Bcu130-cp311-cp311-manylinux_2_28_x86_64.whl");
    EXPECT_EQ(wheel_folder_url("http://m/w/", WheelLayout::Flat, kTorch), "http://m/w/torch-2.11.0%2Bcu130-cp311-cp311-manylinux_2_28_x86_64.whl");
}

TEST(WheelFolder, Pep503Pages) {
    auto root = root_page({"nvidia-cudnn-cu13", "torch"});
    EXPECT_NE(root.find("<a href=\"nvidia-cudnn-cu13/\">nvidia-cudnn-cu13</a>"), std::string::npos) << root;
    EXPECT_NE(root.find("pypi:repository-version"), std::string::npos);
    auto page = project_page("torch", {kTorch});
    EXPECT_NE(page.find("<a href=\"torch-2.11.0%2Bcu130-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=" + kTorch.sha256 + "\">" +
                        kTorch.filename + "</a>"),
              std::string::npos)
        << page;
    EXPECT_NE(flat_page({kTorch}).find("#sha256=" + kTorch.sha256), std::string::npos);
}
