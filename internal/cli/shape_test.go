package cli

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// countAt is in_msgs at t, interpolated between the samples around it.
func (m *inMsgs) countAt(t *testing.T, at time.Time) float64 {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := 1; i < len(m.at); i++ {
		if !m.at[i].Before(at) {
			a, b := m.at[i-1], m.at[i]
			f := float64(at.Sub(a)) / float64(b.Sub(a))
			return float64(m.n[i-1]) + f*float64(m.n[i]-m.n[i-1])
		}
	}
	t.Fatalf("no in_msgs sample after %v", at)
	return 0
}

// longestGap is the longest time between two samples in [from, to]: the sampler ticks every
// 2ms, so a longer gap is a stall of this process (the sender's, the server's) or the host.
func (m *inMsgs) longestGap(from, to time.Time) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	var gap time.Duration
	for i := 1; i < len(m.at); i++ {
		if m.at[i].After(from) && m.at[i-1].Before(to) {
			gap = max(gap, m.at[i].Sub(m.at[i-1]))
		}
	}
	return gap
}

// TestShapedRateFollowsSchedule: the rate the server counted (/varz in_msgs, sampled every
// 2ms) follows the steps and the ramp within 2% per step, and the Result's load steps say
// the same. A sender that a busy host holds back at one end of a step and not at the other
// moves that stretch's messages into its neighbour (40ms at load 25, 130ms at load 15), and
// a stall between the send and the server's count moves them the same way: each step's
// tolerance is 2% plus twice the longest such shift over its width, the shift being the
// larger of the sender's own lateness (the Result's send_lateness max) and the longest
// stall the sampler saw around the step. On a quiet host that is about 2.1%.
func TestShapedRateFollowsSchedule(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		offered []float64 // per step of 3s
	}{
		{"steps", []string{"--steps", "1000,2000,4000", "--step-duration", "3s", "--duration", "9s"}, []float64{1000, 2000, 4000}},
		{"ramp", []string{"--rate", "1000..3000", "--ramp", "9s", "--duration", "9s", "--interval", "3s"}, []float64{1333.3, 2000, 2666.7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, nil)
			v := sampleInMsgs(t, s)
			args := append([]string{"pub", "shape." + tt.name, "-s", s.ClientURL(), "--size", "16"}, tt.args...)
			res, r := runJSON(context.Background(), t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			time.Sleep(50 * time.Millisecond) // a last sample after the end
			v.end()
			if len(res.LoadSteps) != len(tt.offered) {
				t.Fatalf("%d load steps, want %d: %+v", len(res.LoadSteps), len(tt.offered), res.LoadSteps)
			}
			var late time.Duration
			if l := group(t, res, "pub").Aggregate.SendLateness; l != nil {
				late = time.Duration(l.Max)
			}
			for k, st := range res.LoadSteps {
				from := res.Start.Add(st.Offset)
				server := (v.countAt(t, from.Add(st.Duration)) - v.countAt(t, from)) / st.Duration.Seconds()
				shift := max(late, v.longestGap(from.Add(-time.Second), from.Add(st.Duration+time.Second)))
				tol := 0.02 + 2*shift.Seconds()/st.Duration.Seconds()
				t.Logf("step %d: server %.1f msgs/s, Result %.1f, offered %.1f; tolerance %.2f%% (shift %v)", k, server, st.Groups[0].Rate, tt.offered[k], 100*tol, shift)
				if math.Abs(st.Offered-tt.offered[k])/tt.offered[k] > 0.001 {
					t.Errorf("step %d offered %.1f/s, want %.1f", k, st.Offered, tt.offered[k])
				}
				if math.Abs(server-tt.offered[k])/tt.offered[k] > tol {
					t.Errorf("step %d: the server counted %.1f msgs/s, the schedule offered %.1f (tolerance %.2f%%)", k, server, tt.offered[k], 100*tol)
				}
				pub := st.Groups[0]
				if math.Abs(pub.Rate-server)/server > tol {
					t.Errorf("step %d: the Result says %.1f msgs/s, the server counted %.1f (tolerance %.2f%%)", k, pub.Rate, server, 100*tol)
				}
			}
		})
	}
}

