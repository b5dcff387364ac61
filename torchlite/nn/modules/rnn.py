"""Recurrent layers: RNN, LSTM, GRU and their single-step cells.

Parameter names (weight_ih_l0, weight_hh_l0_reverse, bias_ih_l1, weight_hr_l0, ...) and the
initialisation U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) are PyTorch's, so state_dicts load
in either direction. The math is torchlite/_rnn.py's, which torch.lstm and friends share.
"""

import math
import numbers
import warnings

from torchlite import _C, _rnn
from torchlite.nn import init
from torchlite.nn.modules.module import Module
from torchlite.nn.parameter import Parameter
from torchlite.nn.utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        fk = {"device": device, "dtype": dtype}
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                params = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    params.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in params:
                    setattr(self, base + suffix, Parameter(_C.empty(shape, **fk)))
                    names.append(base + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """A no-op (PyTorch packs weights for cuDNN here)."""

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _weights(self):
        """One (w_ih, w_hh, b_ih, b_hh, w_hr) tuple per layer and direction, as _rnn.run_layers takes them."""
        groups = []
        for names in self._all_weights:
            w = [getattr(self, name) for name in names]
            b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
            groups.append((w[0], w[1], b_ih, b_hh, w[-1] if self.proj_size > 0 else None))
        return groups

    def _zero_state(self, batch, like):
        """The zero (h_0, c_0) of a batch (c_0 None except for an LSTM)."""
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h = like.new_zeros((self.num_layers * num_directions, batch, real_hidden))
        c = like.new_zeros((self.num_layers * num_directions, batch, self.hidden_size)) if self.mode == "LSTM" else None
        return h, c

    def _check_state(self, h, c, batch):
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        expected_h = (self.num_layers * num_directions, batch, real_hidden)
        if tuple(h.shape) != expected_h:
            raise RuntimeError(f"Expected hidden size {expected_h}, got {list(h.shape)}")
        if c is not None and tuple(c.shape) != (expected_h[0], batch, self.hidden_size):
            raise RuntimeError(f"Expected hidden[1] size {(expected_h[0], batch, self.hidden_size)}, got "
                               f"{list(c.shape)}")

    def _prepare(self, input, hx):
        """Batch-first/unbatched handling and the zero initial state; returns (input, hx, cx, batched)."""
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        batch = input.shape[1]
        if hx is None:
            return (input, *self._zero_state(batch, input), batched)
        h, c = hx if self.mode == "LSTM" else (hx, None)
        if not batched:
            if h.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h.dim()}-D tensor")
            h = h.unsqueeze(1)
            c = c.unsqueeze(1) if c is not None else None
        elif h.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {h.dim()}-D tensor")
        self._check_state(h, c, batch)
        return input, h, c, batched

    def _forward_packed(self, input, hx):
        """forward over a PackedSequence: hx (given in the caller's batch order) is permuted into the
        packed (longest first) order and h_n back out of it, as PyTorch does."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {data.shape[-1]}")
        batch = int(batch_sizes[0])
        if hx is None:
            h, c = self._zero_state(batch, data)
        else:
            h, c = hx if self.mode == "LSTM" else (hx, None)
            self._check_state(h, c, batch)
            if sorted_indices is not None:
                h = h.index_select(1, sorted_indices)
                c = c.index_select(1, sorted_indices) if c is not None else None
        output, h_n, c_n = _rnn.run_layers(self.mode, data, h, c, self._weights(), self.num_layers, self.dropout,
                                           self.training, self.bidirectional, batch_sizes)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if c_n is not None else None
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return output, ((h_n, c_n) if self.mode == "LSTM" else h_n)

    def _finish(self, output, batched):
        if not batched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, h, c, batched = self._prepare(input, hx)
        output, h_n, c_n = _rnn.run_layers(self.mode, input, h, c, self._weights(), self.num_layers, self.dropout,
                                           self.training, self.bidirectional)
        output = self._finish(output, batched)
        if not batched:
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        return output, ((h_n, c_n) if self.mode == "LSTM" else h_n)


class RNN(RNNBase):
    """Elman RNN with tanh or relu: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity  # set before Module.__init__ like PyTorch: kept in __dict__
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory; forward returns output, (h_n, c_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        fk = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size), **fk))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size), **fk))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, **fk))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, **fk))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _step(self, mode, input, h, c=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if h is None:
            h = _C.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
            c = h if mode == "LSTM" else None
        elif not batched:
            h = h.unsqueeze(0)
            c = c.unsqueeze(0) if c is not None else None
        h, c = _rnn.step(mode, input.matmul(self.weight_ih.t()), h, c, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if c is not None else None
        return h, c


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        return self._step(mode, input, hx)[0]


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        h, c = (None, None) if hx is None else hx
        return self._step("LSTM", input, h, c)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._step("GRU", input, hx)[0]
