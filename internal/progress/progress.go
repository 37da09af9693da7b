// Package progress draws one bar per client on a terminal while a run goes, like nats bench.
package progress

import (
	"io"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/natsperf/natsperf/runner"
)

// Bars shows mpb progress bars on W, refreshed every 150ms.
type Bars struct {
	W io.Writer
}

// Start implements runner.Progress.
func (b Bars) Start(bars []runner.Bar) func() {
	p := mpb.New(mpb.WithOutput(b.W), mpb.WithWidth(64), mpb.WithRefreshRate(150*time.Millisecond))
	stop := make(chan struct{})
	finished := make(chan struct{})
	type live struct {
		bar *mpb.Bar
		src runner.Bar
	}
	var all []live
	for _, src := range bars {
		total := src.Total
		if total <= 0 {
			total = 0 // open-ended: the bar grows with the count
		}
		bar := p.New(total,
			mpb.BarStyle().Lbound("[").Filler("=").Tip(">").Padding(" ").Rbound("]"),
			mpb.PrependDecorators(
				decor.OnComplete(decor.Name(src.Label, decor.WCSyncSpaceR), "Finished"),
				decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace),
			),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace)),
		)
		all = append(all, live{bar, src})
	}
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			done := true
			for _, l := range all {
				n := l.src.Count()
				select {
				case <-l.src.Done:
					if !l.bar.Completed() {
						l.bar.SetTotal(n, true)
					}
					continue
				default:
				}
				done = false
				if l.src.Total <= 0 {
					l.bar.SetTotal(n+1, false)
				}
				l.bar.SetCurrent(n)
			}
			if done {
				return
			}
			select {
			case <-stop:
				for _, l := range all {
					if !l.bar.Completed() {
						l.bar.Abort(false)
					}
				}
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
		p.Wait()
	}
}
