package procs

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/powerfs"
)

// TestMain lets a test run this binary as a natsperf stand-in that starts one server process
// (its store on powerfs when PROCS_TEST_CHILD_POWER is set) and waits to be killed.
func TestMain(m *testing.M) {
	if bin := os.Getenv("PROCS_TEST_CHILD"); bin != "" {
		c, err := Start(context.Background(), Options{Binary: bin, PowerFail: os.Getenv("PROCS_TEST_CHILD_POWER") != ""})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("started", c.Pid(1), c.root)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSIGKILLedParent: the server processes of a natsperf killed with SIGKILL die with it,
// and the next start's sweep removes the store it left.
func TestSIGKILLedParent(t *testing.T) {
	bin := release(t, "v2.12.15", "v2.15.3", "v2.14.10", "v2.11.17", "v2.10.27")
	tmp := t.TempDir()
	root := killedParent(t, bin, tmp, false)
	removed := Sweep(tmp)
	if len(removed) != 1 || removed[0] != root {
		t.Fatalf("Sweep removed %v, want [%s]", removed, root)
	}
}

// TestSIGKILLedParentPowerMount: a natsperf killed with SIGKILL while its node's store sits
// on powerfs leaves a dead FUSE mount in its store; the next start's sweep unmounts it and
// removes the store.
func TestSIGKILLedParentPowerMount(t *testing.T) {
	bin := release(t, "v2.15.3", "v2.14.10", "v2.12.15")
	needFUSE(t)
	tmp := t.TempDir()
	t.Cleanup(func() { powerfs.UnmountUnder(tmp) }) // whatever the test leaves
	root := killedParent(t, bin, tmp, true)
	removed := Sweep(tmp)
	if len(removed) != 1 || removed[0] != root {
		t.Fatalf("Sweep removed %v, want [%s]", removed, root)
	}
	if mp := filepath.Join(root, "n1"); mounted(mp) {
		t.Errorf("the dead mount %s is still there", mp)
	}
}

// killedParent runs a natsperf stand-in that starts one server process under tmp, kills it
// with SIGKILL and waits for the server to die with it; it returns the store it left.
func killedParent(t *testing.T, bin, tmp string, power bool) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PROCS_TEST_CHILD="+bin, "TMPDIR="+tmp)
	if power {
		cmd.Env = append(cmd.Env, "PROCS_TEST_CHILD_POWER=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	hang := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() }) // a child that never says
	defer hang.Stop()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "started" {
		t.Fatalf("child said %q", line)
	}
	pid, _ := strconv.Atoi(f[1])
	root := f[2]
	if gone(pid) {
		t.Fatalf("server pid %d not running", pid)
	}
	if mp := filepath.Join(root, "n1"); power != mounted(mp) {
		t.Fatalf("%s mounted: %v, want %v", mp, mounted(mp), power)
	}
	_ = cmd.Process.Kill() // SIGKILL
	_ = cmd.Wait()
	natstest.WaitFor(t, 10*time.Second, "the server to die with its parent", func() bool { return gone(pid) })
	if _, err := os.Lstat(root); err != nil {
		t.Fatalf("the killed parent's store %s: %v (expected left behind)", root, err)
	}
	return root
}

func mounted(dir string) bool {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	return strings.Contains(string(b), " "+dir+" ")
}

// TestSweepEndsLeftProcesses: where no parent-death signal took a server, the sweep kills
// the processes a dead owner's pids file names, but only those whose command line names its
// store.
func TestSweepEndsLeftProcesses(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "natsperf-left")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	owner := fmt.Sprintf("pid %d\nstart 1\nns %s\n", dead.Process.Pid, pidNS())
	if err := os.WriteFile(filepath.Join(dir, ".natsperf-owner"), []byte(owner), 0o600); err != nil {
		t.Fatal(err)
	}
	left := exec.Command("sh", "-c", "sleep 60", filepath.Join(dir, "n1.conf")) // names the store
	other := exec.Command("sleep", "60")                                        // does not
	for _, c := range []*exec.Cmd{left, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
		go c.Wait()
	}
	pids := fmt.Sprintf("%d\n%d\n", left.Process.Pid, other.Process.Pid)
	if err := os.WriteFile(filepath.Join(dir, pidsFile), []byte(pids), 0o600); err != nil {
		t.Fatal(err)
	}
	if removed := Sweep(tmp); len(removed) != 1 {
		t.Fatalf("Sweep removed %v, want %s", removed, dir)
	}
	natstest.WaitFor(t, 10*time.Second, "the left process to be killed", func() bool { return gone(left.Process.Pid) })
	if gone(other.Process.Pid) {
		t.Fatal("a process not naming the store was killed")
	}
}

func pidNS() string {
	ns, _ := os.Readlink("/proc/self/ns/pid")
	return ns
}
