package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/runner"
)

// processOnly are the flags that change where a run's output goes or where it runs, never what
// it does, so no Spec holds them; each with why.
var processOnly = map[string]string{
	"agents":        "where the Spec runs (runner.Options)",
	"agents-wait":   "where the Spec runs (runner.Options)",
	"control":       "where the Spec runs (runner.Options)",
	"on-agent-loss": "where the Spec runs (runner.Options)",
	"client-bin":    "which natsperf-rust binary runs it",
	"hist":          "a file written after the run",
	"json":          "how the Result is printed",
	"output":        "where the Result is written",
	"no-progress":   "progress bars",
	"progress":      "progress bars (nats bench's spelling)",
	"cpu":           "how the Result is printed",
	"csv":           "a file written after the run",
	"cpuprofile":    "a profile of natsperf itself",
	"colors":        "accepted as nats bench does; natsperf prints no colours",
	"sys-password":  "refused: the password belongs in $NATSPERF_SYS_PASSWORD",
	"help":          "help",
}

// flagSample is a value for a flag that is not its default, and the flags it needs beside it
// (in the base line too, so only the flag itself differs).
type flagSample struct {
	value string // "" for a flag that takes none (a bool, set with no value)
	with  []string
	// alt, for a flag that cannot be left out while its companions are given, is another value
	// the line without it gives instead.
	alt string
}

// ignored are flags a command accepts and its Spec does not hold, each with why: accepted
// only because nats bench's command lines pass them, hidden from --help, and every run that
// gets one says on stderr that it has no effect (TestNoEffectFlagsSaySo).
var ignored = map[string]string{
	"js pub sync --batch":     "nats bench's js pub takes --batch in every mode; sync publishing waits for each ack",
	"js get sync --batch":     "js get batch's --batch on a js get sync line; each sync get reads one message",
	"js get sync --get-batch": "the same, by nats bench's other name",
}

// refused are flags a command refuses (exit 2) rather than run without: not a gap.
var refused = map[string]bool{
	"pubsub --clients":         true, // --pub and --sub count pubsub's clients
	"js pub atomic --arrivals": true, "js pub atomic --arrivals-seed": true, "js pub atomic --ramp": true,
	"js pub atomic --steps": true, "js pub atomic --step-duration": true, "js pub atomic --persistasync": true,
}

// pubsubJS are pubsub's flags that act with --js only.
var pubsubJS = map[string]bool{
	"ack-timeout": true, "batch": true, "compression": true, "create": true, "dedup-window": true, "force": true,
	"maxbytes": true, "persistasync": true, "purge": true, "replicas": true, "storage": true, "stream": true,
}

