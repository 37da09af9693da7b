// Package core holds the core NATS workloads: publishers, subscribers, service responders and
// requesters. Each is a bench.Client; the CLI assembles them into Plans.
package core
