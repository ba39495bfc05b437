"""Shared building blocks of every stage: the artifact store, seeding, problems, decoding, the shard-task policy."""
