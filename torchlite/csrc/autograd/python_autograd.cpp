#include "torchlite/csrc/autograd/python_autograd.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "generated/ops/add.h"
#include "generated/ops/clone.h"
#include "generated/ops/t.h"
#include "generated/ops/zeros.h"
#include "torchlite/csrc/autograd/anomaly_mode.h"
#include "torchlite/csrc/autograd/engine.h"
#include "torchlite/csrc/autograd/forward_ad.h"
#include "torchlite/csrc/autograd/saved_variable.h"
#include "torchlite/csrc/autograd/variable.h"

namespace tl_python {

using namespace tl::autograd;

namespace {

Tensor tensor_or_undefined(py::handle h) { return h.is_none() ? Tensor() : h.cast<Tensor>(); }

py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

// A Python callable held by a C++ node. Nodes may be destroyed, and hooks run, from code
// that does not hold the GIL, so both take it.
struct PyCallable {
  py::object fn;
  explicit PyCallable(py::object f) : fn(std::move(f)) {}
  ~PyCallable() {
    py::gil_scoped_acquire gil;
    fn = py::object();
  }
};

Node::TensorHook wrap_tensor_hook(py::function f) {
  auto fn = std::make_shared<PyCallable>(std::move(f));
  return [fn](const Tensor& g) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = fn->fn(g);
    return r.is_none() ? Tensor() : r.cast<Tensor>();
  };
}

py::tuple to_tuple(const variable_list& v) {
  py::tuple t(v.size());
  for (size_t i = 0; i < v.size(); ++i) t[i] = tensor_or_none(v[i]);
  return t;
}

variable_list from_sequence(py::handle seq) {
  variable_list out;
  if (seq.is_none()) return out;
  if (py::isinstance<TensorImpl>(seq)) {
    out.push_back(seq.cast<Tensor>());
    return out;
  }
  for (py::handle h : seq) out.push_back(tensor_or_undefined(h));
  return out;
}

// Python data of graph nodes: Node.metadata, where anomaly mode keeps the forward traceback
// (under "traceback_", as PyTorch). A Node's Python wrappers come and go, so the dict is kept
// here, keyed by the node; entries of freed nodes are swept as the table grows. GIL held.
class NodeMetadataTable {
 public:
  py::dict get(const std::shared_ptr<Node>& node) {
    auto it = entries_.find(node.get());
    if (it != entries_.end() && it->second.first.lock() == node) return it->second.second;
    if (entries_.size() >= sweep_at_) sweep();
    py::dict d;
    entries_[node.get()] = {node, d};
    return d;
  }
  std::optional<py::dict> find(const Node& node) {
    auto it = entries_.find(&node);
    if (it == entries_.end() || it->second.first.lock().get() != &node) return std::nullopt;
    return it->second.second;
  }

