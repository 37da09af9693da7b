package latency

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// Rows are the percentiles of latency-tests' "HDR Percentiles:" block.
var Rows = []float64{10, 50, 75, 90, 99, 99.9, 99.99, 99.999, 99.9999, 99.99999, 100}

const rule = "=============================="

// Report is what `natsperf latency` prints.
type Report struct {
	PubRTT, SubRTT time.Duration
	Size           int64
	Duration       time.Duration
	Rate           float64 // target msgs/sec
	ActualRate     float64 // achieved by the publisher
	Latency        *result.Latency
	// FirstSent is from the command's start to the first send; LastSent and LastRecv are from
	// the first send, as latency-tests measures its wall times.
	FirstSent, LastSent, LastRecv time.Duration
	Sent, Received, Lost          int64
}

// FromResult gathers the report from a latency run: group 0 publishes, group 1 receives.
// lastSent is when the publisher sent its last message, as measured (Link.LastSent); zero
// for a Result read back, which has only the publisher's End, the slot after its last
// message: the last send is then that slot's start, when the schedule kept its rate.
func FromResult(res *result.Result, started, lastSent time.Time, pubRTT, subRTT time.Duration, size int64, d time.Duration, rate float64) Report {
	r := Report{PubRTT: pubRTT, SubRTT: subRTT, Size: size, Duration: d, Rate: rate}
	if len(res.Groups) < 2 {
		return r
	}
	pub, sub := res.Groups[0].Aggregate, res.Groups[1].Aggregate
	r.ActualRate, r.Sent, r.Received, r.Latency = pub.MsgsPerSec, pub.Msgs, sub.Msgs, sub.Latency
	if c := sub.Correctness; c != nil {
		r.Lost = c.Lost // what the publisher sent and never arrived (record.SentTail)
	}
	if !pub.Start.IsZero() {
		r.FirstSent = pub.Start.Sub(started)
		switch {
		case !lastSent.IsZero():
			r.LastSent = lastSent.Sub(pub.Start)
		case rate > 0 && r.Sent > 0:
			r.LastSent = pub.End.Sub(pub.Start) - time.Duration(float64(time.Second)/rate)
		default:
			r.LastSent = pub.End.Sub(pub.Start)
		}
		if !sub.End.IsZero() {
			r.LastRecv = sub.End.Sub(pub.Start)
		}
	}
	return r
}

// Write prints the report blocks in latency-tests' shape, then what they leave out: the
// message counts, losses and the latency from the actual send.
func (r Report) Write(w io.Writer) error {
	p := &printer{w: w}
	p.line(rule)
	p.line("Pub Server RTT : %v", dur(int64(r.PubRTT)))
	p.line("Sub Server RTT : %v", dur(int64(r.SubRTT)))
	p.line("Message Payload: %s", ByteSize(float64(r.Size)))
	p.line("Target Duration: %v", r.Duration)
	p.line("Target Msgs/Sec: %v", int64(r.Rate))
	p.line("Target Band/Sec: %s", ByteSize(r.Rate*float64(r.Size)*2))
	p.line(rule)
	p.line("HDR Percentiles:")
	for _, q := range Rows {
		p.line("%-10s%v", fmt.Sprintf("%v:", q), dur(histo.At(r.Latency, q)))
	}
	p.line(rule)
	p.line("Actual Msgs/Sec: %d", int64(r.ActualRate))
	p.line("Actual Band/Sec: %s", ByteSize(math.Floor(r.ActualRate)*float64(r.Size)*2))
	minL, med, maxL := int64(-1), histo.At(r.Latency, 50), int64(-1)
	if r.Latency != nil {
		minL, maxL = r.Latency.Min, r.Latency.Max
	}
	p.line("Minimum Latency: %v", dur(minL))
	p.line("Median Latency : %v", dur(med))
	p.line("Maximum Latency: %v", dur(maxL))
	p.line("1st Sent Wall Time : %v", dur(int64(r.FirstSent)))
	p.line("Last Sent Wall Time: %v", dur(int64(r.LastSent)))
	p.line("Last Recv Wall Time: %v", dur(int64(r.LastRecv)))
	p.line(rule)
	p.line("Messages Sent  : %d", r.Sent)
	p.line("Messages Recv  : %d", r.Received)
	p.line("Lost Messages  : %d", r.Lost)
	if r.Latency != nil && r.Latency.Uncorrected != nil {
		u := r.Latency.Uncorrected
		p.line("Uncorrected (from the actual send; the percentiles above count from the intended send):")
		p.line("  P50 %v ~ P99 %v ~ P99.9 %v ~ max %v", dur(histo.At(u, 50)), dur(histo.At(u, 99)), dur(histo.At(u, 99.9)), dur(u.Max))
	}
	if r.Rate > 0 && r.ActualRate < r.Rate*0.99 {
		p.line("Warning: target rate not reached: %d msgs/sec asked, %d achieved", int64(r.Rate), int64(r.ActualRate))
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
	}
}

// durText prints like latency-tests: a Go duration truncated to microseconds, "n/a" when unknown.
type durText int64

func dur(ns int64) durText { return durText(ns) }

func (d durText) String() string {
	if d < 0 {
		return "n/a"
	}
	return time.Duration(d).Truncate(time.Microsecond).String()
}

// ByteSize prints a byte count as latency-tests does: powers of 1024, B K M G T, one decimal
// below 10 ("1.5K", "998K", "2.4G").
func ByteSize(n float64) string {
	sizes := []string{"B", "K", "M", "G", "T"}
	if n < 10 {
		return fmt.Sprintf("%d%s", int64(n), sizes[0])
	}
	e := math.Min(math.Floor(math.Log(n)/math.Log(1024)), float64(len(sizes)-1))
	val := math.Floor(n/math.Pow(1024, e)*10+0.5) / 10
	if val < 10 {
		return fmt.Sprintf("%.1f%s", val, sizes[int(e)])
	}
	return fmt.Sprintf("%.0f%s", val, sizes[int(e)])
}
