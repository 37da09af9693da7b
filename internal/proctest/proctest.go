// Package proctest runs natsperf as separate processes in tests (agents, coordinators, servers):
// built once, started with a clean-up that interrupts and then kills, watched for its output
// and its exit. The end-to-end tests of internal/coord (loopback) and internal/e2e (network
// namespaces) share it.
package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
)

// RaceEnv, when set, builds natsperf with the race detector: a data race in any process then
// fails the test that started it.
const RaceEnv = "NATSPERF_RACE"

// Build builds natsperf into dir and returns the binary's path.
func Build(dir string) (string, error) {
	bin := filepath.Join(dir, "natsperf")
	args := []string{"build", "-o", bin}
	if os.Getenv(RaceEnv) != "" {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, "github.com/natsperf/natsperf/cmd/natsperf")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build natsperf: %w", err)
	}
	return bin, nil
}

// RunWithNatsperf is a TestMain's body for tests that start natsperf processes: it builds
// natsperf into a temporary directory named after prefix, sets *bin, runs the tests and
// removes the directory. It returns the exit code for os.Exit.
func RunWithNatsperf(m *testing.M, prefix string, bin *string) int {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// KillAgent kills victim (an agent, SIGKILL) mid-run and checks what the coordinator co does:
// it ends with exit 1 well before the run would have (3 missed heartbeats, then the others'
// stop and their Results), and the partial Result in file names the lost agent and keeps the
// others' parts (CheckLost).
func KillAgent(t *testing.T, victim, co *Proc, file, lost string, others ...string) {
	t.Helper()
	killed := time.Now()
	if err := victim.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code := co.Wait(t, 30*time.Second)
	took := time.Since(killed)
	if code != 1 {
		t.Fatalf("coordinator exit %d after a lost agent, want 1:\n%s", code, co.Out.String())
	}
	if took > 20*time.Second {
		t.Errorf("the run ended %v after the kill", took)
	}
	t.Logf("the run ended %v after agent %s was killed", took.Round(time.Millisecond), lost)
	CheckLost(t, ReadResult(t, file), co.Out.String(), lost, others...)
}

// Proc is a started process and everything it wrote.
type Proc struct {
	Name string
	Cmd  *exec.Cmd
	Out  *natstest.Buffer
	done chan struct{}
	code int
}

// Start starts cmd with its output collected. At the test's end it is interrupted (SIGINT),
// killed if still there after 15 s, checked for data races, and its output logged if the test
// failed.
func Start(t *testing.T, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	p := &Proc{Name: name, Cmd: cmd, Out: &natstest.Buffer{}, done: make(chan struct{})}
	p.Cmd.Stdout, p.Cmd.Stderr = p.Out, p.Out
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = p.Cmd.Wait()
		p.code = p.Cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Signal(syscall.SIGINT)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.Cmd.Process.Kill()
			<-p.done
		}
		if strings.Contains(p.Out.String(), "DATA RACE") {
			t.Errorf("%s had a data race", p.Name)
		}
		if t.Failed() {
			t.Logf("--- %s output:\n%s", p.Name, p.Out.String())
		}
	})
	return p
}

// Signal sends s unless the process has exited.
func (p *Proc) Signal(s os.Signal) {
	select {
	case <-p.done:
	default:
		_ = p.Cmd.Process.Signal(s)
	}
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Code is the exit code, once Done is closed.
func (p *Proc) Code() int { return p.code }

// Wait waits up to d for the process to exit and returns its exit code.
func (p *Proc) Wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("%s did not exit within %v; output:\n%s", p.Name, d, p.Out.String())
	}
	return 0
}

// Mark is how much the process has written so far: WaitForAfter looks only past it, so a line
// a long-running process (an agent) says once per run is not found from an earlier run.
func (p *Proc) Mark() int { return len(p.Out.String()) }

// WaitFor waits up to d for text in the output; a process that exits first fails the test.
func (p *Proc) WaitFor(t *testing.T, text string, d time.Duration) {
	t.Helper()
	p.WaitForAfter(t, 0, text, d)
}

// WaitForAfter is WaitFor in what the process wrote after mark (see Mark).
func (p *Proc) WaitForAfter(t *testing.T, mark int, text string, d time.Duration) {
	t.Helper()
	natstest.Eventually(t, d, 20*time.Millisecond, func() error {
		if out := p.Out.String(); strings.Contains(out[min(mark, len(out)):], text) {
			return nil
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited %d before saying %q:\n%s", p.Name, p.code, text, p.Out.String())
		default:
		}
		return fmt.Errorf("%s has not said %q since its mark:\n%s", p.Name, text, p.Out.String())
	})
}