 private:
  void sweep() {
    for (auto it = entries_.begin(); it != entries_.end();) it = it->second.first.expired() ? entries_.erase(it) : ++it;
    sweep_at_ = std::max<size_t>(64, 2 * entries_.size());
  }
  std::unordered_map<const Node*, std::pair<std::weak_ptr<Node>, py::dict>> entries_;
  size_t sweep_at_ = 64;
};

NodeMetadataTable& node_metadata() {
  static auto* table = new NodeMetadataTable();  // never destroyed: it holds Python objects past finalization
  return *table;
}

void record_forward_traceback(const std::shared_ptr<Node>& node) {
  py::gil_scoped_acquire gil;
  py::dict d = node_metadata().get(node);
  if (!d.contains("traceback_")) d["traceback_"] = py::module_::import("traceback").attr("format_stack")();
}

void warn_forward_traceback(const Node& node) {
  py::gil_scoped_acquire gil;
  std::optional<py::dict> d = node_metadata().find(node);
  std::string msg = "Error detected in " + node.name() + ". ";
  if (d && d->contains("traceback_")) {
    msg += "Traceback of forward call that caused the error:\n" +
           py::str("").attr("join")((*d)["traceback_"]).cast<std::string>();
  } else {
    msg += "No forward pass information available. Enable detect anomaly during forward pass for more information.";
  }
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw py::error_already_set();
}

// Note [Saved tensor hooks]: this thread's saved_tensors_hooks stack, innermost last, and the
// message of disable_saved_tensors_hooks while it is in force.
thread_local std::vector<std::pair<py::object, py::object>> saved_hooks_stack;
thread_local std::optional<std::string> saved_hooks_disabled_message;

struct PySavedVariableHooks final : SavedVariableHooks {
  py::object pack, unpack, packed;
  void call_pack_hook(const Tensor& t) override {
    py::gil_scoped_acquire gil;
    packed = pack(t);
  }
  Tensor call_unpack_hook() override {
    py::gil_scoped_acquire gil;
    py::object r = unpack(packed);
    if (!py::isinstance<TensorImpl>(r)) {
      throw py::type_error("Output of saved tensor unpack_hook expected to be a Tensor but got result of type " +
                           py::str(py::type::of(r).attr("__name__")).cast<std::string>());
    }
    return r.cast<Tensor>();
  }
  ~PySavedVariableHooks() override {
    py::gil_scoped_acquire gil;
    pack = unpack = packed = py::object();
  }
};

std::unique_ptr<SavedVariableHooks> make_saved_hooks(py::object pack, py::object unpack) {
  auto hooks = std::make_unique<PySavedVariableHooks>();
  hooks->pack = std::move(pack);
  hooks->unpack = std::move(unpack);
  return hooks;
}

std::unique_ptr<SavedVariableHooks> innermost_saved_hooks() {
  if (saved_hooks_stack.empty()) return nullptr;
  py::gil_scoped_acquire gil;
  return make_saved_hooks(saved_hooks_stack.back().first, saved_hooks_stack.back().second);
}

// torch._C._autograd.SavedTensor: one saved tensor of a node, seen from Python. It holds the
// node weakly (a node owns its SavedVariables), so it never keeps the graph alive.
struct SavedTensor {
  std::weak_ptr<Node> node;
  SavedVariable* var;
  void register_hooks(py::function pack, py::function unpack) const {
    auto n = node.lock();
    TL_CHECK(n != nullptr, "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
             "values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True "
             "if you need to backward through the graph a second time or if you need to access saved variables after "
             "calling backward.");
    var->register_hooks(make_saved_hooks(std::move(pack), std::move(unpack)));
  }
};

// Backward node of a torchlite.autograd.Function: calls the Python backward.
struct PyNode final : Node {
  py::object backward_fn;
  py::object ctx;
  std::string name_;
  std::vector<SavedVariable> saved;
  bool materialize = true;
  std::vector<bool> returns_tensor;  // per next edge: forward arg was a Tensor

