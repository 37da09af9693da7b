// Package powerfs is a FUSE filesystem that passes every operation through to a backing
// directory but remembers which file contents have not been fsynced, so that it can "lose
// power": drop those contents as a machine losing power drops its page cache.
//
// It follows LazyFS's model (the one Jepsen used on NATS 2.12.1): a file's bytes written since
// its last fsync are lost, its size goes back to what it was at that fsync (a file created
// and never synced comes back empty), while creates, renames, unlinks and directories
// survive. Writes go straight to the backing directory; for every 4 KiB page of the synced
// contents a write or truncate first overwrites, the page's synced bytes are kept in memory,
// and LosePower writes them back and truncates each file to its synced size.
//
// The API is what a node of any kind needs: Mount its store directory, Cut at the instant of
// the failure (every later write fails, so nothing written after the instant survives), stop
// the server (in-process or a process), LosePower, and Mount again to restart on what
// survived. Mounting needs /dev/fuse and root (or fusermount); Check says what is missing.
package powerfs
