package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/slo"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// TestFiguresOpenModel: open-model senders (a bound on operations awaiting answers) make
// natsperf the limit only on evidence. A latency that fails from the actual sends too is the
// system's, however short the senders fell and whether or not they waited at the bound (a
// saturated service). The bound is natsperf's limit only when it was reached while the
// latency from the actual sends held; a late timer only while the senders never waited at
// it; its CPU when saturated. Every probe says which evidence decided.
func TestFiguresOpenModel(t *testing.T) {
	probe := func(corrected, uncorrected time.Duration, achieved float64, full int64, late time.Duration, cpu float64) *result.Result {
		l := latencyOf(corrected)
		l.Uncorrected = latencyOf(uncorrected)
		h := histo.New()
		histo.Record(h, int64(late))
		res := &result.Result{Stop: result.Stop{Reason: result.StopCompleted}, CPU: &result.CPU{CoreShare: cpu, Cores: 2}, Groups: []result.Group{
			{Name: "request", TargetRate: 1000, Aggregate: result.Aggregate{MsgsPerSec: achieved, Msgs: 1000, Latency: l,
				SendLateness: histo.Summary(h, true), Events: result.Events{MaxInflight: 100, InflightFull: full}}},
		}}
		ts := spec.MustThresholds("p99<10ms")
		res.SLO = slo.Judge(res, ts)
		return res
	}
	ms := time.Millisecond
	tests := []struct {
		name     string
		res      *result.Result
		gen      bool
		bound    string
		evidence string
	}{
		{"holds", probe(ms, ms, 1000, 0, 0, 0.1), false, "", "held"},
		{"a saturated service", probe(300*ms, 120*ms, 700, 500, 200*ms, 0.1), false, "", "rose with the load"},
		{"a service slower under load", probe(30*ms, 25*ms, 1000, 0, ms, 0.1), false, "", "rose with the load"},
		{"the bound too small", probe(60*ms, 2*ms, 600, 400, 50*ms, 0.1), true, BoundInflight, "in-flight at its bound"},
		{"a late timer while idle", probe(60*ms, 2*ms, 1000, 0, 50*ms, 0.1), true, BoundTimer, "timer late while idle"},
		// Late from the sends too, with no send held at the bound: natsperf's machine held
		// its sends (and the replies' reader) back, not the system.
		{"a late host, late replies", probe(60*ms, 30*ms, 1000, 0, 50*ms, 0.1), true, BoundTimer, "did not keep up"},
		// One send of 1,000 at the bound (a stall) is no evidence against the bound.
		{"one send at the bound", probe(30*ms, 2*ms, 1000, 1, ms, 0.1), false, "", "1 sends waited at the in-flight bound"},
		{"natsperf's CPU", probe(60*ms, 2*ms, 600, 0, 50*ms, 0.95), true, BoundCPU, "CPU 95%"},
	}
	for _, tt := range tests {
		p := Figures(tt.res, 1000, false)
		if p.GeneratorBound != tt.gen || p.Bound != tt.bound || !strings.Contains(p.Evidence, tt.evidence) {
			t.Errorf("%s: generator %v bound %q evidence %q, want %v %q %q", tt.name, p.GeneratorBound, p.Bound, p.Evidence, tt.gen, tt.bound, tt.evidence)
		}
	}
	// Sends late because their calls blocked (the connection's buffers full: the system not
	// taking the bytes, so it answered short of the rate) are the system's queue, not this
	// machine's wake-ups; with the rate kept, blocked calls are a host stall's.
	res := probe(60*ms, 30*ms, 900, 0, 50*ms, 0.1)
	res.Groups[0].Aggregate.Events.SendBlocked = 200
	if p := Figures(res, 1000, false); p.GeneratorBound || !strings.Contains(p.Evidence, "200 sends blocked") {
		t.Errorf("blocked sends: generator %v (%s), evidence %q", p.GeneratorBound, p.Bound, p.Evidence)
	}
	res.Groups[0].Aggregate.MsgsPerSec = 1000
	if p := Figures(res, 1000, false); p.Bound != BoundTimer {
		t.Errorf("blocked sends with the rate kept: bound %q, evidence %q", p.Bound, p.Evidence)
	}
	// Without a latency threshold the bound is never cleared: a rate threshold failing at the
	// bound is a service that answered too slowly (its queue reached the bound).
	res = probe(900*ms, 880*ms, 97, 42, 8*ms, 0.02)
	res.Groups[0].TargetRate = 125
	ts := spec.MustThresholds("rate>=0.97")
	res.SLO = slo.Judge(res, ts)
	if p := Figures(res, 125, false); p.GeneratorBound || !strings.Contains(p.Evidence, "answered 97 of 125") {
		t.Errorf("a rate threshold at the bound: generator %v (%s), evidence %q", p.GeneratorBound, p.Bound, p.Evidence)
	}
}

