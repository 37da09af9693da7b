package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// --sys-user with its password in $NATSPERF_SYS_PASSWORD samples all 3 servers of a cluster
// through the system account while the clients connect as an ordinary user; the text says
// so, and neither the output, the Result nor the printed Spec holds the password.
func TestSysAccountTelemetryFlags(t *testing.T) {
	nodes := natstest.SysCluster(t)
	const pass = "syspw"
	out := filepath.Join(t.TempDir(), "res.json")
	args := []string{"pub", "systest.cli", "--msgs", "2000", "--size", "16", "-s", nodes[0].ClientURL(),
		"--user", "app", "--password", "apppw", "--sys-user", "sys", "--no-progress", "-o", out}
	env := map[string]string{"NATSPERF_SYS_PASSWORD": pass}
	r := run(context.Background(), t, env, args...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.out, "Servers counted (sys, 3 servers)") {
		t.Errorf("no cross-check line for the 3 servers read through the system account:\n%s", r.out)
	}
	res, data := readResultFile(t, out)
	if tel := res.Telemetry; tel == nil || tel.Source != "sys" || len(tel.Servers) != 3 || len(tel.Errors) > 0 {
		t.Fatalf("telemetry %+v", tel)
	}
	if in := res.Telemetry.Counters().InMsgs; in < 2000 {
		t.Errorf("the servers counted %d messages in, natsperf published 2000", in)
	}
	sp := run(context.Background(), t, env, append([]string{"spec"}, args...)...)
	if sp.code != 0 || !strings.Contains(sp.out, "sys_user: sys") || !strings.Contains(sp.out, "sys_password: '[redacted]'") {
		t.Fatalf("spec: exit %d: %s%s", sp.code, sp.out, sp.err)
	}
	for name, text := range map[string]string{"stdout": r.out, "stderr": r.err, "result": data, "spec": sp.out} {
		if strings.Contains(text, pass) {
			t.Errorf("%s shows the system password", name)
		}
	}
}

// --sys-password is refused (the nats CLI has none, and ps would show it), on one line that
// names the environment variable to use and never the password, before anything runs.
func TestSysPasswordFlagRefused(t *testing.T) {
	for _, args := range [][]string{
		{"pub", "foo", "--msgs", "10", "--sys-user", "sys", "--sys-password", "hunter2", "--no-progress"},
		{"latency", "--duration", "1s", "--sys-password=hunter2"},
		{"spec", "pub", "foo", "--sys-user", "sys", "--sys-password", "hunter2"},
	} {
		r := run(context.Background(), t, nil, args...)
		if r.code != 2 || !strings.Contains(r.err, "NATSPERF_SYS_PASSWORD") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 ||
			strings.Contains(r.err+r.out, "hunter2") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.out, r.err)
		}
	}
}

// The latency command samples the servers as every command does: through the system account
// here (a 3-node cluster, publishing on one node and receiving on another), with the system
// password from the environment, which appears nowhere in the output or the Result.
func TestLatencySysAccountTelemetry(t *testing.T) {
	nodes := natstest.SysCluster(t)
	const pass = "syspw"
	out := filepath.Join(t.TempDir(), "res.json")
	r := run(context.Background(), t, map[string]string{"NATSPERF_SYS_PASSWORD": pass}, "latency", "--rate", "200", "--duration", "1s",
		"-s", nodes[0].ClientURL(), "--server-b", nodes[1].ClientURL(), "--user", "app", "--password", "apppw",
		"--sys-user", "sys", "--no-progress", "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.out, "HDR Percentiles:") || !strings.Contains(r.out, "Servers counted (sys, 3 servers)") ||
		!strings.Contains(r.out, "natsperf counted pub 200, sub 200") {
		t.Errorf("output:\n%s", r.out)
	}
	res, data := readResultFile(t, out)
	if tel := res.Telemetry; tel == nil || tel.Source != "sys" || len(tel.Servers) != 3 || tel.Counters().InMsgs < 200 {
		t.Fatalf("telemetry %+v", tel)
	}
	for name, text := range map[string]string{"stdout": r.out, "stderr": r.err, "result": data} {
		if strings.Contains(text, pass) {
			t.Errorf("%s shows the system password", name)
		}
	}
}

// readResultFile reads the Result natsperf wrote to path, and its text.
func readResultFile(t *testing.T, path string) (*result.Result, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.Read(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return res, string(data)
}
