// Package serverver reads nats-server versions and knows which release brought the JetStream
// features natsperf's workloads may need, so a workload a server cannot run is refused before
// anything is created on it.
package serverver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a nats-server release, major.minor.patch; a pre-release or build suffix
// ("2.14.0-RC.1", "2.15.2-dev") is dropped: a feature's release candidates already have it.
type Version struct{ Major, Minor, Patch int }

// Parse reads "2.12.15", "v2.12.15" or "2.14.0-RC.1" (the patch may be missing: "2.12").
func Parse(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(t, "-+"); i >= 0 {
		t = t[:i]
	}
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Version{}, fmt.Errorf("server version %q is not major.minor.patch", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return Version{}, fmt.Errorf("server version %q is not major.minor.patch", s)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

// AtLeast reports whether v is o or later.
func (v Version) AtLeast(o Version) bool {
	if v.Major != o.Major {
		return v.Major > o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor > o.Minor
	}
	return v.Patch >= o.Patch
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Feature is a server capability a workload needs, and the first minor release that has it.
type Feature struct {
	// What names it for a user: the behaviour, then the stream setting or API behind it.
	What  string
	Since Version
}

// The features natsperf's workloads can need beyond nats-server 2.10 (the oldest supported).
var (
	// BatchGet: a 2.10 server ignores a direct get's batch field and never answers the request
	// the way a batch expects, so a batch reader would wait forever.
	BatchGet = Feature{"batched direct get", Version{2, 11, 0}}
	// AtomicBatch: allow_atomic and the Nats-Batch-* headers.
	AtomicBatch = Feature{"atomic batch publish, allow_atomic", Version{2, 12, 0}}
	// AsyncPersist: persist_mode async; 2.10 and 2.11 ignore the field and flush as usual.
	AsyncPersist = Feature{"asynchronous flushes, persist_mode async", Version{2, 12, 0}}
	// FastBatch: allow_batched and the fast batch protocol; 2.12 refuses a stream asking for it.
	FastBatch = Feature{"fast batch publish, allow_batched", Version{2, 14, 0}}
)

// Refusal says that who (a command, a flag) cannot run on server version have, or "" when it
// can. A version that cannot be read is not refused: the server answers for itself.
func (f Feature) Refusal(who, have string) string {
	v, err := Parse(have)
	if err != nil || v.AtLeast(f.Since) {
		return ""
	}
	return fmt.Sprintf("%s (%s) needs nats-server %d.%d or later; the server is %s", who, f.What, f.Since.Major, f.Since.Minor, have)
}

// In reports whether server version have is known to have f (false when have cannot be read).
func (f Feature) In(have string) bool {
	v, err := Parse(have)
	return err == nil && v.AtLeast(f.Since)
}
