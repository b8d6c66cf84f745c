"""Games DeepRocket can learn and play (one module each, exporting ``ADAPTER``)."""
