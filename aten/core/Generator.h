#pragma once
// Seeded random source (Philox-free for now: a 64-bit mt19937 per generator). torchlite.manual_seed
// reseeds the default CPU generator; ops take an optional Generator like PyTorch's.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

namespace tl {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ULL) { manual_seed(seed); }
  void manual_seed(uint64_t seed) {
    seed_ = seed;
    engine_.seed(seed);
  }
  uint64_t initial_seed() const { return seed_; }
  std::mt19937_64& engine() { return engine_; }
  std::mutex& mutex() { return mutex_; }

 private:
  uint64_t seed_;
  std::mt19937_64 engine_;
  std::mutex mutex_;
};

using GeneratorPtr = std::shared_ptr<Generator>;

const GeneratorPtr& default_generator();
// The generator to use for an op: the one passed in, or the default.
inline Generator& generator_or_default(const std::optional<GeneratorPtr>& g) {
  return (g && *g) ? **g : *default_generator();
}

}  // namespace tl
