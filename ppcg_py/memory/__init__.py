"""memory: where each array lives and what crosses between host and device."""
from .transfers import DeviceArray, MemoryPlan, extent_set, plan_transfers

__all__ = ["DeviceArray", "MemoryPlan", "extent_set", "plan_transfers"]
