// PyTorch's TypeError for arguments no overload accepts; see Note [Argument errors].
#include <sstream>
#include <string>
#include <vector>

#include "generated/ops/empty.h"
#include "generated/ops/t.h"
#include "torchlite/csrc/python_arg_parser.h"

namespace tl_python {

namespace {

std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

bool is_required(const ArgSpec& a) { return a.default_text == nullptr; }

// Whether `a` takes `value` with conversion; a caster's error (an int too large) is a no.
bool accepts(const ArgSpec& a, py::handle value) {
  try {
    return a.loads(value, true);
  } catch (...) {
    PyErr_Clear();
    return false;
  }
}

size_t num_positional(const OverloadSpec& o) {
  size_t n = 0;
  for (const ArgSpec& a : o.args) n += a.kw_only ? 0 : 1;
  return n;
}

const ArgSpec* find_arg(const OverloadSpec& o, const std::string& name) {
  for (const ArgSpec& a : o.args) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

// `zeros(2, 3)` is `zeros((2, 3))` for an overload whose int list also comes as *args.
std::vector<py::object> positional_for(const OverloadSpec& o, const std::vector<py::object>& args) {
  if (!o.varargs || args.size() <= 1) return args;
  py::tuple t(args.size());
  for (size_t i = 0; i < args.size(); ++i) t[i] = args[i];
  return {t};
}

std::string signature_text(const OverloadSpec& o) {
  std::ostringstream os;
  os << "(";
  bool star = false;
  for (size_t i = 0; i < o.args.size(); ++i) {
    const ArgSpec& a = o.args[i];
    if (i > 0) os << ", ";
    if (a.kw_only && !star) {
      os << "*, ";
      star = true;
    }
    os << a.type << " " << a.name;
    if (a.default_text != nullptr) os << " = " << a.default_text;
  }
  os << ")";
  return os.str();
}

// What is wrong with `value`: its type, or for an int or bool list, its first element of another
// type, or for a bool[N] (a "tuple of N bools"), its length.
std::string bad_value_text(const ArgSpec& a, py::handle value) {
  const std::string type = a.type;
  const bool ints = type == "tuple of ints";
  const bool bools = type.starts_with("tuple of ") && type.ends_with(" bools");
  if ((ints || bools) && (PyTuple_Check(value.ptr()) || PyList_Check(value.ptr()))) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    for (size_t i = 0; i < seq.size(); ++i) {
      int64_t unused = 0;
      py::object item = seq[i];
      if (ints ? !size_from_index(item.ptr(), unused) : !PyBool_Check(item.ptr()))
        return ", but found element of type " + type_name(item) + " at pos " + std::to_string(i);
    }
    if (bools) return ", but got " + std::to_string(seq.size()) + " elements";
  }
  return ", not " + type_name(value);
}

[[noreturn]] void raise(const std::string& msg) { throw py::type_error(msg); }

// The first thing wrong with this call for overload `o`, raised as PyTorch words it; returns
// when it finds nothing (the caller then lists the overloads).
void check_overload(const std::string& name, const OverloadSpec& o, const std::vector<py::object>& given,
                    const py::dict& kwargs) {
  std::vector<py::object> args = positional_for(o, given);
  const size_t max_pos = num_positional(o);
  if (args.size() > max_pos) {
    size_t min_args = 0;
    for (const ArgSpec& a : o.args) min_args += is_required(a) ? 1 : 0;
    std::ostringstream os;
    if (min_args != max_pos) {
      os << name << "() takes from " << min_args << " to " << max_pos << " positional arguments but " << args.size()
         << " were given";
    } else {
      os << name << "() takes " << max_pos << " positional argument" << (max_pos == 1 ? "" : "s") << " but "
         << args.size() << (args.size() == 1 ? " was" : " were") << " given";
    }
    raise(os.str());
  }
  std::vector<bool> filled(o.args.size(), false);
  size_t pos = 0;
  for (size_t i = 0; i < o.args.size() && pos < args.size(); ++i) {
    const ArgSpec& a = o.args[i];
    if (a.kw_only) continue;
    filled[i] = true;
    if (!accepts(a, args[pos])) {
      raise(name + "(): argument '" + a.name + "' (position " + std::to_string(pos + 1) + ") must be " + a.type +
            bad_value_text(a, args[pos]));
    }
    ++pos;
  }
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    const ArgSpec* a = find_arg(o, key);
    if (a == nullptr) raise(name + "() got an unexpected keyword argument '" + key + "'");
    const size_t i = static_cast<size_t>(a - o.args.data());
    if (filled[i]) raise(name + "() got multiple values for argument '" + key + "'");
    filled[i] = true;
    if (!accepts(*a, item.second)) raise(name + "(): argument '" + key + "' must be " + a->type + bad_value_text(*a, item.second));
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < o.args.size(); ++i) {
    if (!filled[i] && is_required(o.args[i])) missing.push_back(std::string("\"") + o.args[i].name + "\"");
  }
  if (!missing.empty()) {
    std::ostringstream os;
    os << name << "() missing " << missing.size() << " required positional arguments: ";
    for (size_t i = 0; i < missing.size(); ++i) os << (i ? ", " : "") << missing[i];
    raise(os.str());
  }
}

}  // namespace

[[noreturn]] void raise_argument_error(const std::string& name, const std::vector<OverloadSpec>& overloads,
                                       const std::vector<py::object>& args, const py::dict& kwargs) {
  // A keyword no overload has: say so, whatever else is wrong.
  for (auto item : kwargs) {
    const std::string key = py::str(item.first);
    bool known = false;
    for (const OverloadSpec& o : overloads) known = known || find_arg(o, key) != nullptr;
    if (!known) raise(name + "() got an unexpected keyword argument '" + key + "'");
  }
  // Overloads whose arity fits the call; with one candidate, its first problem is the message.
  const size_t n = args.size() + kwargs.size();
  std::vector<const OverloadSpec*> plausible;
  for (const OverloadSpec& o : overloads) {
    size_t min_args = 0;
    for (const ArgSpec& a : o.args) min_args += is_required(a) ? 1 : 0;
    if (n >= min_args && (n <= o.args.size() || o.varargs)) plausible.push_back(&o);
  }
  if (overloads.size() == 1) check_overload(name, overloads[0], args, kwargs);
  if (plausible.size() == 1) check_overload(name, *plausible[0], args, kwargs);
  std::ostringstream os;
  os << name << "() received an invalid combination of arguments - got (";
  bool first = true;
  for (const py::object& a : args) {
    os << (first ? "" : ", ") << type_name(a);
    first = false;
  }
  for (auto item : kwargs) {
    os << (first ? "" : ", ") << py::str(item.first).cast<std::string>() << "=" << type_name(item.second);
    first = false;
  }
  os << "), but expected one of:\n";
  for (const OverloadSpec& o : overloads) os << " * " << signature_text(o) << "\n";
  raise(os.str());
}

}  // namespace tl_python
