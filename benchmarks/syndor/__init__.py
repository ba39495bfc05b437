"""SynDORBench stages (docs/design/syndor.md): pose selection, render planning and shards, calibration, night vision,
discernibility labels, the QA task files, scoring and the report."""
