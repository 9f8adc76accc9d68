// parallel_for on threads kept for it (parallel_for.hpp).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

#include "envfix/common/parallel_for.hpp"

namespace envfix {

namespace {

// Helper threads made on first use and kept: a warm install of torch's stack made and joined
// 146 threads, a set per parallel_for, 59 of them for the staging folders alone; the resolver's
// page fetches made and joined a set per round of the resolution. A call asks for
// helpers and works itself; idle helpers join in. It waits only for helpers that have started
// on its work, never for help still queued (withdrawn once its own share is done), so a call
// made from inside another's work, or while every helper is busy, runs on its caller's thread.
// What a share throws, the caller's or a helper's, the call throws once no helper is in its work.
class Helpers {
public:
    static Helpers& get() {
        static auto* one = new Helpers;  // never destroyed: its threads wait in it until exit
        return *one;
    }

    void run(size_t helpers, const std::function<void()>& work) {
        Job job{&work};
        {
            std::lock_guard lock(mu_);
            for (size_t i = 0; i < helpers; ++i) queue_.push_back(&job);
            job.queued = helpers;
            // More threads where fewer are idle than asked for (metadata writes wait on the
            // disk: more threads than cores help).
            const size_t wanted = std::min(kMost, made_ + (helpers > idle_ ? helpers - idle_ : 0));
            try {
                while (made_ < wanted) {
                    std::thread([this] { serve(); }).detach();
                    ++made_;
                }
            } catch (const std::system_error&) {  // no thread to be had: those there, and the caller
            }
        }
        if (helpers) ready_.notify_all();
        std::exception_ptr failed;
        try {
            work();
        } catch (...) {  // the helpers in it end first: they use the caller's work and counter
            failed = std::current_exception();
        }
        std::unique_lock lock(mu_);
        if (job.queued) {
            queue_.erase(std::remove(queue_.begin(), queue_.end(), &job), queue_.end());
            job.queued = 0;
        }
        done_.wait(lock, [&] { return job.running == 0; });
        if (!failed) failed = job.failed;
        lock.unlock();
        if (failed) std::rethrow_exception(failed);
    }

private:
    struct Job {
        const std::function<void()>* work;
        size_t queued = 0;   // help asked for and not yet taken
        size_t running = 0;  // helpers in it
        std::exception_ptr failed;  // the first a helper's share threw, thrown again by the caller
    };
    static constexpr size_t kMost = 48;

    void serve() {
        std::unique_lock lock(mu_);
        for (;;) {
            ++idle_;
            ready_.wait(lock, [&] { return !queue_.empty(); });
            --idle_;
            Job* job = queue_.front();
            queue_.pop_front();
            --job->queued;
            ++job->running;
            lock.unlock();
            std::exception_ptr failed;
            try {
                (*job->work)();
            } catch (...) {
                failed = std::current_exception();
            }
            lock.lock();
            if (failed && !job->failed) job->failed = failed;
            if (--job->running == 0) done_.notify_all();
        }
    }

    std::mutex mu_;
    std::condition_variable ready_, done_;
    std::deque<Job*> queue_;
    size_t made_ = 0, idle_ = 0;
};

}  // namespace

void parallel_for(size_t n, const std::function<void(size_t)>& fn, size_t per_thread, size_t most) {
    std::atomic<size_t> next{0};
    const std::function<void()> work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < n;) fn(i);
    };
    const size_t threads = std::min<size_t>(most, n / std::max<size_t>(1, per_thread));
    Helpers::get().run(threads > 1 ? threads - 1 : 0, work);
}

}  // namespace envfix
