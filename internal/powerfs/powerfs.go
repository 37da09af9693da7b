package powerfs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

const pageSize = 4096

// FS is one mount of a backing directory. Its methods are safe for concurrent use.
type FS struct {
	backing, mountpoint string

	mu     sync.Mutex
	server *fuse.Server // nil while unmounted
	cut    bool
	files  map[fileKey]*unsynced
}

// fileKey is a backing file's identity, which a rename keeps.
type fileKey struct{ dev, ino uint64 }

// unsynced is what a file held at its last fsync, where it has changed since.
type unsynced struct {
	size  int64            // its size then
	pages map[int64][]byte // page index -> the page's bytes then (pages below size only)
}

// Lost is what a power failure dropped.
type Lost struct {
	Files int   // files whose contents went back to their last fsync
	Bytes int64 // bytes written since then and dropped (appended, or overwritten pages)
}

// LoseAll is a power failure of several machines at once: each node's FS (disk gives it and
// the node's name, for errors) loses what was not fsynced (FS.LosePower). It says how much
// went in one line, and joins the failures, each named.
func LoseAll[N any](nodes []N, disk func(N) (name string, fs *FS)) (string, error) {
	var lost Lost
	var errs []error
	for _, n := range nodes {
		name, f := disk(n)
		l, err := f.LosePower()
		lost.Files += l.Files
		lost.Bytes += l.Bytes
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return fmt.Sprintf("dropped %d unsynced bytes in %d files", lost.Bytes, lost.Files), errors.Join(errs...)
}

// Mount mounts a powerfs of backing on mountpoint (both existing directories).
func Mount(backing, mountpoint string) (*FS, error) {
	f := &FS{backing: backing, mountpoint: mountpoint}
	if err := f.Remount(); err != nil {
		return nil, err
	}
	return f, nil
}

// MountStore puts a node's store directory on its own powerfs, backed by root/.disk/NAME
// (NAME the store's base name): under the store root, so a sweep of a dead owner's root that
// unmounts everything under it (UnmountUnder) covers the mount too.
func MountStore(root, storeDir string) (*FS, error) {
	backing := filepath.Join(root, ".disk", filepath.Base(storeDir))
	if err := os.MkdirAll(backing, 0o750); err != nil {
		return nil, fmt.Errorf("create store dir: %w", err)
	}
	return Mount(backing, storeDir)
}

// Backing is the backing directory: what survives, readable while the FS is unmounted.
func (f *FS) Backing() string { return f.backing }

// Remount mounts the FS again after LosePower or Unmount, with nothing unsynced.
func (f *FS) Remount() error {
	if err := Check(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.server != nil {
		return nil
	}
	root := &gofs.LoopbackRoot{Path: f.backing}
	var st syscall.Stat_t
	if err := syscall.Stat(f.backing, &st); err != nil {
		return fmt.Errorf("powerfs: %s: %w", f.backing, err)
	}
	root.Dev = uint64(st.Dev)
	rn := &node{LoopbackNode: &gofs.LoopbackNode{RootData: root}, fs: f}
	root.RootNode = rn
	zero := time.Duration(0)
	srv, err := gofs.Mount(f.mountpoint, rn, &gofs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{DirectMount: true, FsName: "natsperf-powerfs:" + f.backing, Name: "powerfs"},
	})
	if err != nil {
		return fmt.Errorf("powerfs: mount %s: %w", f.mountpoint, err)
	}
	f.server, f.cut, f.files = srv, false, map[fileKey]*unsynced{}
	return nil
}

// Cut is the instant of a power failure: from now on every write, truncate, create, rename
// and unlink fails with EIO, and nothing marks contents synced.
func (f *FS) Cut() {
	f.mu.Lock()
	f.cut = true
	f.mu.Unlock()
}

// LosePower cuts the FS, unmounts it and drops every file content not fsynced in the backing
// directory. Stop the server using the mount first (it holds files open). Remount to go on.
func (f *FS) LosePower() (Lost, error) {
	f.Cut()
	err := f.unmount()
	f.mu.Lock()
	files := f.files
	f.files = nil
	f.mu.Unlock()
	lost, derr := drop(f.backing, files)
	return lost, errors.Join(err, derr)
}

// Unmount unmounts the FS keeping everything written (a clean shutdown). It is idempotent.
func (f *FS) Unmount() error {
	err := f.unmount()
	f.mu.Lock()
	f.files = nil
	f.mu.Unlock()
	return err
}

func (f *FS) unmount() error {
	f.mu.Lock()
	srv := f.server
	f.server = nil
	f.mu.Unlock()
	if srv == nil {
		return nil
	}
	var err error
	for range 20 { // a file a stopped server held may take a moment to be released
		if err = srv.Unmount(); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Still busy: detach it so nothing can be left mounted; the kernel ends it when unused.
	if derr := syscall.Unmount(f.mountpoint, syscall.MNT_DETACH); derr != nil {
		return fmt.Errorf("powerfs: unmount %s: %w", f.mountpoint, errors.Join(err, derr))
	}
	return nil
}

// drop writes the synced pages back and truncates each file to its synced size. Files are
// found by identity, so a renamed file is restored where it now is; an unlinked one is gone.
func drop(backing string, files map[fileKey]*unsynced) (Lost, error) {
	var lost Lost
	if len(files) == 0 {
		return lost, nil
	}
	var errs []error
	_ = filepath.WalkDir(backing, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) != nil {
			return nil
		}
		u := files[fileKey{uint64(st.Dev), st.Ino}]
		if u == nil {
			return nil
		}
		delete(files, fileKey{uint64(st.Dev), st.Ino})
		lost.Files++
		lost.Bytes += max(0, st.Size-u.size)
		if err := restore(path, u); err != nil {
			errs = append(errs, err)
		}
		for _, p := range u.pages {
			lost.Bytes += int64(len(p))
		}
		return nil
	})
	return lost, errors.Join(errs...)
}

func restore(path string, u *unsynced) error {
	fd, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("powerfs: drop %s: %w", path, err)
	}
	defer fd.Close()
	for i, p := range u.pages {
		if _, err := fd.WriteAt(p, i*pageSize); err != nil {
			return fmt.Errorf("powerfs: drop %s: %w", path, err)
		}
	}
	if err := fd.Truncate(u.size); err != nil {
		return fmt.Errorf("powerfs: drop %s: %w", path, err)
	}
	return fd.Sync()
}

// beforeChange keeps the synced bytes of the pages of [off, end) that a change of file fd
// (key k) is about to overwrite. It fails with EIO once the FS is cut. Called with f.mu held.
func (f *FS) beforeChange(fd int, k fileKey, off, end int64) syscall.Errno {
	if f.cut || f.files == nil {
		return syscall.EIO
	}
	u := f.files[k]
	if u == nil {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return gofs.ToErrno(err)
		}
		u = &unsynced{size: st.Size, pages: map[int64][]byte{}}
		f.files[k] = u
	}
	end = min(end, u.size)
	for i := off / pageSize; i*pageSize < end; i++ {
		if _, ok := u.pages[i]; ok {
			continue
		}
		p := make([]byte, min(pageSize, u.size-i*pageSize))
		n, err := syscall.Pread(fd, p, i*pageSize)
		if err != nil {
			return gofs.ToErrno(err)
		}
		u.pages[i] = p[:n]
	}
	return 0
}

// refuse is EIO once the FS is cut.
func (f *FS) refuse() syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cut {
		return syscall.EIO
	}
	return 0
}

func keyOf(fd int) (fileKey, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fileKey{}, err
	}
	return fileKey{uint64(st.Dev), st.Ino}, nil
}
