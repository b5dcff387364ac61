"""Distribution: the base class of every probability distribution."""

import warnings

import torchlite
from torchlite.distributions import constraints
from torchlite.distributions.utils import lazy_property

__all__ = ["Distribution"]


class Distribution:
    """Base class of probability distributions.

    Args:
        batch_shape (torchlite.Size): the shape over which the parameters are batched.
        event_shape (torchlite.Size): the shape of one sample, without batching.
        validate_args (bool, optional): whether to check the parameters (and the values given to
            log_prob, cdf, ...) against their constraints. Default: the class-wide setting.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for every distribution that is not given
        validate_args. It is on by default, off under `python -O` (like `assert`)."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=torchlite.Size(), event_shape=torchlite.Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                              "`arg_constraints = {}` or initialize the distribution with `validate_args=False` to "
                              "turn off validation.",
                              stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # a parameter derived from another one on demand is not checked
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape "
                                     f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                                     f"{constraint!r}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution (or `_instance`, filled in by a subclass) whose batch dimensions are
        expanded to batch_shape: the parameters are expanded views (no copy), and neither
        validation nor broadcasting is repeated."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one sample, without batching."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from each tensor parameter's name to the Constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint of the distribution's values."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=torchlite.Size()):
        """A sample of shape sample_shape + batch_shape + event_shape, without gradient."""
        with torchlite.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=torchlite.Size()):
        """A reparameterised sample of shape sample_shape + batch_shape + event_shape: it is
        differentiable in the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """n samples (deprecated: use sample((n,)))."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(torchlite.Size((n,)))

    def log_prob(self, value):
        """The log of the probability density (or mass) function at value."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at value."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at value."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution's support, along dimension 0: shape
        (cardinality,) + batch_shape + event_shape, with the batch dimensions of size 1 when
        expand is False. The batch is enumerated in lock-step, not as a Cartesian product."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, shaped batch_shape."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy), shaped batch_shape."""
        return torchlite.exp(self.entropy())

    def _extended_shape(self, sample_shape=torchlite.Size()):
        """The shape of a sample drawn with sample_shape: sample_shape + batch_shape + event_shape."""
        if not isinstance(sample_shape, torchlite.Size):
            sample_shape = torchlite.Size(sample_shape)
        return sample_shape + self._batch_shape + self._event_shape

    def _validate_sample(self, value):
        """Check a value given to log_prob, cdf, ...: its rightmost dimensions must be the event
        shape, it must broadcast with batch_shape + event_shape, and it must be in the support.
        Raises ValueError otherwise."""
        if not isinstance(value, torchlite.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample validation. Please initialize "
                          "the distribution with `validate_args=False` to turn off validation.", stacklevel=2)
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                             f"values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def _expand_params(self, cls, batch_shape, _instance, names, event_shape=None):
        """`expand` for a family whose parameters `names` are shaped batch_shape + event_shape
        (the distribution's event shape unless given): the new instance holds expanded views."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = torchlite.Size(batch_shape)
        param_shape = batch_shape + (self._event_shape if event_shape is None else event_shape)
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(param_shape))
                if self.__dict__.get("_param") is self.__dict__[name]:  # probs or logits, whichever was given
                    new._param = new.__dict__[name]
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in names)
        return f"{self.__class__.__name__}({args})"