  variable_list apply(variable_list&& grads) override {
    py::gil_scoped_acquire gil;
    py::tuple args(grads.size() + 1);
    args[0] = ctx;
    for (size_t i = 0; i < grads.size(); ++i) {
      Tensor g = grads[i];
      if (!g.defined() && materialize && i < num_inputs() && input_metadata(i).defined) g = input_metadata(i).zeros();
      args[i + 1] = tensor_or_none(g);
    }
    py::object r = backward_fn(*args);
    py::tuple rt = py::isinstance<py::tuple>(r) ? r.cast<py::tuple>() : py::make_tuple(r);
    size_t n = num_outputs();
    if (rt.size() > n) {
      for (size_t i = n; i < rt.size(); ++i)
        TL_CHECK(rt[i].is_none(), "function ", name_, " returned an incorrect number of gradients (expected ", n,
                 ", got ", rt.size(), ")");
    }
    TL_CHECK(rt.size() >= n, "function ", name_, " returned an incorrect number of gradients (expected ", n, ", got ",
             rt.size(), ")");
    variable_list out(n);
    for (size_t i = 0; i < n; ++i) {
      if (rt[i].is_none()) continue;
      TL_CHECK_TYPE(py::isinstance<TensorImpl>(rt[i]), "function ", name_,
                    " returned a gradient different than None at position ", i + 1, ", but the corresponding forward "
                    "input was not a Variable");
      if (next_edges()[i].is_valid()) out[i] = rt[i].cast<Tensor>();
    }
    return out;
  }
  std::string name() const override { return name_; }
  void release_variables() override {
    for (auto& s : saved) s.reset_data();
  }
  ~PyNode() override {
    py::gil_scoped_acquire gil;
    backward_fn = py::object();
    ctx = py::object();
  }
};

// What ctx.saved_tensors reads: a weak handle, so ctx does not keep its node alive.
struct SavedTensorsHandle {
  std::weak_ptr<PyNode> node;
  py::tuple unpack() const {
    auto n = node.lock();
    TL_CHECK(n != nullptr, kBackwardTwiceMessage);
    py::tuple t(n->saved.size());
    for (size_t i = 0; i < n->saved.size(); ++i) t[i] = tensor_or_none(n->saved[i].unpack(n));
    return t;
  }
};

py::object function_finish(const std::string& name, py::object backward_fn, py::object ctx, py::tuple args,
                           py::tuple outputs, py::object to_save, py::object dirty, py::object non_diff,
                           bool materialize) {
  auto node = std::make_shared<PyNode>();
  node->name_ = name;
  record_node_creation(node);
  node->backward_fn = std::move(backward_fn);
  node->ctx = ctx;
  node->materialize = materialize;
  edge_list edges;
  for (py::handle a : args) {
    edges.push_back(py::isinstance<TensorImpl>(a) ? gradient_edge(a.cast<Tensor>()) : Edge());
  }
  node->set_next_edges(std::move(edges));
  variable_list dirty_v = from_sequence(dirty), nd_v = from_sequence(non_diff);
  auto contains = [](const variable_list& v, const Tensor& t) {
    for (const Tensor& x : v)
      if (x.is_same(t)) return true;
    return false;
  };
  variable_list inputs;
  for (py::handle a : args)
    if (py::isinstance<TensorImpl>(a)) inputs.push_back(a.cast<Tensor>());
  py::tuple result(outputs.size());
  variable_list final_outputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    py::handle o = outputs[i];
    if (!py::isinstance<TensorImpl>(o)) {
      node->add_input_metadata_undefined();
      result[i] = o;
      continue;
    }
    Tensor t = o.cast<Tensor>();
    if (contains(dirty_v, t)) {
      check_inplace(t);
      rebase_history(t, node);
    } else {
      if (contains(inputs, t)) t = make_detached(t);  // an input returned as-is: a new alias
      set_history(t, node, !contains(nd_v, t));
    }
    final_outputs.push_back(t);
    result[i] = py::cast(t);
  }
  if (!to_save.is_none()) {
    for (py::handle h : to_save) {
      Tensor t = tensor_or_undefined(h);
      bool is_output = false;
      for (const Tensor& o : final_outputs) {
        if (t.defined() && o.impl()->storage() == t.impl()->storage() && o.sizes().equals(t.sizes()) &&
            o.strides().equals(t.strides()) && o.storage_offset() == t.storage_offset() && !is_leaf(o)) {
          t = o;
          is_output = true;
          break;
        }
      }
      node->saved.emplace_back(t, is_output);
    }
  }
  SavedTensorsHandle handle{node};
  ctx.attr("_saved_handle") = py::cast(handle);
  return result;
}

}  // namespace

py::object raw_saved(const std::shared_ptr<Node>& node, const SavedVariable& var) {
  return py::cast(SavedTensor{node, const_cast<SavedVariable*>(&var)});
}

