"""Games the DeepRocket trainer can learn (one module each, exporting ``ADAPTER``)."""
