package powerfs

import (
	"context"
	"path/filepath"
	"syscall"

	gofs "github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// node is a loopback node whose file handles track unsynced contents and whose namespace
// changes fail once the FS is cut.
type node struct {
	*gofs.LoopbackNode
	fs *FS
}

// WrapChild makes every node the loopback creates one of ours.
func (n *node) WrapChild(_ context.Context, ops gofs.InodeEmbedder) gofs.InodeEmbedder {
	if lb, ok := ops.(*gofs.LoopbackNode); ok {
		return &node{LoopbackNode: lb, fs: n.fs}
	}
	return ops
}

func (n *node) path() string {
	return filepath.Join(n.RootData.Path, n.Path(n.Root()))
}

var (
	_ gofs.NodeOpener    = (*node)(nil)
	_ gofs.NodeCreater   = (*node)(nil)
	_ gofs.NodeSetattrer = (*node)(nil)
)

func (n *node) Open(ctx context.Context, flags uint32) (gofs.FileHandle, uint32, syscall.Errno) {
	trunc := flags&syscall.O_TRUNC != 0
	writing := flags&(syscall.O_WRONLY|syscall.O_RDWR) != 0
	if (trunc || writing) && n.fs.refuse() != 0 {
		return nil, 0, syscall.EIO
	}
	flags &^= syscall.O_APPEND | syscall.O_TRUNC | fuse.FMODE_EXEC
	fd, err := syscall.Open(n.path(), int(flags)|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, gofs.ToErrno(err)
	}
	h, errno := newHandle(n.fs, fd, flags)
	if errno == 0 && trunc {
		errno = h.truncate(0)
	}
	if errno != 0 {
		syscall.Close(fd)
		return nil, 0, errno
	}
	return h, 0, 0
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	if n.fs.refuse() != 0 {
		return nil, nil, 0, syscall.EIO
	}
	ch, lf, ff, errno := n.LoopbackNode.Create(ctx, name, flags&^syscall.O_TRUNC, mode, out)
	if errno != 0 {
		return ch, lf, ff, errno
	}
	// Keep the loopback's open file (a dup: its handle is released) as a tracked handle; a
	// file created read-only could not be opened for writing again.
	fd, err := -1, error(syscall.EBADF)
	if pf, ok := lf.(interface{ PassthroughFd() (int, bool) }); ok {
		if lfd, ok := pf.PassthroughFd(); ok {
			fd, err = syscall.Dup(lfd)
		}
	}
	if err != nil {
		fd, err = syscall.Open(filepath.Join(n.path(), name), int(flags&^(syscall.O_CREAT|syscall.O_EXCL|syscall.O_TRUNC|syscall.O_APPEND))|syscall.O_CLOEXEC, 0)
	}
	if rel, ok := lf.(gofs.FileReleaser); ok {
		rel.Release(ctx)
	}
	if err != nil {
		return nil, nil, 0, gofs.ToErrno(err)
	}
	h, errno := newHandle(n.fs, fd, flags)
	if errno == 0 && flags&syscall.O_TRUNC != 0 {
		errno = h.truncate(0)
	}
	if errno != 0 {
		syscall.Close(fd)
		return nil, nil, 0, errno
	}
	return ch, h, ff, 0
}

func (n *node) Setattr(ctx context.Context, f gofs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if sz, ok := in.GetSize(); ok {
		h, _ := f.(*handle)
		if h == nil {
			fd, err := syscall.Open(n.path(), syscall.O_RDWR|syscall.O_CLOEXEC, 0)
			if err != nil {
				return gofs.ToErrno(err)
			}
			defer syscall.Close(fd)
			var errno syscall.Errno
			if h, errno = newHandle(n.fs, fd, 0); errno != 0 {
				return errno
			}
		}
		if errno := h.truncate(int64(sz)); errno != 0 {
			return errno
		}
		in.Valid &^= fuse.FATTR_SIZE
	} else if in.Valid&(fuse.FATTR_MODE|fuse.FATTR_UID|fuse.FATTR_GID) != 0 && n.fs.refuse() != 0 {
		return syscall.EIO
	}
	return n.LoopbackNode.Setattr(ctx, nil, in, out)
}

func (n *node) Mkdir(ctx context.Context, name string, mode uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if n.fs.refuse() != 0 {
		return nil, syscall.EIO
	}
	return n.LoopbackNode.Mkdir(ctx, name, mode, out)
}

func (n *node) Mknod(ctx context.Context, name string, mode, rdev uint32, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if n.fs.refuse() != 0 {
		return nil, syscall.EIO
	}
	return n.LoopbackNode.Mknod(ctx, name, mode, rdev, out)
}

func (n *node) Rmdir(ctx context.Context, name string) syscall.Errno {
	if n.fs.refuse() != 0 {
		return syscall.EIO
	}
	return n.LoopbackNode.Rmdir(ctx, name)
}

func (n *node) Unlink(ctx context.Context, name string) syscall.Errno {
	if n.fs.refuse() != 0 {
		return syscall.EIO
	}
	return n.LoopbackNode.Unlink(ctx, name)
}

func (n *node) Rename(ctx context.Context, name string, newParent gofs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	if n.fs.refuse() != 0 {
		return syscall.EIO
	}
	return n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
}

func (n *node) Symlink(ctx context.Context, target, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if n.fs.refuse() != 0 {
		return nil, syscall.EIO
	}
	return n.LoopbackNode.Symlink(ctx, target, name, out)
}

func (n *node) Link(ctx context.Context, target gofs.InodeEmbedder, name string, out *fuse.EntryOut) (*gofs.Inode, syscall.Errno) {
	if n.fs.refuse() != 0 {
		return nil, syscall.EIO
	}
	return n.LoopbackNode.Link(ctx, target, name, out)
}

// CopyFileRange would change contents behind the tracking: the kernel falls back to reads
// and writes.
func (n *node) CopyFileRange(context.Context, gofs.FileHandle, uint64, *gofs.Inode, gofs.FileHandle, uint64, uint64, uint64) (uint32, syscall.Errno) {
	return 0, syscall.ENOSYS
}

// Tmpfile (O_TMPFILE) is refused for the same reason; nats-server does not use it.
func (n *node) Tmpfile(context.Context, uint32, uint32, *fuse.EntryOut) (*gofs.Inode, gofs.FileHandle, uint32, syscall.Errno) {
	return nil, nil, 0, syscall.EOPNOTSUPP
}
