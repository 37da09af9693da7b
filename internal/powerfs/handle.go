package powerfs

import (
	"context"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// handle is an open backing file whose changes are tracked until fsync.
type handle struct {
	fs   *FS
	fd   int
	key  fileKey
	sync bool // opened O_SYNC or O_DSYNC: every write is on disk when it returns
}

var (
	_ gofs.FileReader    = (*handle)(nil)
	_ gofs.FileWriter    = (*handle)(nil)
	_ gofs.FileFsyncer   = (*handle)(nil)
	_ gofs.FileFlusher   = (*handle)(nil)
	_ gofs.FileReleaser  = (*handle)(nil)
	_ gofs.FileGetattrer = (*handle)(nil)
	_ gofs.FileAllocater = (*handle)(nil)
)

func newHandle(f *FS, fd int, flags uint32) (*handle, syscall.Errno) {
	k, err := keyOf(fd)
	if err != nil {
		return nil, gofs.ToErrno(err)
	}
	return &handle{fs: f, fd: fd, key: k, sync: flags&(syscall.O_SYNC|syscall.O_DSYNC) != 0}, 0
}

func (h *handle) Read(_ context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n, err := syscall.Pread(h.fd, buf, off)
	if err != nil {
		return nil, gofs.ToErrno(err)
	}
	return fuse.ReadResultData(buf[:n]), 0
}

func (h *handle) Write(_ context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.sync {
		return h.writeSynced(data, off)
	}
	if errno := h.fs.beforeChange(h.fd, h.key, off, off+int64(len(data))); errno != 0 {
		return 0, errno
	}
	n, err := syscall.Pwrite(h.fd, data, off)
	return uint32(max(n, 0)), gofs.ToErrno(err)
}

// writeSynced is a write through an O_SYNC handle (nats-server's sync_interval always): the
// backing fd is O_SYNC too, so it is durable once written. Earlier unsynced writes to the file
// are synced with it, or restoring their pages would undo this one. Called with fs.mu held.
func (h *handle) writeSynced(data []byte, off int64) (uint32, syscall.Errno) {
	if h.fs.cut || h.fs.files == nil {
		return 0, syscall.EIO
	}
	n, err := syscall.Pwrite(h.fd, data, off)
	if err != nil {
		return uint32(max(n, 0)), gofs.ToErrno(err)
	}
	if _, ok := h.fs.files[h.key]; ok {
		if err := syscall.Fsync(h.fd); err != nil {
			return uint32(n), gofs.ToErrno(err)
		}
		delete(h.fs.files, h.key)
	}
	return uint32(n), 0
}

// truncate changes the size, keeping the synced bytes it cuts off.
func (h *handle) truncate(size int64) syscall.Errno {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if errno := h.fs.beforeChange(h.fd, h.key, size, 1<<62); errno != 0 {
		return errno
	}
	return gofs.ToErrno(syscall.Ftruncate(h.fd, size))
}

// Fsync holds the FS while it syncs, so no write can land between the sync and forgetting
// what it made durable.
func (h *handle) Fsync(_ context.Context, _ uint32) syscall.Errno {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if h.fs.cut || h.fs.files == nil {
		return syscall.EIO // after the instant nothing reaches the disk
	}
	if err := syscall.Fsync(h.fd); err != nil {
		return gofs.ToErrno(err)
	}
	delete(h.fs.files, h.key)
	return 0
}

func (h *handle) Flush(context.Context) syscall.Errno { return 0 }

func (h *handle) Release(context.Context) syscall.Errno {
	return gofs.ToErrno(syscall.Close(h.fd))
}

func (h *handle) Getattr(_ context.Context, out *fuse.AttrOut) syscall.Errno {
	var st syscall.Stat_t
	if err := syscall.Fstat(h.fd, &st); err != nil {
		return gofs.ToErrno(err)
	}
	out.FromStat(&st)
	return 0
}

// Allocate may extend the file; its size goes back with the rest.
func (h *handle) Allocate(_ context.Context, off, size uint64, mode uint32) syscall.Errno {
	h.fs.mu.Lock()
	defer h.fs.mu.Unlock()
	if errno := h.fs.beforeChange(h.fd, h.key, int64(off), int64(off+size)); errno != 0 {
		return errno
	}
	return gofs.ToErrno(syscall.Fallocate(h.fd, mode, int64(off), int64(size)))
}
