// Package reporttest writes fixed, seeded run directories for report and compare tests: the
// same seed gives byte-identical Results (fixed clock, no host data).
package reporttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// Epoch is the fixtures' clock.
var Epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Write writes a run directory of 2 cells (storage file|memory) x reps repetitions with two
// instances of pub/sub each. speed scales the rates (1 = baseline), slow the latencies.
func Write(dir string, seed uint64, reps int, speed, slow float64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ix := &scenario.Index{Schema: scenario.IndexSchema, Scenario: "fixture", File: "fixture.yaml",
		Axes: []scenario.Axis{{Name: "storage", Values: []string{"file", "memory"}}}, Started: Epoch, Updated: Epoch}
	for ci, storage := range []string{"file", "memory"} {
		cell := scenario.IndexCell{Index: ci, Name: "storage=" + storage, Values: map[string]string{"storage": storage}}
		base := 1000.0
		if storage == "memory" {
			base = 1400
		}
		for rep := 1; rep <= reps; rep++ {
			name := fmt.Sprintf("%03d-storage-%s-r%d.json", ci+1, storage, rep)
			start := Epoch.Add(time.Duration(ci*reps+rep) * time.Minute)
			res := &result.Result{Schema: result.Schema, Tool: result.Tool{Name: "natsperf", Version: "test", Go: "go"},
				Command: "run", Host: result.Host{OS: "linux", Arch: "amd64", CPUs: 2, Go: "go"},
				Start: start, End: start.Add(5 * time.Second), Stop: result.Stop{Reason: result.StopCompleted}}
			settings := map[string]any{"scenario": map[string]any{"name": "fixture", "cell": cell.Name, "cell_index": ci, "values": cell.Values, "repetition": rep}}
			res.Settings, _ = json.Marshal(settings)
			for _, pod := range []string{"pod1", "pod2"} {
				for _, role := range []string{"pub", "sub"} {
					res.Groups = append(res.Groups, group(rng, pod+"/"+role, base*speed*map[string]float64{"pub": 1, "sub": 2}[role], slow))
				}
			}
			res.Streams = []result.StreamState{{Name: "default", Storage: storage, Replicas: 3, Messages: 2000, Bytes: 2_100_000,
				Published: 2000, MsgSize: 1024, ExpectedBytes: 6_144_000, StoredBytes: 6_300_000}}
			if err := result.WriteFile(filepath.Join(dir, name), res); err != nil {
				return err
			}
			cell.Runs = append(cell.Runs, scenario.IndexRun{Repetition: rep, Result: name, Stop: result.StopCompleted, Start: res.Start, End: res.End})
		}
		ix.Cells = append(ix.Cells, cell)
	}
	return scenario.WriteIndex(dir, ix)
}

func group(rng *rand.Rand, name string, rate, slow float64) result.Group {
	g := result.Group{Name: name, Kind: "fixture", Expected: 2000}
	h := histo.New()
	var msgs int64
	for id := 1; id <= 2; id++ {
		r := rate * (0.9 + 0.2*rng.Float64())
		g.Clients = append(g.Clients, result.Client{ID: id, Expected: 1000, Msgs: 1000, Bytes: 1024000, MsgsPerSec: r, BytesPerSec: r * 1024})
		msgs += 1000
	}
	for range 2000 {
		histo.Record(h, int64(slow*float64(500_000+rng.IntN(1_500_000))*(1+9*rng.Float64()*rng.Float64()*rng.Float64())))
	}
	sum := 0.0
	for _, c := range g.Clients {
		sum += c.MsgsPerSec
	}
	g.Aggregate = result.Aggregate{Msgs: msgs, Bytes: msgs * 1024, MsgsPerSec: sum, BytesPerSec: sum * 1024,
		Rates:   result.Spread{Min: g.Clients[0].MsgsPerSec, Avg: sum / 2, Max: g.Clients[1].MsgsPerSec},
		Latency: histo.Summary(h, true), Correctness: &result.Correctness{Received: msgs, Publishers: 2}}
	for i := range 5 {
		g.Series = append(g.Series, result.Interval{Offset: time.Duration(i) * time.Second, Msgs: int64(sum * (0.8 + 0.4*rng.Float64()))})
	}
	return g
}

