"""The kernel: the artifact store, seeding, guarded decoding, problem rows, the output root, the DORI formula,
the direction bins, the camera convention, the lighting table and the render contract. It imports nothing of
the project."""
