package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/natsperf/natsperf/internal/scenario"
)

// realDocs runs several commands against a real server (and a scenario on an embedded one) and
// returns what they wrote, raw: Results by command, plus the scenario's index.json and the
// report JSON of its directory ("index", "report").
func realDocs(t *testing.T) map[string][]byte {
	t.Helper()
	s := startServer(t, nil)
	ctx := context.Background()
	docs := map[string][]byte{}
	runDoc := func(name string, args ...string) {
		t.Helper()
		r := run(ctx, t, nil, append(args, "--json", "--no-progress")...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.err)
		}
		docs[name] = []byte(r.out)
	}
	runDoc("pub", "pub", "fmt.pub", "-s", s.ClientURL(), "--msgs", "200")
	runDoc("pubsub", "pubsub", "fmt.ps", "-s", s.ClientURL(), "--msgs", "300", "--pub", "1", "--sub", "2")
	runDoc("pubsub --verify", "pubsub", "fmt.psv", "-s", s.ClientURL(), "--rate", "500", "--duration", "500ms", "--verify")
	runDoc("js pub", at(s, "js", "pub", "async", "fmt.js", "--stream", "fmtjs", "--create", "--msgs", "300")...)
	runDoc("js consume", at(s, "js", "consume", "--stream", "fmtjs", "--msgs", "300")...)
	runDoc("kv put", at(s, "kv", "put", "--msgs", "100", "--storage", "memory")...)
	runDoc("latency", "latency", "-s", s.ClientURL(), "--rate", "200", "--duration", "500ms")

	served := make(chan []byte, 1)
	go func() {
		r := run(ctx, t, nil, "service", "serve", "fmt.svc", "-s", s.ClientURL(), "--msgs", "100", "--json", "--no-progress")
		served <- []byte(r.out)
	}()
	waitForSubs(t, s, "fmt.svc", 1)
	runDoc("service request", "service", "request", "fmt.svc", "-s", s.ClientURL(), "--msgs", "100", "--size", "16")
	docs["service serve"] = <-served

	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(smallScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if r := run(ctx, t, nil, "run", file, "-o", out, "--set", "storage=memory", "--set", "msgs=50"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scenario run", "index"} {
		path := filepath.Join(out, ix.Cells[0].Runs[0].Result)
		if name == "index" {
			path = filepath.Join(out, scenario.IndexFile)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = b
	}
	r := run(ctx, t, nil, "report", out, "--format", "json")
	if r.code != 0 {
		t.Fatalf("report: exit %d: %s", r.code, r.err)
	}
	docs["report"] = []byte(r.out)
	return docs
}

// dataMaps are objects whose keys are data, not field names: workload instance names, matrix
// axis values, the report's metric keys ("pub.rate").
var dataMaps = regexp.MustCompile(`^(\.settings\.workloads|\.settings(\.workloads\.[^.]+\.settings)?\.scenario\.values|\.settings\.scenario\.values|\.cells\[\]\.values|\.cells\[\]\.metrics|\.set)$`)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestJSONKeysSnakeCase: every field name in the Results of real runs, in index.json and in the
// report JSON is snake_case (the core workloads printed Subject, IDs, MultiSubject ...).
func TestJSONKeysSnakeCase(t *testing.T) {
	for name, b := range realDocs(t) {
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bad := map[string]bool{}
		var walk func(v any, path string)
		walk = func(v any, path string) {
			switch v := v.(type) {
			case map[string]any:
				data := dataMaps.MatchString(path)
				for k, e := range v {
					if !data && !snakeKey.MatchString(k) {
						bad[path+"."+k] = true
					}
					walk(e, path+"."+k)
				}
			case []any:
				for _, e := range v {
					walk(e, path+"[]")
				}
			}
		}
		walk(doc, "")
		if len(bad) > 0 {
			keys := make([]string, 0, len(bad))
			for k := range bad {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			t.Errorf("%s: keys not in snake_case:\n  %s", name, strings.Join(keys, "\n  "))
		}
	}
}

// resultSchema compiles schema/result.schema.json with formats (date-time) asserted.
func resultSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join("..", "..", "schema", "result.schema.json"))
	if err != nil {
		t.Fatalf("schema/result.schema.json: %v", err)
	}
	return sch
}

// TestResultSchema validates the Results of real runs of many commands (and a scenario) against
// schema/result.schema.json, and checks the schema is strict: a camelCase key anywhere, an
// unknown field or a v1 document fails it.
func TestResultSchema(t *testing.T) {
	sch := resultSchema(t)
	docs := realDocs(t)
	validate := func(b []byte) error {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return err
		}
		return sch.Validate(inst)
	}
	for name, b := range docs {
		if name == "index" || name == "report" {
			continue
		}
		if err := validate(b); err != nil {
			t.Errorf("%s: the Result does not match schema/result.schema.json (a new field belongs in the schema and docs/result-format.md):\n%v", name, err)
		}
	}
	// The pubsub --verify run has verify, the js runs streams: the schema's strict parts are used.
	for _, tc := range []struct{ name, from, to string }{
		{"camelCase in a workload's settings", `"subject":`, `"Subject":`},
		{"camelCase in a client", `"msgs_per_sec":`, `"msgsPerSec":`},
		{"an unknown top-level field", `"command":`, `"extra": 1, "command":`},
		{"a v1 document", `"natsperf.result/v2"`, `"natsperf.result/v1"`},
		{"a time that is not RFC 3339", `"start": "`, `"start": "x`},
	} {
		b := []byte(strings.Replace(string(docs["pubsub"]), tc.from, tc.to, 1))
		if bytes.Equal(b, docs["pubsub"]) {
			t.Fatalf("%s: %q not found in the pubsub Result", tc.name, tc.from)
		}
		if err := validate(b); err == nil {
			t.Errorf("%s: the schema accepts it", tc.name)
		}
	}
}