// Fail turns repetition rep of cell (its Result and its index entry) into a failed run that
// still carries groups with zero rates, as a run that lost its connection early does.
func Fail(dir, cell string, rep int, reason string) error {
	ix, err := scenario.ReadIndex(dir)
	if err != nil {
		return err
	}
	for ci := range ix.Cells {
		if ix.Cells[ci].Name != cell {
			continue
		}
		for ri, r := range ix.Cells[ci].Runs {
			if r.Repetition != rep {
				continue
			}
			path := filepath.Join(dir, r.Result)
			res, err := result.ReadFile(path)
			if err != nil {
				return err
			}
			res.Stop = result.Stop{Reason: result.StopFailed, Error: reason}
			for gi := range res.Groups {
				g := &res.Groups[gi]
				for i := range g.Clients {
					g.Clients[i].MsgsPerSec, g.Clients[i].Msgs = 0, 0
				}
				g.Aggregate.MsgsPerSec, g.Aggregate.Msgs, g.Aggregate.Rates = 0, 0, result.Spread{}
			}
			if err := result.WriteFile(path, res); err != nil {
				return err
			}
			ix.Cells[ci].Runs[ri].Stop, ix.Cells[ci].Runs[ri].Error = result.StopFailed, reason
			return scenario.WriteIndex(dir, ix)
		}
	}
	return fmt.Errorf("no run %s repetition %d", cell, rep)
}

// Factors scale a matrix cell against the baseline: publish and receive rates, latencies,
// and stored bytes per expected byte.
type Factors struct{ Rate, Latency, Overhead float64 }

// WriteMatrix writes a run directory over axes (every combination, in order, except those
// skip drops: an unbalanced matrix) with reps repetitions, each cell's figures scaled by
// effect. Rates vary ±3% between runs, so the effects are known to a few percent.
func WriteMatrix(dir string, seed uint64, axes []scenario.Axis, reps int, effect func(map[string]string) Factors, skip func(map[string]string) bool) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ix := &scenario.Index{Schema: scenario.IndexSchema, Scenario: "matrix", File: "matrix.yaml", Axes: axes, Started: Epoch, Updated: Epoch}
	combos := []map[string]string{{}}
	for _, a := range axes {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range a.Values {
				m := map[string]string{a.Name: v}
				for k, x := range c {
					m[k] = x
				}
				next = append(next, m)
			}
		}
		combos = next
	}
	ci := 0
	for _, values := range combos {
		if skip != nil && skip(values) {
			continue
		}
		var parts []string
		for _, a := range axes {
			parts = append(parts, a.Name+"="+values[a.Name])
		}
		cell := scenario.IndexCell{Index: ci, Name: strings.Join(parts, ","), Values: values}
		f := effect(values)
		for rep := 1; rep <= reps; rep++ {
			name := fmt.Sprintf("%03d-r%d.json", ci+1, rep)
			start := Epoch.Add(time.Duration(ci*reps+rep) * time.Minute)
			res := &result.Result{Schema: result.Schema, Tool: result.Tool{Name: "natsperf", Version: "test", Go: "go"},
				Command: "run", Host: result.Host{OS: "linux", Arch: "amd64", CPUs: 2, Go: "go"},
				Start: start, End: start.Add(5 * time.Second), Stop: result.Stop{Reason: result.StopCompleted}}
			res.Settings, _ = json.Marshal(map[string]any{"scenario": map[string]any{"name": "matrix", "cell": cell.Name, "cell_index": ci, "values": values, "repetition": rep}})
			for _, role := range []string{"pub", "sub"} {
				g := group(rng, "pod1/"+role, 1000*f.Rate*(0.97+0.06*rng.Float64())/1.0, f.Latency)
				res.Groups = append(res.Groups, g)
			}
			res.Streams = []result.StreamState{{Name: "default", Storage: "file", Replicas: 1, Messages: 2000, Bytes: 2_100_000,
				Published: 2000, MsgSize: 1024, ExpectedBytes: 2_048_000, StoredBytes: uint64(2_048_000 * f.Overhead)}}
			if err := result.WriteFile(filepath.Join(dir, name), res); err != nil {
				return err
			}
			cell.Runs = append(cell.Runs, scenario.IndexRun{Repetition: rep, Result: name, Stop: result.StopCompleted, Start: res.Start, End: res.End})
		}
		ix.Cells = append(ix.Cells, cell)
		ci++
	}
	return scenario.WriteIndex(dir, ix)
}

