//go:build linux

package fault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
)

func TestRunCommand(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	out, err := runCommand(context.Background(), "sleep 30 & echo $! > "+pidFile+"; echo started", 5*time.Second)
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("out %q, err %v: a command that finished is not an error", out, err)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Fatalf("waited %v for a background child", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	natstest.Eventually(t, 3*time.Second, 20*time.Millisecond, func() error {
		if alive(pid) {
			return fmt.Errorf("the background child %d outlived the command", pid)
		}
		return nil
	})

	if _, err := runCommand(context.Background(), "sleep 30", 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("a command past its timeout: %v", err)
	}
	if _, err := runCommand(context.Background(), "exit 3", time.Second); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("a failing command: %v", err)
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}
