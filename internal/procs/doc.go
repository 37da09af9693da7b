// Package procs runs nats-server binaries as child processes, as natsperf's embedded server
// runs in-process: one node or a JetStream cluster on loopback, each node with its own config
// file, free ports and temporary store, JetStream on. Faults act on the real processes (Kill
// is a SIGKILL, Pause a SIGSTOP/SIGCONT), and the processes die with natsperf: a parent-death
// signal on Linux, and the next Start sweeps what a SIGKILLed natsperf left (its store and any
// process still running from it). Install builds a release by version into natsperf's cache.
package procs
