package scenario

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestExamplesLoad(t *testing.T) {
	for _, tc := range []struct {
		file  string
		set   map[string]string
		cells int
	}{
		{"jetstream-evaluation.yaml", nil, 32},
		{"jetstream-evaluation.yaml", map[string]string{"layout": "per-app", "publish": "sync"}, 8},
		{"stability.yaml", map[string]string{"duration": "2m"}, 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			sc, err := Load(filepath.Join("..", "..", "examples", tc.file), Options{Set: tc.set})
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.Cells) != tc.cells {
				t.Fatalf("cells = %d, want %d", len(sc.Cells), tc.cells)
			}
		})
	}
}

func TestSubstitution(t *testing.T) {
	sc, err := Load("../../examples/jetstream-evaluation.yaml", Options{Set: map[string]string{"layout": "per-app", "storage": "memory", "replicas": "3", "publish": "sync"}})
	if err != nil {
		t.Fatal(err)
	}
	c := sc.Cells[0]
	if c.Name != "layout=per-app,storage=memory,replicas=3,publish=sync,consumer=push" {
		t.Fatalf("name %q", c.Name)
	}
	streams := c.File.Setup.Expanded()
	if len(streams) != 3 || streams[2].Name != "app3" || streams[2].Subjects[0] != "app3.>" || streams[0].Replicas != 3 || streams[0].Storage != "memory" {
		t.Fatalf("streams %+v", streams)
	}
	args, err := c.File.Workloads[0].Args(2)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(args, " ")
	for _, want := range []string{"pubsub app2.bench.subj.v1", "--stream app2", "--syncpub", "--replicas=3", "--storage=memory", "--consumer-kind=push"} {
		if !strings.Contains(got, want) {
			t.Errorf("args %q lack %q", got, want)
		}
	}
}

func TestValidationErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		set        map[string]string
		want       []string
	}{
		{"unknown field", "name: x\nworkloadz: []\n", nil, []string{"t.yaml:2:1: workloadz: unknown field (did you mean workloads?)"}},
		{"bad type", "workloads:\n  - command: pub foo\n    instances: many\n", nil, []string{"t.yaml:3:16: workloads[0].instances: \"many\" is not a valid int"}},
		{"unknown var", "workloads:\n  - command: pub ${subjekt}\n", nil, []string{"t.yaml:2:14: workloads[0].command: unknown variable ${subjekt}"}},
		{"no workloads", "name: x\n", nil, []string{"workloads: a scenario needs at least one workload"}},
		{"storage", "setup:\n  streams:\n    - {name: s, subjects: [a], storage: disk}\nworkloads: [{command: pub a}]\n", nil, []string{"t.yaml:3:41: setup.streams[0].storage: must be file or memory"}},
		{"axis value", "matrix:\n  a: [1, 2]\nworkloads: [{command: pub a}]\n", map[string]string{"a": "3"}, []string{`--set a: "3" is not a value of axis a`}},
		{"unknown set", "workloads: [{command: pub a}]\n", map[string]string{"zz": "1"}, []string{"no variable or matrix axis named zz"}},
		{"syntax", "name: [\n", nil, []string{"t.yaml:"}},
		{"two errors", "repetitions: -1\nworkloads:\n  - {command: pub a, instances: 0, name: a/b}\n", nil, []string{"t.yaml:1:14: repetitions: must be at least 1", "workloads[0].name"}},
		{"check args", "workloads:\n  - command: pub foo --nope\n", nil, []string{"t.yaml:2:14: workloads[0].command: unknown flag"}},
		{"stream subject", "setup:\n  streams:\n    - {name: s, subjects: [\"a.>.b\"]}\nworkloads: [{command: pub a}]\n", nil, []string{"setup.streams[0].subjects[0]: \"a.>.b\" is not a valid NATS subject"}},
		{"stream name length", "setup:\n  streams:\n    - {name: " + strings.Repeat("n", 300) + ", subjects: [a]}\nworkloads: [{command: pub a}]\n", nil, []string{"setup.streams[0].name: 300 characters"}},
		{"bucket name", "setup:\n  buckets:\n    - {name: \"bad name!\"}\nworkloads: [{command: pub a}]\n", nil, []string{"setup.buckets[0].name: \"bad name!\": bucket names"}},
		{"cyclic vars", "vars:\n  a: ${b}\n  b: ${a}\nworkloads: [{command: pub x}]\n", nil, []string{"t.yaml:2:6: vars.a: refers to itself (a -> b -> a)"}},
		{"var refers to itself", "vars:\n  a: x${a}\nworkloads: [{command: pub x}]\n", nil, []string{"t.yaml:2:6: vars.a: refers to itself (a -> a)"}},
		{"duplicate key", "name: x\nname: y\nworkloads: [{command: pub x}]\n", nil, []string{"t.yaml:2:1: name: duplicate key (first at line 1)"}},
		{"duplicate flag", "workloads:\n  - command: pub x\n    flags: {msgs: 1, msgs: 2}\n", nil, []string{"workloads[0].flags.msgs: duplicate key (first at line 3)"}},
		{"duplicate var", "vars:\n  a: 1\n  a: 2\nworkloads: [{command: pub x}]\n", nil, []string{"t.yaml:3:3: vars.a: duplicate key (first at line 2)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tc.yaml), Options{Set: tc.set})
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *Error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%s\nlacks %q", err, w)
				}
			}
		})
	}
}

func TestSplitArgs(t *testing.T) {
	got, err := splitArgs(`pub "a b" 'c' d`)
	if err != nil || strings.Join(got, "|") != "pub|a b|c|d" {
		t.Fatalf("%q %v", got, err)
	}
	if _, err := splitArgs(`pub "a`); err == nil {
		t.Fatal("unterminated quote accepted")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("name: x\nmatrix:\n  a: [1, 2]\nworkloads:\n  - command: pub ${a}\n    flags: {size: 1kb}\n"))
	f.Add([]byte("vars: {x: ${y}, y: ${x}}\nworkloads: [{command: ${x}}]\n"))
	f.Add([]byte("matrix: {l: [{name: a, s: ${instance}}]}\nsetup: {streams: [{name: s${instance}, subjects: x, instances: 2}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("f.yaml", data, Options{})
		if err == nil && len(sc.Cells) == 0 {
			t.Fatal("no error and no cells")
		}
	})
}

func TestWorkloadArgsBooleans(t *testing.T) {
	w := Workload{Command: "js push --stream s${instance}", Flags: Flags{{Name: "flow-control", Value: "false"}, {Name: "purge", Value: "true"}, {Name: "msgs", Value: "10"}}}
	args, err := w.Args(3)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(args, " "), "js push --stream s3 --flow-control=false --purge --msgs=10"; got != want {
		t.Fatalf("args %q, want %q", got, want)
	}
}

// TestLongMatrixValueShortFileName: a 400-character matrix value gives a run file name the file
// system takes (the cell's index keeps it unique), instead of "file name too long" mid-run.
func TestLongMatrixValueShortFileName(t *testing.T) {
	long := strings.Repeat("v", 400)
	sc, err := Parse("t.yaml", []byte("matrix:\n  a: ["+long+", "+long+"x]\nworkloads: [{command: pub x}]\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range sc.Cells {
		name := RunName(c, 1) + ".series.jsonl"
		if len(name) > 255 || seen[name] {
			t.Fatalf("run file name of %d bytes (or repeated): %s", len(name), name)
		}
		seen[name] = true
	}
}
