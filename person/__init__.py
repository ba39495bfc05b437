"""The person every benchmark renders: body models (Anny; SMPL/SMPL-X through smplx), posing, textures,
phenotypes, and `prepare.prepare_person`, the one way to pose a person and write their files for the worker."""
