"""What runs the service and watches it: supervision of `fanout serve`, readiness, metrics,
and the `fanout listen` webhook receiver (docs/architecture.md)."""