func flagSamples(t *testing.T) map[string]flagSample {
	dir := t.TempDir()
	file := filepath.Join(dir, "payload.bin")
	if err := os.WriteFile(file, []byte("hello, payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	rate := []string{"--rate", "100"}
	return map[string]flagSample{
		"ack-timeout": {"7s", nil, ""}, "ack-wait": {"3s", nil, ""}, "acks": {"none", nil, ""},
		"arrivals": {"poisson", rate, ""}, "arrivals-seed": {"7", []string{"--rate", "100", "--arrivals", "poisson"}, ""},
		"async-window": {"50", nil, ""}, "batch": {"50", nil, ""}, "batch-size": {"50", nil, ""}, "flow": {"50", nil, ""},
		"get-batch": {"50", nil, ""}, "pull-batch": {"50", nil, ""}, "bucket": {"other", nil, ""}, "client": {"rust", nil, ""},
		"client-delay": {"5ms", nil, ""}, "clients": {"3", nil, ""}, "cluster": {"3", nil, ""}, "compression": {"s2", nil, ""},
		"connect-timeout": {"9s", nil, ""}, "connection-name": {"x", nil, ""}, "consumer": {"other", nil, ""},
		"consumer-kind": {"push", []string{"--js"}, ""}, "context": {"ctx", nil, ""}, "create": {"", nil, ""},
		"creds": {"/tmp/u.creds", nil, ""}, "dedup": {"", nil, ""}, "dedup-window": {"1m", nil, ""}, "deliver": {"new", nil, ""},
		"deliver-group": {"grp", nil, ""}, "double-ack": {"", nil, ""}, "duration": {"2s", nil, ""},
		"fault": {"1s:kill:1", nil, ""}, "fault-exec": {"1s:true", nil, ""}, "fault-exec-timeout": {"5s", nil, ""},
		"filter": {"foo.x", nil, ""}, "flow-control": {"=false", nil, ""}, "force": {"", nil, ""},
		"gateway-delay": {"5ms", []string{"--gateways", "2"}, ""}, "gateways": {"2", nil, ""}, "header": {"K:V", nil, ""},
		"heartbeat": {"2s", nil, ""}, "history": {"3", nil, ""}, "idle-timeout": {"9s", nil, ""}, "inbox-prefix": {"_IN", nil, ""},
		"interval": {"2s", nil, ""}, "js": {"", nil, ""}, "js-api-prefix": {"$JS.x.API", nil, ""}, "js-domain": {"hub", nil, ""},
		"js-encryption": {"aes", nil, ""}, "js-event-prefix": {"ev", nil, ""}, "jwt": {"/tmp/u.jwt", []string{"--seed", "/tmp/u.seed"}, "/tmp/v.jwt"},
		"leafnodes": {"1", nil, ""}, "link-bandwidth": {"10mb", []string{"--cluster", "3"}, ""},
		"link-delay": {"5ms", []string{"--cluster", "3"}, ""}, "max-ack-pending": {"10", nil, ""},
		"max-inflight": {"10", rate, ""}, "max-outstanding-acks": {"5", nil, ""}, "maxbytes": {"1mb", nil, ""},
		"msgs": {"5", nil, ""}, "multisubject": {"", nil, ""}, "multisubject-max": {"10", []string{"--multisubject"}, ""},
		"multisubject-randomize": {"", []string{"--multisubject"}, ""}, "nkey": {"/tmp/u.nk", nil, ""},
		"no-context": {"", nil, ""}, "no-double-ack": {"", []string{"--double-ack"}, ""}, "no-latency": {"", nil, ""},
		"no-server-metrics": {"", nil, ""}, "no-tlsfirst": {"", []string{"--tlsfirst"}, ""}, "pace-precision": {"2ms", rate, ""},
		"password": {"secret", nil, ""}, "payload": {file, nil, ""}, "payload-fill": {"zeros", nil, ""}, "payload-random": {"", nil, ""},
		"pending-bytes": {"1000", nil, ""}, "pending-msgs": {"10", nil, ""}, "persistasync": {"", nil, ""}, "pub": {"2", nil, ""},
		"purge": {"", nil, ""}, "queue": {"q", nil, ""}, "ramp": {"1s", []string{"--rate", "100..200"}, "2s"}, "randomize": {"10", nil, ""},
		"rate": {"100", nil, ""}, "throughput": {"100", nil, ""}, "replicas": {"3", nil, ""}, "seed": {"/tmp/u.seed", []string{"--jwt", "/tmp/u.jwt"}, "/tmp/v.seed"},
		"server": {"nats://127.0.0.1:4222", nil, ""}, "server-b": {"nats://127.0.0.1:4223", nil, ""},
		"server-bin": {"/bin/true", nil, ""}, "server-metrics": {"http://127.0.0.1:8222", nil, ""},
		"server-version": {"v2.12.15", nil, ""}, "size": {"32", nil, ""}, "sleep": {"1ms", nil, ""}, "slo": {"loss=0", nil, ""},
		"socks-proxy": {"socks5://127.0.0.1:1080", nil, ""}, "stamp": {"header", nil, ""},
		"step-duration": {"1s", []string{"--steps", "100,200"}, "2s"}, "steps": {"100,200", []string{"--step-duration", "1s"}, "100,300"},
		"storage": {"memory", nil, ""}, "stream": {"other", nil, ""}, "sub": {"2", nil, ""}, "sub-sleep": {"1ms", nil, ""},
		"subject": {"lat", nil, ""}, "sync-interval": {"always", nil, ""}, "syncpub": {"", []string{"--js"}, ""},
		"sys-creds": {"/tmp/sys.creds", nil, ""}, "sys-user": {"sys", nil, ""}, "timeout": {"9s", nil, ""},
		"tls-insecure": {"", nil, ""}, "tlsca": {"/tmp/ca.pem", nil, ""}, "tlscert": {"/tmp/c.pem", []string{"--tlskey", "/tmp/k.pem"}, "/tmp/c2.pem"},
		"tlsfirst": {"", nil, ""}, "tlskey": {"/tmp/k.pem", []string{"--tlscert", "/tmp/c.pem"}, "/tmp/k2.pem"}, "token": {"tok", nil, ""}, "trace": {"", nil, ""},
		"user": {"u", nil, ""}, "verify": {"", nil, ""}, "warmup": {"1s", nil, ""},
		"zone-delay": {"1ms", []string{"--zones", "2", "--cluster", "3"}, ""}, "zones": {"2", []string{"--cluster", "3"}, ""},
	}
}

// TestSpecPrintsEveryFlag: for each benchmark command and each of its flags that is not
// process-only, 'natsperf spec CMD FLAG' prints another Spec than the command line without it,
// so the Spec is the whole run. The flags are the ones cmdline registers: a new flag fails
// here until it has a sample value (and reaches the Spec) or is listed as process-only.
func TestSpecPrintsEveryFlag(t *testing.T) {
	samples := flagSamples(t)
	ctx := context.Background()
	printed := map[string]cliRun{} // the lines without a flag repeat: each runs once
	spec := func(args []string, want int) (string, bool) {
		key := strings.Join(args, "\x00")
		r, ok := printed[key]
		if !ok {
			r = run(ctx, t, nil, append(append([]string{"spec"}, args...), "--json")...)
			printed[key] = r
		}
		if r.code != want {
			t.Errorf("natsperf spec %s: exit %d: %s", strings.Join(args, " "), r.code, strings.TrimSpace(r.err))
		}
		return r.out, r.code == 0
	}
	checked := 0
	for _, path := range cmdline.Commands() {
		base := strings.Fields(path)
		if n, _ := cmdline.NewCommand(path, cmdline.NewGlobals()).Args(); n == 1 {
			base = append(base, "foo")
		}
		var names []string
		add := func(f *pflag.Flag) { names = append(names, f.Name) }
		cmdline.NewCommand(path, cmdline.NewGlobals()).Flags().VisitAll(add)
		cmdline.NewGlobals().Flags().VisitAll(add)
		for _, name := range names {
			if _, ok := processOnly[name]; ok {
				continue
			}
			if _, ok := ignored[path+" --"+name]; ok {
				continue
			}
			s, ok := samples[name]
			if !ok {
				t.Errorf("%s --%s: no sample value: add one to flagSamples (or list it in processOnly)", path, name)
				continue
			}
			without := append(append([]string{}, base...), s.with...)
			if path == "pubsub" && pubsubJS[name] {
				without = append(without, "--js")
			}
			with := append(append([]string{}, without...), "--"+name)
			if v, ok := strings.CutPrefix(s.value, "="); ok { // a bool set to false
				with[len(with)-1] += "=" + v
			} else if s.value != "" {
				with = append(with, s.value)
			}
			if s.alt != "" {
				without = append(without, "--"+name, s.alt)
			}
			if refused[path+" --"+name] {
				spec(with, exitUsage)
				continue
			}
			a, okA := spec(without, 0)
			b, okB := spec(with, 0)
			if okA && okB && a == b {
				t.Errorf("natsperf spec %s: the same Spec as without --%s", strings.Join(with, " "), name)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("checked %d flags: want every benchmark command's", checked)
	}
}

// TestRustPathsAreRunnersKinds: cmdline puts --client on the commands natsperf-rust runs,
// which runner lists (cmdline sits below runner and keeps its own copy).
func TestRustPathsAreRunnersKinds(t *testing.T) {
	for _, path := range cmdline.Commands() {
		has := cmdline.NewCommand(path, cmdline.NewGlobals()).Flags().Lookup("client") != nil
		rust := false
		for _, k := range runner.RustKinds() {
			rust = rust || k == path
		}
		if has != rust {
			t.Errorf("%s: --client %v, but natsperf-rust runs it: %v", path, has, rust)
		}
	}
}