// TestJudgeHost: a failed probe charged to the system is charged to natsperf's host when its
// process stalled, by half the limit or more, for half the share of the probe the percentile
// lets go over it (p99: 0.5%), and the response time from the sends less the worst stall holds;
// shorter or fewer stalls, or a response time far over the limit, leave it to the system.
func TestJudgeHost(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name   string
		pass   bool
		sends  time.Duration
		stalls []time.Duration
		host   bool
	}{
		{"one 30ms stall in 2s", false, 25 * ms, []time.Duration{30 * ms}, true},
		{"two 6ms stalls in 2s", false, 25 * ms, []time.Duration{6 * ms, 6 * ms}, false},
		{"many 9ms stalls, each under half the limit", false, 25 * ms, []time.Duration{9 * ms, 9 * ms, 9 * ms, 9 * ms, 9 * ms}, false},
		{"saturated past the limit, stalls or not", false, 77 * ms, []time.Duration{28 * ms, 20 * ms, 15 * ms}, false},
		{"stalls adding up, the rate kept", false, 197 * ms, []time.Duration{107 * ms, 60 * ms, 40 * ms}, true},
		{"a passing probe", true, ms, []time.Duration{300 * ms}, false},
	} {
		p := Probe{Pass: tt.pass, Achieved: 700, Evidence: "P99 from the sends rose with the load"}
		if tt.sends > 100*ms {
			p.Achieved = 995
		}
		if !tt.pass {
			th, _ := spec.ParseThreshold("p99<20ms")
			p.Failed, p.sends = []string{"p99<20ms"}, []fromSends{{th, float64(tt.sends)}}
		}
		p.judgeHost(tt.stalls, 2*time.Second, 1000)
		if (p.Bound == BoundHost) != tt.host || p.GeneratorBound != tt.host {
			t.Errorf("%s: bound %q, evidence %q", tt.name, p.Bound, p.Evidence)
		}
		if tt.host && tt.sends < 100*ms && (!strings.Contains(p.Evidence, "host stalled 30ms") || !strings.Contains(p.Bottleneck(), "worst 30ms")) {
			t.Errorf("%s: evidence %q, bottleneck %q", tt.name, p.Evidence, p.Bottleneck())
		}
	}
}

// TestJudgeHostOverTheBound: sends at the in-flight bound while the host stalled a quarter of
// the probe are the host's (the answers waited unread), not a bound too small.
func TestJudgeHostOverTheBound(t *testing.T) {
	th, _ := spec.ParseThreshold("p99<20ms")
	p := Probe{Failed: []string{"p99<20ms"}, sends: []fromSends{{th, float64(14 * time.Millisecond)}}, Achieved: 1407,
		GeneratorBound: true, Bound: BoundInflight, Evidence: "in-flight at its bound (50) for 21 sends"}
	p.judgeHost([]time.Duration{203 * time.Millisecond, 150 * time.Millisecond}, 2*time.Second, 1250)
	if p.Bound != BoundHost || !strings.Contains(p.Evidence, "in-flight at its bound") {
		t.Errorf("bound %q, evidence %q", p.Bound, p.Evidence)
	}
}
