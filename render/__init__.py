"""Everything that runs inside Blender (bpy), reached only through the render worker process."""
