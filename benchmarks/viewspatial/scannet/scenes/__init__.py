"""What the benchmark renders: its kind of scene in the render contract (spec), its Blender renderer (renderer,
loaded only by the render worker), the scenes it draws and their render stage."""
