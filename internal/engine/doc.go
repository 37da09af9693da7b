// Package engine turns a spec.Spec into a result.Result: it resolves the target (the user's
// servers, or an embedded server or cluster), builds each workload's client groups from its
// kind's typed config through a registry of kinds, adds the run's hooks (faults, verify), and
// runs the whole under bench.Runner with a two-phase start: Prepare connects and sets up every
// client, Start(at) releases them all at one instant, Wait returns the Result.
//
// Every front end drives it: the command line (flags -> Spec -> engine -> reporters), Spec
// files (natsperf run SPEC.json), and later remote agents that are handed Specs. It stays
// internal while the Result type is internal; nothing in it knows about flags.
package engine
