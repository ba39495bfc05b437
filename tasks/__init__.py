"""Stage logic, grouped per benchmark (common/, syndor/, viewspatial/, odi/): pure functions and thin `@task` wrappers."""
