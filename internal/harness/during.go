package harness

import (
	"context"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/result"
)

// startDuring runs the plan's During alongside the clients; the function it returns ends it
// (the clients are done) and returns its windows.
func (r *Runner) startDuring(ctx context.Context, p *Plan, start time.Time) func() []result.Window {
	if p.During == nil {
		return func() []result.Window { return nil }
	}
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan []result.Window, 1)
	go func() { out <- p.During(ctx, start) }()
	return func() []result.Window {
		cancel()
		return <-out
	}
}

// windowStats fills each window with every group's messages and latency in it.
func windowStats(p *Plan, slots []*slot, epoch int64, windows []result.Window) []result.Window {
	for i := range windows {
		w := &windows[i]
		for _, g := range p.Groups {
			var recs []*record.Recorder
			for _, s := range slots {
				if s.group == g {
					recs = append(recs, s.env.Rec)
				}
			}
			msgs, lat := record.Window(recs, epoch+int64(w.From), epoch+int64(w.To))
			wg := result.WindowGroup{Name: g.Name, Msgs: msgs}
			if lat != nil {
				wg.Latency = histo.Summary(lat, false)
			}
			w.Groups = append(w.Groups, wg)
		}
	}
	return windows
}
