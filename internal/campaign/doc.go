// Package campaign runs runs of runs, one level above runner: a scenario's matrix of cells
// with their repetitions (Run), and a capacity search over one command's rate (Capacity).
// Each run inside goes through runner.Run; campaign owns what lies between the runs: the
// results directory and its index, --resume, the cooldown, the live series and the Prometheus
// exporter, a cell's Result file, and the search's probes and pauses.
//
// It knows no flags and exits nothing: the command line gives it plain values (how to build a
// workload instance's Spec from its command line, the runner options for a cell) and renders
// what it returns.
package campaign
