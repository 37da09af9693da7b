package result_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

// samples is one run's recorders per group, fed with seeded samples: senders, requesters
// (corrected and uncorrected latency), fan-out receivers that lose, duplicate and reorder, and
// a queue group whose members split the messages unevenly.
type samples struct {
	epoch  int64
	groups []sampleGroup
}

type sampleGroup struct {
	name, kind string
	shared     bool
	shares     []int64 // expected per client
	recs       []*record.Recorder
}

const (
	publishers = 3
	perPub     = 3000
	span       = int64(5 * time.Second)
)

func newSamples(t *testing.T) *samples {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	s := &samples{epoch: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()}
	mk := func(n int, corrected bool) []*record.Recorder {
		out := make([]*record.Recorder, n)
		for i := range out {
			out[i] = record.New(record.Options{Interval: time.Second, Latency: true, Corrected: corrected})
			out[i].Start(s.epoch, 0)
		}
		return out
	}
	at := func(i int) int64 { return s.epoch + int64(i)*span/perPub + rng.Int64N(1000) }
	lat := func() int64 { return 20_000 + rng.Int64N(2_000_000) + int64(rng.ExpFloat64()*1e5) }

	pubs := mk(publishers, false)
	for p, r := range pubs {
		r.Begin(at(0))
		for i := range perPub {
			r.Sent(at(i)+int64(p), 16)
		}
	}
	reqs := mk(2, true)
	for _, r := range reqs {
		r.Begin(at(0))
		for i := range 1000 {
			l := lat()
			r.OpCorrected(at(i*3), 64, l+rng.Int64N(50_000), l)
		}
	}
	buf := make([]byte, 32)
	recv := func(r *record.Recorder, now int64, pub uint32, seq uint64) {
		stamp.Put(buf, pub, seq, now-lat())
		r.Received(now, buf)
	}
	subs := mk(4, false)
	for c, r := range subs {
		var late [][2]uint64
		for i := range perPub {
			for p := range publishers {
				seq := uint64(i + 1)
				switch {
				case c == 1 && i%97 == 5: // lost
					continue
				case c == 2 && i%101 == 7: // late: sent again further on, out of order
					late = append(late, [2]uint64{uint64(p + 1), seq})
					continue
				}
				recv(r, at(i), uint32(p+1), seq)
				if c == 3 && i%89 == 3 { // duplicated
					recv(r, at(i)+5, uint32(p+1), seq)
				}
			}
		}
		for _, l := range late {
			recv(r, at(perPub-1)+1, uint32(l[0]), l[1])
		}
	}
	queue := mk(3, false)
	total := int64(publishers * perPub)
	for i := range perPub {
		for p := range publishers {
			if i%211 == 0 && p == 0 {
				continue // never delivered to any member
			}
			m := queue[rng.IntN(100)%3] // uneven: not a fair split
			if rng.IntN(10) < 5 {
				m = queue[0]
			}
			recv(m, at(i), uint32(p+1), uint64(i+1))
		}
	}
	each := func(n int, v int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	s.groups = []sampleGroup{
		{name: "pub", kind: "Core NATS publisher", shares: each(publishers, perPub), recs: pubs},
		{name: "request", kind: "Core NATS service requester", shares: each(2, 1000), recs: reqs},
		{name: "sub", kind: "Core NATS subscriber", shares: each(4, total), recs: subs},
		{name: "queue", kind: "Core NATS subscriber", shared: true, shares: []int64{total / 3, total / 3, total - 2*(total/3)}, recs: queue},
	}
	for _, g := range s.groups {
		for _, r := range g.recs {
			r.Finish()
		}
	}
	return s
}

// result builds the Result a process holding only the clients [from, to) of every group
// would have written, as the runner assembles it.
func (s *samples) result(from, to int) *result.Result {
	res := &result.Result{Schema: result.Schema, Tool: result.Tool{Name: "natsperf", Version: "test"}, Command: "pubsub",
		Start: record.Time(s.epoch), End: record.Time(s.epoch + span + int64(time.Second)), Stop: result.Stop{Reason: result.StopCompleted}}
	for _, g := range s.groups {
		lo, hi := min(from, len(g.recs)), min(to, len(g.recs))
		recs := g.recs[lo:hi]
		var clients []result.Client
		var expected int64
		for i, r := range recs {
			clients = append(clients, r.Client(lo+i+1, g.shares[lo+i], g.shared))
			expected += g.shares[lo+i]
		}
		if len(recs) == 0 {
			continue
		}
		res.Groups = append(res.Groups, result.Group{
			Name: g.name, Kind: g.kind, Expected: expected, Shared: g.shared, Clients: clients,
			Aggregate: record.Aggregate(recs, clients, expected, g.shared),
			Series:    record.Series(recs, s.epoch),
		})
	}
	return res
}

// TestMergeEqualsOneRun: the Results of processes that each held some of the clients merge
// into exactly the Result of one process holding them all: counts, rates and their spread,
// every percentile and the encoded histograms, delivery counts, publishers and the series.
func TestMergeEqualsOneRun(t *testing.T) {
	s := newSamples(t)
	whole := s.result(0, 99)
	if c := whole.Groups[2].Aggregate.Correctness; c.Lost == 0 || c.Duplicated == 0 || c.OutOfOrder == 0 {
		t.Fatalf("the samples should hold losses, duplicates and reordering: %+v", c)
	}
	if c := whole.Groups[3].Aggregate.Correctness; c.Lost == 0 {
		t.Fatalf("the queue group should have lost messages: %+v", c)
	}
	partitions := map[string][][2]int{
		"one part":        {{0, 99}},
		"first and rest":  {{0, 1}, {1, 99}},
		"every client":    {{0, 1}, {1, 2}, {2, 3}, {3, 99}},
		"uneven":          {{0, 2}, {2, 3}, {3, 99}},
		"with empty part": {{0, 2}, {50, 60}, {2, 99}},
	}
	for name, cuts := range partitions {
		t.Run(name, func(t *testing.T) {
			var parts []*result.Result
			for _, c := range cuts {
				parts = append(parts, s.result(c[0], c[1]))
			}
			merged, err := result.Merge(parts...)
			if err != nil {
				t.Fatal(err)
			}
			if len(merged.Parts) != len(cuts) {
				t.Errorf("%d parts listed, want %d", len(merged.Parts), len(cuts))
			}
			if len(merged.Groups) != len(whole.Groups) {
				t.Fatalf("%d groups, want %d", len(merged.Groups), len(whole.Groups))
			}
			for i, want := range whole.Groups {
				got := merged.Groups[i]
				for j := range got.Clients {
					if got.Clients[j].Part == "" {
						t.Errorf("%s client %d: no part name", got.Name, j+1)
					}
					got.Clients[j].Part = ""
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("group %s differs from one process's:\n got %+v\nwant %+v", want.Name, got.Aggregate, want.Aggregate)
				}
				sameHistogram(t, want.Name, got.Aggregate.Latency, want.Aggregate.Latency)
			}
			if merged.Stop.Reason != result.StopCompleted || !merged.Start.Equal(whole.Start) || !merged.End.Equal(whole.End) {
				t.Errorf("stop %v, span %v..%v; want completed, %v..%v", merged.Stop, merged.Start, merged.End, whole.Start, whole.End)
			}
		})
	}
}

// sameHistogram compares two encoded histograms at every percentile, independently of the
// summaries' own tables.
func sameHistogram(t *testing.T, name string, got, want *result.Latency) {
	t.Helper()
	if got == nil || want == nil {
		if got != want {
			t.Errorf("%s: latency %v, want %v", name, got, want)
		}
		return
	}
	g, err := histo.Decode(got.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	w, err := histo.Decode(want.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if g.TotalCount() != w.TotalCount() {
		t.Fatalf("%s: %d samples, want %d", name, g.TotalCount(), w.TotalCount())
	}
	for p := 0.0; p <= 100; p += 0.25 {
		if a, b := g.ValueAtQuantile(p), w.ValueAtQuantile(p); a != b {
			t.Errorf("%s: P%v = %d, want %d", name, p, a, b)
		}
	}
}

// TestMergeSeriesAligned: a part that started later has its intervals moved by the difference,
// so intervals of the same moment merge.
func TestMergeSeriesAligned(t *testing.T) {
	h := histo.New()
	histo.Record(h, 1000)
	enc, _ := histo.Encode(h)
	h2 := histo.New()
	histo.Record(h2, 5000)
	histo.Record(h2, 5000)
	enc2, _ := histo.Encode(h2)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := part(start, result.Group{Name: "sub", Kind: "k", Series: []result.Interval{
		{Offset: 0, Msgs: 1, Bytes: 10, P50: 1000, P90: 1000, P99: 1000, Max: 1000, Histogram: enc},
		{Offset: time.Second, Msgs: 1, Bytes: 10, P50: 1000, P90: 1000, P99: 1000, Max: 1000, Histogram: enc},
	}})
	b := part(start.Add(time.Second+3*time.Millisecond), result.Group{Name: "sub", Kind: "k", Series: []result.Interval{
		{Offset: 0, Msgs: 2, Bytes: 20, P50: 5000, P90: 5000, P99: 5000, Max: 5000, Histogram: enc2},
	}})
	m, err := result.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Groups[0].Series
	if len(got) != 2 || got[0].Msgs != 1 || got[1].Offset != time.Second || got[1].Msgs != 3 || got[1].Bytes != 30 {
		t.Fatalf("series %+v: want 1 message at 0s and 3 at 1s", got)
	}
	if got[1].P50 != 5003 && got[1].P50 != 5000 || got[1].Max < 5000 || got[1].P90 < 5000 {
		t.Errorf("interval at 1s: P50 %d, P90 %d, max %d: want the merged histogram's (5000 ns)", got[1].P50, got[1].P90, got[1].Max)
	}
	if l, _ := histo.Decode(got[1].Histogram); l == nil || l.TotalCount() != 3 {
		t.Errorf("interval at 1s does not carry the merged histogram of 3 samples")
	}
}

func part(start time.Time, groups ...result.Group) *result.Result {
	return &result.Result{Schema: result.Schema, Tool: result.Tool{Version: "v1"}, Command: "pubsub", Start: start, End: start.Add(5 * time.Second),
		Stop: result.Stop{Reason: result.StopCompleted}, Groups: groups}
}

func TestMergeEdges(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pubGroup := func(msgs int64) result.Group {
		return result.Group{Name: "pub", Kind: "Core NATS publisher", Expected: msgs,
			Clients:   []result.Client{{ID: 1, Expected: msgs, Msgs: msgs, Bytes: msgs * 16}},
			Aggregate: result.Aggregate{Msgs: msgs, Bytes: msgs * 16}}
	}
	cases := []struct {
		name    string
		parts   func() []*result.Result
		wantErr string
		check   func(t *testing.T, m *result.Result)
	}{
		{name: "no parts", parts: func() []*result.Result { return nil }, wantErr: "no Results"},
		{name: "nil part", parts: func() []*result.Result { return []*result.Result{part(start), nil} }, wantErr: "part2 has no Result"},
		{name: "different versions", parts: func() []*result.Result {
			b := part(start)
			b.Tool.Version = "v2"
			return []*result.Result{part(start), b}
		}, wantErr: "part1 was written by natsperf v1 and part2 by natsperf v2"},
		{name: "different schema", parts: func() []*result.Result {
			b := part(start)
			b.Schema = "natsperf.result/v0"
			return []*result.Result{part(start), b}
		}, wantErr: `part2 is a "natsperf.result/v0" Result`},
		{name: "different commands", parts: func() []*result.Result {
			b := part(start)
			b.Command = "js pub async"
			return []*result.Result{part(start), b}
		}, wantErr: `part1 ran "pubsub" and part2 ran "js pub async"`},
		{name: "different group kinds", parts: func() []*result.Result {
			g := pubGroup(10)
			g.Kind = "JetStream asynchronous publisher"
			return []*result.Result{part(start, pubGroup(10)), part(start, g)}
		}, wantErr: `group pub is "Core NATS publisher" in part1 and "JetStream asynchronous publisher" in part2`},
		{name: "latency without histogram", parts: func() []*result.Result {
			g := pubGroup(10)
			g.Aggregate.Latency = &result.Latency{Count: 10, Percentiles: []result.Percentile{{P: 50, Ns: 7}}}
			return []*result.Result{part(start, pubGroup(10)), part(start, g)}
		}, wantErr: "no histogram"},
		{name: "empty part", parts: func() []*result.Result {
			empty := &result.Result{Schema: result.Schema, Tool: result.Tool{Version: "v1"}, Command: "pubsub", Stop: result.Stop{Reason: result.StopCompleted}}
			return []*result.Result{part(start, pubGroup(10)), empty, part(start.Add(time.Second), pubGroup(5))}
		}, check: func(t *testing.T, m *result.Result) {
			g := m.Groups[0]
			if g.Aggregate.Msgs != 15 || len(g.Clients) != 2 || g.Clients[1].ID != 2 || g.Clients[1].Part != "part3" || g.Expected != 15 {
				t.Errorf("pub: %d msgs, %d clients (%+v), expected %d; want 15 msgs, clients 1 and 2 (part3), 15 expected", g.Aggregate.Msgs, len(g.Clients), g.Clients, g.Expected)
			}
			if !m.Start.Equal(start) || !m.End.Equal(start.Add(6*time.Second)) || m.Stop.Reason != result.StopCompleted || len(m.Parts) != 3 {
				t.Errorf("span %v..%v, stop %v, %d parts", m.Start, m.End, m.Stop, len(m.Parts))
			}
		}},
		{name: "failed part", parts: func() []*result.Result {
			f := part(start, pubGroup(3))
			f.Stop = result.Stop{Reason: result.StopFailed, Error: "connection lost"}
			i := part(start, pubGroup(10))
			i.Stop = result.Stop{Reason: result.StopInterrupted}
			return []*result.Result{part(start, pubGroup(10)), f, i}
		}, check: func(t *testing.T, m *result.Result) {
			if m.Stop.Reason != result.StopFailed || m.Stop.Error != "part2: connection lost" {
				t.Errorf("stop %+v, want failed with part2's error", m.Stop)
			}
			if m.Groups[0].Aggregate.Msgs != 23 {
				t.Errorf("%d msgs, want the 23 every part sent", m.Groups[0].Aggregate.Msgs)
			}
		}},
		{name: "part without stop reason", parts: func() []*result.Result {
			b := part(start)
			b.Stop = result.Stop{}
			return []*result.Result{part(start), b}
		}, check: func(t *testing.T, m *result.Result) {
			if m.Stop.Reason != result.StopFailed || !strings.Contains(m.Stop.Error, "part2: no valid stop reason") {
				t.Errorf("stop %+v, want failed naming part2", m.Stop)
			}
		}},
		{name: "queue group losses judged once", parts: func() []*result.Result {
			// Publisher 9 sent 1..100 to a queue group split over two parts; 5 never arrived.
			// Part 1's members got 70 (up to 100), part 2's 25 (up to 96): alone they would say
			// 30 and 71 lost; judged on the union, 5 are lost.
			q := func(received int64, highest uint64) result.Group {
				return result.Group{Name: "sub", Kind: "k", Shared: true, Expected: 50,
					Clients: []result.Client{{ID: 1, Expected: 50, Msgs: received, Correctness: &result.Correctness{Received: received, Publishers: 1}}},
					Aggregate: result.Aggregate{Msgs: received, Correctness: &result.Correctness{Received: received, Lost: int64(highest) - received, Publishers: 1,
						Expected: 50, PerPublisher: []result.PublisherSeen{{ID: 9, Highest: highest, Distinct: received}}}}}
			}
			return []*result.Result{part(start, q(70, 100)), part(start, q(25, 96))}
		}, check: func(t *testing.T, m *result.Result) {
			c := m.Groups[0].Aggregate.Correctness
			if c.Lost != 5 || c.Received != 95 || c.Publishers != 1 || c.Expected != 100 || c.NotReceived != 0 || c.HighestSeqMax != 100 {
				t.Errorf("correctness %+v: want 95 received, 5 lost, 100 expected, 0 not received, 1 publisher up to 100", c)
			}
		}},
		{name: "queue group judged per part keeps every count", parts: func() []*result.Result {
			// Parts without per-publisher counts: their own judgements are summed, every field.
			q := func(received, lost, failed, notConsumed int64) result.Group {
				c := &result.Correctness{Received: received, Lost: lost, Failed: failed, NotConsumed: notConsumed, Publishers: 1, Expected: 50}
				return result.Group{Name: "sub", Kind: "k", Shared: true, Expected: 50,
					Clients:   []result.Client{{ID: 1, Expected: 50, Msgs: received, Correctness: &result.Correctness{Received: received, Publishers: 1}}},
					Aggregate: result.Aggregate{Msgs: received, Correctness: c}}
			}
			return []*result.Result{part(start, q(40, 1, 2, 1)), part(start, q(45, 2, 3, 4))}
		}, check: func(t *testing.T, m *result.Result) {
			c := m.Groups[0].Aggregate.Correctness
			if c.Received != 85 || c.Lost != 3 || c.Failed != 5 || c.NotConsumed != 5 || c.Publishers != 1 {
				t.Errorf("correctness %+v: want 85 received, 3 lost, 5 failed, 5 not consumed, 1 publisher", c)
			}
		}},
		{name: "fan-out publishers counted once", parts: func() []*result.Result {
			s := func(ids ...uint32) result.Group {
				var seen []result.PublisherSeen
				for _, id := range ids {
					seen = append(seen, result.PublisherSeen{ID: id, Highest: uint64(10 * id), Distinct: 5})
				}
				return result.Group{Name: "sub", Kind: "k",
					Clients:   []result.Client{{ID: 1, Correctness: &result.Correctness{Received: 10, Publishers: len(ids)}}},
					Aggregate: result.Aggregate{Correctness: &result.Correctness{Received: 10, Publishers: len(ids), PerPublisher: seen}}}
			}
			return []*result.Result{part(start, s(1, 2)), part(start, s(1, 2)), part(start, s(2, 3))}
		}, check: func(t *testing.T, m *result.Result) {
			c := m.Groups[0].Aggregate.Correctness
			want := []result.PublisherSeen{{ID: 1, Highest: 10, Distinct: 10}, {ID: 2, Highest: 20, Distinct: 15}, {ID: 3, Highest: 30, Distinct: 5}}
			if c.Publishers != 3 || !reflect.DeepEqual(c.PerPublisher, want) || c.Received != 30 || c.HighestSeqMin != 10 || c.HighestSeqMax != 30 {
				t.Errorf("correctness %+v: want 3 publishers %v, 30 received, highest 10..30", c, want)
			}
		}},
		{name: "verify publisher ids clash", parts: func() []*result.Result {
			a, b := part(start), part(start)
			a.Verify = &result.Verify{Sent: 5, Publishers: []result.PublisherVerify{{ID: 4097, Acked: 5}}}
			b.Verify = &result.Verify{Sent: 5, Publishers: []result.PublisherVerify{{ID: 4097, Acked: 5}}}
			return []*result.Result{a, b}
		}, wantErr: "publisher id 4097 is in both part1 and part2"},
		{name: "verify adds up", parts: func() []*result.Result {
			a, b := part(start), part(start.Add(time.Second))
			a.Verify = &result.Verify{Stream: "S", Sent: 5, Acked: 5, Stored: 5, Unavailable: time.Second, Publishers: []result.PublisherVerify{{ID: 1, Acked: 5, Stored: 5}}}
			b.Verify = &result.Verify{Stream: "S", Sent: 7, Acked: 6, Stored: 6, AckedButMissing: 1, Unavailable: 2 * time.Second, Publishers: []result.PublisherVerify{{ID: 2, Acked: 6, Stored: 6}}}
			return []*result.Result{a, b}
		}, check: func(t *testing.T, m *result.Result) {
			v := m.Verify
			if v.Stream != "S" || v.Sent != 12 || v.Acked != 11 || v.Stored != 11 || v.AckedButMissing != 1 || v.Unavailable != 2*time.Second || len(v.Publishers) != 2 {
				t.Errorf("verify %+v", v)
			}
		}},
		{name: "verify read-back figures add up", parts: func() []*result.Result {
			a, b := part(start), part(start)
			a.Verify = &result.Verify{Stream: "S", NotConsumed: 3, AckedNotRead: 2, ReadRetries: 1, ReadByGet: 4,
				Unreadable: []result.SeqRange{{First: 10, Last: 20}, {First: 40, Last: 41}}}
			b.Verify = &result.Verify{Stream: "S", NotConsumed: 5, AckedNotRead: 1, ReadRetries: 2, ReadByGet: 6,
				Unreadable: []result.SeqRange{{First: 15, Last: 25}, {First: 30, Last: 30}}}
			return []*result.Result{a, b}
		}, check: func(t *testing.T, m *result.Result) {
			v := m.Verify
			want := []result.SeqRange{{First: 10, Last: 25}, {First: 30, Last: 30}, {First: 40, Last: 41}}
			if v.NotConsumed != 8 || v.AckedNotRead != 3 || v.ReadRetries != 3 || v.ReadByGet != 10 || !slices.Equal(v.Unreadable, want) {
				t.Errorf("verify %+v, want unreadable %v", v, want)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := result.Merge(tc.parts()...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, m)
		})
	}
}

// TestMergeCPU: the parts' processes ran side by side, so CPU seconds, cores and messages add
// up, the wall time is the longest, and the share is of all the parts' cores.
func TestMergeCPU(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b, c := part(start), part(start), part(start)
	a.CPU = &result.CPU{UserSeconds: 1, SysSeconds: 0.5, Seconds: 1.5, WallSeconds: 2, Cores: 2, Msgs: 3000}
	b.CPU = &result.CPU{UserSeconds: 2, SysSeconds: 0.5, Seconds: 2.5, WallSeconds: 4, Cores: 2, Msgs: 5000, Saturated: true}
	m, err := result.Merge(a, b, c) // c measured nothing
	if err != nil {
		t.Fatal(err)
	}
	want := result.CPU{UserSeconds: 3, SysSeconds: 1, Seconds: 4, WallSeconds: 4, Cores: 4, CoreShare: 0.25, Msgs: 8000, MsgsPerCPUSecond: 2000, Saturated: true}
	if m.CPU == nil || *m.CPU != want {
		t.Fatalf("merged CPU %+v, want %+v", m.CPU, want)
	}
	if m, _ := result.Merge(part(start), part(start)); m.CPU != nil {
		t.Errorf("parts without CPU figures merged into %+v", m.CPU)
	}
}

// The parts' JetStream latency breakdowns merge exactly, as their latencies do.
func TestMergeBreakdown(t *testing.T) {
	part := func(storedNs, deliveredNs int64) *result.Result {
		hs, hd := histo.New(), histo.New()
		for range 100 {
			histo.Record(hs, storedNs)
			histo.Record(hd, deliveredNs)
		}
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		return &result.Result{Schema: result.Schema, Tool: result.Tool{Name: "natsperf", Version: "v"}, Command: "pubsub", Start: start, End: start.Add(time.Second),
			Stop: result.Stop{Reason: result.StopCompleted}, Groups: []result.Group{{Name: "sub", Aggregate: result.Aggregate{Msgs: 100,
				Breakdown: &result.Breakdown{PublishToStored: histo.Summary(hs, true), StoredToDelivered: histo.Summary(hd, true)}}}}}
	}
	res, err := result.Merge(part(1_000_000, 2_000_000), part(3_000_000, 4_000_000))
	if err != nil {
		t.Fatal(err)
	}
	b := res.Groups[0].Aggregate.Breakdown
	if b == nil || b.PublishToStored.Count != 200 || b.StoredToDelivered.Count != 200 ||
		b.PublishToStored.Min > 1_001_000 || b.PublishToStored.Max < 2_999_000 || b.StoredToDelivered.Min > 2_001_000 || b.StoredToDelivered.Max < 3_999_000 {
		t.Fatalf("merged breakdown %+v %+v", b.PublishToStored, b.StoredToDelivered)
	}
}

// TestMergeShiftsStretches: a later part's stretches without success and its failed
// operations move onto the merged run's time (by how much later it started), and the part's
// own Result is left as it was.
func TestMergeShiftsStretches(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := part(start, result.Group{Name: "pub", Kind: "k", Clients: []result.Client{{ID: 1}}})
	run := result.Refusals{Reason: result.ReasonNoResponders, Count: 3, From: time.Second, To: 2 * time.Second}
	b := part(start.Add(500*time.Millisecond), result.Group{Name: "pub", Kind: "k", Clients: []result.Client{{
		ID: 1, Gaps: []result.Gap{{From: time.Second, To: 2 * time.Second, Duration: time.Second}},
		Refused: []result.Refusals{run}, TimedOut: []result.Refusals{run},
	}}})
	m, err := result.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got *result.Client
	for i, c := range m.Groups[0].Clients {
		if len(c.Refused) > 0 {
			got = &m.Groups[0].Clients[i]
		}
	}
	if got == nil {
		t.Fatalf("merged clients %+v: the second part's refusals are gone", m.Groups[0].Clients)
	}
	want := 1500 * time.Millisecond
	if got.Refused[0].From != want || got.TimedOut[0].From != want || got.Gaps[0].From != want || got.Refused[0].Count != 3 {
		t.Errorf("merged: refused %+v, timed out %+v, gaps %+v: want each from %v", got.Refused, got.TimedOut, got.Gaps, want)
	}
	if own := b.Groups[0].Clients[0]; own.Refused[0].From != time.Second || own.Gaps[0].From != time.Second {
		t.Errorf("the part's own Result changed: %+v", own)
	}
}
