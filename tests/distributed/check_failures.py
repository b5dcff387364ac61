"""Run by tests/test_distributed.py: rank 1 misbehaves as argv[1] says (hangs or is killed)
while the others sit in an all_reduce; they must fail within the 2 s timeout, never hang."""

import os
import signal
import sys
import time
from datetime import timedelta

import torchlite as torch
import torchlite.distributed as dist

dist.init_process_group(timeout=timedelta(seconds=2))
dist.all_reduce(torch.ones(4))  # every rank is up
if dist.get_rank() == 1:
    mode = sys.argv[1]
    if mode == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
print("waiting in all_reduce", flush=True)
dist.all_reduce(torch.ones(4))
print("all_reduce completed: it should not have", flush=True)
