package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// natsBenchPage is one `nats bench ... --help` page of natscli v0.5.1 (testdata/natsbench).
type natsBenchPage struct {
	command []string    // "js", "pub", "sync"
	args    bool        // takes <subject>
	subs    []string    // subcommands of a group
	flags   []benchFlag // its own flags and the global ones
}

type benchFlag struct {
	name    string // without dashes
	negates bool   // kingpin's --[no-]name: --no-name exists too
	value   bool   // takes a value (--name=VALUE)
	def     string // the default shown (--msgs=100000), unquoted
}

var (
	helpFlagLine = regexp.MustCompile(`^\s+(?:-\w, )?--(\[no-\])?([\w-]+)(=(\S+))?`)
	helpSubLine  = regexp.MustCompile(`^\s+bench (.+?)\s{2,}`)
)

// readNatsBenchPages parses every page: the flags under "Flags:" and "Global Flags:", the
// subcommands under "Subcommands:".
func readNatsBenchPages(t *testing.T) []natsBenchPage {
	t.Helper()
	files, err := filepath.Glob("testdata/natsbench/bench*.txt")
	if err != nil || len(files) < 20 {
		t.Fatalf("nats bench help pages: %v (%d files)", err, len(files))
	}
	var pages []natsBenchPage
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var p natsBenchPage
		p.command = strings.Split(strings.TrimPrefix(strings.TrimSuffix(filepath.Base(file), ".txt"), "bench"), "_")[1:]
		section := ""
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "usage:"):
				p.args = strings.Contains(line, "<subject>")
			case line != "" && !strings.HasPrefix(line, " "):
				section = line
			case section == "Subcommands:":
				if m := helpSubLine.FindStringSubmatch(line); m != nil {
					words := strings.Fields(m[1])
					p.subs = append(p.subs, words[len(words)-1])
				}
			case section == "Flags:" || section == "Global Flags:":
				if m := helpFlagLine.FindStringSubmatch(line); m != nil {
					p.flags = append(p.flags, benchFlag{name: m[2], negates: m[1] != "", value: m[3] != "", def: strings.Trim(m[4], `"`)})
				}
			}
		}
		pages = append(pages, p)
	}
	return pages
}

// natsBenchSample are values for flags whose help shows no default (or one natsperf cannot
// use as given), and the flags a value needs beside it, as nats bench needs them too.
func natsBenchSample(t *testing.T, name string) []string {
	dir := t.TempDir()
	file := func(content string) string {
		p := filepath.Join(dir, name+".file")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	switch name {
	case "payload":
		return []string{"--payload", file("hello")}
	case "header":
		return []string{"--header", "K:V", "-H", "Other:v2"}
	case "csv":
		return []string{"--csv", filepath.Join(dir, "bench.csv")}
	case "sleep":
		return []string{"--sleep", "1ms"}
	case "throughput":
		return []string{"--throughput", "1000"}
	case "duration":
		return []string{"--duration", "2s", "--throughput", "1000"}
	case "jwt", "seed":
		return []string{"--jwt", filepath.Join(dir, "user.jwt"), "--seed", filepath.Join(dir, "user.nk")}
	case "server":
		return []string{"--server", "nats://127.0.0.1:4222"}
	case "user", "password":
		return []string{"--user", "u", "--password", "p"}
	case "token":
		return []string{"--token", "t"}
	case "creds", "nkey", "tlsca":
		return []string{"--" + name, filepath.Join(dir, name)}
	case "tlscert", "tlskey":
		return []string{"--tlscert", filepath.Join(dir, "cert.pem"), "--tlskey", filepath.Join(dir, "key.pem")}
	case "connection-name":
		return []string{"--connection-name", "bench"}
	case "socks-proxy":
		return []string{"--socks-proxy", "socks5://127.0.0.1:1080"}
	case "js-api-prefix", "js-event-prefix", "inbox-prefix":
		return []string{"--" + name, "pfx"}
	case "js-domain":
		return []string{"--js-domain", "hub"}
	case "context":
		return []string{"--context", "none"}
	case "colors":
		return []string{"--colors", "nocolor"}
	case "filter":
		return []string{"--filter", "foo.>"}
	case "maxbytes":
		return []string{"--maxbytes", "1GB"}
	case "size":
		return []string{"--size", "128B"}
	case "consumer":
		return []string{"--consumer", "nats-bench"}
	}
	return nil
}

// natsBenchNotRun are nats bench's global flags that a benchmark command does not get: the
// nats CLI's own (natsperf has 'natsperf version' and 'natsperf COMMAND --help').
var natsBenchNotRun = map[string]string{
	"help":    "cobra's -h/--help",
	"version": "natsperf version",
}

// natsBenchDiffers are the flags a natsperf command refuses on purpose, with what its refusal
// (one line, exit 2) and its --help say: where nats bench would fail later or do something
// else.
var natsBenchDiffers = map[string]string{
	"js pub atomic --persistasync": "the server forbids",
	"js pub batch --persistasync":  "the server forbids",
}

// TestNatsBenchParity: every subcommand and flag of nats bench v0.5.1 (its help pages, checked
// in) is accepted by natsperf's matching command: 'natsperf spec COMMAND --flag value' builds a
// Spec (the same validation a run does) for each flag alone, with the value its help shows.
func TestNatsBenchParity(t *testing.T) {
	pages := readNatsBenchPages(t)
	root := newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})
	for _, p := range pages {
		for _, sub := range p.subs {
			path := append(slices.Clone(p.command), sub)
			if c, rest, err := root.Find(path); err != nil || len(rest) > 0 || c.Name() != sub {
				t.Errorf("natsperf %s: no such command (nats bench has it)", strings.Join(path, " "))
			}
		}
		if len(p.subs) > 0 || len(p.command) == 0 {
			continue // a group: its flags are on its leaves' pages too
		}
		base := slices.Clone(p.command)
		if p.args {
			base = append(base, "parity.subject")
		}
		for _, f := range p.flags {
			if _, skip := natsBenchNotRun[f.name]; skip {
				continue
			}
			var forms [][]string
			switch {
			case natsBenchSample(t, f.name) != nil:
				forms = append(forms, natsBenchSample(t, f.name))
			case f.value:
				forms = append(forms, []string{"--" + f.name + "=" + f.def})
			default:
				forms = append(forms, []string{"--" + f.name})
			}
			if f.negates {
				forms = append(forms, []string{"--no-" + f.name})
			}
			for _, form := range forms {
				argv := append(append([]string{"spec"}, base...), form...)
				r := run(context.Background(), t, nil, argv...)
				if why, ok := natsBenchDiffers[strings.Join(p.command, " ")+" "+form[0]]; ok {
					help := run(context.Background(), t, nil, append(slices.Clone(p.command), "--help")...)
					if r.code != exitUsage || !strings.Contains(r.err, why) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 || !strings.Contains(help.out, form[0]) {
						t.Errorf("natsperf %s: exit %d %q; a deliberate difference is refused on one line saying %q, and --help names %s", strings.Join(argv, " "), r.code, r.err, why, form[0])
					}
					continue
				}
				if r.code != exitOK {
					t.Errorf("natsperf %s: exit %d: %s", strings.Join(argv, " "), r.code, strings.TrimSpace(r.err))
				}
			}
		}
	}
}
