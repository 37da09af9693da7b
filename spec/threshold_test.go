package spec

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in     string
		metric string
		p      float64
		op     string
		limit  float64
	}{
		{"p99<5ms", "p", 99, "<", float64(5 * time.Millisecond)},
		{"p99.9 <= 20ms", "p", 99.9, "<=", float64(20 * time.Millisecond)},
		{"P50<100µs", "p", 50, "<", float64(100 * time.Microsecond)},
		{"loss=0", "loss", 0, "=", 0},
		{"rate>=0.99", "rate", 0, ">=", 0.99},
	}
	for _, tt := range tests {
		got, err := ParseThreshold(tt.in)
		if err != nil {
			t.Fatalf("ParseThreshold(%q): %v", tt.in, err)
		}
		if got.Metric != tt.metric || got.P != tt.p || got.Op != tt.op || got.Limit != tt.limit {
			t.Errorf("ParseThreshold(%q) = %+v", tt.in, got)
		}
	}
	for _, bad := range []string{"", "p99", "p99<", "p99<5", "p0<1ms", "p101<1ms", "q99<1ms", "loss=-1", "rate>=x", "<5ms", "p99<-1ms", "loss=1.5"} {
		if _, err := ParseThreshold(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseThreshold(%q) = %v, want a one-line error", bad, err)
		}
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"p99<5ms", "loss=0", "rate>=0.99", "p99.9<=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if th, err := ParseThreshold(s); err == nil && th.Metric == "" {
			t.Fatalf("ParseThreshold(%q) accepted without a metric", s)
		}
	})
}

// TestThresholdForm: a Spec's slo is read into typed thresholds and written back as the same
// strings; a bad one is refused when the Spec is read, naming its place.
func TestThresholdForm(t *testing.T) {
	in := `{"version":"` + Version + `","workloads":[{"kind":"pubsub","config":{"subject":"x"}}],"slo":["p99 < 5ms","loss=0"]}`
	s, err := ParseJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.SLO) != 2 || s.SLO[0].Metric != "p" || s.SLO[0].Limit != float64(5*time.Millisecond) || s.SLO[1].Metric != "loss" {
		t.Fatalf("slo read as %+v", s.SLO)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ SLO []string }
	if err := json.Unmarshal(out, &back); err != nil || strings.Join(back.SLO, "|") != "p99 < 5ms|loss=0" {
		t.Errorf("slo written as %s (%v)", out, err)
	}
	y, err := ParseYAML([]byte("version: " + Version + "\nworkloads: [{kind: pubsub, config: {subject: x}}]\nslo: [loss=0, 'p99<x']\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `spec: slo[1]: --slo "p99<x"`) {
		t.Errorf("bad slo: %v, %v", y, err)
	}
	s.SLO = append(s.SLO, Threshold{Text: "p99<1ms"}) // not read
	if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), "slo[2]:") {
		t.Errorf("an unread threshold: %v", err)
	}
}
