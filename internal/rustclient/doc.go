// Package rustclient holds the cross-language tests of natsperf-rust, the async-nats client
// built from clients/rust, which measures natsperf's core workloads through the Rust NATS
// client with the same stamp bytes, schedule and accounting as the Go engine and writes a
// natsperf Result. natsperf runs it with --client rust (runner starts its agent through
// internal/rustbin, which also finds it; docs/clients.md). It has no code of its own.
package rustclient
