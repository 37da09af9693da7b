//go:build unix

package embedded

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// storeHelperEnv makes the test binary a process that starts an embedded server, prints its
// store directory and waits to be killed (TestStaleStoreOfKilledProcessSwept).
const storeHelperEnv = "NATSPERF_STORE_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(storeHelperEnv) != "" {
		o := testOptions(1)
		o.PowerFail = os.Getenv(storeHelperEnv) == "power" // its store on a powerfs mount
		c, err := Start(context.Background(), o)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(c.root)
		select {}
	}
	os.Exit(m.Run())
}

// TestStaleStoreOfKilledProcessSwept: a process that started an embedded server is killed with
// SIGKILL and leaves its store; the next Start in the same temp dir removes it, and leaves a
// running process's store, a natsperf-* directory without an owner file and other files alone.
func TestStaleStoreOfKilledProcessSwept(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	start := func() (*exec.Cmd, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), storeHelperEnv+"=1")
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
		if err != nil || !strings.HasPrefix(line, tmp) {
			t.Fatalf("helper printed %q (%v), want its store under %s", line, err, tmp)
		}
		return cmd, strings.TrimSpace(line)
	}
	victim, killedStore := start()
	alive, aliveStore := start()
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Not reaped yet (its parent, this test, has not waited): a zombie has ended too.
	for deadline := time.Now().Add(10 * time.Second); processExists(victim.Process.Pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed helper still counts as running after 10s")
		}
	}
	if _, err := os.Stat(filepath.Join(killedStore, "n1")); err != nil {
		t.Fatalf("the killed process's store is not there to sweep: %v", err)
	}
	foreign := filepath.Join(tmp, "natsperf-notours")
	if err := os.MkdirAll(filepath.Join(foreign, "n1"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(tmp, "other.txt")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A pid that lives but belongs to a process started at another time (a reused pid).
	reused := filepath.Join(tmp, "natsperf-reused")
	if err := os.MkdirAll(reused, 0o755); err != nil {
		t.Fatal(err)
	}
	o := owner{pid: alive.Process.Pid, start: "1", ns: pidNamespace()}
	if processStart(o.pid) == "" {
		o.start = "" // no /proc: only the pid can be checked
	}
	if err := os.WriteFile(filepath.Join(reused, ownerFile), []byte(o.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	// A dead pid, but in another pid namespace (a container sharing the temp dir): left alone.
	elsewhere := filepath.Join(tmp, "natsperf-elsewhere")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	gone := owner{pid: victim.Process.Pid, ns: "pid:[1]"}
	if err := os.WriteFile(filepath.Join(elsewhere, ownerFile), []byte(gone.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	c := startT(t, testOptions(1))
	if _, err := os.Stat(killedStore); !os.IsNotExist(err) {
		t.Errorf("the store of the killed process is still there (%v)", err)
	}
	for _, keep := range []string{aliveStore, foreign, other, elsewhere, c.root} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
	if _, err := os.Stat(reused); o.start != "" && !os.IsNotExist(err) {
		t.Errorf("the store whose pid now belongs to another process is still there (%v)", err)
	}
	if !processExists(alive.Process.Pid) {
		t.Fatalf("the live helper exited")
	}
}
