"""What makes a skill safe to install: the security scan and signatures.

- :mod:`.scan`: the pre-install scan (paths, sizes, links, hidden text, risky commands);
- :mod:`.signing`: OpenSSF model signing over a skill's files, and its statement;
- :mod:`.keys`: key pairs, trusted keys and CA certificates, fingerprints;
- :mod:`.installed`: signatures of installed skills (``verify``, ``--require-signature``).
"""
