"""ODI-Bench stages (DESIGN §3): sphere geometry (ERP, cubemap, perspective crops)."""
