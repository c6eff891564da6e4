"""Checkpoints of the workspace before a tool changes it, and rewinding to them."""

from gemtui.checkpoints.book import Checkpoint, CheckpointBook
from gemtui.checkpoints.rewind import (
    RewindPlan,
    RewindResult,
    UnknownCheckpoint,
    plan_rewind,
    rewind,
)
from gemtui.checkpoints.shadow import ShadowError

__all__ = [
    "Checkpoint",
    "CheckpointBook",
    "RewindPlan",
    "RewindResult",
    "ShadowError",
    "UnknownCheckpoint",
    "plan_rewind",
    "rewind",
]
