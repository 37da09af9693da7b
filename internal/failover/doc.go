// Package failover tells each failover of a run once (Tell): the stream's new leader from its
// leader-elected advisory, each client's longest time without success and why it was longer
// than the election, and the latency peak. Its tests also check natsperf's failover figures
// against a standalone nats-server cluster: three nats-server processes built from the
// module, the stream leader killed with SIGKILL through --fault-exec, the figures checked
// against the acks on the wire.
package failover
