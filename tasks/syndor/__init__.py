"""SynDORBench stages (DESIGN §2): render planning and shards, calibration, night vision, discernibility, QA, report."""
