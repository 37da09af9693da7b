package cmdline

import (
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/spec"
)

// syncIntervalHelp is --sync-interval's help, the same on every command.
const syncIntervalHelp = "how natsperf's embedded server fsyncs its JetStream store (nats-server's sync_interval): always (every write), or a duration such as 10s; default: nats-server's 2m. docs/durability.md"

// checkSync refuses a bad --sync-interval, and one given with a server of the user's (it
// fsyncs as its own configuration says).
func (c *Conn) checkSync() error {
	si, err := embedded.ParseSync(c.SyncInterval)
	if err != nil {
		return usagef("--sync-interval: %v", err)
	}
	if si != "" && (c.Settings.Servers != "" || c.Settings.Context != "") {
		return usagef("--sync-interval configures natsperf's embedded server; a server given with -s or --context fsyncs as its own configuration says (jetstream { sync_interval })")
	}
	return nil
}

// WithSync asks t for an embedded server with the --sync-interval (when given and t names no
// server): the run then starts the embedded server, even when NATS_URL names one.
func (c *Conn) WithSync(t *spec.Target) {
	si, err := embedded.ParseSync(c.SyncInterval)
	if err != nil || si == "" || len(t.Servers) > 0 || t.Context != "" {
		return
	}
	if t.Embedded == nil {
		t.Embedded = &spec.Embedded{}
	}
	if t.Embedded.SyncInterval == "" {
		t.Embedded.SyncInterval = si
	}
}
