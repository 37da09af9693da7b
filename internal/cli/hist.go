package cli

import (
	"bufio"
	"fmt"
	"os"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// plotterURL is where the .hgrm files --hist writes can be plotted.
const plotterURL = "https://hdrhistogram.github.io/HdrHistogram/plotFiles.html"

// saveHist writes the latency of the run's measured group to path ("" writes nothing).
func (a *app) saveHist(path string, res *result.Result) error {
	if path == "" {
		return nil
	}
	g := measuredGroup(res)
	if g == nil {
		return fmt.Errorf("--hist %s: no latency was recorded (--no-latency, or messages smaller than the 16-byte stamp)", path)
	}
	if err := writeHGRMFile(path, g.Aggregate.Latency); err != nil {
		return err
	}
	w := a.streams.Out
	if a.out.JSON {
		w = a.streams.Err
	}
	fmt.Fprintf(w, "Latency histogram of the %s saved to %s (plot it at %s)\n", g.Kind, path, plotterURL)
	return nil
}

// measuredGroup is the group whose latency --hist writes: the last with a latency histogram,
// which is the receivers of a pub/sub run and the requesters of a service run.
func measuredGroup(res *result.Result) *result.Group {
	for i := len(res.Groups) - 1; i >= 0; i-- {
		if l := res.Groups[i].Aggregate.Latency; l != nil && l.Histogram != "" {
			return &res.Groups[i]
		}
	}
	return nil
}

// writeHGRMFile decodes the summary's histogram and writes it as .hgrm.
func writeHGRMFile(path string, l *result.Latency) error {
	h, err := histo.Decode(l.Histogram)
	if err != nil {
		return fmt.Errorf("--hist %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--hist: %w", err)
	}
	w := bufio.NewWriter(f)
	err = histo.WriteHGRM(w, h)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--hist %s: %w", path, err)
	}
	return nil
}
