//go:build !linux

package connect

import "testing"

func blackhole(t *testing.T) string {
	t.Skip("needs Linux to simulate a host that drops SYNs")
	return ""
}
