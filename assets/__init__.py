"""Embedded defaults: built-in poses, the procedural body, textures, generators of synthetic fixtures."""
