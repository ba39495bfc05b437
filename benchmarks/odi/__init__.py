"""ODI-Bench stages (docs/design/odi.md): sphere geometry (ERP, cubemap, perspective crops), synthetic panoramas,
instances (truth or GroundingDINO + SAM), descriptions, questions, review and the release."""