// Soak describes a synthetic long run: rate msgs/s per publisher client (2 publishers, 2
// subscribers each receiving everything), a stall in which nothing moves, a fault, and a
// receive latency growing linearly from Lat0 to Lat1 over the run.
type Soak struct {
	Duration, Interval time.Duration
	Rate               float64
	StallAt, StallFor  time.Duration
	FaultAt, FaultTook time.Duration
	Lat0, Lat1         time.Duration
}

// WriteSoak writes a run directory with one run whose interval records are streamed to a
// series file, as examples/stability.yaml makes.
func WriteSoak(dir string, s Soak) error {
	ix := &scenario.Index{Schema: scenario.IndexSchema, Scenario: "stability", File: "stability.yaml", Description: "synthetic soak",
		Vars: map[string]string{"duration": s.Duration.String()}, Started: Epoch, Updated: Epoch}
	name, series := "001-r1.json", "001-r1.series.jsonl"
	res := &result.Result{Schema: result.Schema, Tool: result.Tool{Name: "natsperf", Version: "test", Go: "go"}, Command: "run",
		Host: result.Host{OS: "linux", Arch: "amd64", CPUs: 2, Go: "go"}, Start: Epoch, End: Epoch.Add(s.Duration), Stop: result.Stop{Reason: result.StopCompleted}}
	res.Settings, _ = json.Marshal(map[string]any{"scenario": map[string]any{"name": "stability", "cell": "default", "cell_index": 0, "repetition": 1},
		"workloads": map[string]any{"pod1": map[string]any{"settings": map[string]any{"bench": map[string]any{"interval": int64(s.Interval)}}}}})
	if s.FaultTook > 0 {
		res.Faults = &result.Faults{Timeline: []result.FaultEvent{{Spec: fmt.Sprintf("%s:kill-leader", s.FaultAt), Kind: "kill-leader", At: s.FaultAt, Started: s.FaultAt, Took: s.FaultTook}}}
	}
	// A handful of encoded histograms, reused: the latency steps up in 16 levels.
	var lats []string
	for i := range 16 {
		h := histo.New()
		lat := s.Lat0 + (s.Lat1-s.Lat0)*time.Duration(i)/15
		for j := range 20 {
			histo.Record(h, int64(lat)+int64(j)*int64(lat)/100)
		}
		enc, err := histo.Encode(h)
		if err != nil {
			return err
		}
		lats = append(lats, enc)
	}
	f, err := os.Create(filepath.Join(dir, series))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	per := int64(s.Rate * s.Interval.Seconds())
	var total int64
	for t := time.Duration(0); t < s.Duration; t += s.Interval {
		msgs := per
		if t >= s.StallAt && t < s.StallAt+s.StallFor {
			msgs = 0
		}
		lat := lats[int(15*t/s.Duration)]
		for _, src := range []string{"pod1/pub/1", "pod1/pub/2", "pod1/sub/1", "pod1/sub/2"} {
			m, l := msgs, ""
			if strings.Contains(src, "/sub/") {
				m = 2 * msgs
				if m > 0 {
					l = lat
				}
			} else {
				total += m
			}
			line, _ := json.Marshal(map[string]any{"t": Epoch.Add(t).UnixNano(), "src": src, "msgs": m, "bytes": m * 16, "lat": l})
			w.Write(line)
			w.WriteByte('\n')
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, role := range []string{"pub", "sub"} {
		n := total
		if role == "sub" {
			n = 2 * total
		}
		rate := float64(n) / s.Duration.Seconds()
		res.Groups = append(res.Groups, result.Group{Name: "pod1/" + role, Kind: "fixture", Expected: n,
			Clients:   []result.Client{{ID: 1, Msgs: n / 2, MsgsPerSec: rate / 2}, {ID: 2, Msgs: n / 2, MsgsPerSec: rate / 2}},
			Aggregate: result.Aggregate{Msgs: n, MsgsPerSec: rate, Rates: result.Spread{Min: rate / 2, Avg: rate / 2, Max: rate / 2}}})
	}
	if err := result.WriteFile(filepath.Join(dir, name), res); err != nil {
		return err
	}
	ix.Cells = []scenario.IndexCell{{Index: 0, Name: "default", Runs: []scenario.IndexRun{{Repetition: 1, Result: name, Series: series, Stop: result.StopCompleted, Start: res.Start, End: res.End}}}}
	return scenario.WriteIndex(dir, ix)
}
