// A one-line progress display on stderr for long runs: redrawn in place, only when asked for
// (the tools turn it on when stderr is a terminal), and erased when done so the summary that
// follows starts on a clean line.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace gjk::tools {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { clear(); }

  bool enabled() const { return enabled_; }

  /// "[#####     ]  50% phase detail"; fraction is clamped to [0, 1].
  void draw(const std::string& phase, double fraction, const std::string& detail) {
    if (!enabled_) return;
    constexpr int kWidth = 30;
    const double f = std::clamp(fraction >= 0.0 ? fraction : 0.0, 0.0, 1.0);
    std::string bar(static_cast<size_t>(f * kWidth), '#');
    bar.resize(kWidth, ' ');
    std::lock_guard<std::mutex> lock(mutex_);
    // \033[K erases what a longer previous line left behind.
    std::fprintf(stderr, "\r[%s] %3.0f%% %s %s\033[K", bar.c_str(), 100.0 * f, phase.c_str(),
                 detail.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  /// Erases the line (nothing when nothing was drawn).
  void clear() {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!drawn_) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }

  /// Runs `work` while a background thread redraws "phase t / limit s" every 100 ms: for a
  /// phase whose only measure of progress is its time budget (an OMPL planner's solve()).
  template <class Work>
  auto timed(const std::string& phase, double limit_seconds, Work&& work) {
    if (!enabled_) return work();
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    const auto start = std::chrono::steady_clock::now();
    std::thread ticker([&] {
      std::unique_lock<std::mutex> lock(m);
      while (!done) {
        const double t =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        char detail[64];
        std::snprintf(detail, sizeof detail, "%.1f / %.1f s", t, limit_seconds);
        draw(phase, limit_seconds > 0.0 ? t / limit_seconds : 0.0, detail);
        cv.wait_for(lock, std::chrono::milliseconds(100));
      }
    });
    struct Join {  // stops the ticker also when work() throws
      std::mutex& m;
      std::condition_variable& cv;
      bool& done;
      std::thread& t;
      ~Join() {
        {
          std::lock_guard<std::mutex> lock(m);
          done = true;
        }
        cv.notify_all();
        t.join();
      }
    } join{m, cv, done, ticker};
    return work();
  }

 private:
  bool enabled_;
  bool drawn_ = false;
  std::mutex mutex_;
};

}  // namespace gjk::tools
