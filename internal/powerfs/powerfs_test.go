package powerfs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mount mounts a powerfs for a test, or skips where FUSE is missing (fails under CI).
func mount(t *testing.T) (*FS, string) {
	t.Helper()
	if err := Check(); err != nil {
		t.Skip(err) // FUSE or root missing: the run would be refused the same way
	}
	backing, mp := t.TempDir(), t.TempDir()
	f, err := Mount(backing, mp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Unmount() })
	return f, mp
}

// TestLosePower: what was fsynced survives, what was written since is dropped (appends,
// overwrites, a truncate), a file never synced comes back empty, renames and unlinks survive,
// and after the cut nothing can be written.
func TestLosePower(t *testing.T) {
	f, mp := mount(t)
	synced := bytes.Repeat([]byte("s"), 10000)
	a, err := os.Create(filepath.Join(mp, "a.blk"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write(synced); err != nil {
		t.Fatal(err)
	}
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteAt([]byte("XXXX"), 5000); err != nil { // overwrite inside a synced page
		t.Fatal(err)
	}
	if _, err := a.WriteAt(bytes.Repeat([]byte("u"), 3000), 10000); err != nil { // append
		t.Fatal(err)
	}
	a.Close()
	if err := os.WriteFile(filepath.Join(mp, "b.tmp"), []byte("never synced"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(mp, "b.tmp"), filepath.Join(mp, "b.idx")); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(mp, "c")
	if err := os.WriteFile(c, synced, 0o600); err != nil {
		t.Fatal(err)
	}
	syncFile(t, c)
	if err := os.Truncate(c, 100); err != nil { // a truncate not synced either
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(mp, "gone-soon")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("remove of a missing file: %v", err)
	}

	if err := os.MkdirAll(filepath.Join(mp, "d1", "d2"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mp, "d1", "d2", "deep"), []byte("unsynced, deep down"), 0o600); err != nil {
		t.Fatal(err)
	}

	f.Cut()
	if err := os.WriteFile(filepath.Join(mp, "d1", "late"), []byte("after the instant"), 0o600); err == nil {
		t.Fatal("a create in a directory after the cut succeeded")
	}
	if err := os.WriteFile(filepath.Join(mp, "late"), []byte("after the instant"), 0o600); err == nil {
		t.Fatal("a create after the cut succeeded")
	}
	lost, err := f.LosePower()
	if err != nil {
		t.Fatal(err)
	}
	if lost.Files != 4 || lost.Bytes < 3000+12+19 {
		t.Errorf("lost %+v, want 4 files and at least 3031 bytes", lost)
	}
	back := f.Backing()
	if got := read(t, filepath.Join(back, "d1", "d2", "deep")); len(got) != 0 {
		t.Errorf("d1/d2/deep (never synced) = %q, want empty", got)
	}
	if got := read(t, filepath.Join(back, "a.blk")); !bytes.Equal(got, synced) {
		t.Errorf("a.blk: %d bytes, %q at 5000; want the 10000 synced bytes", len(got), got[5000:min(5004, len(got))])
	}
	if got := read(t, filepath.Join(back, "b.idx")); len(got) != 0 {
		t.Errorf("b.idx (created, renamed, never synced) = %q, want empty", got)
	}
	if got := read(t, filepath.Join(back, "c")); !bytes.Equal(got, synced) {
		t.Errorf("c: %d bytes after an unsynced truncate, want the 10000 synced", len(got))
	}
	if _, err := os.Stat(filepath.Join(back, "late")); err == nil {
		t.Error("the file created after the cut exists")
	}

	// Mounted again, the FS works and starts with nothing unsynced.
	if err := f.Remount(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(mp, "a.blk")); !bytes.Equal(got, synced) {
		t.Errorf("a.blk through the new mount: %d bytes", len(got))
	}
	if err := os.WriteFile(filepath.Join(mp, "d"), []byte("again"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.Unmount(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(back, "d")); string(got) != "again" {
		t.Errorf("a clean unmount dropped d: %q", got)
	}
}

// TestUnmountUnder detaches a mount left behind (as by a SIGKILLed natsperf).
func TestUnmountUnder(t *testing.T) {
	f, mp := mount(t)
	f.mu.Lock()
	f.server = nil // forget it, as a dead process would
	f.mu.Unlock()
	done := UnmountUnder(filepath.Dir(mp))
	if len(done) != 1 || done[0] != mp {
		t.Fatalf("unmounted %v, want [%s]", done, mp)
	}
	b, _ := os.ReadFile("/proc/self/mountinfo")
	if strings.Contains(string(b), " "+mp+" ") {
		t.Errorf("%s still mounted", mp)
	}
}

func TestCheckDevice(t *testing.T) {
	err := CheckDevice(filepath.Join(t.TempDir(), "fuse"), true)
	if !errors.Is(err, ErrNoFUSE) || !strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), "\n") {
		t.Errorf("missing device: %v", err)
	}
	t.Setenv(DeviceEnv, filepath.Join(t.TempDir(), "nope"))
	if err := Check(); !errors.Is(err, ErrNoFUSE) {
		t.Errorf("Check with %s pointing nowhere: %v", DeviceEnv, err)
	}
}

func syncFile(t *testing.T, p string) {
	t.Helper()
	fd, err := syscall.Open(p, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Fsync(fd); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
