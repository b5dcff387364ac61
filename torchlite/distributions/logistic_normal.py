"""LogisticNormal: a Normal vector stick-broken onto the simplex."""

from torchlite.distributions import constraints
from torchlite.distributions.normal import Normal
from torchlite.distributions.transformed_distribution import TransformedDistribution
from torchlite.distributions.transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    r"""``StickBreakingTransform()(X)`` for ``X ~ Normal(loc, scale)`` (K normals give
    K + 1 simplex coordinates).

    >>> LogisticNormal(torchlite.zeros(2), torchlite.ones(2)).sample().shape
    torchlite.Size([3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        # Scalar parameters mean one normal: the stick needs a vector.
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
