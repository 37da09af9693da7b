package rustbin

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
)

// Agent is a natsperf-rust agent started for one run (natsperf --client rust).
type Agent struct {
	cmd  *exec.Cmd
	errs *lockedBuffer
	done chan struct{}
}

// StartAgent starts `natsperf-rust agent` on the server c, labelled (label, and client=rust)
// so one run's coordinator picks it and no other. Passwords and tokens go in its environment,
// never in its command line.
func StartAgent(bin string, c connect.Settings, label string) (*Agent, error) {
	args := []string{"-s", c.Servers}
	for flag, v := range map[string]string{"--creds": c.Creds, "--nkey": c.NKey, "--user": c.User, "--tls-cert": c.TLSCert, "--tls-key": c.TLSKey, "--tls-ca": c.TLSCA} {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	if c.TLSFirst {
		args = append(args, "--tlsfirst")
	}
	args = append(args, "agent", "--label", label, "--label", "client=rust", "--name", fmt.Sprintf("rust-%d", os.Getpid()))
	cmd := exec.Command(bin, args...)
	cmd.Env = os.Environ()
	if c.Password != "" {
		cmd.Env = append(cmd.Env, "NATSPERF_RUST_PASSWORD="+c.Password)
	}
	if c.Token != "" {
		cmd.Env = append(cmd.Env, "NATSPERF_RUST_TOKEN="+c.Token)
	}
	a := &Agent{cmd: cmd, errs: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = a.errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start natsperf-rust (%s): %w", bin, err)
	}
	go func() {
		_ = cmd.Wait()
		close(a.done)
	}()
	return a, nil
}

// Done is closed when the agent's process has exited.
func (a *Agent) Done() <-chan struct{} { return a.done }

// Exited reports whether the agent's process has exited.
func (a *Agent) Exited() bool {
	select {
	case <-a.done:
		return true
	default:
		return false
	}
}

// LastLine is the agent's last line on stderr (why it exited).
func (a *Agent) LastLine() string {
	lines := strings.Split(strings.TrimSpace(a.errs.String()), "\n")
	if last := lines[len(lines)-1]; last != "" {
		return last
	}
	return "it said nothing (is it natsperf-rust?)"
}

// Stop ends the agent: SIGTERM (it stops its run and unregisters), then a kill.
func (a *Agent) Stop() {
	if a.Exited() {
		return
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}

// lockedBuffer keeps a child's stderr while the child writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
