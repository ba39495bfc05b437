"""The person every benchmark renders: the body model interface and its implementations (Anny; SMPL/SMPL-X through
smplx, with the procedural SMPL-layout body), chosen in one registry, posing, textures, phenotypes, and
`prepare.prepare_person`, the one way to pose a person and write their files for the worker."""
