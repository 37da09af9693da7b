package netns

import (
	"context"
	"testing"
)

// ForTest builds a network for t and removes it when t and its subtests end, failed or not
// (t.Cleanup). It skips t, saying why, where networks cannot be built (not root, no `ip`).
func ForTest(t testing.TB, names ...string) *Network {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skip("netns: " + why)
	}
	n, err := New(context.Background(), names...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("netns: clean-up: %v", err)
		}
	})
	return n
}
