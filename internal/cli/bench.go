package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/cmdline"
)

// benchCompat is the older single-command syntax, 'nats bench SUBJECT --pub N --sub M [--js]',
// still in guides (seed 001). It only translates: the arguments become one natsperf command
// (pubsub, pub, sub, js ..., service ..., kv ...), which then runs as if typed.
type benchCompat struct {
	pubs, subs                                  int
	js, kv, request, reply, syncpub, pull, push bool
}

// consumed are the bench flags that choose the command rather than pass through.
var benchChoosers = map[string]bool{"pub": true, "sub": true, "js": true, "kv": true, "request": true, "reply": true, "syncpub": true, "pull": true, "push": true}

func (a *app) benchCmd() *cobra.Command {
	var o benchCompat
	cmd := &cobra.Command{
		Use:   "bench SUBJECT",
		Short: "The older 'nats bench SUBJECT --pub N --sub M [--js]' syntax, run as the matching natsperf command",
		Long: `Accepts the single-command syntax of older nats bench versions and its flag names, prints the
natsperf command it stands for, and runs that:
  --pub N --sub M         pubsub SUBJECT --pub N --sub M   (both in one process)
  --pub N                 pub SUBJECT --clients N
  --sub M                 sub SUBJECT --clients M          (each expects --msgs)
  --js --pub N --sub M    pubsub SUBJECT --js ...          (--pull/--push: --consumer-kind)
  --js --pub N            js pub async|sync SUBJECT        (--syncpub: sync; benchstream is created)
  --js --sub M            js ordered|fetch|push            (--pull: fetch, --push: push)
  --request --pub N       service request SUBJECT
  --reply --sub M         service serve SUBJECT
  --kv --pub N | --sub M  kv put | kv get
Old flag names are accepted: --pubbatch/--consumerbatch/--pullbatch (--batch), --jstimeout
(--ack-timeout), --pubsleep (--sleep), --subsleep (--sub-sleep), --maxackpending,
--multisubjectmax, --dedupwindow, --doubleack, and nats bench 0.5's --throughput (--rate),
--payload FILE, -H/--header K:V, --multisubjectrandomize. --csv FILE writes nats bench's
per-client CSV (every command has it).`,
		Example: `  natsperf bench foo --pub 1 --sub 1 --size 16
  natsperf bench foo --pub 5 --sub 5 --size 16 --msgs 100000
  natsperf bench bar --js --pub 1 --sub 1 --size 16 --msgs 10000 --pubbatch 100
  natsperf bench foo --pub 2 --msgs 10000 --csv bench.csv
  natsperf bench foo --pub 1 --sub 1 --msgs 10000 --throughput 5000 -H X-App:bench`,
		Args: exactArgs(1, "one SUBJECT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			local := cmd.LocalNonPersistentFlags() // the root's flags (-s, --csv, ...) are already set
			argv, err := o.translate(local, args[0])
			if err != nil {
				return err
			}
			target, rest, err := cmd.Root().Find(argv)
			if err != nil || target == cmd.Root() || target.RunE == nil {
				return fmt.Errorf("natsperf bench: no command for %q", strings.Join(argv, " "))
			}
			if err := checkApplies(local, target); err != nil {
				return err
			}
			fmt.Fprintf(a.streams.Err, "natsperf bench: running 'natsperf %s'\n", strings.Join(argv, " "))
			if err := target.ParseFlags(rest); err != nil {
				return err // already a usage error (the root's flag error function)
			}
			target.SetContext(runCtx(cmd))
			pos := target.Flags().Args()
			if err := target.ValidateArgs(pos); err != nil {
				return err
			}
			return target.RunE(target, pos)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.pubs, "pub", 0, "number of publishers (requesters with --request, putters with --kv)")
	f.IntVar(&o.subs, "sub", 0, "number of subscribers (responders with --reply, getters with --kv)")
	f.BoolVar(&o.js, "js", false, "JetStream: publish to and consume from a stream (--stream, default benchstream)")
	f.BoolVar(&o.kv, "kv", false, "KV: publishers put, subscribers get (--bucket)")
	f.BoolVar(&o.request, "request", false, "request-reply: publishers send requests (service request)")
	f.BoolVar(&o.reply, "reply", false, "request-reply: subscribers reply (service serve)")
	f.BoolVar(&o.syncpub, "syncpub", false, "with --js: publish synchronously")
	f.BoolVar(&o.pull, "pull", false, "with --js: subscribers share a durable pull consumer")
	f.BoolVar(&o.push, "push", false, "with --js: subscribers share a durable push consumer")
	// Passed through, as typed, to the command chosen; it validates them.
	for _, s := range []struct{ name, usage string }{
		{"msgs", "number of messages (publishers: the total; each core subscriber: expects this many)"},
		{"size", "message size (16, 16kb, ...)"},
		{"stream", "with --js: the stream (default benchstream, created when missing)"},
		{"storage", "with --js/--kv: file or memory"},
		{"replicas", "with --js/--kv: replicas of the stream or bucket natsperf creates"},
		{"maxbytes", "with --js: maximum size of the stream natsperf creates"},
		{"bucket", "with --kv: the bucket"},
		{"consumer", "with --js --sub and --pull/--push: the durable consumer name"},
		{"batch", "with --js: async publish window and messages per pull (--pubbatch, --consumerbatch)"},
		{"max-ack-pending", "with --js --pull/--push: the consumer's max ack pending (--maxackpending)"},
		{"ack-timeout", "with --js/--kv: how long to wait for each ack (--jstimeout)"},
		{"sleep", "publishers sleep this long between messages (--pubsleep)"},
		{"sub-sleep", "with --pub and --sub: each subscriber sleeps this long per message (--subsleep)"},
		{"history", "with --kv: history of the bucket natsperf creates"},
		{"multisubject-max", "with --multisubject: how many subjects (--multisubjectmax)"},
		{"dedup-window", "with --js: the stream's duplicate window (--dedupwindow)"},
		{"rate", "publishers: a fixed total rate in messages per second (--throughput)"},
		{"duration", "publishers: run this long"},
		{"payload", "publishers: send this file's bytes (the stamp rides in a header)"},
		{"stamp", "publishers: where the stamp rides, payload or header"},
	} {
		f.String(s.name, "", s.usage)
	}
	for _, s := range []struct{ name, usage string }{
		{"purge", "with --js: purge the stream first (pubsub --js reads only its own messages and does not need it)"},
		{"multisubject", "publish to SUBJECT.N"},
		{"dedup", "with --js: set a message id for de-duplication"},
		{"double-ack", "with --js --pull/--push: wait for each ack to be confirmed (--doubleack)"},
		{"multisubject-randomize", "with --multisubject: a random subject per message (--multisubjectrandomize)"},
		{"payload-random", "publishers: random, incompressible payloads"},
	} {
		f.Bool(s.name, false, s.usage)
	}
	f.StringArrayP("header", "H", nil, "publishers: add a header KEY:VALUE (repeatable)")
	cmdline.AliasFlag(f, "throughput", "rate")
	return cmd
}

// translate builds the natsperf arguments for the old syntax.
func (o *benchCompat) translate(f *pflag.FlagSet, subject string) ([]string, error) {
	p, s := strconv.Itoa(o.pubs), strconv.Itoa(o.subs)
	modes := 0
	for _, on := range []bool{o.js, o.kv, o.request, o.reply} {
		if on {
			modes++
		}
	}
	switch {
	case o.pubs < 0 || o.subs < 0:
		return nil, usagef("--pub and --sub must not be negative")
	case o.pubs == 0 && o.subs == 0:
		return nil, usagef("natsperf bench needs at least one publisher or subscriber: add --pub 1 and/or --sub 1")
	case modes > 1:
		return nil, usagef("--js, --kv, --request and --reply exclude each other")
	case o.pull && o.push:
		return nil, usagef("the durable consumer is either --pull or --push, not both")
	case (o.pull || o.push || o.syncpub) && !o.js:
		return nil, usagef("--pull, --push and --syncpub need --js")
	}
	var argv []string
	both := o.pubs > 0 && o.subs > 0
	switch {
	case o.request || o.reply:
		if both || (o.request && o.subs > 0) || (o.reply && o.pubs > 0) {
			return nil, usagef("request-reply runs as two commands: 'natsperf bench %s --reply --sub N' (service serve), then 'natsperf bench %s --request --pub N' (service request)", subject, subject)
		}
		argv = []string{"service", "request", subject, "--clients", p}
		if o.reply {
			argv = []string{"service", "serve", subject, "--clients", s}
		}
	case o.kv:
		if both {
			return nil, usagef("with --kv, run the puts and the gets as two commands: --pub N (kv put), then --sub M (kv get)")
		}
		argv = []string{"kv", "put", "--clients", p}
		if o.subs > 0 {
			argv = []string{"kv", "get", "--clients", s}
		}
	case o.js && both:
		argv = []string{"pubsub", subject, "--js", "--pub", p, "--sub", s}
		if o.syncpub {
			argv = append(argv, "--syncpub")
		}
		if o.pull || o.push {
			argv = append(argv, "--consumer-kind", map[bool]string{true: "pull", false: "push"}[o.pull])
		}
	case o.js && o.pubs > 0:
		argv = []string{"js", "pub", map[bool]string{true: "sync", false: "async"}[o.syncpub], subject, "--clients", p}
		if !f.Changed("stream") {
			argv = append(argv, "--create") // nats bench created its benchstream
		}
	case o.js:
		kind := "ordered"
		if o.pull {
			kind = "fetch"
		} else if o.push {
			kind = "push"
		}
		argv = []string{"js", kind, "--clients", s}
	case both:
		argv = []string{"pubsub", subject, "--pub", p, "--sub", s}
	case o.pubs > 0:
		argv = []string{"pub", subject, "--clients", p}
	default:
		argv = []string{"sub", subject, "--clients", s}
	}
	var err error
	f.VisitAll(func(fl *pflag.Flag) {
		if alias := cmdline.IsAlias(fl.Value); !fl.Changed || benchChoosers[fl.Name] || err != nil || alias {
			return // an alias set its flag, which passes through
		}
		if fl.Name == "purge" && argv[0] == "pubsub" {
			return // pubsub --js consumes from the stream's next sequence: nothing to purge
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				argv = append(argv, "--"+fl.Name+"="+v)
			}
			return
		}
		argv = append(argv, "--"+fl.Name+"="+fl.Value.String())
	})
	return argv, err
}

// checkApplies refuses a passed-through flag the chosen command does not have.
func checkApplies(f *pflag.FlagSet, target *cobra.Command) error {
	var err error
	f.VisitAll(func(fl *pflag.Flag) {
		alias := cmdline.IsAlias(fl.Value)
		if err != nil || !fl.Changed || benchChoosers[fl.Name] || alias || (fl.Name == "purge" && target.Name() == "pubsub") {
			return
		}
		if target.Flags().Lookup(fl.Name) == nil {
			err = usagef("--%s does not apply to 'natsperf %s' (what these nats bench flags run)", fl.Name, target.CommandPath()[len("natsperf "):])
		}
	})
	return err
}