// TestPoissonSeedRepeats: --arrivals poisson records its seed in the Result; the same seed
// sends the same (random) number of messages again, another seed a different schedule.
func TestPoissonSeedRepeats(t *testing.T) {
	s := startServer(t, nil)
	count := func(args ...string) (int64, uint64) {
		res, r := runJSON(context.Background(), t, append([]string{"pub", "poisson", "-s", s.ClientURL(), "--size", "16", "--rate", "20000", "--duration", "500ms", "--arrivals", "poisson"}, args...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.err)
		}
		var set struct {
			Bench struct {
				Shape struct {
					Poisson bool   `json:"poisson"`
					Seed    uint64 `json:"seed"`
				} `json:"shape"`
			} `json:"bench"`
		}
		if err := json.Unmarshal(res.Settings, &set); err != nil || !set.Bench.Shape.Poisson || set.Bench.Shape.Seed == 0 {
			t.Fatalf("settings %s: no Poisson seed recorded (%v)", res.Settings, err)
		}
		return group(t, res, "pub").Expected, set.Bench.Shape.Seed
	}
	n1, seed := count()
	n2, seed2 := count("--arrivals-seed", formatSeed(seed))
	if seed2 != seed || n2 != n1 {
		t.Errorf("seed %d sent %d, again %d (seed %d)", seed, n1, n2, seed2)
	}
	if n1 == 10000 {
		t.Errorf("Poisson arrivals sent exactly rate x duration (%d): not random", n1)
	}
	if math.Abs(float64(n1)-10000)/10000 > 0.05 {
		t.Errorf("%d messages in 500ms at 20,000/s: far from the mean", n1)
	}
}

func formatSeed(s uint64) string { b, _ := json.Marshal(s); return string(b) }

// TestExitCodeSLO: a threshold that cannot hold exits exitSLO with its verdict line; one that
// holds exits 0; bad syntax is a one-line usage error.
func TestExitCodeSLO(t *testing.T) {
	s := startServer(t, nil)
	base := []string{"service", "request", "slo.svc", "-s", s.ClientURL()}
	serveCtx, stopServe := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		run(serveCtx, t, nil, "service", "serve", "slo.svc", "-s", s.ClientURL(), "--no-progress")
	}()
	t.Cleanup(func() { stopServe(); <-served })
	waitForSubs(t, s, "slo.svc", 1)

	res, r := runJSON(context.Background(), t, append(base, "--rate", "500", "--duration", "1s", "--slo", "p99<1ns", "--slo", "loss=0")...)
	if r.code != exitSLO {
		t.Fatalf("p99<1ns: exit %d, want %d; stderr %s", r.code, exitSLO, r.err)
	}
	if len(res.SLO) != 2 || res.SLO[0].Pass || !res.SLO[1].Pass || res.SLO[0].Value <= 1 {
		t.Fatalf("verdicts %+v", res.SLO)
	}
	r = run(context.Background(), t, nil, append(base, "--rate", "500", "--duration", "1s", "--slo", "p99<10s", "--slo", "rate>=0.5")...)
	if r.code != 0 {
		t.Fatalf("p99<10s: exit %d, stderr %s", r.code, r.err)
	}
	for _, want := range []string{"SLO p99<10s: ", "(limit 10.00s): pass", "SLO rate>=0.5: "} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
	r = run(context.Background(), t, nil, append(base, "--slo", "p99<<5")...)
	if r.code != exitUsage || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Errorf("bad syntax: exit %d, stderr %q", r.code, r.err)
	}
}

// TestShapeBadInput: a load shape's mistakes are one-line usage errors, before anything runs.
func TestShapeBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"pub", "x", "--steps", "1000,2000"},                       // no --step-duration
		{"pub", "x", "--step-duration", "1s"},                      // no --steps
		{"pub", "x", "--rate", "1000..2000"},                       // no --ramp
		{"pub", "x", "--rate", "1000", "--ramp", "1s"},             // no end rate
		{"pub", "x", "--steps", "1000,0", "--step-duration", "1s"}, // a zero step
		{"pub", "x", "--steps", "1000", "--step-duration", "1s", "--rate", "5"},
		{"pub", "x", "--rate", "100", "--arrivals", "zipf"},
		{"pub", "x", "--rate", "100", "--arrivals-seed", "5"}, // seed without poisson
		{"pub", "x", "--arrivals", "poisson"},                 // no rate
		{"js", "pub", "batch", "x", "--steps", "10,20", "--step-duration", "1s"},
	} {
		r := run(context.Background(), t, nil, args...)
		if r.code != exitUsage || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.err)
		}
	}
}
