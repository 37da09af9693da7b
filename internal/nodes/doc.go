// Package nodes is what natsperf's two clusters, the in-process one (internal/embedded) and
// the one of nats-server processes (internal/procs), do alike for their nodes whatever runs
// them: a node's slot (its index, server name and store, on powerfs or not), finding slots by
// index or name, waiting for the servers to be ready, and a power failure and a corrupted
// block around the one step each cluster takes its own way (stopping its servers).
package nodes
