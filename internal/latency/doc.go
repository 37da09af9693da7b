// Package latency is the `natsperf latency` workload, at parity with nats-io/latency-tests and
// its Rust port: one fixed-rate publisher on server A, one subscriber on server B, end-to-end
// latency from the stamp in every message, and their report blocks.
package latency
