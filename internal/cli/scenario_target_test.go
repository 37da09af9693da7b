package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// TestScenarioTargetSysAccount: a scenario's target is a Spec's, so it names the system
// account user (sys_user, its password from $NATSPERF_SYS_PASSWORD as on the command line)
// beside the clients' own user: the run's telemetry comes through the system account from
// all 3 servers, the servers count what natsperf published, and no file under -o, nor the
// output, holds either password. The servers are one comma-separated string, as scenario
// files have always given them.
func TestScenarioTargetSysAccount(t *testing.T) {
	nodes := natstest.SysCluster(t)
	const appPass, sysPass = "apppw", "syspw"
	dir := t.TempDir()
	file := filepath.Join(dir, "sys.yaml")
	sc := "name: sys\ntarget:\n  servers: \"" + nodes[0].ClientURL() + "," + nodes[1].ClientURL() + "\"\n" +
		"  user: app\n  password: " + appPass + "\n  sys_user: sys\n" +
		"workloads:\n  - name: p\n    command: pub systest.scenario\n    flags: {msgs: 2000, size: 16}\n"
	if err := os.WriteFile(file, []byte(sc), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, map[string]string{"NATSPERF_SYS_PASSWORD": sysPass}, "run", file, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil || len(ix.Cells) != 1 || len(ix.Cells[0].Runs) != 1 {
		t.Fatalf("index %+v: %v", ix, err)
	}
	data, err := os.ReadFile(filepath.Join(out, ix.Cells[0].Runs[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.Read(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	tel := res.Telemetry
	if tel == nil || tel.Source != "sys" || len(tel.Servers) != 3 || len(tel.Errors) > 0 {
		t.Fatalf("telemetry %+v: want the system account's, of 3 servers", tel)
	}
	if in := tel.Counters().InMsgs; in < 2000 {
		t.Errorf("the servers counted %d messages in, natsperf published 2000", in)
	}
	if len(res.Groups) != 1 || res.Groups[0].Aggregate.Msgs != 2000 {
		t.Errorf("groups %d: want the one publisher's, 2000 messages", len(res.Groups))
	}
	checkNoSecret(t, out, r, appPass, sysPass)
}

// checkNoSecret fails when the output or any file under dir holds one of the secrets.
func checkNoSecret(t *testing.T, dir string, r cliRun, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(r.out+r.err, s) {
			t.Errorf("the output shows %q", s)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q", path, s)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
