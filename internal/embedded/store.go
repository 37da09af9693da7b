package embedded

import (
	"fmt"
	"os"
	"path/filepath"
)

// StreamDiskBytes is what the message blocks of stream occupy on disk, summed over every node
// that holds a replica (its msgs/*.blk files, in any account). Unlike the bytes a stream's
// state reports, which count messages as stored before compression, this is after S2
// compression and encryption: what the store really costs. The server compresses a block
// when it is full, so the block being written is counted as it is.
func (c *Cluster) StreamDiskBytes(stream string) (uint64, error) {
	var total uint64
	for _, n := range c.nodes {
		blocks, err := filepath.Glob(filepath.Join(n.StoreDir, "jetstream", "*", "streams", stream, "msgs", "*.blk"))
		if err != nil {
			return 0, fmt.Errorf("stream %s on %s: %w", stream, n.Name, err)
		}
		for _, b := range blocks {
			fi, err := os.Stat(b)
			if err != nil {
				continue // a block removed or swapped for its compressed copy meanwhile
			}
			total += uint64(fi.Size())
		}
	}
	return total, nil
}

// StoreDir is the store root: node i's store is StoreDir/n<i>.
func (c *Cluster) StoreDir() string { return c.root }
