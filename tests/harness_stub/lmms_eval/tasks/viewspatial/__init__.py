"""The viewspatial task (stand-in)."""
