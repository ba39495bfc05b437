"""SynDORBench stages (DESIGN §2): pose selection, render planning and shards, calibration, night vision,
discernibility labels, the QA task files, scoring and the report."""
