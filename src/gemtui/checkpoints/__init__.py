"""Checkpoints of the workspace before a tool changes it, and rewinding to them."""

from gemtui.checkpoints.book import Checkpoint, CheckpointBook, RootState
from gemtui.checkpoints.rewind import (
    RewindPlan,
    RewindResult,
    RootPlan,
    UnknownCheckpoint,
    plan_rewind,
    rewind,
)
from gemtui.checkpoints.shadow import ShadowError
from gemtui.checkpoints.unsaved import LeftAlone

__all__ = [
    "Checkpoint",
    "CheckpointBook",
    "LeftAlone",
    "RewindPlan",
    "RewindResult",
    "RootPlan",
    "RootState",
    "ShadowError",
    "UnknownCheckpoint",
    "plan_rewind",
    "rewind",
]
