// Package spec is a natsperf run as data: a serialisable, versioned Spec that says where to
// connect (Target), what to create first (Setup), which workloads run at the same time (each a
// kind, a number of clients, its pacing and a typed config), and the run's warm-up, interval,
// faults and delivery check.
//
// Every front end produces the same Spec: the command line (flags), a scenario cell, a Go
// program, and the coordinator of a distributed run that hands it to remote agents. A Spec
// reads and writes as JSON or YAML with the same snake_case keys; both round-trip exactly,
// unknown keys are refused with the key's path, and Validate gives one-line errors naming the
// field. Secrets are never serialised: a password or token set in Go is written as "[redacted]"
// and a spec that holds one is refused when read, so a saved spec can be shared as it is.
//
// The format is documented in docs/spec.md.
package spec
