"""render of benchfoundry."""
