"""Error samples: calls that must raise, with the exception type and message start PyTorch gives.

Each sample is run on torchlite (tests/test_errors.py) and, when PyTorch is installed, on torch
too: both must raise `exc` with a message starting with `match`. `match` is the part of the
message both libraries share; it is shorter where torchlite's wording goes on differently.
The lambdas take the library module (`torchlite` or `torch`), as tests/helpers.py's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import Any


@dataclass(frozen=True)
class ErrorSample:
    desc: str
    fn: Callable[[Any], Any]
    exc: type[BaseException]
    match: str = ""

    def __str__(self) -> str:
        return self.desc


def _F(lib):
    return lib.nn.functional


def _t(lib, *shape, **kw):
    return lib.ones(*shape, **kw)


def _ctc(lib, **kw):
    """F.ctc_loss on a (6, 2, 4) input with valid padded targets, one argument replaced."""
    args = {"log_probs": lib.zeros(6, 2, 4), "targets": lib.tensor([[1, 2, 2], [3, 1, 0]]),
            "input_lengths": lib.tensor([6, 5]), "target_lengths": lib.tensor([3, 2])}
    args.update(kw)
    return _F(lib).ctc_loss(**args)


S = ErrorSample
RE, IE, TE, VE = RuntimeError, IndexError, TypeError, ValueError

ERRORS = [
    # Python numbers from many-element tensors.
    S("float() of 3 elements", lambda lib: float(_t(lib, 3)), VE,
      "only one element tensors can be converted to Python scalars"),
    S("int() of 3 elements", lambda lib: int(_t(lib, 3)), VE,
      "only one element tensors can be converted to Python scalars"),
    S("float() of 0 elements", lambda lib: float(_t(lib, 0)), VE, "only one element tensors"),
    S("item() of 3 elements", lambda lib: _t(lib, 3).item(), RE, "a Tensor with 3 elements cannot be converted to Scalar"),
    S("bool() of 3 elements", lambda lib: bool(_t(lib, 3)), RE,
      "Boolean value of Tensor with more than one value is ambiguous"),
    S("bool() of 0 elements", lambda lib: bool(_t(lib, 0)), RE, "Boolean value of Tensor with no values is ambiguous"),
    S("index() of a float tensor", lambda lib: [1, 2][_t(lib, 1)], TE,
      "only integer tensors of a single element can be converted to an index"),
    # numpy() of a tensor that requires grad.
    S("numpy() with requires_grad", lambda lib: _t(lib, 2, requires_grad=True).numpy(), RE,
      "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."),
    S("numpy() of a non-leaf", lambda lib: (_t(lib, 2, requires_grad=True) * 2).numpy(), RE,
      "Can't call numpy() on Tensor that requires grad."),
    # Losses with a mismatched batch.
    S("cross_entropy batch mismatch", lambda lib: _F(lib).cross_entropy(lib.randn(3, 5), lib.tensor([1, 2])), VE,
      "Expected input batch_size (3) to match target batch_size (2)."),
    S("nll_loss batch mismatch", lambda lib: _F(lib).nll_loss(lib.randn(3, 5), lib.tensor([1, 2])), VE,
      "Expected input batch_size (3) to match target batch_size (2)."),
    S("nll_loss 4-d batch mismatch", lambda lib: _F(lib).nll_loss(lib.randn(3, 5, 2, 2), lib.zeros(2, 2, 2).long()), VE,
      "Expected input batch_size (3) to match target batch_size (2)."),
    S("mse_loss batch mismatch", lambda lib: _F(lib).mse_loss(lib.randn(3, 5), lib.randn(2, 5)), RE,
      "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    S("l1_loss batch mismatch", lambda lib: _F(lib).l1_loss(lib.randn(3, 5), lib.randn(2, 5)), RE,
      "The size of tensor a (3) must match the size of tensor b (2)"),
    S("smooth_l1_loss batch mismatch", lambda lib: _F(lib).smooth_l1_loss(lib.randn(3, 5), lib.randn(2, 5)), RE,
      "The size of tensor a (3) must match the size of tensor b (2)"),
    S("binary_cross_entropy size mismatch", lambda lib: _F(lib).binary_cross_entropy(lib.rand(3), lib.rand(2)), VE,
      "Using a target size ("),  # torchlite.Size([2]) where PyTorch prints torch.Size([2])
    S("bce_with_logits size mismatch", lambda lib: _F(lib).binary_cross_entropy_with_logits(lib.rand(3), lib.rand(2)),
      VE, "Target size ("),
    S("nn.CrossEntropyLoss batch mismatch", lambda lib: lib.nn.CrossEntropyLoss()(lib.randn(4, 3), lib.tensor([0, 1])),
      VE, "Expected input batch_size (4) to match target batch_size (2)."),
    # Unknown keywords.
    S("torch.add unknown keyword", lambda lib: lib.add(_t(lib, 3), _t(lib, 3), dimm=1), TE,
      "add() got an unexpected keyword argument 'dimm'"),
    S("Tensor.add unknown keyword", lambda lib: _t(lib, 3).add(_t(lib, 3), dimm=1), TE,
      "add() got an unexpected keyword argument 'dimm'"),
    S("relu unknown keyword", lambda lib: lib.relu(_t(lib, 3), foo=1), TE, "relu() got an unexpected keyword argument 'foo'"),
    S("zeros unknown keyword", lambda lib: lib.zeros(2, foo=1), TE, "zeros() got an unexpected keyword argument 'foo'"),
    S("cat unknown keyword", lambda lib: lib.cat([_t(lib, 2)], dimm=0), TE, "cat() got an unexpected keyword argument 'dimm'"),
    S("Tensor.sum unknown keyword", lambda lib: _t(lib, 2).sum(axis2=0), TE,
      "sum() "),  # PyTorch lists the overloads here; torchlite names the keyword
    S("F.mse_loss unknown keyword", lambda lib: _F(lib).mse_loss(_t(lib, 2), _t(lib, 2), foo=1), TE,
      "mse_loss() got an unexpected keyword argument 'foo'"),
    # Wrong argument types and counts.
    S("torch.add(t, str)", lambda lib: lib.add(_t(lib, 3), "a"), TE, "add()"),
    S("Tensor.add(str)", lambda lib: _t(lib, 3).add("a"), TE, "add()"),
    S("add alpha of type str", lambda lib: lib.add(_t(lib, 3), _t(lib, 3), alpha="x"), TE, "add()"),
    S("relu(str)", lambda lib: lib.relu("a"), TE, "relu(): argument "),
    S("relu with two positionals", lambda lib: lib.relu(_t(lib, 3), _t(lib, 3)), TE,
      "relu() takes 1 positional argument but 2 were given"),
    S("relu with none", lambda lib: lib.relu(), TE, "relu() missing 1 required positional arguments: "),
    S("Tensor.transpose with one dim", lambda lib: _t(lib, 2, 2).transpose(0), TE,
      "transpose() missing 1 required positional arguments: \"dim1\""),
    S("torch.sum(t, str)", lambda lib: lib.sum(_t(lib, 3), "a"), TE,
      "sum() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"),
    S("Tensor.sum(dim=str)", lambda lib: _t(lib, 3).sum(dim="a"), TE,
      "sum() received an invalid combination of arguments - got (dim=str"),
    S("zeros(str)", lambda lib: lib.zeros("a"), TE, "zeros(): argument 'size' (position 1) must be tuple of ints, not str"),
    S("mm(t, int)", lambda lib: lib.mm(_t(lib, 2, 2), 3), TE, "mm(): argument 'mat2' (position 2) must be Tensor, not int"),
    S("cat(Tensor)", lambda lib: lib.cat(_t(lib, 2)), TE,
      "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    S("clamp(t, str)", lambda lib: lib.clamp(_t(lib, 2), "a"), TE,
      "clamp() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"),
    S("Tensor + str", lambda lib: _t(lib, 2) + "a", TE, "unsupported operand type(s) for +: 'Tensor' and 'str'"),
    S("Tensor - str", lambda lib: _t(lib, 2) - "a", TE, "unsupported operand type(s) for -: 'Tensor' and 'str'"),
    S("Tensor.view(str)", lambda lib: _t(lib, 2).view("a"), TE, "view()"),  # one overload here, two in PyTorch
    S("Tensor.reshape(str)", lambda lib: _t(lib, 2).reshape("a"), TE, "reshape(): argument 'shape' (position 1) must be "),
    # Shapes.
    S("add shape mismatch", lambda lib: _t(lib, 3) + _t(lib, 4), RE,
      "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    S("mul shape mismatch", lambda lib: _t(lib, 2, 3) * _t(lib, 2, 2), RE,
      "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    S("in-place add broadcast", lambda lib: _t(lib, 1).add_(_t(lib, 3)), RE,
      "output with shape [1] doesn't match the broadcast shape [3]"),
    S("expand to fewer dims", lambda lib: _t(lib, 2, 3).expand(3), RE, "expand("),
    S("expand wrong size", lambda lib: _t(lib, 2).expand(3), RE, "The expanded size of the tensor (3) must match"),
    # matmul family.
    S("mm shape", lambda lib: lib.mm(_t(lib, 2, 3), _t(lib, 2, 3)), RE,
      "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    S("matmul 2-d shape", lambda lib: lib.matmul(_t(lib, 2, 3), _t(lib, 2, 3)), RE,
      "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    S("Tensor @ Tensor shape", lambda lib: _t(lib, 2, 3) @ _t(lib, 2, 3), RE, "mat1 and mat2 shapes cannot be multiplied"),
    S("mm of 1-d", lambda lib: lib.mm(_t(lib, 3), _t(lib, 3)), RE, "self must be a matrix"),
    S("dot sizes", lambda lib: lib.dot(_t(lib, 3), _t(lib, 4)), RE, "inconsistent tensor size"),
    S("dot of 2-d", lambda lib: lib.dot(_t(lib, 2, 2), _t(lib, 2, 2)), RE, "1D tensors expected"),
    S("bmm batch mismatch", lambda lib: lib.bmm(_t(lib, 2, 2, 3), _t(lib, 3, 3, 2)), RE,
      "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3]."),
    S("bmm of 2-d", lambda lib: lib.bmm(_t(lib, 2, 2), _t(lib, 2, 2)), RE, "batch1 must be a 3D tensor"),
    S("Linear in_features mismatch", lambda lib: lib.nn.Linear(3, 2)(_t(lib, 4, 5)), RE,
      "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)"),
    # view / reshape.
    S("view to a wrong numel", lambda lib: _t(lib, 3).view(2, 2), RE, "shape '[2, 2]' is invalid for input of size 3"),
    S("reshape to a wrong numel", lambda lib: _t(lib, 3).reshape(2, 2), RE, "shape '[2, 2]' is invalid for input of size 3"),
    S("reshape with two -1", lambda lib: _t(lib, 4).reshape(-1, -1), RE, "only one dimension can be inferred"),
    S("view of non-contiguous", lambda lib: _t(lib, 2, 3).t().view(6), RE,
      "view size is not compatible with input tensor's size and stride"),
    S("view with negative size", lambda lib: _t(lib, 4).view(-2, 2), RE, "invalid shape dimension -2"),
    S("permute wrong count", lambda lib: _t(lib, 2, 3).permute(0), RE, "permute("),
    S("permute repeated dim", lambda lib: _t(lib, 2, 3).permute(0, 0), RE, "permute(): duplicate dims are not allowed."),
    # cat / stack.
    S("cat size mismatch", lambda lib: lib.cat([_t(lib, 2, 3), _t(lib, 2, 4)]), RE,
      "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in the list."),
    S("cat dim mismatch", lambda lib: lib.cat([_t(lib, 2, 3), _t(lib, 3)]), RE,
      "Tensors must have same number of dimensions: got 2 and 1"),
    S("cat of nothing", lambda lib: lib.cat([]), VE, "torch.cat(): expected a non-empty list of Tensors"),
    S("cat dim out of range", lambda lib: lib.cat([_t(lib, 2)], dim=2), IE, "Dimension out of range"),
    S("stack size mismatch", lambda lib: lib.stack([_t(lib, 2, 3), _t(lib, 2, 4)]), RE,
      "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1"),
    S("stack of nothing", lambda lib: lib.stack([]), RE, "stack expects a non-empty TensorList"),
    # dims.
    S("sum dim out of range", lambda lib: _t(lib, 3).sum(3), IE,
      "Dimension out of range (expected to be in range of [-1, 0], but got 3)"),
    S("softmax dim out of range", lambda lib: lib.softmax(_t(lib, 2, 2), dim=2), IE,
      "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    S("transpose dim out of range", lambda lib: _t(lib, 2, 2).transpose(0, 5), IE, "Dimension out of range"),
    S("squeeze dim out of range", lambda lib: _t(lib, 2).squeeze(-3), IE, "Dimension out of range"),
    S("unsqueeze dim out of range", lambda lib: _t(lib, 2).unsqueeze(3), IE, "Dimension out of range"),
    S("size(dim) out of range", lambda lib: _t(lib, 2).size(1), IE, "Dimension out of range"),
    S("dim on a 0-d tensor", lambda lib: lib.tensor(1.0).sum(1), IE,
      "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    # Indexing.
    S("index out of range", lambda lib: _t(lib, 3)[5], IE, "index 5 is out of bounds for dimension 0 with size 3"),
    S("negative index out of range", lambda lib: _t(lib, 3)[-4], IE, "index -4 is out of bounds for dimension 0 with size 3"),
    S("too many indices", lambda lib: _t(lib, 3)[0, 0], IE, "too many indices for tensor of dimension 1"),
    S("setitem out of range", lambda lib: _t(lib, 3).__setitem__(3, 1.0), IE,
      "index 3 is out of bounds for dimension 0 with size 3"),
    S("select out of range", lambda lib: _t(lib, 2, 3).select(1, 3), IE),  # "select(): index 3 out of range ..." in PyTorch
    S("index_select out of range", lambda lib: lib.index_select(_t(lib, 3), 0, lib.tensor([5])), IE, "index out of range in self"),
    S("gather index out of range", lambda lib: lib.gather(_t(lib, 3), 0, lib.tensor([3])), RE,
      "index 3 is out of bounds for dimension 0 with size 3"),
    S("embedding index out of range", lambda lib: _F(lib).embedding(lib.tensor([3]), _t(lib, 3, 2)), IE,
      "index out of range in self"),
    S("tensor index out of range", lambda lib: _t(lib, 3)[lib.tensor([0, 3])], IE,
      "index 3 is out of bounds for dimension 0 with size 3"),
    S("bool mask shape", lambda lib: _t(lib, 3)[lib.tensor([True, False])], IE,
      "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3] at index 0"),
    S("float index tensor", lambda lib: _t(lib, 3)[lib.tensor([0.5])], IE,
      "tensors used as indices must be long, int, byte or bool tensors"),
    # dtypes.
    S("matmul dtype mismatch", lambda lib: lib.mm(_t(lib, 2, 2), _t(lib, 2, 2, dtype=lib.float64)), RE, "expected "),
    S("in-place int result of float", lambda lib: _t(lib, 2, dtype=lib.int64).add_(1.5), RE, "result type "),
    S("out= of a lower dtype", lambda lib: lib.add(_t(lib, 2), 1.5, out=_t(lib, 2, dtype=lib.int64)), RE, "result type "),
    S("bitwise_and of floats", lambda lib: lib.bitwise_and(_t(lib, 2), _t(lib, 2)), NotImplementedError,
      "\"bitwise_and_cpu\" not implemented for 'Float'"),
    # One dtype error everywhere (aten/core/ScalarType.h): NotImplementedError with the C++ type name.
    S("softmax of ints", lambda lib: lib.softmax(lib.tensor([1, 2]), 0), NotImplementedError, "\""),
    S("layer_norm of ints", lambda lib: _F(lib).layer_norm(_t(lib, 2, 2, dtype=lib.int64), [2]), NotImplementedError,
      "\""),
    S("nll_loss of int scores", lambda lib: _F(lib).nll_loss(_t(lib, 2, 2, dtype=lib.int64), lib.tensor([0, 1])),
      NotImplementedError, "\""),
    S("mm of bools", lambda lib: lib.mm(_t(lib, 2, 2, dtype=lib.bool), _t(lib, 2, 2, dtype=lib.bool)),
      NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    S("cross_entropy probabilities batch mismatch", lambda lib: _F(lib).cross_entropy(lib.randn(3, 5), lib.randn(2, 5)),
      VE, "Expected input batch_size (3) to match target batch_size (2)."),
    S("index_select float index", lambda lib: lib.index_select(_t(lib, 3), 0, lib.tensor([0.0])), RE,
      "index_select(): Expected dtype int32 or int64 for index"),
    S("requires_grad on an int tensor", lambda lib: _t(lib, 2, dtype=lib.int64).requires_grad_(), RE,
      "only Tensors of floating point dtype can require gradients"),
    # Autograd.
    S("backward of a non-scalar", lambda lib: _t(lib, 2, requires_grad=True).mul(2).backward(), RE,
      "grad can be implicitly created only for scalar outputs"),
    S("backward without grad", lambda lib: _t(lib, 2).sum().backward(), RE,
      "element 0 of tensors does not require grad and does not have a grad_fn"),
    S("in-place on a leaf that requires grad", lambda lib: _t(lib, 2, requires_grad=True).add_(1), RE,
      "a leaf Variable that requires grad is being used in an in-place operation."),
    # Creation.
    S("zeros with a negative size", lambda lib: lib.zeros(-1), RE),  # PyTorch 2.13: "zeros: Dimension size ..."
    # Sizes that do not fit in int64 or whose product overflows.
    S("zeros(2**64)", lambda lib: lib.zeros(2**64), TE),  # "zeros(): argument 'size' failed to unpack ..." in PyTorch
    S("view((2**64,))", lambda lib: _t(lib, 6).view((2**64,)), TE),
    S("empty((2**40, 2**40))", lambda lib: lib.empty((2**40, 2**40)), RE),
    S("eye(2**40)", lambda lib: lib.eye(2**40), RE),
    S("expand to 2**80 elements", lambda lib: _t(lib, 1, 1).expand(2**40, 2**40).contiguous(), RE),
    S("arange with zero step", lambda lib: lib.arange(0, 10, 0), RE, "step must be nonzero"),
    S("tensor of ragged lists", lambda lib: lib.tensor([[1, 2], [3]]), VE, "expected sequence of length 2 at dim 1 (got 1)"),
    S("tensor of str", lambda lib: lib.tensor("a"), TE, "new(): invalid data type 'str'"),
    S("tensor of an object", lambda lib: lib.tensor(object()), RE, "Could not infer dtype of object"),
    S("tensor of a list holding str", lambda lib: lib.tensor([1, "a"]), TE, "new(): invalid data type 'str'"),
    # Int and bool arguments (Note [Strict scalars]): no float tensor as a dim, no None as False.
    S("transpose dim as a float tensor", lambda lib: _t(lib, 2, 3).transpose(0, lib.tensor(1.0)), TE,
      "transpose(): argument 'dim1' (position 2) must be int, not Tensor"),
    S("transpose dim as a bool", lambda lib: _t(lib, 2, 3).transpose(0, True), TE,
      "transpose(): argument 'dim1' (position 2) must be int, not bool"),
    S("keepdim=None", lambda lib: _t(lib, 2, 3).sum(0, keepdim=None), TE,
      "sum(): argument 'keepdim' must be bool, not NoneType"),
    S("keepdim=1", lambda lib: _t(lib, 2, 3).sum(0, keepdim=1), TE, "sum(): argument 'keepdim' must be bool, not int"),
    S("size given a float tensor", lambda lib: lib.empty((lib.tensor(2.0), 3)), TE,
      "empty(): argument 'size' (position 1) must be tuple of ints, but found element of type Tensor at pos 0"),
    # a NumPy array where a Tensor or a number is expected (this crashed in the Number caster)
    S("mul with an ndarray", lambda lib: lib.mul(_t(lib, 3), __import__("numpy").ones(3)), TE, "mul()"),
    S("mode over an empty dim", lambda lib: lib.mode(_t(lib, 0, 3), 0), IE,
      "mode(): Expected reduction dim 0 to have non-zero size."),
    S("pca_lowrank with q > min(m, n)", lambda lib: lib.pca_lowrank(_t(lib, 4, 3), q=4), VE,
      "q(=4) must be non-negative integer and not greater than min(m, n)=3"),
    S("fold with channels not divisible by the kernel", lambda lib: _F(lib).fold(_t(lib, 2, 7, 20), (5, 6), 2), RE,
      "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=7"),
    S("fold with the wrong number of blocks", lambda lib: _F(lib).fold(_t(lib, 2, 12, 21), (5, 6), 2), RE,
      "Given output_size=(5, 6), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1), expected size "
      "of input's dimension 2 to match the calculated number of sliding blocks 4 * 5 = 20, but got input.size(2)=21."),
    # linalg.eig
    S("eig of a non-square matrix", lambda lib: lib.linalg.eig(_t(lib, 2, 3)), RE,
      "linalg.eig: A must be batches of square matrices, but they are 2 by 3 matrices"),
    S("eig of a matrix holding NaN", lambda lib: lib.linalg.eig(lib.tensor([[1.0, float("nan")], [0.0, 1.0]])),
      RE, "torch.linalg.eig: input tensor should not contain infs or NaNs."),
    # vander, cond, the recurrent cells
    S("vander of a matrix", lambda lib: lib.vander(_t(lib, 2, 2)), RE, "x must be a one-dimensional tensor."),
    S("vander with N < 0", lambda lib: lib.vander(_t(lib, 3), N=-1), RE, "N must be non-negative."),
    S("cond with a two-element predicate", lambda lib: lib.cond(lib.tensor([True, False]), lambda: 1, lambda: 2), RE,
      "Expected pred to be bool or single-element tensor"),
    S("gru_cell with the wrong hidden size", lambda lib: lib.gru_cell(_t(lib, 3, 4), _t(lib, 3, 6), _t(lib, 15, 4),
                                                                     _t(lib, 15, 5)), RE,
      "hidden0 has inconsistent hidden_size: got 6, expected 5"),
    # Activations, normalisation and losses of torch.nn.functional.
    S("softshrink with a negative lambd", lambda lib: _F(lib).softshrink(_t(lib, 3), -0.5), RE,
      "lambda must be in range [0, 3.40282e+38] for input dtype Float, but found -0.5"),
    S("celu with alpha 0", lambda lib: lib.celu(_t(lib, 3), 0.0), RE, "ZeroDivisionError"),
    S("glu over an odd dimension", lambda lib: _F(lib).glu(_t(lib, 2, 3)), RE,
      "Halving dimension must be even, but dimension 1 is size 3"),
    S("glu of a scalar", lambda lib: _F(lib).glu(lib.tensor(1.0)), RE,
      "glu does not support scalars because halving size must be even"),
    S("prelu weight per channel mismatch", lambda lib: _F(lib).prelu(_t(lib, 2, 4), _t(lib, 3)), RE,
      "Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel size = 4."),
    S("prelu 2-D weight", lambda lib: lib.prelu(_t(lib, 2, 4), _t(lib, 1, 1)), RE,
      "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    S("prelu dtype mismatch", lambda lib: lib.prelu(_t(lib, 2, 3), _t(lib, 3, dtype=lib.float64)), RE,
      "prelu: Type promoting not supported. Got Float and Double"),
    S("rrelu lower > upper", lambda lib: _F(lib).rrelu(_t(lib, 3), 0.5, 0.1), RE,
      "Lower bound should be less than or equal to the upper bound"),
    S("feature dropout of 1-D input", lambda lib: lib.feature_dropout(_t(lib, 3), 0.5, True), RE,
      "Feature dropout requires at least 2 dimensions in the input"),
    S("instance_norm of one spatial element", lambda lib: _F(lib).instance_norm(_t(lib, 2, 3, 1)), VE,
      "Expected more than 1 spatial element when training, got input size "),
    S("instance_norm eval without running stats", lambda lib: lib.instance_norm(
        _t(lib, 2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False), RE,
      "Expected running_mean and running_var to be defined when use_input_stats is false"),
    S("InstanceNorm1d of 4-D input", lambda lib: lib.nn.InstanceNorm1d(3)(_t(lib, 2, 3, 4, 5)), VE,
      "expected 2D or 3D input (got 4D input)"),
    S("InstanceNorm2d affine with other channels", lambda lib: lib.nn.InstanceNorm2d(3, affine=True)(
        _t(lib, 2, 4, 3, 3)), VE, "expected input's size at dim=1 to match num_features (3), but got: 4."),
    S("local_response_norm of 2-D input", lambda lib: _F(lib).local_response_norm(_t(lib, 2, 3), 2), VE,
      "Expected 3D or higher dimensionality"),
    S("margin_ranking_loss dims", lambda lib: _F(lib).margin_ranking_loss(_t(lib, 3), _t(lib, 3), _t(lib, 1, 3)), RE,
      "margin_ranking_loss : All input tensors should have same dimension but got sizes: "),
    S("cosine_embedding_loss 2-D target", lambda lib: _F(lib).cosine_embedding_loss(
        _t(lib, 3, 4), _t(lib, 3, 4), _t(lib, 3, 1)), RE, "0D or 1D target tensor expected, multi-target not supported"),
    S("cosine_embedding_loss 1-D inputs with a 1-D target", lambda lib: _F(lib).cosine_embedding_loss(
        _t(lib, 4), _t(lib, 4), _t(lib, 4)), RE,
      "1D target tensor expects 2D input tensors, but found inputs with sizes [4] and [4]."),
    S("triplet_margin_loss dims", lambda lib: _F(lib).triplet_margin_loss(_t(lib, 3, 4), _t(lib, 4), _t(lib, 3, 4)),
      RE, "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
      "anchor 2D, positive 1D, and negative 2D inputs"),
    S("triplet_margin_loss margin 0", lambda lib: _F(lib).triplet_margin_loss(_t(lib, 4), _t(lib, 4), _t(lib, 4),
                                                                             margin=0.0), VE,
      "margin must be greater than 0, got 0.0"),
    S("poisson_nll_loss reduction", lambda lib: _F(lib).poisson_nll_loss(_t(lib, 3), _t(lib, 3), reduction="max"), VE,
      "max is not a valid value for reduction"),
    S("gaussian_nll_loss negative var", lambda lib: _F(lib).gaussian_nll_loss(_t(lib, 3), _t(lib, 3), -_t(lib, 3)),
      VE, "var has negative entry/entries"),
    S("gaussian_nll_loss var size", lambda lib: _F(lib).gaussian_nll_loss(_t(lib, 3, 4), _t(lib, 3, 4),
                                                                           _t(lib, 2, 2)), VE,
      "var is of incorrect size"),
    S("multi_margin_loss p=3", lambda lib: _F(lib).multi_margin_loss(_t(lib, 3, 4), lib.zeros(3, dtype=lib.int64),
                                                                     p=3), VE, "only p == 1 and p == 2 supported"),
    S("multi_margin_loss target out of range", lambda lib: _F(lib).multi_margin_loss(
        _t(lib, 3, 4), lib.tensor([0, 1, 4])), RE, "target out of range"),
    S("multi_margin_loss target size", lambda lib: _F(lib).multi_margin_loss(_t(lib, 3, 4), lib.tensor([0, 1])), RE,
      "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch size). "
      "Expected target size [3], but got [2]. Input has shape [3, 4]."),
    S("multi_margin_loss weight size", lambda lib: _F(lib).multi_margin_loss(
        _t(lib, 3, 4), lib.tensor([0, 1, 2]), weight=_t(lib, 3)), RE, "inconsistent weight size, expected 4 but got [3]"),
    S("multi_margin_loss 3-D input", lambda lib: _F(lib).multi_margin_loss(_t(lib, 2, 3, 4), lib.tensor([0, 1])), RE,
      "Expected non-empty vector or matrix with optional 0-dim batch size, but got: [2, 3, 4]"),
    S("multilabel_margin_loss target size", lambda lib: _F(lib).multilabel_margin_loss(
        _t(lib, 3, 4), lib.zeros(1, 4, dtype=lib.int64)), RE, "inconsistent target size: [1, 4] for input of size: [3, 4]"),
    S("multilabel_margin_loss float target", lambda lib: _F(lib).multilabel_margin_loss(_t(lib, 3, 4), _t(lib, 3, 4)),
      RE, "expected scalar type Long but found Float"),
    S("multilabel_margin_loss target out of range", lambda lib: _F(lib).multilabel_margin_loss(
        _t(lib, 4), lib.tensor([0, 5, -1, 0])), RE, "argument #2 'target' is out of range"),

    # torch.fft
    S("fft with a bad norm", lambda lib: lib.fft.fft(_t(lib, 4), norm="bad"), RE, 'Invalid normalization mode: "bad"'),
    S("fft with n=0", lambda lib: lib.fft.fft(_t(lib, 4), n=0), RE, "Invalid number of data points (0) specified"),
    S("irfft of one element", lambda lib: lib.fft.irfft(_t(lib, 1)), RE, "Invalid number of data points (0) specified"),
    S("fft over a missing dim", lambda lib: lib.fft.fft(_t(lib, 4, 5), dim=2), IE,
      "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    S("fft of a 0-dim tensor", lambda lib: lib.fft.fft(lib.tensor(1.0)), IE,
      "Dimension specified as -1 but tensor has no dimensions"),
    S("fftn with s and dim of different lengths", lambda lib: lib.fft.fftn(_t(lib, 4, 5), s=(2, 3), dim=(0,)), RE,
      "When given, dim and shape arguments must have the same length"),
    S("fftn with a repeated dim", lambda lib: lib.fft.fftn(_t(lib, 4, 5), dim=(0, 0)), RE, "FFT dims must be unique"),
    S("fftn with s longer than the tensor's dims", lambda lib: lib.fft.fftn(_t(lib, 4, 5), s=(2, 3, 4)), RE,
      "Got shape with 3 values but input tensor only has 2 dimensions."),
    S("rfft of a complex tensor", lambda lib: lib.fft.rfft(_t(lib, 4, dtype=lib.complex64)), RE,
      "rfft expects a real input tensor, but got ComplexFloat"),
    S("ihfft of a complex tensor", lambda lib: lib.fft.ihfft(_t(lib, 4, dtype=lib.complex64)), RE,
      "ihfft expects a real input tensor, but got ComplexFloat"),
    S("fft of a half tensor", lambda lib: lib.fft.fft(_t(lib, 4, dtype=lib.float16)), RE, "Unsupported dtype Half"),
    S("stft without return_complex", lambda lib: lib.stft(_t(lib, 40), 8), RE,
      "stft requires the return_complex parameter be given for real inputs"),
    S("istft of a real tensor", lambda lib: lib.istft(_t(lib, 5, 4), 8), RE, "istft requires a complex-valued input tensor matching the output from stft"),
    # embedding_bag: inputs, offsets and modes.
    S("embedding_bag 1-D input without offsets", lambda lib: _F(lib).embedding_bag(lib.tensor([0, 1]), _t(lib, 3, 2)),
      VE, "offsets has to be a 1D Tensor but got None"),
    S("embedding_bag 2-D input with offsets", lambda lib: _F(lib).embedding_bag(
        lib.tensor([[0, 1]]), _t(lib, 3, 2), lib.tensor([0])), VE, "if input is 2D, then offsets has to be None"),
    S("embedding_bag 3-D input", lambda lib: _F(lib).embedding_bag(lib.zeros(1, 1, 1, dtype=lib.int64), _t(lib, 3, 2)),
      VE, "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    S("embedding_bag 1-D weight", lambda lib: _F(lib).embedding_bag(lib.tensor([[0]]), _t(lib, 3)), VE,
      "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    S("embedding_bag unknown mode", lambda lib: _F(lib).embedding_bag(lib.tensor([[0]]), _t(lib, 3, 2), mode="min"),
      VE, "mode has to be one of sum, mean or max"),
    S("embedding_bag max mode with scale_grad_by_freq", lambda lib: _F(lib).embedding_bag(
        lib.tensor([[0]]), _t(lib, 3, 2), mode="max", scale_grad_by_freq=True), VE,
      "max mode does not support scaling the gradient by the frequency"),
    S("embedding_bag per_sample_weights in mean mode", lambda lib: _F(lib).embedding_bag(
        lib.tensor([[0]]), _t(lib, 3, 2), per_sample_weights=_t(lib, 1, 1)), NotImplementedError,
      "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum'"),
    S("embedding_bag per_sample_weights shape", lambda lib: _F(lib).embedding_bag(
        lib.tensor([[0, 1]]), _t(lib, 3, 2), mode="sum", per_sample_weights=_t(lib, 3)), VE,
      "embedding_bag: If per_sample_weights"),
    S("embedding_bag first offset not 0", lambda lib: lib.embedding_bag(_t(lib, 3, 2), lib.tensor([0, 1]),
                                                                        lib.tensor([1])), RE,
      "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got 1"),
    S("embedding_bag last offset past the input", lambda lib: lib.embedding_bag(_t(lib, 3, 2), lib.tensor([0, 1]),
                                                                                lib.tensor([0, 3])), RE,
      "offsets[-1] can not be greater than input's length 2 but got offsets[-1] of 3"),
    S("embedding_bag index out of range", lambda lib: lib.embedding_bag(_t(lib, 3, 2), lib.tensor([0, 3]),
                                                                        lib.tensor([0])), RE,
      "Index 1 of input takes value 3 which is not in the valid range [0, 3)"),
    S("embedding_bag float indices", lambda lib: lib.embedding_bag(_t(lib, 3, 2), _t(lib, 2), lib.tensor([0])), RE,
      "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got"),
    S("embedding_bag padding_idx out of range", lambda lib: _F(lib).embedding_bag(
        lib.tensor([[0]]), _t(lib, 3, 2), padding_idx=3), RE,
      "padding_idx must be within the number of embeddings, -3 through 2, but got 3"),
    S("embedding_bag mode 3", lambda lib: lib.embedding_bag(_t(lib, 3, 2), lib.tensor([0]), lib.tensor([0]), False, 3),
      RE, "`mode` must be sum, mean, or max."),
    # ctc_loss: lengths and targets that do not fit log_probs (T=6, N=2, C=4).
    S("ctc_loss blank out of range", lambda lib: _ctc(lib, blank=4), RE, "blank must be in label range"),
    S("ctc_loss input_lengths size", lambda lib: _ctc(lib, input_lengths=lib.tensor([6])), RE,
      "input_lengths must be of size batch_size"),
    S("ctc_loss target_lengths size", lambda lib: _ctc(lib, target_lengths=lib.tensor([3])), RE,
      "target_lengths must be of size batch_size"),
    S("ctc_loss input length above T", lambda lib: _ctc(lib, input_lengths=lib.tensor([7, 5])), RE,
      "Expected input_lengths to have value at most 6, but got value 7"),
    S("ctc_loss negative input length", lambda lib: _ctc(lib, input_lengths=lib.tensor([-1, 5])), RE,
      "Expected input_lengths to have value at least 0, but got value -1"),
    S("ctc_loss negative target length", lambda lib: _ctc(lib, target_lengths=lib.tensor([-1, 2])), RE,
      "Expected target_lengths to have value at least 0, but got value -1"),
    S("ctc_loss padded targets too short", lambda lib: _ctc(lib, target_lengths=lib.tensor([4, 2])), RE,
      "Expected tensor to have size at least 4 at dimension 1, but got size 3 for argument #2 'targets'"),
    S("ctc_loss padded targets batch", lambda lib: _ctc(lib, targets=lib.tensor([[1, 2, 2]])), RE,
      "Expected tensor to have size 2 at dimension 0, but got size 1 for argument #2 'targets'"),
    S("ctc_loss concatenated targets size", lambda lib: _ctc(lib, targets=lib.tensor([1, 2, 2, 3, 1, 0])), RE,
      "Expected tensor to have size 5 at dimension 0, but got size 6 for argument #2 'targets'"),
    S("ctc_loss 3-D targets", lambda lib: _ctc(lib, targets=lib.zeros(2, 3, 1, dtype=lib.int64)), RE,
      "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 'targets'"),
    S("ctc_loss float input_lengths", lambda lib: _ctc(lib, input_lengths=lib.tensor([6.0, 5.0])), RE,
      "input_lengths must be integral"),
    S("ctc_loss of empty log_probs", lambda lib: _ctc(lib, log_probs=lib.zeros(0, 2, 4)), RE,
      "log_probs tensor must not be empty"),
    S("ctc_loss unknown reduction", lambda lib: _ctc(lib, reduction="max"), VE, "max is not a valid value for reduction"),
    # conv_tbc: (T, B, C_in) input, (K, C_in, C_out) weight, (C_out,) bias.
    S("conv_tbc 2-D input", lambda lib: lib.conv_tbc(_t(lib, 5, 3), _t(lib, 2, 3, 4), _t(lib, 4)), RE,
      "Input must have 3 dims: time, batch, in_channel"),
    S("conv_tbc 2-D weight", lambda lib: lib.conv_tbc(_t(lib, 5, 2, 3), _t(lib, 3, 4), _t(lib, 4)), RE,
      "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."),
    S("conv_tbc 2-D bias", lambda lib: lib.conv_tbc(_t(lib, 5, 2, 3), _t(lib, 2, 3, 4), _t(lib, 1, 4)), RE,
      "Bias must be 1-D"),
    S("conv_tbc channel mismatch", lambda lib: lib.conv_tbc(_t(lib, 5, 2, 3), _t(lib, 2, 2, 4), _t(lib, 4)), RE,
      "Input dim 2 (input channels) is not == dim 1 in the weight tensor"),
    S("conv_tbc bias size", lambda lib: lib.conv_tbc(_t(lib, 5, 2, 3), _t(lib, 2, 3, 4), _t(lib, 3)), RE,
      "Bias size must equal dim 2 in the weight tensor (output channels)."),
    S("conv_tbc kernel longer than the input", lambda lib: lib.conv_tbc(_t(lib, 5, 2, 3), _t(lib, 9, 3, 4),
                                                                          _t(lib, 4)), RE,
      "Trying to create tensor with negative dimension -3: [-3, 2, 4]"),
    # Spatial transformers: grid_sample / affine_grid.
    S("grid_sample batch mismatch", lambda lib: _F(lib).grid_sample(_t(lib, 2, 3, 4, 5), _t(lib, 1, 3, 3, 2),
                                                                     align_corners=False), RE,
      "grid_sampler(): expected grid and input to have same batch size, but got input with sizes [2, 3, 4, 5] and "
      "grid with sizes [1, 3, 3, 2]"),
    S("grid_sample grid of the wrong last size", lambda lib: _F(lib).grid_sample(_t(lib, 2, 3, 4, 5),
                                                                                  _t(lib, 2, 3, 3, 3),
                                                                                  align_corners=False), RE,
      "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [2, 3, 3, 3]"),
    S("grid_sample input and grid of different dims", lambda lib: _F(lib).grid_sample(_t(lib, 2, 3, 4, 5),
                                                                                       _t(lib, 2, 3, 2),
                                                                                       align_corners=False), RE,
      "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes "
      "[2, 3, 4, 5] and grid with sizes [2, 3, 2]"),
    S("grid_sample of a 3-d input", lambda lib: _F(lib).grid_sample(_t(lib, 2, 4, 5), _t(lib, 2, 3, 1),
                                                                     align_corners=False), RE,
      "grid_sampler(): expected 5D input and grid with same number of dimensions, but got input with sizes "
      "[2, 4, 5] and grid with sizes [2, 3, 1]"),
    S("grid_sample with an empty spatial dim", lambda lib: _F(lib).grid_sample(_t(lib, 2, 3, 0, 5),
                                                                                _t(lib, 2, 3, 3, 2),
                                                                                align_corners=False), RE,
      "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [2, 3, 0, 5] with "
      "dimension 2 being empty"),
    S("grid_sample bicubic in 3-d", lambda lib: _F(lib).grid_sample(_t(lib, 1, 1, 2, 2, 2), _t(lib, 1, 1, 1, 1, 3),
                                                                     mode="bicubic", align_corners=False), RE,
      "grid_sampler(): bicubic interpolation only supports 4D input"),
    S("grid_sample with a bad mode", lambda lib: _F(lib).grid_sample(_t(lib, 1, 1, 2, 2), _t(lib, 1, 1, 1, 2),
                                                                      mode="linear"), VE,
      "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'linear'"),
    S("grid_sample with a bad padding_mode", lambda lib: _F(lib).grid_sample(_t(lib, 1, 1, 2, 2),
                                                                              _t(lib, 1, 1, 1, 2),
                                                                              padding_mode="constant"), VE,
      "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', but got: "
      "'constant'"),
    S("grid_sampler_2d of 5-d input", lambda lib: lib.grid_sampler_2d(_t(lib, 1, 1, 2, 2, 2), _t(lib, 1, 1, 1, 1, 3),
                                                                       0, 0, False), RE,
      "grid_sampler(): expected 4D input and grid with same number of dimensions"),
    S("grid_sample of int tensors", lambda lib: _F(lib).grid_sample(_t(lib, 1, 1, 2, 2, dtype=lib.int32),
                                                                     _t(lib, 1, 1, 1, 2, dtype=lib.int32),
                                                                     align_corners=False), NotImplementedError, '"'),
    S("grid_sample input and grid of different dtypes", lambda lib: _F(lib).grid_sample(
        _t(lib, 1, 1, 2, 2), _t(lib, 1, 1, 1, 2, dtype=lib.float64), align_corners=False), RE, ""),
    S("affine_grid of a 3-d size", lambda lib: _F(lib).affine_grid(_t(lib, 2, 2, 3), [2, 3, 4],
                                                                    align_corners=False), NotImplementedError,
      "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size [2, 3, 4]."),
    S("affine_grid theta of the wrong shape", lambda lib: _F(lib).affine_grid(_t(lib, 2, 3, 3), [2, 3, 4, 5],
                                                                               align_corners=False), VE,
      "Expected a batch of 2D affine matrices of shape Nx2x3 for size [2, 3, 4, 5]. Got "),
    S("affine_grid 3-d theta of the wrong shape", lambda lib: _F(lib).affine_grid(_t(lib, 2, 2, 3), [2, 3, 4, 5, 6],
                                                                                   align_corners=False), VE,
      "Expected a batch of 3D affine matrices of shape Nx3x4 for size [2, 3, 4, 5, 6]. Got "),
    S("affine_grid with an empty size", lambda lib: _F(lib).affine_grid(_t(lib, 2, 2, 3), [2, 3, 4, 0],
                                                                         align_corners=False), VE,
      "Expected non-zero, positive output size. Got [2, 3, 4, 0]"),
    S("affine_grid of an int theta", lambda lib: _F(lib).affine_grid(_t(lib, 2, 2, 3, dtype=lib.int32), [2, 3, 4, 5],
                                                                      align_corners=False), VE,
      "Expected theta to have floating point type, but got torch"),
    S("affine_grid_generator batch mismatch", lambda lib: lib.affine_grid_generator(_t(lib, 2, 2, 3), [3, 3, 4, 5],
                                                                                     False), RE, ""),
    # Fractional max pooling.
    S("fractional_max_pool2d pool too tall", lambda lib: lib._C._nn.fractional_max_pool2d(
        _t(lib, 2, 3, 7, 8), [2, 2], [7, 4], _t(lib, 2, 3, 2) / 2), RE,
      "fractional_max_pool2d(): pool height 2 too large relative to input height 7"),
    S("fractional_max_pool2d pool too wide", lambda lib: lib._C._nn.fractional_max_pool2d(
        _t(lib, 2, 3, 7, 8), [2, 9], [4, 4], _t(lib, 2, 3, 2) / 2), RE,
      "fractional_max_pool2d(): pool width 9 too large relative to input width 8"),
    S("fractional_max_pool2d of a 2-d input", lambda lib: lib._C._nn.fractional_max_pool2d(
        _t(lib, 7, 8), [2, 2], [4, 4], _t(lib, 1, 1, 2) / 2), RE,
      "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: [7, 8]"),
    S("fractional_max_pool2d samples of too few channels", lambda lib: lib._C._nn.fractional_max_pool2d(
        _t(lib, 2, 3, 7, 8), [2, 2], [4, 4], _t(lib, 2, 2, 2) / 2), RE,
      "Expect _random_samples.size(1) equals to input channel size."),
    S("fractional_max_pool2d samples of too small a batch", lambda lib: lib._C._nn.fractional_max_pool2d(
        _t(lib, 2, 3, 7, 8), [2, 2], [4, 4], _t(lib, 1, 3, 2) / 2), RE,
      "Expect _random_samples.size(0) no less then input batch size."),
    S("fractional_max_pool2d samples of another dtype", lambda lib: lib._C._nn.fractional_max_pool2d(
        _t(lib, 2, 3, 7, 8), [2, 2], [4, 4], _t(lib, 2, 3, 2, dtype=lib.float64) / 2), RE,
      "Expect _random_samples to have the same dtype as input"),
    S("F.fractional_max_pool2d without a size", lambda lib: _F(lib).fractional_max_pool2d(_t(lib, 1, 1, 4, 4), 2), VE,
      "fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
    S("nn.FractionalMaxPool2d with a ratio above 1", lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5), VE,
      "output_ratio must be between 0 and 1 (got 1.5)"),
    S("nn.FractionalMaxPool2d with size and ratio", lambda lib: lib.nn.FractionalMaxPool2d(2, 3, 0.5), VE,
      "only one of output_size and output_ratio may be specified"),
    S("channel_shuffle of indivisible channels", lambda lib: lib.nn.ChannelShuffle(2)(_t(lib, 2, 5, 3)), RE,
      "Number of channels must be divisible by groups. Got 5 channels and 2 groups."),
    # 3-d convolution and pooling.
    S("conv3d of a 2-d input", lambda lib: _F(lib).conv3d(_t(lib, 4, 4), _t(lib, 2, 4, 1, 1, 1)), RE,
      "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [4, 4]"),
    S("conv3d kernel larger than the input", lambda lib: _F(lib).conv3d(_t(lib, 1, 2, 4, 4, 4), _t(lib, 2, 2, 5, 5, 5)),
      RE, "Calculated padded input size per channel: (4 x 4 x 4). Kernel size: (5 x 5 x 5)."),
    S("conv_transpose3d output_padding too large",
      lambda lib: _F(lib).conv_transpose3d(_t(lib, 1, 2, 3, 3, 3), _t(lib, 2, 2, 2, 2, 2), output_padding=1), RE,
      "output padding must be smaller than either stride or dilation, but got output_padding_depth: 1"),
    S("max_pool3d of a 3-d input", lambda lib: _F(lib).max_pool3d(_t(lib, 4, 4, 4), 2), RE,
      "non-empty 4D or 5D (batch mode) tensor expected for input"),
    S("max_pool3d with a 2-d kernel", lambda lib: _F(lib).max_pool3d(_t(lib, 1, 2, 4, 4, 4), (2, 2)), RE,
      "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    S("max_pool3d with zero stride", lambda lib: _F(lib).max_pool3d(_t(lib, 1, 2, 4, 4, 4), 2, 0), RE,
      "stride should not be zero"),
    S("max_pool3d padding over half the kernel", lambda lib: _F(lib).max_pool3d(_t(lib, 1, 2, 4, 4, 4), 2, padding=2),
      RE, "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    S("max_pool3d with zero dilation", lambda lib: _F(lib).max_pool3d(_t(lib, 1, 2, 4, 4, 4), 2, dilation=0), RE,
      "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0"),
    S("max_pool3d kernel larger than the input", lambda lib: _F(lib).max_pool3d(_t(lib, 1, 2, 4, 4, 4), 5), RE,
      "Given input size: (2x4x4x4). Calculated output size: (2x0x0x0). Output size is too small"),
    S("avg_pool3d padding over half the kernel", lambda lib: _F(lib).avg_pool3d(_t(lib, 1, 2, 4, 4, 4), 3, padding=2),
      RE, "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    S("max_pool3d padding over half the undilated kernel",
      lambda lib: _F(lib).max_pool3d(_t(lib, 1, 2, 6, 6, 6), 3, padding=2, dilation=2), RE,
      "pad should be smaller than or equal to half of kernel size, but got kT: 3 kW: 3 kH: 3 padT: 2 padW: 2 padH: 2"),
    S("avg_pool3d with divisor 0", lambda lib: _F(lib).avg_pool3d(_t(lib, 1, 2, 4, 4, 4), 2, divisor_override=0), RE,
      "divisor must be not zero"),
    S("adaptive_avg_pool3d of a 3-d input", lambda lib: _F(lib).adaptive_avg_pool3d(_t(lib, 4, 4, 4), 2), RE,
      "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [4, 4, 4]"),
    S("adaptive_max_pool3d of an empty depth", lambda lib: _F(lib).adaptive_max_pool3d(_t(lib, 1, 2, 0, 4, 4), 2), RE,
      "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
      "[1, 2, 0, 4, 4] with dimension 2 being empty"),
    # found by the fuzz campaign: a 4-d input was broadcast past the (n, m) product
    S("addr input with more dims than the product", lambda lib: lib.addr(_t(lib, 1, 1, 1, 3), _t(lib, 2), _t(lib, 3),
                                                                          beta=0), RE,
      "expand(torch.FloatTensor{[1, 1, 1, 3]}, size=[2, 3]): the number of sizes provided (2) must be greater or "
      "equal to the number of dimensions in the tensor (4)"),
    # found by the fuzz campaign: x * x wrapped around in uint8
    S("local_response_norm of a uint8 tensor",
      lambda lib: _F(lib).local_response_norm(_t(lib, 1, 3, 2, dtype=lib.uint8), 2), NotImplementedError,
      "\"avg_pool2d\" not implemented for 'Byte'"),
    S("glu of an int16 tensor", lambda lib: _F(lib).glu(_t(lib, 2, 2, dtype=lib.int16), 1), NotImplementedError,
      "\"glu_cpu\" not implemented for 'Short'"),
    S("binomial of an integer count", lambda lib: lib.binomial(_t(lib, 2, dtype=lib.int64), _t(lib, 2) / 2), VE,
      "binomial only supports floating-point dtypes for count, got: Long"),
    S("binomial with count and prob of two dtypes",
      lambda lib: lib.binomial(_t(lib, 2), _t(lib, 2, dtype=lib.float64) / 2), RE, "Found dtype Double but expected Float"),
    S("_standard_gamma of an integer tensor", lambda lib: lib._standard_gamma(_t(lib, 2, dtype=lib.int64)),
      NotImplementedError, "\"gamma_cpu\" not implemented for 'Long'"),
    S("_sample_dirichlet of an integer tensor", lambda lib: lib._sample_dirichlet(_t(lib, 2, dtype=lib.int64)),
      NotImplementedError, "\"dirichlet\" not implemented for 'Long'"),
    S("_standard_gamma_grad of two dtypes", lambda lib: lib._standard_gamma_grad(_t(lib, 2), _t(lib, 2, dtype=lib.float64)),
      RE, "Found dtype Double but expected Float"),
    S("_dirichlet_grad of a half tensor", lambda lib: lib._dirichlet_grad(*[_t(lib, 2, dtype=lib.float16)] * 3),
      NotImplementedError, "\"_dirichlet_grad_cpu\" not implemented for 'Half'"),
    S("embedding_renorm_ of a 3-d weight", lambda lib: lib.embedding_renorm_(_t(lib, 3, 2, 2, dtype=lib.float64),
                                                                            lib.tensor([0, 1]), 1.0, 2.0), RE,
      "Expected 2-dimensional tensor, but got 3-dimensional tensor for argument #1 'self' (while checking arguments "
      "for embedding_renorm_)"),
]
