"""upskill-hub: Agent Skills as first-class citizens of the Hugging Face Hub.

The library is usable without the CLI; see :mod:`upskill_hub.skill`, :mod:`upskill_hub.registry`,
:mod:`upskill_hub.evaluation` and :mod:`upskill_hub.publish`.
"""

__version__ = "0.1.0"
