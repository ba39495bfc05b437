"""What stages share that needs the pipeline: the shard-task policy (prefect), the render-worker client, the
model client (OpenAI-compatible HTTP), human review of generated items, the report's page links."""
