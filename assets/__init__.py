"""Embedded defaults the project makes itself: SMPL's joint tree and rest skeleton, the built-in poses of the eight
actions on it, a tiny BERT for GroundingDINO's tests."""
