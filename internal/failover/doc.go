// Package failover holds the tests of natsperf's failover figures against a standalone
// nats-server cluster: three nats-server processes built from the module, the stream leader
// killed with SIGKILL through --fault-exec, the figures checked against the acks on the wire.
package failover
