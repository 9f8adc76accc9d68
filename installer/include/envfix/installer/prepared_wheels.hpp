#pragma once
// The Prepare stage of an install: the wheels downloaded and checked, unpacked into the
// unpacked-wheel cache, their bytes on the disk. It runs beside the install's Plan and Commit
// stages (install.hpp), which wait on each of its results only where they need it:
//
//   Plan:   lock, what is installed, what goes, the snapshot of the present   ─┐ beside the downloads
//           ── files() ──> the wheels opened and planned                       │
//   Commit: staging folders                                                    │ beside the unpacking
//           ── unpacked() ──> new files linked from the cache, RECORDs         │
//           ── durable() ──> the moves, the journal's commit                  ─┘
//
// `envfix install` from an index implements it (cli/src/index_preparation.cpp); an install of
// local files has no Prepare stage (InstallRequest::prepared unset).
#include <filesystem>
#include <memory>
#include <vector>

#include "envfix/common/error.hpp"

namespace envfix::installer {

struct KnownInstalled;

class PreparedWheels {
public:
    virtual ~PreparedWheels() = default;
    // The wheels' files in the order of InstallRequest::wheels (whose `file` then names each
    // wheel's file: its name gives the distribution and version), once all are downloaded and
    // checked. Called once. An error stops the install with the environment unchanged.
    virtual Expected<std::vector<std::filesystem::path>> files() = 0;
    // Whether it takes what the snapshot of the present says of each installed file: present()
    // is then called once that snapshot is captured (with nullptr where none was), and a switch
    // links the files it keeps into the cache without reading them.
    virtual bool wants_present() const { return false; }
    virtual void present(std::shared_ptr<const KnownInstalled> known) { (void)known; }
    // Returns once the wheels are unpacked into the unpacked-wheel cache (the install links its
    // new files from there). May be called more than once; an error stops the install.
    virtual Expected<void> unpacked() = 0;
    // Returns once the downloaded wheels are on the disk (where they were flushed beside the
    // install). May be called more than once; an error stops the install before anything moves.
    virtual Expected<void> durable() = 0;
};

}  // namespace envfix::installer
