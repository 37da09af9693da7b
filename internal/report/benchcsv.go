package report

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/natsperf/natsperf/result"
)

// BenchCSVHeader is the header row of nats bench's --csv file (nats.go's bench package).
var BenchCSVHeader = []string{"#RunID", "ClientID", "MsgCount", "MsgBytes", "MsgsPerSec", "BytesPerSec", "DurationSecs"}

// senders are the groups nats bench counts as publishers ("P" rows); every other group is a
// subscriber ("S" rows).
var senders = map[string]bool{"pub": true, "request": true, "put": true}

// BenchCSV writes r's clients in nats bench's per-client CSV: subscribers first (S0, S1, ...),
// then publishers (P0, ...), numbered across groups as nats bench numbers its clients.
// MsgCount is the messages the client handled (nats bench counted the connection's protocol
// messages, acks included), MsgBytes their payload bytes, MsgsPerSec and BytesPerSec over the
// client's first-to-last interval, DurationSecs that interval.
func BenchCSV(w io.Writer, r *result.Result, runID string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(BenchCSVHeader); err != nil {
		return err
	}
	for _, pre := range []string{"S", "P"} {
		n := 0
		for _, g := range r.Groups {
			if senders[g.Name] != (pre == "P") {
				continue
			}
			for _, c := range g.Clients {
				secs := 0.0
				if c.End.After(c.Start) {
					secs = c.End.Sub(c.Start).Seconds()
				}
				if err := cw.Write([]string{
					runID, fmt.Sprintf("%s%d", pre, n), fmt.Sprint(c.Msgs), fmt.Sprint(c.Bytes),
					fmt.Sprint(int64(c.MsgsPerSec)), fmt.Sprintf("%f", c.BytesPerSec), fmt.Sprintf("%f", secs),
				}); err != nil {
					return err
				}
				n++
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
