"""Toy-Bench: one emissive cube of a colour per item, rendered by Blender through benchfoundry's render worker,
and the question "What colour is the cube?" with three lettered options."""
