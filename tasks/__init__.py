"""tasks of benchfoundry."""
