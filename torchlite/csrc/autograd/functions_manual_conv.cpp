#include "torchlite/csrc/autograd/functions_manual_conv.h"

#include <vector>

#include "generated/Functions.h"

namespace tl::autograd {

Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad) {
  std::vector<int64_t> negated(pad.size());
  for (size_t i = 0; i < pad.size(); ++i) negated[i] = -pad[i];
  return tl::constant_pad_nd(grad, negated, 0);
}

}  // namespace tl::autograd
