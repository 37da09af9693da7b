package live

import (
	"math"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/record"
)

func TestSinkWritesAndMetrics(t *testing.T) {
	h := histo.New()
	histo.Record(h, 2_000_000)
	lat, _ := histo.Encode(h)
	m := NewMetrics(4)
	m.StartRun("storage=file", "001-r1", time.Second)
	path := filepath.Join(t.TempDir(), "s.series.jsonl")
	s, err := Open(path, m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for c := 1; c <= 2; c++ {
			s.C() <- record.Slice{Start: int64(i+1) * 1e9, Msgs: 100, Bytes: 1000, Lat: lat, Src: "pod1/sub/" + string(rune('0'+c))}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	lines, err := Read(path)
	if err != nil || len(lines) != 6 || lines[5].Src != "pod1/sub/2" || lines[0].Msgs != 100 {
		t.Fatalf("lines %+v, %v", lines, err)
	}
	w := httptest.NewRecorder()
	m.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	b := w.Body
	for _, want := range []string{
		`natsperf_messages_total{cell="storage=file",group="pod1/sub",run="001-r1"} 600`,
		`natsperf_rate_msgs_per_second{cell="storage=file",group="pod1/sub",run="001-r1"} 200`,
		"# TYPE natsperf_latency_seconds summary",
		`natsperf_latency_seconds{cell="storage=file",group="pod1/sub",run="001-r1",quantile="0.99"} 0.002`,
		`natsperf_latency_seconds_count{cell="storage=file",group="pod1/sub",run="001-r1"} 6`, // every interval, not the last
		"# TYPE natsperf_runs_completed_total counter",
		"natsperf_runs_planned 4",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, b.String())
		}
	}
	// Six recorded latencies of 2ms: the sum is 12ms, to HdrHistogram's 3 significant digits.
	sumRE := regexp.MustCompile(`(?m)^natsperf_latency_seconds_sum\{[^}]*group="pod1/sub"[^}]*\} (\S+)$`)
	m2 := sumRE.FindStringSubmatch(b.String())
	if m2 == nil {
		t.Fatalf("no latency sum:\n%s", b.String())
	}
	if sum, err := strconv.ParseFloat(m2[1], 64); err != nil || math.Abs(sum-0.012) > 0.012*1e-3 {
		t.Errorf("latency sum %s, want 0.012 (6 x 2ms)", m2[1])
	}
}

// TestRecorderKeepsWhatTheSinkCannotTake: a full sink never loses an interval.
func TestRecorderKeepsWhatTheSinkCannotTake(t *testing.T) {
	sink := make(chan record.Slice, 1)
	clk := record.NewClock()
	r := record.New(record.Options{Clock: clk, Interval: 10 * time.Millisecond, Sink: sink, Src: "g/1"})
	r.Start(1, 0)
	for i := range 5 {
		r.Sent(int64(1+i*10_000_000), 10)
	}
	r.Finish()
	kept := record.Series([]*record.Recorder{r}, 1)
	if len(sink) != 1 || len(kept) != 4 {
		t.Fatalf("sink %d, kept %d; want 1 and 4", len(sink), len(kept))
	}
	if got := <-sink; got.Src != "g/1" || got.Msgs != 1 {
		t.Fatalf("slice %+v", got)
	}
}
