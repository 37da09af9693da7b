package deploy

import (
	"bytes"
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

// instruction is one Dockerfile line as Docker's own parser reads it.
type instruction struct {
	cmd   string   // lower case: from, run, copy, user, entrypoint...
	args  []string // the words after it (exec form: the JSON array's elements)
	flags []string // --from=build and the like
}

// stages parses ../Dockerfile with buildkit's parser (the one `docker build` uses) and groups
// its instructions by stage. Parser warnings (deprecated or empty continuations) fail the test.
func stages(t *testing.T) [][]instruction {
	t.Helper()
	f, err := os.Open("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile warning: %s", w.Short)
	}
	var out [][]instruction
	for _, n := range res.AST.Children {
		in := instruction{cmd: strings.ToLower(n.Value), flags: n.Flags}
		for a := n.Next; a != nil; a = a.Next {
			in.args = append(in.args, a.Value)
		}
		if in.cmd == "from" {
			out = append(out, nil)
		}
		if len(out) == 0 {
			continue // ARG before the first FROM
		}
		out[len(out)-1] = append(out[len(out)-1], in)
	}
	if len(out) != 2 {
		t.Fatalf("%d stages, want 2 (builder, image)", len(out))
	}
	return out
}

func find(stage []instruction, cmd string) []instruction {
	var out []instruction
	for _, in := range stage {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// buildCommand returns the builder stage's `go build` RUN line and the binary path it writes.
func buildCommand(t *testing.T, builder []instruction) (run, output string) {
	t.Helper()
	for _, in := range find(builder, "run") {
		if line := strings.Join(in.args, " "); strings.Contains(line, "go build") {
			m := regexp.MustCompile(`-o (\S+)`).FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("build command %q has no -o", line)
			}
			return line, m[1]
		}
	}
	t.Fatal("no RUN ... go build in the builder stage")
	return "", ""
}

// The Dockerfile: a golang builder making a static, trimmed, versioned binary, copied into a
// distroless/static image that runs it as a numeric non-root user.
func TestDockerfile(t *testing.T) {
	st := stages(t)
	builder, final := st[0], st[1]
	from := builder[0].args
	if len(from) != 3 || !strings.HasPrefix(from[0], "golang:") || !strings.EqualFold(from[1], "as") {
		t.Errorf("builder FROM %q: want golang:... AS NAME", from)
	}
	run, output := buildCommand(t, builder)
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X github.com/natsperf/natsperf/internal/version.Version=${VERSION}", "./cmd/natsperf"} {
		if !strings.Contains(run, want) {
			t.Errorf("build command %q lacks %q", run, want)
		}
	}
	if base := final[0].args[0]; !strings.HasPrefix(base, "gcr.io/distroless/static") && base != "scratch" {
		t.Errorf("final image FROM %s: want distroless/static or scratch", base)
	}
	copies := find(final, "copy")
	if len(copies) != 1 || len(copies[0].flags) != 1 || copies[0].flags[0] != "--from="+from[2] || copies[0].args[0] != output {
		t.Errorf("final stage COPY %+v: want --from=%s %s", copies, from[2], output)
	}
	users := find(final, "user")
	if len(users) != 1 || !regexp.MustCompile(`^[1-9][0-9]*(:[0-9]+)?$`).MatchString(users[0].args[0]) {
		t.Errorf("final USER %+v: want one numeric non-root UID", users)
	}
	entry := find(final, "entrypoint")
	if len(entry) != 1 || len(entry[0].args) != 1 || filepath.Base(entry[0].args[0]) != "natsperf" || copies[0].args[1] != entry[0].args[0] {
		t.Errorf("ENTRYPOINT %+v: want the exec form of the copied natsperf", entry)
	}
}

// TestDockerfileBuildCommand runs the Dockerfile's own `go build` line on the build context
// .dockerignore leaves (so a pattern that drops a file the build needs fails here) and checks
// the binary is static, stripped of build paths and reports the version it was given. No Docker
// engine is needed; -short skips it (a full build: a minute or two of CPU).
func TestDockerfileBuildCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the full build is skipped")
	}
	st := stages(t)
	run, output := buildCommand(t, st[0])
	ctxDir := filepath.Join(t.TempDir(), "src")
	copyContext(t, "..", ctxDir)
	bin := filepath.Join(t.TempDir(), "natsperf")
	cmd := exec.Command("sh", "-c", strings.Replace(run, "-o "+output, "-o "+bin, 1))
	cmd.Dir = ctxDir
	cmd.Env = append(os.Environ(), "VERSION=v9.9.9-docker-test")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", run, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary asks for a dynamic loader: not static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) != 0 {
		t.Errorf("the binary needs shared libraries %q", libs)
	}
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(ctxDir)) {
		t.Error("the build directory is in the binary: -trimpath did not apply")
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "v9.9.9-docker-test") {
		t.Errorf("natsperf version: %v %q: want the VERSION build argument", err, out)
	}
}

// copyContext copies the repository into dst leaving out what .dockerignore excludes, as the
// Docker client does when it sends the build context.
func copyContext(t *testing.T, root, dst string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := ignorefile.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if rel == "." {
			return nil
		}
		if skip, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel)); err != nil || skip {
			if d.IsDir() && !pm.Exclusions() {
				return filepath.SkipDir
			}
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"deploy", ".git", "internal/cli/badinput_test.go"} {
		if _, err := os.Stat(filepath.Join(dst, gone)); err == nil {
			t.Errorf("%s is in the build context although .dockerignore excludes it", gone)
		}
	}
	t.Logf("build context: %d files", n)
}
