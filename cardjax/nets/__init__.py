"""Flax networks of cardjax (pure linen modules: params stay a plain pytree inside ``lax.scan``)."""

from cardjax.nets.policy_value import (
    MASK_MODES,
    PolicyValueNet,
    count_params,
    masked_log_policy,
    masked_policy,
    policy_value_param_count,
)

__all__ = [
    "PolicyValueNet",
    "masked_policy",
    "masked_log_policy",
    "MASK_MODES",
    "count_params",
    "policy_value_param_count",
]
