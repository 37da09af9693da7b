// Package engine turns a spec.Spec into a result.Result in this process: it resolves the
// target (the user's servers, or an embedded server or cluster), makes the Spec's setup,
// builds each workload's client groups from its kind's typed config through a registry of
// kinds, adds the run's hooks (faults, verify), and runs the whole under harness.Runner with a
// two-phase start: Prepare connects and sets up every client, Start(at) releases them all at
// one instant, Wait returns the Result.
//
// Two callers drive it: runner (the public launcher, which the command line, Spec files and
// scenario cells go through) for a run in this process, and each natsperf agent
// (internal/agent) for its part of a run across agents (Options.Part, IDBase, ClockOffsets).
// Nothing in it knows about flags.
package engine
