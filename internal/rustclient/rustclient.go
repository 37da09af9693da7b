// Package rustclient holds the cross-language tests of natsperf-rust, the async-nats client
// built from clients/rust, which measures natsperf's core workloads through the Rust NATS
// client with the same stamp bytes, schedule and accounting as the Go engine and writes a
// natsperf Result; natsperf runs it with --client rust (internal/cli, docs/clients.md).
package rustclient

import "github.com/natsperf/natsperf/internal/rustbin"

// Binary is the executable's name.
const Binary = rustbin.Binary

// ErrNotBuilt says where natsperf-rust was looked for.
var ErrNotBuilt = rustbin.ErrNotBuilt

// Find returns the path of natsperf-rust (rustbin.Find).
func Find(repoRoot string) (string, error) { return rustbin.Find(repoRoot) }
