#pragma once
// What the apply tests share: a PyTorch-like test index (mkindex.py: torch 2.9.0 and 2.11.0, cu128
// and cu130, CPython 3.11 on Linux x86_64) served on 127.0.0.1, specs written into a test folder,
// and `envfix apply` run as the stand-in H200 (driver 580: cu130 fits). Its torch wheels hold the
// fake torch of tests/verify/fake_torch: 2.11.0 passes the framework check, 2.9.0 has no kernels.
#include <memory>
#include <string>

#include "index_fixtures.hpp"
#include "support.hpp"

namespace envfix::test {

class ApplyWorld {
public:
    static ApplyWorld& get();  // built once per test binary (the index takes seconds)
    std::string pytorch_root() const { return index_->server->url("/"); }
    // The ordinary index: the cu130 variant's copies of the dependencies (no PyPI here).
    std::string index_url() const { return index_->server->url("/cu130/"); }
    IndexServer& server() { return *index_->server; }

    // The spec's `index:` section pointing at this index.
    std::string index_section() const;

private:
    ApplyWorld();
    std::unique_ptr<ServedIndex> index_;
};

// `envfix <args>` as the stand-in H200, caches and config in `home`.
RunResult run_as_h200(const std::vector<std::string>& args, const stdfs::path& home, const EnvList& extra = {});

// The version of `name` installed in a venv ("" when none), from its dist-info folder name.
std::string installed_version(const stdfs::path& venv, const std::string& name);

}  // namespace envfix::test
