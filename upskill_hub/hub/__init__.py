"""The Hub client of the package: every call to the Hugging Face Hub goes through here.

- :mod:`.client`: :class:`~.client.Hub`, the facade over ``huggingface_hub.HfApi``;
- :mod:`.errors`: huggingface_hub and network exceptions mapped to typed errors, and which
  ones are retried.
"""
