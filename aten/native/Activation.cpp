// Composite activations: relu6 is hardtanh(0, 6); log_sigmoid(x) = -softplus(-x), which stays
// finite for large |x|. Autograd records through their parts.
#include "generated/Functions.h"
#include "generated/NativeFunctions.h"

namespace tl::native {

Tensor relu6(const Tensor& self) { return tl::hardtanh(self, Scalar(0), Scalar(6)); }
Tensor relu6_(const Tensor& self) { return tl::hardtanh_(self, Scalar(0), Scalar(6)); }

Tensor log_sigmoid(const Tensor& self) { return tl::softplus(self.neg(), Scalar(1), Scalar(20)).neg(); }

}  // namespace tl::native
