"""A project's installed skills: the lock, the agents' folders, pull, update and state.

- :mod:`.lock`: ``upskill-hub.lock``, which skill came from which Hub commit;
- :mod:`.targets`: where each coding agent reads skills, and the project root;
- :mod:`.place`: placing skill folders into agent folders, atomically;
- :mod:`.pull`: ``pull`` and ``install`` (fetch, check, place, lock);
- :mod:`.update`: ``update``, moving locked skills to the current commit of their ref;
- :mod:`.state`: ``list``, ``verify``, ``outdated`` and ``remove``.
"""
