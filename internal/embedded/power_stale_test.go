//go:build unix

package embedded

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/powerfs"
)

// TestStalePowerMountSwept: a process whose embedded store sits on powerfs is killed with
// SIGKILL, leaving a dead FUSE mount in its store; the next Start in the same temp dir
// unmounts it and removes the store.
func TestStalePowerMountSwept(t *testing.T) {
	if err := powerfs.Check(); err != nil {
		t.Skip(err) // FUSE or root missing: the run would be refused the same way
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), storeHelperEnv+"=power")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	store := strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(store, tmp) {
		t.Fatalf("helper printed %q (%v), want its store under %s", line, err, tmp)
	}
	mp := filepath.Join(store, "n1")
	if !mounted(mp) {
		t.Fatalf("%s is not a mount", mp)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	t.Cleanup(func() { powerfs.UnmountUnder(tmp) }) // whatever the test leaves

	startT(t, testOptions(1))
	if mounted(mp) {
		t.Errorf("the dead mount %s is still there", mp)
	}
	if exists(store) {
		t.Errorf("the killed process's store %s is still there", store)
	}
}

func mounted(dir string) bool {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	return strings.Contains(string(b), " "+dir+" ")
}