void init_autograd(py::module_& m, PyTensorClass& cls) {
  py::module_ ag = m.def_submodule("_autograd", "autograd engine and grad mode");

  py::class_<Node, std::shared_ptr<Node>>(ag, "Node")
      .def("name", &Node::name)
      .def("__repr__",  // as PyTorch prints a node: <MulBackward0 object at 0x...>
           [](py::handle self) {
             std::string name = self.cast<Node&>().name();
             name = name.substr(name.rfind(':') == std::string::npos ? 0 : name.rfind(':') + 1);
             return "<" + name + " object at " +
                    py::str(py::module_::import("builtins").attr("hex")(py::module_::import("builtins").attr("id")(self)))
                        .cast<std::string>() +
                    ">";
           })
      .def_property_readonly("next_functions", [](const std::shared_ptr<Node>& n) {
        const auto& edges = n->next_edges();
        py::tuple t(edges.size());
        for (size_t i = 0; i < edges.size(); ++i) {
          t[i] = py::make_tuple(edges[i].function ? py::cast(edges[i].function) : py::none(), edges[i].input_nr);
        }
        return t;
      })
      .def_property_readonly("_sequence_nr", &Node::sequence_nr)
      .def_property_readonly("metadata", [](const std::shared_ptr<Node>& n) { return node_metadata().get(n); })
      .def("_register_hook", [](const std::shared_ptr<Node>& n, py::function f) {
        auto fn = std::make_shared<PyCallable>(std::move(f));
        return n->add_post_hook([fn](const variable_list& grad_inputs, const variable_list& grad_outputs) {
          py::gil_scoped_acquire gil;
          py::object r = fn->fn(to_tuple(grad_inputs), to_tuple(grad_outputs));
          return r.is_none() ? variable_list() : from_sequence(r);
        });
      })
      .def("_register_prehook", [](const std::shared_ptr<Node>& n, py::function f) {
        auto fn = std::make_shared<PyCallable>(std::move(f));
        return n->add_pre_hook([fn](const variable_list& grad_outputs) {
          py::gil_scoped_acquire gil;
          py::object r = fn->fn(to_tuple(grad_outputs));
          return r.is_none() ? variable_list() : from_sequence(r);
        });
      })
      .def("_remove_hook", &Node::remove_hook)
      .def("__call__", [](const std::shared_ptr<Node>& n, py::args grads) {
        variable_list in;
        for (py::handle g : grads) in.push_back(tensor_or_undefined(g));
        variable_list out = n->apply(std::move(in));
        return out.size() == 1 ? tensor_or_none(out[0]) : py::object(to_tuple(out));
      });
  py::class_<AccumulateGrad, Node, std::shared_ptr<AccumulateGrad>>(ag, "AccumulateGrad")
      .def_property_readonly("variable", [](const AccumulateGrad& a) { return a.variable(); });
  py::class_<NotImplemented, Node, std::shared_ptr<NotImplemented>>(ag, "NotImplemented");
  py::class_<PyNode, Node, std::shared_ptr<PyNode>>(ag, "BackwardCFunction")
      .def_property_readonly("_ctx", [](const PyNode& n) { return n.ctx; });
  py::class_<SavedTensor>(ag, "SavedTensor").def("register_hooks", &SavedTensor::register_hooks);
  py::class_<SavedTensorsHandle>(ag, "_SavedTensorsHandle").def("unpack", &SavedTensorsHandle::unpack);
  init_autograd_functions(ag);

  ag.def("is_grad_enabled", &GradMode::is_enabled);
  ag.def("_set_grad_enabled", &GradMode::set_enabled);
  ag.def("is_inference_mode_enabled", &InferenceMode::is_enabled);
  ag.def("_set_inference_mode", &InferenceMode::set_enabled);
  ag.def("_run_backward", [](py::object tensors, py::object grad_tensors, bool keep_graph, bool create_graph,
                             py::object inputs, bool allow_unused, bool accumulate_grad) {
    variable_list roots = from_sequence(tensors), grads = from_sequence(grad_tensors), wrt;
    // An input is a tensor or a GradientEdge (node, output_nr).
    edge_list wrt_edges;
    for (py::handle h : inputs) {
      if (py::isinstance<TensorImpl>(h)) {
        wrt.push_back(h.cast<Tensor>());
        wrt_edges.push_back(gradient_edge(wrt.back()));
        TL_CHECK(wrt_edges.back().is_valid(), "One of the differentiated Tensors does not require grad");
      } else {
        wrt.emplace_back();
        wrt_edges.emplace_back(h.attr("node").cast<std::shared_ptr<Node>>(), h.attr("output_nr").cast<uint32_t>());
      }
    }
    if (!accumulate_grad) wrt.clear();
    variable_list out;
    {
      // Other Python threads run while the graph is walked; Python hooks and Functions take the
      // GIL back themselves (PyCallable, PyFunctionNode).
      py::gil_scoped_release no_gil;
      out = run_backward(roots, grads, keep_graph, create_graph, wrt_edges, allow_unused, wrt);
    }
    return to_tuple(out);
  });
  ag.def("_function_finish", &function_finish);

  set_default_saved_variable_hooks(&innermost_saved_hooks);
  ag.def("_push_saved_tensors_default_hooks", [](py::object pack, py::object unpack) {
    TL_CHECK(!saved_hooks_disabled_message, *saved_hooks_disabled_message);
    saved_hooks_stack.emplace_back(std::move(pack), std::move(unpack));
  });
  ag.def("_pop_saved_tensors_default_hooks", [] {
    TL_CHECK(!saved_hooks_stack.empty(), "no saved tensors hooks to pop");
    saved_hooks_stack.pop_back();
  });
  ag.def("_saved_tensors_hooks_disable", [](std::string msg) {
    saved_hooks_disabled_message = msg;
    TL_CHECK(saved_hooks_stack.empty(), msg);  // hooks already in force cannot be disabled
  });
  ag.def("_saved_tensors_hooks_enable", [] { saved_hooks_disabled_message.reset(); });
  ag.def("_saved_tensors_hooks_get_disabled_error_message", []() -> py::object {
    if (!saved_hooks_disabled_message) return py::none();
    return py::str(*saved_hooks_disabled_message);
  });

  anomaly_handlers().record_creation = &record_forward_traceback;
  anomaly_handlers().report_failure = &warn_forward_traceback;
  ag.def("_set_anomaly_enabled", &AnomalyMode::set_enabled, py::arg("enabled"), py::arg("check_nan") = true);
  ag.def("is_anomaly_enabled", &AnomalyMode::is_enabled);
  ag.def("is_anomaly_check_nan_enabled", &AnomalyMode::should_check_nan);

  ag.def("_set_grad_layout_enforcement_enabled", &AccumulateGrad::set_layout_enforced);
  ag.def("_is_grad_layout_enforcement_enabled", &AccumulateGrad::layout_enforced);
  ag.def("_current_graph_task_id", &current_graph_task_id);
  ag.def("_is_checkpoint_valid", &is_checkpoint_valid);
  // Note [Forward AD]; torchlite.autograd.forward_ad keeps the current level, as PyTorch's does.
  ag.def("_enter_dual_level", &forward_ad::enter_level);
  ag.def("_exit_dual_level", &forward_ad::exit_level, py::arg("level"));
  ag.def("_make_dual", &forward_ad::make_dual, py::arg("tensor"), py::arg("tangent"), py::arg("level"));
  ag.def("_unpack_dual", [](const Tensor& t, int64_t level) {
    auto [primal, tangent] = forward_ad::unpack_dual(t, level);
    return py::make_tuple(primal, tensor_or_none(tangent));
  }, py::arg("tensor"), py::arg("level"));
  ag.def("_will_engine_execute_node", [](const std::shared_ptr<Node>& n) { return will_execute_node(n.get()); });
  ag.def("_increment_version", [](py::object tensors) {
    for (const Tensor& t : from_sequence(tensors)) t.bump_version();
  });

  cls.def_property(
         "requires_grad", [](const Tensor& t) { return requires_grad(t); },
         [](const Tensor& t, bool v) { set_requires_grad(t, v); })
      .def("requires_grad_", [](py::object self, bool v) {
        set_requires_grad(self.cast<Tensor>(), v);
        return self;
      }, py::arg("requires_grad") = true)
      .def_property_readonly("is_leaf", [](const Tensor& t) { return is_leaf(t); })
      .def_property_readonly("grad_fn", [](const Tensor& t) -> py::object {
        const auto& fn = grad_fn(t);
        return fn ? py::cast(fn) : py::none();
      })
      .def_property_readonly("output_nr", [](const Tensor& t) { return output_nr(t); })
      .def_property_readonly("_is_view", [](const Tensor& t) {
        auto* m = get_meta(t);
        return m != nullptr && m->is_view_;
      })
      .def_property(
          "grad",
          [](const Tensor& t) -> py::object {
            auto* m = get_meta(t);
            return m && m->grad_.defined() ? py::cast(m->grad_) : py::none();
          },
          [](const Tensor& t, py::object g) {
            if (g.is_none()) {
              if (auto* m = get_meta(t)) m->grad_ = Tensor();
              return;
            }
            Tensor gt = g.cast<Tensor>();
            TL_CHECK(gt.dtype() == t.dtype(), "attempting to assign a gradient with dtype '", gt.dtype(),
                     "' to a tensor with dtype '", t.dtype(), "'. Please ensure that the gradient and the tensor have "
                     "the same dtype");
            TL_CHECK(gt.device() == t.device(), "attempting to assign a gradient with device '", gt.device(),
                     "' to a tensor with device '", t.device(), "'. Please ensure that the gradient and the tensor "
                     "are on the same device");
            TL_CHECK(gt.sizes().equals(t.sizes()), "assigned grad has data of a different size");
            materialize_meta(t)->grad_ = gt;
          })
      .def_property_readonly("retains_grad", [](const Tensor& t) {
        auto* m = get_meta(t);
        return m != nullptr && m->retains_grad_;
      })
      .def("retain_grad", [](const Tensor& t) {
        TL_CHECK(requires_grad(t), "can't retain_grad on Tensor that has requires_grad=False");
        if (is_leaf(t)) return;
        AutogradMeta* m = materialize_meta(t);
        if (m->retains_grad_) return;
        m->retains_grad_ = true;
        std::weak_ptr<TensorImpl> weak = t.impl_ptr();
        m->grad_fn_->set_retains_grad_hook(m->output_nr_, [weak](const Tensor& g) {
          auto impl = weak.lock();
          if (!impl) return;
          Tensor self(impl);
          AutogradMeta* meta = get_meta(self);
          if (!meta->grad_.defined()) {
            meta->grad_ = g.clone();
          } else {
            meta->grad_ = tl::add(meta->grad_, g);
          }
        });
      })
      .def("_register_hook", [](const Tensor& t, py::function fn) {
        TL_CHECK(requires_grad(t), "cannot register a hook on a tensor that doesn't require gradient");
        AutogradMeta* m = materialize_meta(t);
        if (m->grad_fn_) return m->grad_fn_->add_tensor_pre_hook(m->output_nr_, wrap_tensor_hook(fn));
        int id = next_hook_id();
        m->hooks_.push_back({id, wrap_tensor_hook(fn)});
        return id;
      })
      .def("_register_post_accumulate_grad_hook", [](const Tensor& t, py::function fn) {
        TL_CHECK(requires_grad(t), "cannot register a hook on a tensor that doesn't require gradient");
        TL_CHECK(is_leaf(t), "post accumulate grad hooks cannot be registered on non-leaf tensors");
        auto f = std::make_shared<PyCallable>(std::move(fn));
        int id = next_hook_id();
        materialize_meta(t)->post_acc_grad_hooks_.push_back({id, [f](const Tensor& leaf) {
          py::gil_scoped_acquire gil;
          TL_CHECK(f->fn(leaf).is_none(), "post accumulate grad hooks should return None");
        }});
        return id;
      })
      .def("_remove_hook", [](const Tensor& t, int id) {
        AutogradMeta* m = get_meta(t);
        if (m == nullptr) return false;
        auto erase_id = [id](auto& hooks) {
          auto it = std::find_if(hooks.begin(), hooks.end(), [id](const auto& h) { return h.first == id; });
          if (it == hooks.end()) return false;
          hooks.erase(it);
          return true;
        };
        if (erase_id(m->hooks_) || erase_id(m->post_acc_grad_hooks_)) return true;
        return m->grad_fn_ ? m->grad_fn_->remove_hook(id) : false;
      })
      .def("detach_", [](py::object self) {
        detach_inplace(self.cast<Tensor>());
        return self;
      })
      .def_property(
          "data", [](const Tensor& t) { return make_detached(t); },
          [](const Tensor& t, const Tensor& src) {
            TL_CHECK(src.dtype() == t.dtype(), "data set to a tensor of dtype ", src.dtype(), ", expected ", t.dtype());
            t.impl()->set_storage(src.impl()->storage());
            t.impl()->set_sizes_and_strides(src.sizes(), src.strides(), src.storage_offset());
          });
}

}  // namespace tl_python
