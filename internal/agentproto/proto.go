// Package agentproto is the wire format between a natsperf coordinator and its agents
// (docs/agent-protocol.md): the subjects, the messages and how a run is split into parts.
package agentproto

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Protocol names this version of the protocol.
const Protocol = "natsperf.agent/v1"

// ServiceName is the micro service every agent registers.
const ServiceName = "natsperf-agent"

// Metadata keys of the agent's micro service.
const (
	MetaProtocol      = "protocol"
	MetaVersion       = "natsperf_version"
	MetaName          = "name"
	MetaHost          = "host"
	MetaCores         = "cores"
	MetaClient        = "client"
	MetaClientVersion = "client_version"
	MetaLabelPrefix   = "label."
)

// Error codes of a refused request.
const (
	CodeBadRequest = "400"
	CodeExec       = "403"
	CodeBusy       = "409"
	CodeVersion    = "426"
	CodeFailed     = "500"
)

// Heartbeat timing: an agent beats every HeartbeatEvery; a coordinator that hears nothing for
// LossAfter declares it lost.
const (
	HeartbeatEvery = 1e9 // ns
	LossAfter      = 3 * HeartbeatEvery
)

// Endpoint is the subject of an agent's endpoint ("clock", "prepare", "start", "stop").
func Endpoint(agentID, name string) string { return "natsperf.agent." + agentID + "." + name }

// EndpointGroup is the micro group the agent's endpoints live in.
func EndpointGroup(agentID string) string { return "natsperf.agent." + agentID }

// RunSubject is where an agent publishes what (hb, interval, result) for a run.
func RunSubject(runID, agentID, what string) string {
	return "natsperf.run." + runID + "." + agentID + "." + what
}

// CoordinatorBeat is where the coordinator of a run publishes its heartbeat.
func CoordinatorBeat(runID string) string { return "natsperf.run." + runID + ".hb" }

// CoordinatorHeartbeat is the coordinator's sign of life during a run.
type CoordinatorHeartbeat struct {
	Run  string `json:"run"`
	AtNS int64  `json:"at_ns"`
}

// RunWildcard is what a coordinator subscribes to for a run.
func RunWildcard(runID string) string { return "natsperf.run." + runID + ".>" }

// ClockReply is the clock endpoint's reply.
type ClockReply struct {
	NowNS int64 `json:"now_ns"`
}

// Part says which share of the run an agent runs.
type Part struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// PublisherIDs is the first block of publisher ids.
type PublisherIDs struct {
	Base uint32 `json:"base"`
}

// Secrets are the target's secrets, which a Spec never holds.
type Secrets struct {
	Password string `json:"password,omitempty"`
	Token    string `json:"token,omitempty"`
}

// Prepare asks an agent to prepare its part of a run.
type Prepare struct {
	Protocol     string          `json:"protocol"`
	Version      string          `json:"version"`
	Run          string          `json:"run"`
	Spec         json.RawMessage `json:"spec"`
	Secrets      Secrets         `json:"secrets,omitzero"`
	Part         Part            `json:"part"`
	PublisherIDs PublisherIDs    `json:"publisher_ids,omitzero"`
	// ClockOffsetsNS are every part's agent clock minus the coordinator's, indexed by part:
	// receivers correct the latency of another part's publishers by the difference.
	ClockOffsetsNS []int64 `json:"clock_offsets_ns,omitempty"`
	// Intervals asks for the interval records, live (the coordinator serves metrics or writes
	// the series).
	Intervals bool `json:"intervals,omitempty"`
}

// Interval is one client's closed interval, as a series file line (docs/result-format.md):
// its start T (Unix ns, the agent's clock), the client Src ("pub/1"), its messages, bytes and
// latency histogram (HdrHistogram base64, "" when none).
type Interval struct {
	Run   string `json:"run"`
	Agent string `json:"agent"`
	T     int64  `json:"t"`
	Src   string `json:"src"`
	Msgs  int64  `json:"msgs"`
	Bytes int64  `json:"bytes"`
	Lat   string `json:"lat,omitempty"`
}

