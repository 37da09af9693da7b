package embedded

import (
	"os"
	"path/filepath"
)

// StorePrefix names natsperf's temporary store directories in the temp dir (natsperf-*).
const StorePrefix = storePrefix

// MarkStore marks dir, made with os.MkdirTemp("", StorePrefix), as a temporary store of this
// process, so that SweepStaleStores removes it once this process has ended (after a SIGKILL).
// natsperf's server processes (internal/procs) use the same scheme.
func MarkStore(dir string) error { return markStore(dir) }

// StaleStore reports whether dir holds a well-formed owner file whose process has ended.
func StaleStore(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return false
	}
	o, ok := parseOwner(b)
	return ok && o.pid != os.Getpid() && o.gone()
}
