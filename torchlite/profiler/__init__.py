"""torch.profiler: where a program spends its time, per operator (Note [Profiler hook])."""

from torchlite.autograd.profiler import record_function
from torchlite.profiler.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    schedule,
    supported_activities,
    tensorboard_trace_handler,
)

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule", "supported_activities",
           "tensorboard_trace_handler"]
