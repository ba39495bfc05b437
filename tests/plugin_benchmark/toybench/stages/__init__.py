"""What the build computes after the renders: the benchmark's stages and the pure functions they call."""
