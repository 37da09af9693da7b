package runner

import (
	"io"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
)

// The Result document and its parts, as docs/result-format.md describes them
// (schema/result.schema.json). They are natsperf's own types under names a Go program can
// use: a run's Groups (publishers, subscribers...), each with its Clients, its Aggregate (rates,
// Latency with percentiles and Latency.At, delivery Correctness) and its interval Series; the
// Stop reason; the Verify read-back; the Failovers told once each; the agents of a run across
// agents (Distributed).
type (
	Result          = result.Result
	Group           = result.Group
	Client          = result.Client
	Aggregate       = result.Aggregate
	Latency         = result.Latency
	Percentile      = result.Percentile
	Correctness     = result.Correctness
	Events          = result.Events
	Gap             = result.Gap
	Spread          = result.Spread
	Interval        = result.Interval
	Stop            = result.Stop
	Verify          = result.Verify
	Faults          = result.Faults
	Distributed     = result.Distributed
	Agent           = result.Agent
	StreamState     = result.StreamState
	Server          = result.Server
	CPU             = result.CPU
	ClientLib       = result.ClientLib
	Host            = result.Host
	Tool            = result.Tool
	Part            = result.Part
	PublisherSeen   = result.PublisherSeen
	SeqRange        = result.SeqRange
	PublisherVerify = result.PublisherVerify
	PublisherOutage = result.PublisherOutage
	FaultEvent      = result.FaultEvent
	Window          = result.Window
	WindowGroup     = result.WindowGroup
	Breakdown       = result.Breakdown
	LoadStep        = result.LoadStep
	StepGroup       = result.StepGroup
	Verdict         = result.Verdict
	Telemetry       = result.Telemetry
	ServerSeries    = result.ServerSeries
	ServerSample    = result.ServerSample
	StreamSample    = result.StreamSample
	Stall           = result.Stall
	Event           = result.Event
	Counters        = result.Counters
	Failover        = result.Failover
	NewLeader       = result.NewLeader
	ClientOutage    = result.ClientOutage
	LatencyPeak     = result.LatencyPeak
)

// Why a run ended (Result.Stop.Reason).
const (
	StopCompleted   = result.StopCompleted   // every client did its share
	StopInterrupted = result.StopInterrupted // the context was cancelled (Ctrl-C)
	StopFailed      = result.StopFailed      // a connection was lost, a server died, or a client failed
	StopIdle        = result.StopIdle        // receivers stopped after their idle timeout without their share
)

// WriteText writes res as natsperf prints it: nats bench's form (the latency command's own
// layout needs the live run; this is the common one), then the stop line.
func WriteText(w io.Writer, res *Result) error { return report.Text(w, res) }

// WriteJSON writes res as the Result document (natsperf --json, -o FILE).
func WriteJSON(w io.Writer, res *Result) error { return result.Write(w, res) }

// ReadJSON reads a Result document.
func ReadJSON(r io.Reader) (*Result, error) { return result.Read(r) }

// OneLine is res in one line: the measured group's rate and latency, and the stop reason.
func OneLine(res *Result) string { return report.OneLine(res) }
