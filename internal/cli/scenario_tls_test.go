package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// TestScenarioTargetTLSFirst: a scenario's target keeps tlsfirst and tls-insecure, so its runs
// reach a server that expects the TLS handshake before anything else; without tlsfirst the
// same target fails.
func TestScenarioTargetTLSFirst(t *testing.T) {
	p := natstest.NewPKI(t)
	s := natstest.Server(t, p.TLS(t, false, true))
	for _, tt := range []struct {
		name, target string
		want         int
	}{
		{"tlsfirst with the CA", fmt.Sprintf("{servers: %q, tlsca: %q, tlsfirst: true}", s.ClientURL(), p.CA), exitOK},
		{"tlsfirst, insecure", fmt.Sprintf("{servers: %q, tlsfirst: true, tls-insecure: true}", s.ClientURL()), exitOK},
		{"without tlsfirst", fmt.Sprintf("{servers: %q, tlsca: %q}", s.ClientURL(), p.CA), exitFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "tls.yaml")
			sc := "name: tls\ntarget: " + tt.target + "\nworkloads:\n  - name: tls\n    command: pubsub tls.x --pub 1 --sub 1\n    flags: {msgs: 500, size: 32}\n"
			if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			r := run(context.Background(), t, nil, "run", file, "-o", out, "--connect-timeout", "2s")
			if r.code != tt.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.want, r.out, r.err)
			}
			if tt.want != exitOK {
				return
			}
			ix, err := scenario.ReadIndex(out)
			if err != nil {
				t.Fatal(err)
			}
			res, err := result.ReadFile(filepath.Join(out, ix.Cells[0].Runs[0].Result))
			if err != nil {
				t.Fatal(err)
			}
			if g := group(t, res, "tls1/sub"); g.Aggregate.Msgs != 500 {
				t.Fatalf("sub got %d msgs, want 500", g.Aggregate.Msgs)
			}
			if st, err := s.Varz(nil); err != nil || st.InMsgs < 500 {
				t.Fatalf("varz %v: the server saw %d messages in; the run did not go through it", err, st.InMsgs)
			}
		})
	}
}
