package result

// Slice is one client's interval of the series, sent live while a run goes (to
// runner.Options.Series) when it closes; the Result's Series sums a group's slices per
// interval (Interval). Across agents Src is named after the agent.
type Slice struct {
	// Start is the interval's start on the run's clock, in nanoseconds.
	Start int64
	// Msgs is the client's messages in the interval.
	Msgs int64
	// Bytes is the client's payload bytes in the interval.
	Bytes int64
	// Lat is the interval's latency histogram (HdrHistogram V2, base64, as
	// Interval.Histogram), "" when it recorded no latency.
	Lat string
	// MaxUncorrected, at a fixed rate, is the interval's largest latency from the actual
	// send (0: none; see Interval.MaxUncorrected).
	MaxUncorrected int64
	// Src is the client it comes from: "pub/1", across agents "a1/pub/1".
	Src string
}
