package cli

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/result"
)

// inMsgs samples the server's own count of messages received (/varz in_msgs) every few
// milliseconds: a reference natsperf's arithmetic has no part in.
type inMsgs struct {
	mu      sync.Mutex
	at      []time.Time
	n       []int64
	stop    chan struct{}
	stopped chan struct{}
}

func sampleInMsgs(t *testing.T, s *server.Server) *inMsgs {
	t.Helper()
	m := &inMsgs{stop: make(chan struct{}), stopped: make(chan struct{})}
	// The first sample is taken here, before the run starts: taken by the goroutine, a busy
	// host could delay it past the first messages and the server would seem to lack them.
	v, err := s.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	m.at, m.n = []time.Time{time.Now()}, []int64{v.InMsgs}
	go func() {
		defer close(m.stopped)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			v, err := s.Varz(nil)
			if err == nil {
				m.mu.Lock()
				m.at, m.n = append(m.at, time.Now()), append(m.n, v.InMsgs)
				m.mu.Unlock()
			}
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(m.end)
	return m
}

func (m *inMsgs) end() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.stopped
}

// before is the last sample at which the server had not yet taken in n messages more than at
// the first sample: all n arrived after it, whatever delays the sampling itself had.
func (m *inMsgs) before(t *testing.T, n int64) time.Time {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		m.mu.Lock()
		last := m.n[len(m.n)-1] - m.n[0]
		m.mu.Unlock()
		if last >= n {
			break
		}
	}
	m.end()
	for i := range m.n {
		if m.n[i]-m.n[0] >= n {
			return m.at[i-1]
		}
	}
	t.Fatalf("the server took in %d messages, natsperf says it sent %d", m.n[len(m.n)-1]-m.n[0], n)
	return time.Time{}
}

var notReached = regexp.MustCompile(`target rate not reached: [\d,]+ msgs/sec asked, ([\d,]+) msgs/sec achieved`)

// checkBehindRate runs a fixed-rate command far above what this machine can send and holds
// its reported rates against the server's: the messages over the time from the publisher's
// first slot to the last moment the server was seen without all of them, a rate the
// publisher cannot have exceeded (a late sample only makes that bound looser), however
// loaded the host. 2% slack for the clock reads.
func checkBehindRate(t *testing.T, s *server.Server, args ...string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "r.json")
	ref := sampleInMsgs(t, s)
	r := run(context.Background(), t, nil, append(args, "-s", s.ClientURL(), "--no-progress", "-o", file)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s %s", r.code, r.out, r.err)
	}
	res, err := result.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a := group(t, res, "pub").Aggregate
	notYet := ref.before(t, a.Msgs)
	server := float64(a.Msgs) / notYet.Sub(a.Start).Seconds()
	t.Logf("natsperf: %d msgs at %.0f msgs/sec; server: at most %.0f msgs/sec", a.Msgs, a.MsgsPerSec, server)
	if a.MsgsPerSec > server*1.02 {
		t.Errorf("reported %.0f msgs/sec, the server took them in at %.0f msgs/sec", a.MsgsPerSec, server)
	}
	m := notReached.FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no \"target rate not reached\" line in %q", r.out)
	}
	said, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	if said > server*1.02 {
		t.Errorf("\"target rate not reached\" says %.0f msgs/sec achieved, the server took in %.0f", said, server)
	}
}

// TestBehindScheduleRateIsTrue: a fixed-rate publisher that cannot keep up reports the rate
// at which its messages really left, not one measured up to the start of its last catch-up.
func TestBehindScheduleRateIsTrue(t *testing.T) {
	s := startServer(t, nil)
	t.Run("pub", func(t *testing.T) {
		checkBehindRate(t, s, "pub", "behind", "--rate", "5e7", "--duration", "1s", "--size", "16")
	})
	t.Run("pubsub", func(t *testing.T) {
		checkBehindRate(t, s, "pubsub", "behind2", "--rate", "1e7", "--duration", "1s", "--size", "16")
	})
}

