// Package result is natsperf's output as data: the Result document, the one JSON record of a
// run that natsperf writes (--json, -o FILE), that runner.Run returns, and that every reporter,
// natsperf report, compare and the distributed coordinator read. Package spec is the input;
// this is what came out.
//
// # The document
//
//	Result                       one run (Schema names the format: natsperf.result/v2)
//	├─ Tool, Host, Command       who wrote it, where, for which command
//	├─ Settings                  the resolved settings, secrets redacted (free-form JSON)
//	├─ Servers, Network          what the servers said about themselves; natsperf's own topology and links
//	├─ Start, End, Stop          the run's clock (every offset counts from Start) and why it ended
//	├─ Groups []Group            one per kind of client: "pub", "sub", "request", "serve"...
//	│  ├─ Clients []Client       one per connection: counts, rates, Latency, Correctness, Events
//	│  ├─ Aggregate              the group as a whole: totals, Spread of rates, merged Latency, Correctness
//	│  └─ Series []Interval      per interval (--interval): messages, latency percentiles, histogram
//	├─ Streams []StreamState     JetStream streams after the run
//	├─ Verify                    --verify: the stream read back against the acknowledgements
//	├─ Faults, Windows           --fault: the timeline, the outages, each phase's latency
//	├─ Failovers []Failover      each failover told once: new leaders, client outages, latency peaks
//	├─ LoadSteps []LoadStep      --steps / --ramp: each step's offered rate and percentiles
//	├─ SLO []Verdict             --slo: each threshold judged
//	├─ Telemetry, Events         the servers' own series; what happened on the run's clock
//	├─ CPU                       what natsperf's process spent
//	├─ Parts []Part              a Result merged from several processes: each part
//	└─ Distributed               a run across agents: the agents, their clocks, the start skew
//
// # Units and absence
//
// Latencies and offsets are nanoseconds: int64 fields named ...NS or carrying json "_ns" keys, and
// time.Duration fields (also nanoseconds in JSON). Offsets count from Result.Start. Rates are per
// second, sizes in bytes (payload bytes only, headers not counted). Times are RFC 3339 in JSON.
// A nil pointer or an empty slice means not measured or not applicable, a zero count that
// nothing happened; optional fields are then omitted from the JSON. Messages before the end of
// the warm-up are counted nowhere.
//
// Latency.At reads a percentile; Result.Loss, Result.Complete and Result.NotRecovered are the
// verdicts the exit code rests on. Read and Write are the JSON codec (ReadFile, WriteFile for
// files); Merge joins the Results several processes wrote for parts of one run, exactly (merged
// histograms, per-publisher sequence counts). docs/result-format.md describes the JSON, and
// schema/result.schema.json is its JSON Schema.
package result
