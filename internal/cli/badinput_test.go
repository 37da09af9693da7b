package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// TestScenarioExamplesInDocsParse: every YAML scenario in docs/, README.md and examples/ passes
// 'natsperf run --dry-run' as written (the flags of its workloads included).
func TestScenarioExamplesInDocsParse(t *testing.T) {
	root := filepath.Join("..", "..")
	files := map[string]string{}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	block := regexp.MustCompile("(?s)```ya?ml\n(.*?)```")
	for _, md := range append(docs, filepath.Join(root, "README.md")) {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range block.FindAllStringSubmatch(string(b), -1) {
			dir := t.TempDir()
			p := filepath.Join(dir, filepath.Base(md)+"-"+strconv.Itoa(i)+".yaml")
			if err := os.WriteFile(p, []byte(m[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			files[p] = md
		}
	}
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*.yaml"))
	for _, e := range examples {
		files[e] = e
	}
	if len(files) < 3 {
		t.Fatalf("found only %d examples", len(files))
	}
	for p, from := range files {
		r := run(context.Background(), t, nil, "run", p, "--dry-run")
		if r.code != 0 || !strings.Contains(r.out, "cell") {
			t.Errorf("%s (from %s): exit %d\n%s%s", p, from, r.code, r.out, r.err)
		}
	}
}

// TestBadInputRefusedBeforeRunning: each mistake is one line on stderr and exit 2, before
// anything connects or runs (no server is given: a run would start an embedded one and print
// its line, which the test refuses).
func TestBadInputRefusedBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	aFile := filepath.Join(dir, "file")
	if err := os.WriteFile(aFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("s", 300)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"rate Inf", []string{"pub", "foo", "--rate", "Inf"}, "--rate must be"},
		{"rate NaN", []string{"pub", "foo", "--rate", "NaN"}, "--rate must be"},
		{"rate 1e300", []string{"pub", "foo", "--rate", "1e300"}, "--rate must be"},
		{"rate 1e-300", []string{"pub", "foo", "--rate", "1e-300"}, "--rate must be"},
		{"rate negative", []string{"pub", "foo", "--rate", "-5"}, "--rate must be"},
		{"rate Inf, js pub", []string{"js", "pub", "async", "foo", "--rate", "+Inf"}, "--rate must be"},
		{"rate Inf, service request", []string{"service", "request", "foo", "--rate", "Inf"}, "--rate must be"},
		{"rate Inf, latency", []string{"latency", "--rate", "Inf", "--duration", "1s"}, "--rate must be"},
		{"rate 1e-300, latency", []string{"latency", "--rate", "1e-300", "--duration", "1s"}, "--rate must be"},
		{"rate and sleep", []string{"pub", "foo", "--rate", "100", "--sleep", "1ms"}, "--rate and --sleep"},
		{"pace precision too fine", []string{"pub", "foo", "--rate", "100", "--pace-precision", "1us"}, "--pace-precision"},
		{"pace precision not a duration", []string{"latency", "--pace-precision", "fast"}, "--pace-precision"},
		{"pace precision too coarse", []string{"service", "request", "foo", "--rate", "10", "--pace-precision", "1s"}, "--pace-precision"},
		{"pub cap", []string{"pubsub", "foo", "--pub", "100001"}, "at most 100000"},
		{"sub cap", []string{"pubsub", "foo", "--sub", "100001"}, "at most 100000"},
		{"-o a directory", []string{"pub", "foo", "-o", dir}, "is a directory"},
		{"-o under a file", []string{"pub", "foo", "-o", filepath.Join(aFile, "x.json")}, "cannot create its directory"},
		{"--hist under a file", []string{"pubsub", "foo", "--hist", filepath.Join(aFile, "x.hgrm")}, "--hist"},
		{"--hist a directory", []string{"sub", "foo", "--hist", dir}, "is a directory"},
		{"--csv a directory", []string{"pub", "foo", "--csv", dir}, "is a directory"},
		{"latency --hist under a file", []string{"latency", "--rate", "10", "--duration", "1s", "--hist", filepath.Join(aFile, "x.hgrm")}, "--hist"},
		{"js pub -o a directory", []string{"js", "pub", "sync", "foo", "-o", dir}, "is a directory"},
		{"subject with a space", []string{"pub", "bad name!"}, "not a valid NATS subject"},
		{"server --addr not an IP", []string{"server", "--addr", "localhost:4222"}, "--addr must be an IP address"},
		{"server --http-port out of range", []string{"server", "-m", "70000"}, "--http-port must be 0..65535"},
		{"subject foo bar", []string{"sub", "foo bar"}, "not a valid NATS subject"},
		{"empty subject", []string{"pub", ""}, "not a valid NATS subject"},
		{"> not last", []string{"pub", "foo.>.bar"}, "not a valid NATS subject"},
		{"> not last, sub", []string{"sub", "foo.>.bar"}, "not a valid NATS subject"},
		{"> not last, pubsub", []string{"pubsub", "foo.>.bar"}, "not a valid NATS subject"},
		{"empty token", []string{"service", "serve", "foo..bar"}, "not a valid NATS subject"},
		{"wildcard publish", []string{"pub", "foo.*"}, "publishing needs a literal subject"},
		{"wildcard publish, pubsub", []string{"pubsub", "foo.>"}, "publishing needs a literal subject"},
		{"wildcard request", []string{"service", "request", "foo.*"}, "publishing needs a literal subject"},
		{"wildcard js pub", []string{"js", "pub", "async", "foo.>"}, "publishing needs a literal subject"},
		{"wildcard latency subject", []string{"latency", "--rate", "10", "--duration", "1s", "--subject", "a.*"}, "publishing needs a literal subject"},
		{"bad filter", []string{"js", "ordered", "--filter", "foo.>.bar"}, "not a valid NATS subject"},
		{"bad get filter", []string{"js", "get", "sync", "--filter", "foo bar"}, "not a valid NATS subject"},
		{"stream bad name!", []string{"js", "pub", "async", "foo", "--stream", "bad name!"}, "not a valid stream name"},
		{"stream a.b*c", []string{"js", "ordered", "--stream", "a.b*c"}, "not a valid stream name"},
		{"stream 300 characters", []string{"js", "consume", "--stream", long}, "300 characters"},
		{"stream empty", []string{"js", "pub", "sync", "foo", "--stream", ""}, "--stream must not be empty"},
		{"pubsub --js stream", []string{"pubsub", "foo", "--js", "--stream", "foo bar"}, "not a valid stream name"},
		{"bucket bad name!", []string{"kv", "put", "--bucket", "bad name!"}, "not a valid KV bucket name"},
		{"bucket a.b*c", []string{"kv", "get", "--bucket", "a.b*c"}, "not a valid KV bucket name"},
		{"bucket 300 characters", []string{"kv", "put", "--bucket", long}, "300 characters"},
		{"bucket empty", []string{"kv", "put", "--bucket", ""}, "--bucket must not be empty"},
		{"report -o under a file", []string{"report", dir, "-o", filepath.Join(aFile, "r.md")}, "cannot create its directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := run(ctx, t, nil, tt.args...)
			msg := strings.TrimSpace(r.err)
			if r.code != exitUsage || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") || r.out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", r.code, r.out, r.err, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("refused runs left files behind: %v", entries)
	}
}

// TestOutputDirectoriesCreated: -o and --hist into a directory that does not exist yet create
// it, and the Result and histogram are there after the run.
func TestOutputDirectoriesCreated(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "results", "deep", "pub.json")
	hist := filepath.Join(dir, "hists", "pubsub.hgrm")
	r := run(context.Background(), t, nil, "pubsub", "mk", "-s", s.ClientURL(), "--msgs", "100", "-o", file, "--hist", hist)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	res, err := result.ReadFile(file)
	if err != nil || group(t, res, "sub").Aggregate.Msgs != 100 {
		t.Fatalf("Result not saved: %v", err)
	}
	if b, err := os.ReadFile(hist); err != nil || !strings.Contains(string(b), "Value") {
		t.Fatalf("histogram not saved: %v %q", err, b)
	}
}

// TestResultPrintedWhenSavingFails: when -o cannot be written after the run (its directory was
// replaced by a file meanwhile), the Result goes to stderr instead of being lost, and the exit
// says so.
func TestResultPrintedWhenSavingFails(t *testing.T) {
	s := startServer(t, nil)
	dir := filepath.Join(t.TempDir(), "gone")
	done := make(chan cliRun, 1)
	go func() {
		done <- run(context.Background(), t, nil, "sub", "gone", "-s", s.ClientURL(), "--msgs", "50", "-o", filepath.Join(dir, "r.json"))
	}()
	waitForSubs(t, s, "gone", 1) // the output check is behind it
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(context.Background(), t, nil, "pub", "gone", "-s", s.ClientURL(), "--msgs", "50"); r.code != 0 {
		t.Fatalf("pub exit %d: %s", r.code, r.err)
	}
	r := <-done
	if r.code == 0 || !strings.Contains(r.err, "cannot save the Result") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	i := strings.Index(r.err, "{")
	if i < 0 {
		t.Fatalf("no Result on stderr: %q", r.err)
	}
	res, err := result.Read(strings.NewReader(r.err[i:]))
	if err != nil || group(t, res, "sub").Aggregate.Msgs != 50 {
		t.Fatalf("Result on stderr unreadable: %v", err)
	}
}

// TestBadInputFiles: scenario files and Result files that cannot be true are refused with exit
// 2 and a message naming the mistake, before anything runs or is written.
func TestBadInputFiles(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	if r := run(context.Background(), t, nil, "pubsub", "rep", "-s", s.ClientURL(), "--msgs", "200", "-o", good); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Each mutation edits the decoded Result and writes it to its own file.
	mutated := func(name string, edit func(doc map[string]any)) string {
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		edit(doc)
		out, _ := json.Marshal(doc)
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lastGroup := func(doc map[string]any) map[string]any {
		gs := doc["groups"].([]any)
		return gs[len(gs)-1].(map[string]any)
	}
	corrupt := mutated("corrupt-hist", func(doc map[string]any) {
		lastGroup(doc)["aggregate"].(map[string]any)["latency"].(map[string]any)["histogram"] = "bm90IGEgaGlzdG9ncmFt"
	})
	negative := mutated("negative", func(doc map[string]any) { lastGroup(doc)["aggregate"].(map[string]any)["msgs"] = -5 })
	negClient := mutated("negative-client", func(doc map[string]any) {
		lastGroup(doc)["clients"].([]any)[0].(map[string]any)["bytes"] = -1
	})
	nullGroups := mutated("null-groups", func(doc map[string]any) { doc["groups"] = nil })
	scenarioFile := func(name, yaml string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cyclic := scenarioFile("cyclic", "vars:\n  a: ${b}\n  b: ${a}\nworkloads:\n  - command: pub x${a}\n")
	badSubject := scenarioFile("subject", "workloads:\n  - command: pub foo.>.bar\n")
	wildPub := scenarioFile("wildpub", "workloads:\n  - command: pubsub foo.*\n")
	dupKey := scenarioFile("dup", "name: x\nworkloads:\n  - command: pub x\n    flags: {msgs: 10, msgs: 20}\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"corrupt histogram, hgrm", []string{"report", corrupt, "--format", "hgrm"}, "latency histogram is corrupt"},
		{"corrupt histogram, md", []string{"report", corrupt}, "latency histogram is corrupt"},
		{"negative msgs", []string{"report", negative}, "negative msgs -5"},
		{"negative client bytes", []string{"report", negClient, "--format", "csv"}, "negative bytes -1"},
		{"groups null", []string{"report", nullGroups}, "has no groups"},
		{"workload subject", []string{"run", badSubject, "--dry-run"}, "workloads[0].command: SUBJECT \"foo.>.bar\" is not a valid NATS subject"},
		{"workload wildcard publish", []string{"run", wildPub, "--dry-run"}, "publishing needs a literal subject"},
		{"cyclic variables", []string{"run", cyclic, "--dry-run"}, "vars.a: refers to itself (a -> b -> a)"},
		{"duplicate keys", []string{"run", dupKey, "--dry-run"}, "workloads[0].flags.msgs: duplicate key (first at line 4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(tt.name, " ", "_"))
			args := tt.args
			if args[0] == "report" {
				args = append(args, "-o", out)
			}
			r := run(context.Background(), t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.err, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 with %q", r.code, r.out, r.err, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("a refused report wrote %s", out)
			}
		})
	}
	if r := run(context.Background(), t, nil, "report", good, "--format", "hgrm"); r.code != 0 || !strings.Contains(r.out, "Value") {
		t.Fatalf("the good Result: exit %d, %q", r.code, r.err)
	}
}

// TestLongMatrixValueRuns: a 400-character matrix value passes --dry-run and then runs: its
// files get a name the file system takes.
func TestLongMatrixValueRuns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "long.yaml")
	yaml := "matrix:\n  subj: [" + strings.Repeat("s", 400) + "]\ntarget: {embedded: {nodes: 1}}\nworkloads:\n  - command: pub ${subj}\n    flags: {msgs: 10}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(context.Background(), t, nil, "run", file, "--dry-run"); r.code != 0 {
		t.Fatalf("--dry-run exit %d: %s", r.code, r.err)
	}
	out := filepath.Join(dir, "out")
	if r := run(context.Background(), t, nil, "run", file, "-o", out); r.code != 0 {
		t.Fatalf("run exit %d: %s%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil || len(ix.Cells) != 1 || len(ix.Cells[0].Runs) != 1 {
		t.Fatalf("index %v %+v", err, ix)
	}
	if _, err := result.ReadFile(filepath.Join(out, ix.Cells[0].Runs[0].Result)); err != nil {
		t.Fatal(err)
	}
}
