package agentproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

type vectors struct {
	Messages []struct {
		Name   string          `json:"name"`
		Type   string          `json:"type"`
		Wire   string          `json:"wire"`
		Fields map[string]any  `json:"fields"`
		Raw    json.RawMessage `json:"-"`
	} `json:"messages"`
	Ranges []struct {
		N, Count, Index, Lo, Hi int
	} `json:"ranges"`
	ServiceVersions []struct {
		Version, Service string
	} `json:"service_versions"`
	Clock []struct {
		Name                                        string
		T0NS, RTTNS, NowNS, OffsetNS, UncertaintyNS int64
	} `json:"clock"`
}

func readVectors(t *testing.T) vectors {
	t.Helper()
	data, err := os.ReadFile("../../testdata/vectors/agent.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v vectors
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	// encoding/json matches t0_ns to T0NS only by case-insensitive name; read the clock by hand.
	var raw struct {
		Clock []map[string]any `json:"clock"`
	}
	_ = json.Unmarshal(data, &raw)
	for i, c := range raw.Clock {
		v.Clock[i].T0NS, v.Clock[i].RTTNS, v.Clock[i].NowNS = num(c["t0_ns"]), num(c["rtt_ns"]), num(c["now_ns"])
		v.Clock[i].OffsetNS, v.Clock[i].UncertaintyNS = num(c["offset_ns"]), num(c["uncertainty_ns"])
	}
	return v
}

func num(v any) int64 { f, _ := v.(float64); return int64(f) }

// decode reads a vector's wire into the message's type and flattens it to the vector's fields.
func decode(t *testing.T, typ, wire string) (map[string]any, any) {
	t.Helper()
	strictly := func(v any) {
		dec := json.NewDecoder(bytes.NewReader([]byte(wire)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
	}
	switch typ {
	case "clock_reply":
		var m ClockReply
		strictly(&m)
		return map[string]any{"now_ns": m.NowNS}, m
	case "prepare":
		var m Prepare
		strictly(&m)
		s, err := spec.ParseJSON(m.Spec)
		if err != nil {
			t.Fatalf("prepare's spec: %v", err)
		}
		f := map[string]any{
			"protocol": m.Protocol, "version": m.Version, "run": m.Run, "spec_kind": s.Workloads[0].Kind(),
			"spec_clients": int64(s.Workloads[0].Clients), "password": m.Secrets.Password, "token": m.Secrets.Token,
			"part_index": int64(m.Part.Index), "part_count": int64(m.Part.Count), "publisher_ids_base": int64(m.PublisherIDs.Base),
		}
		if m.ClockOffsetsNS != nil { // a list, compared as its comma-separated text
			f["clock_offsets_ns"] = strings.Trim(strings.ReplaceAll(fmt.Sprint(m.ClockOffsetsNS), " ", ","), "[]")
		}
		return f, m
	case "start":
		var m Start
		strictly(&m)
		return map[string]any{"run": m.Run, "at_ns": m.AtNS}, m
	case "stop":
		var m Stop
		strictly(&m)
		return map[string]any{"run": m.Run}, m
	case "ok":
		var m OK
		strictly(&m)
		return map[string]any{"ok": m.OK}, m
	case "error":
		var m ErrorReply
		strictly(&m)
		return map[string]any{"error": m.Error, "code": m.Code}, m
	case "heartbeat":
		var m Heartbeat
		strictly(&m)
		return map[string]any{"run": m.Run, "agent": m.Agent, "state": m.State, "msgs": m.Msgs, "at_ns": m.AtNS}, m
	case "coordinator_heartbeat":
		var m CoordinatorHeartbeat
		strictly(&m)
		return map[string]any{"run": m.Run, "at_ns": m.AtNS}, m
	case "interval":
		var m Interval
		strictly(&m)
		return map[string]any{"run": m.Run, "agent": m.Agent, "t": m.T, "src": m.Src, "msgs": m.Msgs, "bytes": m.Bytes, "lat": m.Lat}, m
	case "result_chunk":
		var m ResultChunk
		strictly(&m)
		return map[string]any{"run": m.Run, "agent": m.Agent, "chunk": int64(m.Chunk), "chunks": int64(m.Chunks), "data_text": string(m.Data), "error": m.Error}, m
	}
	t.Fatalf("unknown vector type %q", typ)
	return nil, nil
}

func TestVectorsDecode(t *testing.T) {
	v := readVectors(t)
	if len(v.Messages) < 8 {
		t.Fatalf("%d message vectors", len(v.Messages))
	}
	for _, m := range v.Messages {
		got, msg := decode(t, m.Type, m.Wire)
		for k, want := range m.Fields {
			g := got[k]
			var w any = want
			if n, ok := want.(json.Number); ok {
				i, err := n.Int64()
				if err != nil {
					t.Fatalf("%s: %s: %v", m.Name, k, err)
				}
				w = i
			}
			if g != w {
				t.Errorf("%s: %s = %v (%T), want %v (%T)", m.Name, k, g, g, w, w)
			}
		}
		if len(got) != len(m.Fields) {
			t.Errorf("%s: decoded %d fields, the vector names %d", m.Name, len(got), len(m.Fields))
		}
		// Encoding the decoded message gives the wire back, byte for byte.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(msg); err != nil {
			t.Fatal(err)
		}
		if got := bytes.TrimSpace(b.Bytes()); string(got) != m.Wire {
			t.Errorf("%s: encodes as\n%s\nwant\n%s", m.Name, got, m.Wire)
		}
	}
}

func TestVectorsRangesVersionsClock(t *testing.T) {
	v := readVectors(t)
	for _, r := range v.Ranges {
		if lo, hi := Range(r.N, r.Index, r.Count); lo != r.Lo || hi != r.Hi {
			t.Errorf("Range(%d, %d, %d) = [%d, %d), want [%d, %d)", r.N, r.Index, r.Count, lo, hi, r.Lo, r.Hi)
		}
	}
	for _, s := range v.ServiceVersions {
		if got := ServiceVersion(s.Version); got != s.Service {
			t.Errorf("ServiceVersion(%q) = %q, want %q", s.Version, got, s.Service)
		}
	}
	for _, c := range v.Clock {
		s := ClockSample{T0NS: c.T0NS, RTTNS: c.RTTNS, NowNS: c.NowNS}
		if s.Offset() != c.OffsetNS || s.Uncertainty() != c.UncertaintyNS {
			t.Errorf("%s: offset %d ± %d, want %d ± %d", c.Name, s.Offset(), s.Uncertainty(), c.OffsetNS, c.UncertaintyNS)
		}
	}
}

// Every client of a group lands in exactly one part, and parts differ by at most one client.
func TestRangeCoversOnce(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for count := 1; count <= 12; count++ {
			next, sizes := 0, []int{}
			for p := range count {
				lo, hi := Range(n, p, count)
				if lo != next || hi < lo {
					t.Fatalf("n=%d count=%d part %d: [%d, %d) after %d", n, count, p, lo, hi, next)
				}
				next = hi
				sizes = append(sizes, hi-lo)
			}
			if next != n {
				t.Fatalf("n=%d count=%d: parts end at %d", n, count, next)
			}
			if mn, mx := minOf(sizes), maxOf(sizes); mx-mn > 1 {
				t.Fatalf("n=%d count=%d: sizes %v", n, count, sizes)
			}
		}
	}
}

func TestChunkReassembles(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 10_000)
	chunks := Chunk("R1", "A1", data, 8192)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	var all []byte
	for i, c := range chunks {
		b, _ := json.Marshal(c)
		if len(b) > 8192 {
			t.Fatalf("chunk %d is %d bytes", i, len(b))
		}
		if c.Chunk != i || c.Chunks != len(chunks) {
			t.Fatalf("chunk %d says %d/%d", i, c.Chunk, c.Chunks)
		}
		all = append(all, c.Data...)
	}
	if !bytes.Equal(all, data) {
		t.Fatal("chunks do not reassemble the data")
	}
}

func minOf(v []int) int {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []int) int {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// TestCompatible: a Go agent needs the coordinator's natsperf version (it runs that engine);
// another program (the Rust agent) needs only the protocol; any agent of another protocol is
// refused.
func TestCompatible(t *testing.T) {
	for _, c := range []struct {
		protocol, agentVersion, client, version string
		want                                    bool
	}{
		{Protocol, "v0.4.0", "go", "v0.4.0", true},
		{Protocol, "v0.3.0", "go", "v0.4.0", false},
		{Protocol, "v0.3.0", "", "v0.4.0", false},
		{Protocol, "natsperf-rust 0.1.0", "rust", "v0.4.0", true},
		{"natsperf.agent/v2", "natsperf-rust 0.1.0", "rust", "v0.4.0", false},
		{"natsperf.agent/v2", "v0.4.0", "go", "v0.4.0", false},
	} {
		if got := Compatible(c.protocol, c.agentVersion, c.client, c.version); got != c.want {
			t.Errorf("Compatible(%q, %q, %q, %q) = %v, want %v", c.protocol, c.agentVersion, c.client, c.version, got, c.want)
		}
	}
}
