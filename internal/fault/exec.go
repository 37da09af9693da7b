package fault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// maxOutput is how much of a command's output the Result keeps.
const maxOutput = 512

// runCommand runs cmd with sh -c, bounded by timeout, and returns the start of its output.
func runCommand(ctx context.Context, cmd string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	setGroup(c)
	c.WaitDelay = time.Second // a grandchild holding the output open must not hang the run
	err := c.Run()
	killGroup(c) // what the command left running in the background does not outlive it
	text := strings.Join(strings.Fields(out.String()), " ")
	if len(text) > maxOutput {
		text = text[:maxOutput] + "..."
	}
	exited := c.ProcessState != nil && c.ProcessState.Exited()
	switch {
	case !exited && ctx.Err() == context.DeadlineExceeded:
		return text, fmt.Errorf("command still running after %s: killed", timeout)
	case errors.Is(err, exec.ErrWaitDelay):
		return text, nil // sh finished; a background child held its output open and was stopped
	case err != nil:
		return text, fmt.Errorf("command: %w", err)
	}
	return text, nil
}
