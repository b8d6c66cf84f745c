"""Flax networks of cardjax (pure linen modules: params stay a plain pytree inside ``lax.scan``),
and what a trained player needs of its network: each rebuilt from a run's config, without its
trainer.  Nothing is imported here: ``from cardjax.nets.policy_value import PolicyValueNet``."""