// Start releases a prepared run at AtNS in the agent's clock.
type Start struct {
	Run  string `json:"run"`
	AtNS int64  `json:"at_ns"`
}

// Stop cancels a run.
type Stop struct {
	Run string `json:"run"`
}

// OK is a successful reply.
type OK struct {
	OK bool `json:"ok"`
}

// ErrorReply is the body of a refused request (also in micro's error headers).
type ErrorReply struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// Heartbeat states.
const (
	StatePrepared = "prepared"
	StateRunning  = "running"
)

// Heartbeat is an agent's sign of life during a run.
type Heartbeat struct {
	Run   string `json:"run"`
	Agent string `json:"agent"`
	State string `json:"state"`
	Msgs  int64  `json:"msgs"`
	AtNS  int64  `json:"at_ns"`
}

// ResultChunk is one piece of an agent's Result JSON.
type ResultChunk struct {
	Run    string `json:"run"`
	Agent  string `json:"agent"`
	Chunk  int    `json:"chunk"`
	Chunks int    `json:"chunks"`
	Data   []byte `json:"data,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Chunk cuts data into chunks whose JSON stays under maxPayload bytes.
func Chunk(run, agent string, data []byte, maxPayload int) []ResultChunk {
	// base64 grows data by 4/3; the envelope's fields need room too.
	per := max((maxPayload-512-len(run)-len(agent))*3/4, 1)
	n := max((len(data)+per-1)/per, 1)
	out := make([]ResultChunk, n)
	for i := range out {
		lo, hi := i*per, min((i+1)*per, len(data))
		out[i] = ResultChunk{Run: run, Agent: agent, Chunk: i, Chunks: n, Data: data[lo:hi]}
	}
	return out
}

// Compatible says whether a coordinator of natsperf version `version` runs with an agent
// that announces protocol, agentVersion and client library: the same protocol always; a Go
// agent (client "go", or none: natsperf itself) also the same natsperf version, since it runs
// the coordinator's own engine. Another program (the Rust agent, client "rust") implements
// only the protocol: its own version is recorded, not compared.
func Compatible(protocol, agentVersion, client, version string) bool {
	if protocol != Protocol {
		return false
	}
	return client != "" && client != "go" || agentVersion == version
}

// Range is the share [Lo, Hi) of n things that part p of count gets: parts differ by at most
// one.
func Range(n, p, count int) (lo, hi int) { return p * n / count, (p + 1) * n / count }

// ServiceVersion is version as micro accepts it (SemVer): the version itself when it is one,
// else 0.0.0- and the version with other characters as '-'.
func ServiceVersion(version string) string {
	v := strings.TrimPrefix(version, "v")
	if semver.MatchString(v) {
		return v
	}
	return "0.0.0-" + strings.Trim(nonIdent.ReplaceAllString(version, "-"), "-")
}

var (
	semver   = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
	nonIdent = regexp.MustCompile(`[^0-9A-Za-z-]+`)
)

// Labels reads the label.K metadata keys.
func Labels(meta map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range meta {
		if l, ok := strings.CutPrefix(k, MetaLabelPrefix); ok {
			out[l] = v
		}
	}
	return out
}

// ParseLabels reads k=v pairs (from --label or a selector, comma separated).
func ParseLabels(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		for _, kv := range strings.Split(p, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("label %q: want key=value", kv)
			}
			out[k] = v
		}
	}
	return out, nil
}

// ClockSample is one round of the clock exchange: the coordinator's wall clock T0NS when it
// sent the request, the round trip RTTNS, and the agent's clock NowNS in its reply.
type ClockSample struct {
	T0NS, RTTNS, NowNS int64
}

// Offset is the agent's clock minus the coordinator's, assuming the reply was read halfway
// through the round trip; Uncertainty is how far off that can be (half the round trip).
func (c ClockSample) Offset() int64      { return c.NowNS - (c.T0NS + c.RTTNS/2) }
func (c ClockSample) Uncertainty() int64 { return c.RTTNS / 2 }
