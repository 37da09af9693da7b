package powerfs

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// UnmountUnder detaches every mount whose mount point is dir or below it, deepest first, and
// returns them: a natsperf killed with SIGKILL leaves its powerfs mounts dead ("transport
// endpoint is not connected"), and its store cannot be removed until they are gone.
func UnmountUnder(dir string) []string {
	dir = filepath.Clean(dir)
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescape(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			points = append(points, mp)
		}
	}
	var done []string
	for i := len(points) - 1; i >= 0; i-- {
		if syscall.Unmount(points[i], syscall.MNT_DETACH) == nil {
			done = append(done, points[i])
		}
	}
	return done
}

// unescape undoes mountinfo's octal escapes of space, tab, newline and backslash.
func unescape(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}