// TestDurationIsATimeLimit: with a rate the machine cannot reach, --duration still ends the
// run (rate x duration is not a message count), and the report says what was reached.
func TestDurationIsATimeLimit(t *testing.T) {
	s := startServer(t, nil)
	url := s.ClientURL()
	serveCtx, stopServe := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		run(serveCtx, t, nil, "service", "serve", "limit.svc", "-s", url, "--no-progress")
	}()
	t.Cleanup(func() { stopServe(); <-served })
	waitForSubs(t, s, "limit.svc", 1)
	for _, args := range [][]string{
		{"pub", "limit", "--rate", "1e8", "--duration", "1s"},
		{"pubsub", "limit2", "--rate", "1e8", "--duration", "1s"},
		{"service", "request", "limit.svc", "--rate", "1e6", "--duration", "1s"},
		{"js", "pub", "sync", "limit.js", "--rate", "1e6", "--duration", "1s", "--create", "--stream", "LIMITSYNC", "--maxbytes", "16MiB"},
		{"js", "pub", "async", "limit.jsa", "--rate", "1e7", "--duration", "1s", "--create", "--stream", "LIMITASYNC", "--maxbytes", "16MiB"},
		{"latency", "--rate", "1e7", "--duration", "1s", "--size", "16"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			start := time.Now()
			r := run(context.Background(), t, nil, append(args, "-s", url, "--no-progress")...)
			took := time.Since(start)
			t.Logf("took %v", took)
			if r.code != 0 {
				t.Fatalf("exit %d: %s %s", r.code, r.out, r.err)
			}
			// Setup (connecting, a stream) and the end (flush, acks) come on top of the 1s.
			if took > 8*time.Second {
				t.Errorf("a 1s run took %v", took)
			}
			if !strings.Contains(r.out, "target rate not reached") && !strings.Contains(r.out, "Warning: target rate not reached") {
				t.Errorf("no \"target rate not reached\" in %q", r.out)
			}
		})
	}
}

// TestInterruptMidCatchUp: Ctrl-C while a fixed-rate sender is far behind its schedule ends
// the run within a second, exit 130, with the partial result.
func TestInterruptMidCatchUp(t *testing.T) {
	s := startServer(t, nil)
	for _, args := range [][]string{
		{"pub", "catchup", "--rate", "1e9", "--duration", "30s"},
		{"pub", "catchup", "--rate", "1e9", "--msgs", "100000000"},
		{"js", "pub", "async", "catchup.js", "--rate", "1e9", "--duration", "30s", "--create", "--maxbytes", "16MiB"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var cancelled time.Time
			time.AfterFunc(1500*time.Millisecond, func() { cancelled = time.Now(); cancel() })
			r := run(ctx, t, nil, append(args, "-s", s.ClientURL(), "--no-progress")...)
			took := time.Since(cancelled)
			t.Logf("ended %v after the interrupt", took)
			if r.code != exitInterrupted || !strings.Contains(r.out, "interrupted") {
				t.Fatalf("exit %d out %q err %q", r.code, r.out, r.err)
			}
			if took > 2*time.Second {
				t.Errorf("the run ended %v after the interrupt, want within 1s (+1s slack for a loaded host)", took)
			}
		})
	}
}

// TestCPUSummary: every Result carries the process's CPU time for the run, no more than the
// process's own getrusage account over the whole command (setup included there), and --cpu
// prints it with the messages per CPU-second.
func TestCPUSummary(t *testing.T) {
	s := startServer(t, nil)
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	file := filepath.Join(t.TempDir(), "r.json")
	r := run(context.Background(), t, nil, "pub", "cpu", "--msgs", "200000", "--size", "16", "--cpu", "-o", file, "-s", s.ClientURL(), "--no-progress")
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	if r.code != 0 {
		t.Fatalf("exit %d: %s %s", r.code, r.out, r.err)
	}
	res, err := result.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := res.CPU
	process := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()).Seconds()
	if c == nil || c.Seconds <= 0 || c.Seconds > process+0.01 || c.Msgs != 200000 || c.Cores < 1 {
		t.Fatalf("cpu %+v; the process spent %.3fs on the whole command", c, process)
	}
	if got := float64(c.Msgs) / c.Seconds; math.Abs(got-c.MsgsPerCPUSecond) > got*1e-9 {
		t.Fatalf("msgs per CPU-second %.0f, want %.0f", c.MsgsPerCPUSecond, got)
	}
	if !regexp.MustCompile(`CPU: [\d.]+s \(user [\d.]+s, sys [\d.]+s\) in [\d.]+s · \d+% of \d+ cores · [\d,]+ msgs per CPU-second`).MatchString(r.out) {
		t.Fatalf("no CPU line in %q", r.out)
	}
}
