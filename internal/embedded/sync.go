package embedded

import (
	"fmt"
	"strings"
	"time"
)

// DefaultSyncInterval is nats-server's own: how often it fsyncs a stream's store when
// sync_interval is not set.
const DefaultSyncInterval = 2 * time.Minute

// SyncAlways is the --sync-interval value that fsyncs every write.
const SyncAlways = "always"

// ParseSync reads a --sync-interval value: "always", a positive duration, or empty/"default"
// (nats-server's 2 minutes). It returns the canonical spelling ("" for the default).
func ParseSync(s string) (string, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "", "default":
		return "", nil
	case SyncAlways:
		return SyncAlways, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return "", fmt.Errorf("sync interval %q: want always or a positive duration such as 10s", s)
	}
	return d.String(), nil
}

// SyncInterval is how the nodes fsync their stores: "always" or a duration ("2m0s" when
// Options.Sync is not set, nats-server's default).
func (c *Cluster) SyncInterval() string {
	if c.opts.Sync == "" {
		return DefaultSyncInterval.String()
	}
	return c.opts.Sync
}

// syncSettings are nats-server's SyncAlways and SyncInterval for Options.Sync (checked).
func (o Options) syncSettings() (always bool, every time.Duration) {
	if o.Sync == SyncAlways {
		return true, 0
	}
	d, _ := time.ParseDuration(o.Sync)
	return false, d
}
