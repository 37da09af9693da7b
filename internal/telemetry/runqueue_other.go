//go:build !linux

package telemetry

// runQueueWaits is only known on Linux.
func runQueueWaits() map[string]int64 { return nil }
