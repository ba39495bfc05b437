"""lmms-eval tasks (stand-in)."""
