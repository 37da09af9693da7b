package latency

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

func TestByteSize(t *testing.T) {
	// The values latency-tests' README prints.
	tests := []struct {
		n    float64
		want string
	}{
		{8, "8B"}, {512, "512B"}, {1024, "1.0K"}, {1000 * 512 * 2, "1000K"}, {998 * 512 * 2, "998K"},
		{10000 * 16184 * 2, "309M"}, {3 << 30, "3.0G"},
	}
	for _, tt := range tests {
		if got := ByteSize(tt.n); got != tt.want {
			t.Errorf("ByteSize(%v) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestReportWithoutMessages(t *testing.T) {
	var buf bytes.Buffer
	r := Report{Size: 16, Duration: time.Second, Rate: 1000}
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"99.99999: n/a", "Median Latency : n/a", "Lost Messages  : 0", "Warning: target rate not reached: 1000 msgs/sec asked, 0 achieved"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestLostNotWaitedFor has the subscriber expect 50 messages more than are sent: it must end
// about MinDrain after the publisher and not count them lost (they were never sent), while
// messages the publisher sent and the subscriber never saw are (TestSentTail in internal/record).
func TestLostNotWaitedFor(t *testing.T) {
	srv, err := embedded.Start(context.Background(), embedded.Options{JetStreamMaxMemory: 16 << 20, JetStreamMaxStore: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	link := NewLink("lat.lost")
	pcfg := core.PubConfig{Size: 24, Rate: 1000, IDs: stamp.NewIDs()}
	plan := &harness.Plan{
		Command: "latency", Latency: true,
		Groups: []*harness.Group{
			{Name: "pub", Clients: 1, Shares: []int64{200}, Producer: true, Rate: 1000,
				New: func(int) harness.Client { return NewPublisher(pcfg, link) }},
			{Name: "sub", Clients: 1, Shares: []int64{250}, HearsProducers: true,
				New: func(int) harness.Client { return NewSubscriber(link) }},
		},
	}
	r := &harness.Runner{Dial: func(_ context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return nats.Connect(srv.URL(), append(opts, nats.Name(name))...)
	}}
	begin := time.Now()
	res, err := r.Execute(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(begin)
	if took > 200*time.Millisecond+MinDrain+time.Second {
		t.Fatalf("run took %v: the subscriber waited for lost messages", took)
	}
	if res.Stop.Reason != result.StopIdle {
		t.Fatalf("stop %+v, want idle (the rest never came)", res.Stop)
	}
	pubRTT, subRTT := link.RTTs()
	if pubRTT <= 0 || subRTT <= 0 {
		t.Fatalf("RTTs %v %v", pubRTT, subRTT)
	}
	rep := FromResult(res, begin, link.LastSent(), pubRTT, subRTT, 24, 200*time.Millisecond, 1000)
	if rep.Sent != 200 || rep.Received != 200 || rep.Lost != 0 {
		t.Fatalf("sent %d received %d lost %d, want 200 200 0", rep.Sent, rep.Received, rep.Lost)
	}
	// Every message arrived, so the last one was sent before it was received: the last send
	// is measured, not the publisher's End (the slot after it, which printed "Last Recv Wall
	// Time: 2.999092s" before "Last Sent Wall Time: 3s").
	if rep.LastSent <= 0 || rep.LastSent > rep.LastRecv {
		t.Errorf("last sent %v, last received %v: a receive before the last send", rep.LastSent, rep.LastRecv)
	}
	// Read back from the Result alone, the last send is the last slot's start.
	if back := FromResult(res, begin, time.Time{}, pubRTT, subRTT, 24, 200*time.Millisecond, 1000); back.LastSent > back.LastRecv {
		t.Errorf("from the Result: last sent %v after the last receive %v", back.LastSent, back.LastRecv)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Lost Messages  : 0\n") {
		t.Fatalf("report:\n%s", buf.String())
	}
}
