"""Everything that runs inside Blender (bpy), reached only through the render worker process; the worker's
protocol (render/worker_env.py) is the one module the pipeline imports, and it imports no bpy."""
