package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// TestPubSubQueueingNote: an unpaced pubsub prints the queueing note exactly when its Result
// meets the rule (report.Queueing), and a paced one never does.
func TestPubSubQueueingNote(t *testing.T) {
	s := startServer(t, nil)
	for _, tt := range []struct {
		name  string
		args  []string
		paced bool
	}{
		{"unpaced", []string{"--sub", "4", "--msgs", "50000", "--size", "64"}, false},
		{"paced", []string{"--sub", "2", "--rate", "1000", "--duration", "1s", "--size", "64"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "r.json")
			r := run(context.Background(), t, nil, append([]string{"pubsub", "queue." + tt.name, "-s", s.ClientURL(), "-o", file}, tt.args...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			res, err := result.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p50, applies := report.Queueing(res)
			noted := strings.Contains(r.out, "mostly queueing")
			if noted != applies || (tt.paced && noted) {
				t.Fatalf("note printed %v, rule says %v (P50 %d ns, paced %v):\n%s", noted, applies, p50, tt.paced, r.out)
			}
			t.Logf("P50 %s, note %v", report.Duration(p50), noted)
		})
	}
}
