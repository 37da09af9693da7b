// Package embedded runs nats-server in-process for natsperf.
//
// With no server URL, natsperf starts a single embedded server with
// JetStream so that a benchmark runs on a fresh machine; "natsperf server"
// runs the same thing in the foreground, optionally as a cluster; tests and
// fault injection use clusters and kill, restart or pause their nodes.
//
// Everything listens on loopback. Clusters follow nats-server's own test
// practice: unique server names, one cluster name, cluster ports reserved up
// front so every node gets the full route list, and a store directory per
// node. Start returns only once the servers accept clients and, for a
// cluster, the JetStream meta group has a leader that every node follows.
//
// Pause needs Options.Pausable: nats-server has no in-process way to freeze
// a server, so a pausable cluster puts a small TCP proxy in front of every
// client and cluster port and Pause stops those proxies forwarding bytes.
// Benchmarks should not use it, because the proxies add a hop.
package embedded
