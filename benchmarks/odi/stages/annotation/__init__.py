"""ODI-Bench's annotation: panorama cube faces read by an annotator (GroundedSAM or the synthetic truth) into kept
instances."""
