"""Graph passes: shape_prop.ShapeProp."""

from torchlite.fx.passes import shape_prop  # noqa: F401
