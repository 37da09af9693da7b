package cmdline

import (
	"os"
	"path/filepath"
)

// CheckOutputFile makes sure a file can be written at path before anything runs, so a run's
// Result is not lost to a typo after minutes of work: missing parent directories are created,
// an existing directory and a place that cannot be written are refused (usage errors).
func CheckOutputFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("%s %s is a directory: give a file name", flag, path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("%s %s: cannot create its directory: %v", flag, path, err)
	}
	probe, err := os.CreateTemp(dir, ".natsperf-write-check-*")
	if err != nil {
		return usagef("%s %s: cannot write in %s: %v", flag, path, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}
