"""flows of benchfoundry."""
