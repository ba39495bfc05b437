"""assets of benchfoundry."""
