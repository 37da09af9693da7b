package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/spec"
)

// subjectFlags are nats bench's multi-subject flags.
type subjectFlags struct {
	MultiSubject    bool `json:"multisubject"`
	MultiSubjectMax int  `json:"multisubject_max"`
	Randomize       bool `json:"multisubject_randomize"`
}

func (s *subjectFlags) register(f *pflag.FlagSet, withMax bool) {
	f.BoolVar(&s.MultiSubject, "multisubject", false, "publish to SUBJECT.N (N = message number modulo --multisubject-max); receivers subscribe to SUBJECT.>")
	if withMax {
		f.IntVar(&s.MultiSubjectMax, "multisubject-max", 100_000, "how many different subjects --multisubject uses")
		f.BoolVar(&s.Randomize, "multisubject-randomize", false, "with --multisubject: each message goes to a random one of the subjects instead of the next (also --multisubjectrandomize)")
	}
}

func (a *app) pubCmd() *cobra.Command {
	var bf benchFlags
	var sf subjectFlags
	var pf payloadFlags
	cmd := &cobra.Command{
		Use:   "pub SUBJECT",
		Short: "Publish core NATS messages as fast as possible or at a fixed rate",
		Long: `Publish --msgs messages of --size bytes, split across --clients publishers, each on
its own connection. Every message of 16 bytes or more starts with a stamp (publisher, sequence,
send time) so a 'natsperf sub' can measure end-to-end latency and count lost messages.`,
		Example: `  natsperf pub foo --size 16 --msgs 1000000
  natsperf pub foo --clients 4 --msgs 100k --size 16kb
  natsperf pub foo --rate 10000 --duration 3s      # fixed rate, for latency
  natsperf pub foo --rate 1000..5000 --ramp 2s --duration 2s --slo 'rate>=0.9'   # a ramp, judged
  natsperf pub foo --multisubject --multisubject-max 100`,
		Args: exactArgs(1, "one SUBJECT"),
		RunE: a.specRunE(func(cmd *cobra.Command, args []string) (*specRun, error) {
			if err := bf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			if err := validateSubjects(sf); err != nil {
				return nil, err
			}
			if err := pf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			if err := checkPublishSubject("SUBJECT", args[0]); err != nil {
				return nil, err
			}
			cfg := &spec.Pub{Subject: args[0], Size: size(bf, cmd.Flags()), MultiSubject: sf.MultiSubject, MultiSubjectMax: multiMax(sf, cmd.Flags()), MultiSubjectRandomize: sf.Randomize, Payload: pf.spec()}
			return &specRun{spec: a.newSpec(bf, cmd.Flags(), bf.Clients, cfg), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	bf.register(cmd.Flags(), true, false)
	sf.register(cmd.Flags(), true)
	registerPayloadFill(cmd.Flags())
	pf.register(cmd.Flags())
	return cmd
}

func validateSubjects(sf subjectFlags) error {
	if sf.MultiSubject && sf.MultiSubjectMax < 1 {
		return usagef("--multisubject-max must be at least 1, got %d", sf.MultiSubjectMax)
	}
	return nil
}

func (a *app) subCmd() *cobra.Command {
	var bf benchFlags
	var sf subjectFlags
	var queue string
	var pend pendingFlags
	cmd := &cobra.Command{
		Use:   "sub SUBJECT",
		Short: "Receive core NATS messages and measure throughput, latency and loss",
		Long: `Start --clients subscribers, each on its own connection and each expecting --msgs
messages (with --queue they share the messages in a queue group, so --msgs is then the total).
Measurement starts at the first message. A subscriber that gets nothing for --idle-timeout ends
and reports what arrived and what is missing; one that received none of what it expected exits
1. Run it against a
server (-s), then start a publisher in another terminal: 'natsperf server' runs one.`,
		Example: `  natsperf server &                                   # an embedded server on :4222
  natsperf sub foo -s nats://127.0.0.1:4222 --size 16 --msgs 1000000 &
  natsperf pub foo -s nats://127.0.0.1:4222 --size 16 --msgs 1000000
  natsperf sub bar -s nats://127.0.0.1:4222 --clients 4 --queue workers &   # share 100,000
  natsperf pub bar -s nats://127.0.0.1:4222 --clients 2`,
		Args: exactArgs(1, "one SUBJECT"),
		RunE: a.specRunE(func(cmd *cobra.Command, args []string) (*specRun, error) {
			if err := bf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			if err := pend.validate(); err != nil {
				return nil, err
			}
			if err := checkSubject("SUBJECT", args[0]); err != nil {
				return nil, err
			}
			cfg := &spec.Sub{
				Subject: args[0], Size: size(bf, cmd.Flags()), Queue: queue, MultiSubject: sf.MultiSubject, IdleTimeout: idle(bf, cmd.Flags()),
				PendingMsgs: int(pendingLimit(int64(pend.Msgs))), PendingBytes: spec.Size(pendingLimit(pend.Bytes)),
			}
			return &specRun{spec: a.newSpec(bf, cmd.Flags(), bf.Clients, cfg), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	bf.register(cmd.Flags(), false, true)
	sf.register(cmd.Flags(), false)
	cmd.Flags().StringVar(&queue, "queue", "", "join this queue group: the subscribers share the messages")
	registerHist(cmd.Flags(), &bf.Hist)
	pend.register(cmd.Flags())
	cmd.Flags().Lookup("sleep").Usage = "simulated processing time per received message, a slow subscriber (also --sub-sleep, as in pubsub)"
	aliasFlag(cmd.Flags(), "sub-sleep", "sleep")
	return cmd
}

func (a *app) pubsubCmd() *cobra.Command {
	var bf benchFlags
	var sf subjectFlags
	var pubs, subs int
	var queue string
	var jsf *jsPubsubFlags // --js and its flags (jspubsub.go)
	var pf payloadFlags
	var pend pendingFlags
	var subSleep time.Duration
	var ff faultFlags
	cmd := &cobra.Command{
		Use:   "pubsub SUBJECT",
		Short: "Publishers and subscribers in one process: throughput and end-to-end latency on one clock",
		Long: `Run --pub publishers and --sub subscribers in this process (the form of the older
'nats bench SUBJECT --pub N --sub M'). --msgs is the total the publishers send; every subscriber
expects all of them (with --queue, the subscribers share them). Latency is end to end, from the
stamp in each message, on one clock.`,
		Example: `  natsperf pubsub foo --pub 1 --sub 1 --size 16 --msgs 1000000
  natsperf pubsub foo --pub 1 --sub 5 --size 16
  natsperf pubsub foo --pub 2 --sub 2 --rate 20000 --duration 3s
  natsperf pubsub foo --steps 1000,2000,4000 --step-duration 1s --duration 3s --slo 'loss=0'   # per-step results
  natsperf pubsub foo --rate 2000 --arrivals poisson --arrivals-seed 7 --duration 2s --slo 'p99.9<1s'`,
		Args: exactArgs(1, "one SUBJECT"),
		RunE: a.specRunE(func(cmd *cobra.Command, args []string) (*specRun, error) {
			if err := bf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			if err := validateSubjects(sf); err != nil {
				return nil, err
			}
			if pubs < 1 || subs < 1 {
				return nil, usagef("--pub and --sub must each be at least 1 (got %d and %d)", pubs, subs)
			}
			if pubs > maxClients || subs > maxClients {
				return nil, usagef("--pub %d and --sub %d: each may be at most %d, as --clients", pubs, subs, maxClients)
			}
			if err := checkPublishSubject("SUBJECT", args[0]); err != nil {
				return nil, err
			}
			if err := pend.validate(); err != nil {
				return nil, err
			}
			if subSleep < 0 {
				return nil, usagef("--sub-sleep must not be negative")
			}
			if err := checkVerifySize(&ff, bf.Size); err != nil {
				return nil, err
			}
			if err := ff.parse(a, jsf.JS, ff.faultNodes(jsf.sf.Replicas)); err != nil {
				return nil, err
			}
			cfg := &spec.PubSub{
				Subject: args[0], Size: size(bf, cmd.Flags()), Pubs: pubs, Subs: subs, Queue: queue,
				MultiSubject: sf.MultiSubject, MultiSubjectMax: multiMax(sf, cmd.Flags()), IdleTimeout: idle(bf, cmd.Flags()),
				PendingMsgs: int(pendingLimit(int64(pend.Msgs))), PendingBytes: spec.Size(pendingLimit(pend.Bytes)),
				SubSleep: spec.Duration(subSleep), Payload: pf.spec(),
			}
			if err := pf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			s := a.newSpec(bf, cmd.Flags(), 0, cfg)
			if jsf.JS {
				if err := jsf.validate(); err != nil {
					return nil, err
				}
				cfg.JS = jsf.spec(cmd.Flags())
				s.Setup.Streams = []spec.Stream{jsf.sf.setupStream(cmd.Flags())}
			}
			return &specRun{spec: withFaults(s, &ff, cmd.Flags()), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	bf.register(cmd.Flags(), true, true)
	sf.register(cmd.Flags(), true)
	cmd.Flags().IntVar(&pubs, "pub", 1, "number of publishers")
	cmd.Flags().IntVar(&subs, "sub", 1, "number of subscribers")
	cmd.Flags().StringVar(&queue, "queue", "", "subscribers join this queue group and share the messages")
	jsf = registerJSPubsub(cmd.Flags())
	pf.register(cmd.Flags())
	registerHist(cmd.Flags(), &bf.Hist)
	pend.register(cmd.Flags())
	cmd.Flags().DurationVar(&subSleep, "sub-sleep", 0, "core NATS: simulated processing time per message in each subscriber (a slow subscriber)")
	ff.register(cmd.Flags())
	_ = cmd.Flags().MarkHidden("clients")
	return cmd
}

func (a *app) serviceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Request-reply benchmarks: serve answers requests, request sends them",
		Example: `  natsperf server &                                   # an embedded server on :4222
  natsperf service serve foo --clients 2 -s nats://127.0.0.1:4222 &
  natsperf service request foo --clients 50 --msgs 10000 --no-progress -s nats://127.0.0.1:4222`,
	}
	cmd.AddCommand(a.serveCmd(), a.requestCmd())
	return cmd
}

func (a *app) serveCmd() *cobra.Command {
	var bf benchFlags
	cmd := &cobra.Command{
		Use:   "serve SUBJECT",
		Short: "Answer requests on SUBJECT with --clients responders in a queue group",
		Long: `Start --clients responders in the queue group "natsperf-service". Each echoes the request
payload back after --sleep (simulated processing time). They serve until Ctrl-C (or SIGTERM),
or until --msgs requests are served in total when --msgs is given, then print what they served.`,
		Example: `  natsperf service serve foo --clients 2 -s nats://127.0.0.1:4222      # until Ctrl-C
  natsperf service serve foo --sleep 1ms -s nats://127.0.0.1:4222 --msgs 10000`,
		Args: exactArgs(1, "one SUBJECT"),
		RunE: a.specRunE(func(cmd *cobra.Command, args []string) (*specRun, error) {
			if err := bf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			if err := checkSubject("SUBJECT", args[0]); err != nil {
				return nil, err
			}
			cfg := &spec.ServiceServe{Subject: args[0], Size: size(bf, cmd.Flags())}
			return &specRun{spec: a.newSpec(bf, cmd.Flags(), bf.Clients, cfg), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	bf.register(cmd.Flags(), false, false)
	return cmd
}

func (a *app) requestCmd() *cobra.Command {
	var bf benchFlags
	var timeout time.Duration
	var maxInflight int
	var pf payloadFlags
	cmd := &cobra.Command{
		Use:   "request SUBJECT",
		Short: "Send synchronous requests to SUBJECT and measure each round trip",
		Long: `Start --clients requesters, each sending its share of --msgs requests one at a time and
recording each round trip in a latency histogram. With --rate the requests follow a fixed
schedule and latency counts from each request's intended send time, so a slow service shows
in the percentiles instead of silently lowering the rate.`,
		Example: `  natsperf service serve foo -s nats://127.0.0.1:4222 &               # responders, until Ctrl-C
  natsperf service request foo -s nats://127.0.0.1:4222 --msgs 10000
  natsperf service request foo --clients 50 --size 16 --msgs 10000 --no-progress -s nats://127.0.0.1:4222
  natsperf service request foo --rate 2000 --duration 3s -s nats://127.0.0.1:4222
  natsperf service request foo --rate 2000 --duration 3s --max-inflight 200 --slo 'p99<50ms' -s nats://127.0.0.1:4222`,
		Args: exactArgs(1, "one SUBJECT"),
		RunE: a.specRunE(func(cmd *cobra.Command, args []string) (*specRun, error) {
			if err := bf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			if timeout <= 0 {
				return nil, usagef("--timeout must be positive")
			}
			if err := checkPublishSubject("SUBJECT", args[0]); err != nil {
				return nil, err
			}
			if err := pf.validate(cmd.Flags()); err != nil {
				return nil, err
			}
			cfg := &spec.ServiceRequest{Subject: args[0], Size: size(bf, cmd.Flags()), Payload: pf.spec()}
			if timeout != 5*time.Second { // --timeout or --ack-timeout
				cfg.Timeout = spec.Duration(timeout)
			}
			return &specRun{spec: withMaxInflight(a.newSpec(bf, cmd.Flags(), bf.Clients, cfg), cmd.Flags(), maxInflight), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	bf.register(cmd.Flags(), true, false)
	registerMaxInflight(cmd.Flags(), &maxInflight)
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for each reply; a timeout is counted and the requester goes on (also --ack-timeout)")
	// --ack-timeout (and so nats bench's --jstimeout) is what the JetStream and KV commands call it.
	cmd.Flags().DurationVar(&timeout, "ack-timeout", 5*time.Second, "the same as --timeout")
	_ = cmd.Flags().MarkHidden("ack-timeout")
	registerHist(cmd.Flags(), &bf.Hist)
	pf.register(cmd.Flags())
	return cmd
}

// warnPrivate says, for a command that needs a second process (a publisher, a responder, a
// requester), that the embedded server it just started is reachable by nobody else: a user
// who ran 'sub' and 'pub' in two terminals without -s otherwise waits forever or reads
// "no responders" and blames the subject.
func warnPrivate(w io.Writer, embedded bool, command string) {
	if !embedded {
		return
	}
	other, ok := map[string]string{
		"sub":             "publish to it, so this subscriber receives nothing and ends after --idle-timeout (exit 1)",
		"service serve":   "send requests to it, so these responders wait until Ctrl-C",
		"service request": "answer on it, so every request finds no responders",
	}[command]
	if !ok {
		return
	}
	fmt.Fprintf(w, "natsperf: this embedded server is private to this process: no other natsperf can %s. For two terminals, run 'natsperf server' and pass -s nats://127.0.0.1:4222 to both commands.\n", other)
}
