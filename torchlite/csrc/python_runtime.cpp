// Runtime services bound to Python: random generators, allocator statistics, CUDA queries.
#include "torchlite/csrc/python_runtime.h"

#include <omp.h>

#include <sstream>

#include "aten/cuda/CUDAHooks.h"
#include "aten/native/IndexSplit.h"
#include "generated/ops/copy.h"
#include "aten/native/cpu/CpuCapability.h"
#include "torchlite/csrc/autocast/autocast_mode.h"

namespace tl_python {

namespace {

// torch.cuda.memory_snapshot()'s form: a list of segment dicts, each with its blocks.
py::list snapshot_to_python(const std::vector<tl::cuda::SegmentSnapshot>& segments) {
  py::list out;
  for (const auto& seg : segments) {
    py::list blocks;
    for (const auto& b : seg.blocks)
      blocks.append(py::dict(py::arg("address") = b.address, py::arg("size") = b.size,
                             py::arg("requested_size") = b.requested_size, py::arg("state") = b.state));
    out.append(py::dict(py::arg("device") = seg.device, py::arg("address") = seg.address, py::arg("total_size") = seg.total_size,
                        py::arg("allocated_size") = seg.allocated_size, py::arg("active_size") = seg.active_size,
                        py::arg("requested_size") = seg.requested_size, py::arg("stream") = seg.stream,
                        py::arg("segment_type") = seg.small ? "small" : "large", py::arg("blocks") = blocks));
  }
  return out;
}

}  // namespace

void init_runtime(py::module_& m) {
  py::class_<Generator, GeneratorPtr>(m, "Generator")
      .def(py::init([](const std::optional<Device>& device) {
             TL_CHECK(!device || device->is_cpu(), "only CPU generators are supported, got ", *device);
             return std::make_shared<Generator>();
           }),
           py::arg("device") = py::none())
      .def("manual_seed", [](const GeneratorPtr& g, int64_t seed) {
        g->manual_seed(static_cast<uint64_t>(seed));
        return g;
      }, py::arg("seed"))
      .def("initial_seed", [](const GeneratorPtr& g) { return g->initial_seed(); })
      // The state as text: the initial seed, then the mt19937_64 engine's words (the standard
      // stream format); torchlite.Generator.get_state wraps it in a uint8 tensor.
      .def("_get_state_bytes", [](const GeneratorPtr& g) {
        std::lock_guard<std::mutex> lock(g->mutex());
        std::ostringstream os;
        os << g->initial_seed() << ' ' << g->engine();
        return py::bytes(os.str());
      })
      .def("_set_state_bytes", [](const GeneratorPtr& g, const std::string& state) {
        std::istringstream is(state);
        uint64_t seed = 0;
        std::mt19937_64 engine;
        is >> seed >> engine;
        TL_CHECK(!is.fail(), "set_state: the state is not one that get_state returned (", state.size(), " bytes)");
        std::lock_guard<std::mutex> lock(g->mutex());
        g->manual_seed(seed);
        g->engine() = engine;
      }, py::arg("state"));
  m.def("default_generator", []() { return default_generator(); });
  m.def("manual_seed", [](int64_t seed) {
    default_generator()->manual_seed(static_cast<uint64_t>(seed));
    return default_generator();
  }, py::arg("seed"));
  m.def("initial_seed", []() { return default_generator()->initial_seed(); });

  m.def("set_num_threads", [](int n) {
    TL_CHECK_VALUE(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
    omp_set_num_threads(n);
  }, py::arg("int"));
  m.def("get_num_threads", []() { return omp_get_max_threads(); });

  m.def("_cpu_allocator_stats", []() {
    CPUAllocatorStats s = cpu_allocator_stats();
    py::dict d;
    d["allocated"] = s.allocated;
    d["cached"] = s.cached;
    d["cache_hits"] = s.cache_hits;
    d["cache_misses"] = s.cache_misses;
    return d;
  });
  m.def("_cpu_allocator_empty_cache", &cpu_allocator_empty_cache);
  // The capability the dispatched CPU kernels run with (Note [CPU capabilities]), chosen now.
  const tl::native::CpuCapability capability = tl::native::cpu_capability();
  m.def("_cpu_capability", [capability]() { return tl::native::cpu_capability_name(capability); });

  // Note [Autocast]: the per-thread switches behind torchlite.autocast (torchlite/amp).
  m.def("_autocast_is_enabled", [](const Device& d) { return tl::autocast::is_enabled(d.type); }, py::arg("device"));
  m.def("_autocast_set_enabled", [](const Device& d, bool on) { tl::autocast::set_enabled(d.type, on); },
        py::arg("device"), py::arg("enabled"));
  m.def("_autocast_get_dtype", [](const Device& d) { return tl::autocast::get_dtype(d.type); }, py::arg("device"));
  m.def("_autocast_set_dtype", [](const Device& d, ScalarType t) { tl::autocast::set_dtype(d.type, t); },
        py::arg("device"), py::arg("dtype"));
  m.def("is_autocast_cache_enabled", &tl::autocast::is_cache_enabled);
  m.def("set_autocast_cache_enabled", &tl::autocast::set_cache_enabled, py::arg("enabled"));
  m.def("clear_autocast_cache", &tl::autocast::clear_cache);
  m.def("autocast_increment_nesting", &tl::autocast::increment_nesting);
  m.def("autocast_decrement_nesting", &tl::autocast::decrement_nesting);

  py::module_ c = m.def_submodule("_cuda", "CUDA runtime queries");
  c.def("is_built", &cuda::is_built);
  c.def("is_available", &cuda::is_available);
  c.def("device_count", &cuda::device_count);
  c.def("current_device", &cuda::current_device);
  c.def("set_device", &cuda::set_device, py::arg("device"));
  c.def("synchronize", &cuda::synchronize, py::arg("device"));
  c.def("get_device_name", &cuda::device_name, py::arg("device"));
  c.def("get_device_capability", &cuda::device_capability, py::arg("device"));
  c.def("mem_get_info", &cuda::mem_get_info, py::arg("device"));
  c.def("memory_stats", &cuda::memory_stats, py::arg("device"));
  c.def("empty_cache", &cuda::empty_cache);
  c.def("reset_peak_memory_stats", &cuda::reset_peak_memory_stats, py::arg("device"));
  c.def("_stream_create", &cuda::stream_create, py::arg("device"), py::arg("priority") = 0);
  c.def("_stream_destroy", &cuda::stream_destroy, py::arg("stream"));
  c.def("_stream_synchronize", &cuda::stream_synchronize, py::arg("stream"));
  c.def("_stream_query", &cuda::stream_query, py::arg("stream"));
  c.def("_current_stream", &cuda::current_stream, py::arg("device"));
  c.def("_set_current_stream", &cuda::set_current_stream, py::arg("device"), py::arg("stream"));
  c.def("_cuda_library_sonames", &cuda::cuda_library_sonames);
  c.def("_set_library_candidates", &cuda::set_library_candidates, py::arg("candidates"));
  c.def("_set_cublas_enabled", &cuda::set_cublas_enabled, py::arg("enabled"));
  c.def("_gemm_backend", &cuda::gemm_backend);
  c.def("_library_probe", &cuda::library_probe, py::arg("paths"), py::arg("required"));
  c.def("_set_matmul_allow_tf32", &cuda::set_matmul_allow_tf32, py::arg("allow"));
  c.def("_stream_wait_event", &cuda::stream_wait_event, py::arg("stream"), py::arg("event"));
  c.def("_event_create", &cuda::event_create, py::arg("device"), py::arg("enable_timing"), py::arg("blocking"));
  c.def("_event_destroy", &cuda::event_destroy, py::arg("event"));
  c.def("_event_record", &cuda::event_record, py::arg("event"), py::arg("stream"));
  c.def("_event_query", &cuda::event_query, py::arg("event"));
  c.def("_event_synchronize", &cuda::event_synchronize, py::arg("event"));
  c.def("_event_elapsed_time", &cuda::event_elapsed_time, py::arg("start"), py::arg("end"));
  c.def("_record_stream", [](const Tensor& t, int64_t stream) {
    TL_CHECK(t.is_cuda(), "record_stream: expected a CUDA tensor, got one on ", t.device());
    cuda::record_stream(t.impl()->storage()->data.ptr, t.device().index, stream);
  }, py::arg("tensor"), py::arg("stream"));
  c.def("memory_snapshot", [] { return snapshot_to_python(cuda::memory_snapshot()); });
  c.def("_pin_memory", [](const Tensor& t) {
    TL_CHECK(t.is_cpu(), "cannot pin a tensor on ", t.device(), ": only dense CPU tensors can be pinned");
    const size_t nbytes = static_cast<size_t>(t.numel()) * t.element_size();
    auto storage = std::make_shared<StorageImpl>(cuda::host_alloc_pinned(nbytes), nbytes);
    Tensor pinned = Tensor::make(std::move(storage), t.dtype(), t.sizes().vec(), contiguous_strides(t.sizes()), 0);
    pinned.copy_(t);
    return pinned;
  }, py::arg("tensor"));
  c.def("_is_pinned", [](const Tensor& t) { return t.is_cpu() && cuda::is_pinned_storage(*t.impl()->storage()); },
        py::arg("tensor"));
  c.def("_test_pool_reset", &cuda::test_pool_reset, py::arg("memory_limit") = 0, py::arg("alloc_conf") = "");
  c.def("_test_pool_record_stream", &cuda::test_pool_record_stream, py::arg("ptr"), py::arg("stream"));
  c.def("_test_pool_complete_events", &cuda::test_pool_complete_events);
  c.def("_test_pool_snapshot", [] { return snapshot_to_python(cuda::test_pool_snapshot()); });
  c.def("_test_pool_malloc", &cuda::test_pool_malloc, py::arg("nbytes"), py::arg("stream") = 0);
  c.def("_test_pool_free", &cuda::test_pool_free, py::arg("ptr"));
  c.def("_test_pool_empty_cache", &cuda::test_pool_empty_cache);
  c.def("_test_pool_reset_peak", &cuda::test_pool_reset_peak);
  c.def("_test_pool_stats", &cuda::test_pool_stats);
  // Note [32-bit index splits]: the pieces (shape, strides, offsets) an iteration is cut into.
  c.def("_test_32bit_index_split", [](const std::vector<int64_t>& shape,
                                      const std::vector<std::vector<int64_t>>& strides) {
    std::vector<tl::native::IndexPiece> pieces;
    tl::native::split_for_32bit_indexing({shape, strides, std::vector<int64_t>(strides.size(), 0)}, pieces);
    py::list result;
    for (const auto& p : pieces) result.append(py::make_tuple(p.shape, p.strides, p.offsets));
    return result;
  }, py::arg("shape"), py::arg("strides"));
}

}  // namespace tl_python
