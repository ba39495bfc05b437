"""ODI-Bench stages (DESIGN §3): sphere geometry (ERP, cubemap, perspective crops), synthetic panoramas,
instances (truth or GroundingDINO + SAM), descriptions, questions, review and the release."""
