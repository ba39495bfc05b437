"""Stage logic, one folder per benchmark (syndor/, odi/, viewspatial/), evaluation/, and common/ (what stages
share that needs the pipeline: the shard-task policy, the render-worker client, the model client, review, the
report's page links): pure functions and thin `@task` wrappers."""
