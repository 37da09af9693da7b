// Package telemetry samples what the servers under test say about themselves during a run
// (CPU, memory, connections, slow consumers, messages and bytes in and out, JetStream API
// totals and errors, and per stream its leader, replica lag, messages and bytes) every
// interval on the run's clock, and collects what happened on them as events: JetStream
// advisories, stream leader changes and slow consumers seen between two samples.
//
// It is run by whoever holds the target (the engine for a local run, the coordinator for
// agents), never by the clients, so a run has one series whatever its number of clients.
// Sources: the embedded servers in this process (read in-process, free), or HTTP monitoring
// endpoints (/varz and /jsz).
package telemetry
