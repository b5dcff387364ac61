"""Process targets for tests/test_multiprocessing.py's spawn tests: a spawned process imports the
module of its target, and this one imports no more than torchlite."""


def write_rank(rank, out):
    out[rank] = rank + 10


def fail_on_rank_1(rank):
    if rank == 1:
        raise ValueError("rank one failed")


def exit_with_3(rank):
    raise SystemExit(3)
