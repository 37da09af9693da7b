package embedded

import (
	"context"
	"testing"
)

// BenchmarkStartCluster3 measures Start to Shutdown of a fresh 3-node
// cluster, i.e. how long "natsperf server --cluster 3" takes to be usable.
// Run: go test ./internal/embedded -run '^$' -bench StartCluster3 -benchtime 10x
func BenchmarkStartCluster3(b *testing.B) {
	for _, pausable := range []bool{false, true} {
		name := "direct"
		if pausable {
			name = "pausable"
		}
		b.Run(name, func(b *testing.B) {
			opts := testOptions(3)
			opts.Pausable = pausable
			for b.Loop() {
				c, err := Start(context.Background(), opts)
				if err != nil {
					b.Fatal(err)
				}
				c.Shutdown()
			}
		})
	}
}
