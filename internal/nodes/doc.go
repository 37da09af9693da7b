// Package nodes is what natsperf's two clusters, the in-process one (internal/embedded) and
// the one of nats-server processes (internal/procs), do alike for their nodes whatever runs
// them:
//   - a node's Slot (its index, server name and store, on powerfs or not), embedded in each
//     cluster's node type, and the cluster's List of them, found by index or name;
//   - the Waiter that polls until the servers are ready, its timeout told apart from the
//     caller's end;
//   - the fault operations, Kill, Restart, RestartAll, Pause, PowerFail and Corrupt: their
//     checks, locking, order and errors, over a Cluster, which each cluster implements with
//     what is its own (how a server starts, stops, pauses, and what ready means).
package nodes
