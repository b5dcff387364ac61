"""torchlite.nn.functional: cosine_similarity and pairwise distances."""

__all__ = []
