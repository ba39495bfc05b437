"""Embedded defaults the project makes itself: the procedural SMPL-layout body (the smplx path's fixture), the
built-in poses of the eight actions, a tiny BERT for GroundingDINO's tests."""
