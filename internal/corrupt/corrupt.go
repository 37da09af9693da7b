// Package corrupt damages a nats-server store as a bad sector would: it flips one bit in the
// newest message block. Both natsperf's in-process and its process clusters use it on the
// store of a node that is down (a running server would overwrite the damage).
package corrupt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Flipped says what Flip changed.
type Flipped struct {
	Path   string // the block's path
	Rel    string // the block's path under the store
	Offset int64  // the byte flipped
	Size   int64  // the block's size
}

// Bit is the bit Flip flips in its byte.
const Bit = 4

func (f Flipped) String() string {
	return fmt.Sprintf("flipped bit %d of byte %d of %s (%d bytes)", Bit, f.Offset, f.Rel, f.Size)
}

// Flip flips bit Bit of the middle byte of the newest message block under store (a node's
// JetStream store directory, holding jetstream/) and fsyncs it.
func Flip(store string) (Flipped, error) {
	blk, size, err := newestBlock(store)
	if err != nil {
		return Flipped{}, err
	}
	fl := Flipped{Path: blk, Offset: size / 2, Size: size}
	fl.Rel, _ = filepath.Rel(store, blk)
	f, err := os.OpenFile(blk, os.O_RDWR, 0)
	if err != nil {
		return fl, err
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, fl.Offset); err != nil {
		return fl, err
	}
	b[0] ^= 1 << Bit
	if _, err := f.WriteAt(b, fl.Offset); err != nil {
		return fl, err
	}
	return fl, f.Sync()
}

// newestBlock is the most recently written non-empty message block of a stream under a
// store, else of any raft log there (a power failure under sync_interval always can leave a
// replicated stream's data only in its raft log, which is synced first).
func newestBlock(store string) (string, int64, error) {
	for _, under := range []string{"streams", ""} {
		if p, size := newestUnder(filepath.Join(store, "jetstream"), under); p != "" {
			return p, size, nil
		}
	}
	return "", 0, errors.New("no message block with data in the store")
}

// newestUnder walks root for the newest non-empty .blk whose path holds /dir/ ("": any).
func newestUnder(root, dir string) (string, int64) {
	var path string
	var size int64
	var mod time.Time
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".blk") || (dir != "" && !strings.Contains(p, "/"+dir+"/")) {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Size() > 0 && fi.ModTime().After(mod) {
			path, size, mod = p, fi.Size(), fi.ModTime()
		}
		return nil
	})
	return path, size
}
