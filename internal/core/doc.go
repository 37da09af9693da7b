// Package core holds the core NATS workloads: publishers, subscribers, service responders and
// requesters. Each is a harness.Client; the engine assembles them into Plans from a Spec's
// workloads (internal/engine/core.go).
package core
